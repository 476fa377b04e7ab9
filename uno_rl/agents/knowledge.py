"""What a seat knows of the other hands from public events: a search agent's memory.

Two kinds of knowledge, kept per game slot (the first axis) and seat, and turned into the
``known`` and ``void`` constraints of :func:`~uno_rl.agents.determinize.determinize`:

* **Revealed cards.** When this seat's challenge shows it a +4 player's hand, those cards stay
  known to be held, less any card of the same kind that reached the discard pile since.
* **Voids.** A player who draws in the play phase held nothing playable then (certain when
  the rules forbid drawing with a playable card, ``voluntary_draw = false``; an assumption
  about the others otherwise, ``infer_draws``: the zoo's heuristics draw only when they must).
  The void covers the cards it held then (``old``, its hand size before the draw): later
  draws are new cards; a card it plays that the void allows may have been one of the old
  ones, so ``old`` shrinks by one; a card the void forbids was a new one. A later draw in
  the play phase sets a new void over the whole hand (joined with the old one if every card
  was still an old one). A player who plays a wild (a +4 included) in the play phase held no
  playable colored card (an assumption, ``infer_wilds``: ``color-first`` and ``rule`` play
  wilds last): a void over the colored matches of the top card and color, covering the cards
  it keeps (joined with the old void if every one of them was an old card).

Everything comes from the state as the seat sees it and the actions as they are played
(:func:`watch`, called before every step by the evaluator, the terminal game and replays,
with the action each actor chose: public, except which card a draw gave). Knowledge is
forgotten at a new round, a reshuffle (revealed cards), a Shuffle Hands, and for the seats
of a Swap Hands.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from uno_rl.core.actions import DRAW
from uno_rl.core.phases import PLAY
from uno_rl.core.state import State

__all__ = ["constraints", "new_knowledge", "playable_kinds", "watch"]


def new_knowledge(num_games: int, players: int, kinds: int) -> dict[str, np.ndarray]:
    """A fresh memory of ``num_games`` slots (nothing known)."""
    return {
        "round": np.full(num_games, -1, np.int64),
        "last_discard": np.zeros((num_games, kinds), np.int16),
        "reveal_base": np.zeros((num_games, kinds), np.int16),
        "reveal_challenges": np.full(num_games, -1, np.int32),
        "reveal_reshuffles": np.zeros(num_games, np.int32),
        "void": np.zeros((num_games, players, kinds), bool),
        "old": np.zeros((num_games, players), np.int16),
    }


def playable_kinds(state: State, games: np.ndarray) -> np.ndarray:
    """(k, K) bool: kinds a player could play in the play phase of ``games`` on the current top
    card and color, whatever the rest of its hand: colored matches and the wilds; a +4 too
    where it is always playable (challenge rules), left out where its legality depends on the
    hand (nothing can be inferred about it)."""
    layout, games = state.rules.layout, np.asarray(games, np.int64)
    top = state.top[games].astype(np.int64)
    color = state.color[games].astype(np.int64)
    out = layout.matches[top, color].copy()
    out |= layout.always_playable[None, :]
    if state.rules.challenge_enabled:
        out |= layout.draw_four_like[None, :]
    return out


def _forget_new_rounds(memory: Mapping[str, np.ndarray], rows: np.ndarray, state: State,
                       games: np.ndarray) -> None:  # fmt: skip
    """Matches go on in the same slot: what was known of the last round is forgotten."""
    key = state.round_index[games].astype(np.int64)
    new = memory["round"][rows] != key
    if new.any():
        fresh = new_knowledge(1, memory["void"].shape[1], memory["void"].shape[2])
        for name, array in fresh.items():  # a memory may hold more (:mod:`.belief`: its own)
            memory[name][rows[new]] = array[0]
        memory["round"][rows[new]] = key[new]


def watch(
    memory: Mapping[str, np.ndarray],
    rows: np.ndarray,
    state: State,
    games: np.ndarray,
    observer: np.ndarray,
    actions: np.ndarray,
    infer_draws: bool = True,
    infer_wilds: bool = False,
) -> None:
    """Update the memory slots ``rows`` (k,) of seat ``observer`` (k,) with the actions (k,)
    the actors of ``games`` (k,) are about to play (called before the step). ``infer_draws``
    and ``infer_wilds``: the assumptions of the module docstring."""
    rows, games = np.asarray(rows, np.int64), np.asarray(games, np.int64)
    observer, actions = np.asarray(observer, np.int64), np.asarray(actions, np.int64)
    _forget_new_rounds(memory, rows, state, games)
    actor = state.actor[games].astype(np.int64)
    other = actor != observer
    layout = state.rules.layout
    hand = state.hand_size[games, actor].astype(np.int16)
    # A card played: an old card unless the void forbids its kind.
    kind = layout.action_card[np.clip(actions, 0, layout.num_actions - 1)].astype(np.int64)
    played = other & (kind >= 0)
    if played.any():
        r, s = rows[played], actor[played]
        allowed_old = ~memory["void"][r, s, kind[played]]
        memory["old"][r, s] = np.maximum(memory["old"][r, s] - allowed_old.astype(np.int16), 0)
    # A draw in the play phase: a void over the hand held then.
    informative = infer_draws or not state.rules.voluntary_draw
    drew = other & (actions == DRAW) & (state.phase[games] == PLAY) & informative
    if drew.any():
        r, s = rows[drew], actor[drew]
        void = playable_kinds(state, games[drew])
        still_all_old = memory["old"][r, s] >= hand[drew]
        void |= memory["void"][r, s] & still_all_old[:, None]
        memory["void"][r, s] = void
        memory["old"][r, s] = hand[drew]
    # A wild played in the play phase: none of the colored matches among the cards kept.
    wild = played & layout.names_color[np.maximum(kind, 0)] & (state.phase[games] == PLAY)
    if infer_wilds and wild.any():
        r, s = rows[wild], actor[wild]
        kept = hand[wild] - 1
        void = playable_kinds(state, games[wild]) & ~layout.names_color[None, :]
        still_all_old = memory["old"][r, s] >= kept
        void |= memory["void"][r, s] & still_all_old[:, None]
        memory["void"][r, s] = void
        memory["old"][r, s] = kept
    # Swaps and shuffles move hands: what was known of them is gone.
    shuffled = state.shuffled[games]
    for slot in range(2):
        swapped = state.swap_seats[games, slot].astype(np.int64)
        hit = swapped >= 0
        memory["old"][rows[hit], swapped[hit]] = 0
    memory["old"][rows[shuffled]] = 0


def constraints(
    memory: Mapping[str, np.ndarray] | None, rows: np.ndarray | None, state: State,
    games: np.ndarray,
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:  # fmt: skip
    """``(known (k, P, K), void (k, P, K), old (k, P))`` for the acting seats of ``games``
    (None, None, None without a memory); brings the revealed-hand memory up to date (call it
    at each of the seat's decisions)."""
    if memory is None:
        return None, None, None
    rows, games = np.asarray(rows, np.int64), np.asarray(games, np.int64)
    _forget_new_rounds(memory, rows, state, games)
    seat = state.actor[games].astype(np.int64)
    k, p, kinds = games.size, state.rules.players, state.hands.shape[2]
    challenges = state.stats[games, 2, seat]  # challenges this seat made this round
    mine = state.reveal_viewer[games].astype(np.int64) == seat
    fresh = mine & (memory["reveal_challenges"][rows] != challenges)
    memory["reveal_base"][rows[fresh]] = memory["last_discard"][rows[fresh]]
    memory["reveal_challenges"][rows[fresh]] = challenges[fresh]
    memory["reveal_reshuffles"][rows[fresh]] = state.reshuffles[games[fresh]]
    discard = state.discard[games].astype(np.int16)
    memory["last_discard"][rows] = discard
    target = state.reveal_target[games].astype(np.int64)
    valid = mine & (memory["reveal_challenges"][rows] == challenges)
    valid &= memory["reveal_reshuffles"][rows] == state.reshuffles[games]
    valid &= ~state.shuffled[games]
    valid &= ~(state.swap_seats[games] == target[:, None]).any(axis=1)
    known = np.zeros((k, p, kinds), np.int16)
    if valid.any():
        v = np.flatnonzero(valid)
        played_since = discard[v] - memory["reveal_base"][rows[v]]
        still = np.maximum(state.revealed[games[v]].astype(np.int16) - played_since, 0)
        known[v, target[v]] = np.minimum(still, state.hand_size[games[v], target[v]][:, None])
    old = np.minimum(memory["old"][rows], state.hand_size[games]).astype(np.int64)
    old[np.arange(k), seat] = 0
    return known, memory["void"][rows].copy(), old
