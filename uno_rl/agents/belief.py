"""What a seat believes of the other hands: weighted particles, updated at every public event.

Drawn uniformly, a world deals the other hands at random, yet a player's plays say a great deal
about its hand (``color-first`` plays the color it holds most of, action cards before numbers,
wilds last, and names the color it holds most of). Playing with the other hands visible is
worth about +36 net points a round against ``color-first`` at 2 players where uniform worlds
gain about +3 (docs: Results, search agents): the worlds matter more than anything else the search does.

So a search agent's memory keeps, per game slot, ``N`` *particles*: guesses of every other
hand (the observer's own is known), each with a log-weight. At each public event
(:func:`observe_event`, called before every step with the action about to be played):

* a new round (or the first event of a slot) deals ``N`` particles uniformly
  (:func:`~uno_rl.agents.determinize.determinize` from the observer's seat);
* :func:`sync` keeps every particle consistent with what the observer sees: a card the
  particle gives another seat that the observer now sees elsewhere (its own hand, the discard
  pile) is taken out, a hand that grew (a draw, a penalty) gets cards drawn at random from
  the particle's unseen pool, a hand that shrank loses cards at random;
* another seat's decision multiplies each particle's weight by ``floor + (1 - floor) * q``,
  ``q`` the share of ``samples`` draws of a *model* agent (the rollout agent by default: the
  heuristics break ties at random) that, holding the particle's hand for that seat in the
  public position (:func:`public_snapshot`), take the action the seat took; a card it played
  leaves the particle's hand. Each particle keeps one log-weight per seat (the model's
  explanation of that seat's decisions depends on that seat's hand alone): a seat's hands are
  resampled (systematic) among the particles when fewer than half of them carry its weight
  (effective sample size), the other seats' hands staying where they are, and :func:`sync`
  then mends the cards two seats' hands now both claim. A particle's weight is the product
  of its seats' weights. With one joint weight, three hidden hands at 4 players shared every
  resampling: a seat whose decisions said little lost its variety to another's.

At a decision, the worlds take their other hands from particles drawn by weight
(:meth:`uno_rl.agents.search.SearchAgent.worlds`); the draw pile is dealt afresh. A hand swap
or shuffle in the round (extension decks) switches the particles of that game off: the
worlds then follow the knowledge of :mod:`.knowledge` alone.

Everything used is public or the observer's own (hand sizes, the discard pile, the public
position with every hand blanked, the actions), with the memory's own generator: two games
that differ only in hidden cards update the memory identically (tested).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from uno_rl.core import engine
from uno_rl.core.phases import DRAWN
from uno_rl.core.rules import Rules
from uno_rl.core.state import State

from .base import Agent
from .determinize import clear_hidden_records, deal_unseen, determinize
from .playout import rollout_actions
from .search_budget import WORLD_BATCH_BYTES, worlds_at_once

__all__ = [
    "Belief",
    "current_belief",
    "new_belief",
    "observe_event",
    "public_snapshot",
    "resample",
    "sync",
]

#: Floor of a log-weight (a particle that explains nothing still has weight exp(-700)).
_LOG_FLOOR = -700.0


def new_belief(num_games: int, rules: Rules, particles: int) -> dict[str, np.ndarray]:
    """Empty beliefs for ``num_games`` (n) slots of ``particles`` (N) particles:
    ``belief_hands`` (n, N, P, K) int8, ``belief_log_weight`` (n, N, P) float64 (per seat),
    ``belief_round`` (n,) int64 (the round they are of; -1: none), ``belief_off`` (n,) bool
    (hands moved this round), ``belief_tick`` (n,) int64 (events seen: seeds the updates)."""
    p, kinds = rules.players, rules.layout.num_kinds
    return {
        "belief_hands": np.zeros((num_games, particles, p, kinds), np.int8),
        "belief_log_weight": np.zeros((num_games, particles, p), np.float64),
        "belief_round": np.full(num_games, -1, np.int64),
        "belief_off": np.zeros(num_games, bool),
        "belief_tick": np.zeros(num_games, np.int64),
    }


class Belief(NamedTuple):
    """The particles of k decisions: ``hands`` (k, N, P, K) int8, ``log_weight`` (k, N)
    float64, ``on`` (k,) bool (particles of this round, hands not moved)."""

    hands: np.ndarray
    log_weight: np.ndarray
    on: np.ndarray

    def take(self, rows: np.ndarray) -> Belief:
        return Belief(self.hands[rows], self.log_weight[rows], self.on[rows])


def current_belief(
    memory: Mapping[str, np.ndarray], rows: np.ndarray, state: State, games: np.ndarray
) -> Belief:
    """The particles of memory slots ``rows`` (k,) at the decisions of ``games`` (k,); a
    particle's log-weight is the sum of its seats'."""
    on = memory["belief_round"][rows] == state.round_index[games].astype(np.int64)
    on &= ~memory["belief_off"][rows]
    log_weight = memory["belief_log_weight"][rows].sum(axis=2)
    return Belief(memory["belief_hands"][rows], log_weight, on)


def public_snapshot(state: State, games: np.ndarray, observer: np.ndarray) -> State:
    """Copies of ``games`` (k,) with everything ``observer`` (k,) cannot see blanked: every
    hand (its own too: the model is asked about another seat), the pile, the deal seed, the
    pending +4's bluff, revealed hands, others' swaps, drawn cards, the bluff counters."""
    snap = state.take(games)
    snap.hands[:] = 0
    snap.pile[:] = 0
    snap.key[:] = 0
    snap.draw4_bluff[:] = False
    clear_hidden_records(snap, np.asarray(observer, np.int64))
    snap.revealed[:] = 0
    snap.reveal_viewer[:] = -1
    snap.invalidate()
    return snap


def _generator(memory: Mapping[str, np.ndarray], rows: np.ndarray) -> np.random.Generator:
    """The memory's own generator for one event of slots ``rows``: seeded by the slots and
    their event counts (public), so the same events give the same particles."""
    tick = memory["belief_tick"]
    tick[rows] += 1
    entropy = [int(rows.size), int(rows.sum()), int(tick[rows].sum()), int(tick[rows].max())]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def _drop_random(hands: np.ndarray, count: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(m, K) int16: ``count`` (m,) cards of each row of ``hands`` (m, K), at random."""
    m = hands.shape[0]
    card, lane, to_seat, _ = deal_unseen(
        np.maximum(hands, 0), count[:, None].astype(np.int64), None, None, rng
    )
    chosen = to_seat == 0
    flat = lane[chosen] * hands.shape[1] + card[chosen]
    return np.bincount(flat, minlength=m * hands.shape[1]).reshape(hands.shape).astype(np.int16)


def sync(
    hands: np.ndarray, state: State, games: np.ndarray, observer: np.ndarray,
    rng: np.random.Generator, keep: np.ndarray | None = None,
) -> np.ndarray:  # fmt: skip
    """Particles ``hands`` (k, N, P, K) made consistent with what ``observer`` (k,) sees in
    ``games`` (k,) now (module docstring); returns them (int8). A card more than the deck
    holds leaves the seats after ``observer`` in turn order first, seat ``keep`` (k,) last
    where given (its hands just resampled: the guess its weight chose)."""
    k, n, p, kinds = hands.shape
    m = k * n
    part = hands.reshape(m, p, kinds).astype(np.int16)
    game = np.repeat(games, n)
    seat = np.repeat(observer, n)
    lane = np.arange(m)
    part[lane, seat] = 0
    deck = state.rules.deck_cards.copies.astype(np.int16)
    seen = state.hands[game, seat].astype(np.int16) + state.discard[game].astype(np.int16)
    excess = np.maximum(part.sum(axis=1) + seen - deck[None, :], 0)
    last = seat if keep is None else np.repeat(np.asarray(keep, np.int64), n)
    for offset in range(1, p + 1):  # cards the observer now sees elsewhere, or claimed twice
        other = (last + offset) % p
        cut = np.minimum(part[lane, other], excess)
        part[lane, other] -= cut
        excess -= cut
    sizes = state.hand_size[game].astype(np.int64)
    diff = sizes - part.sum(axis=2)
    diff[lane, seat] = 0
    for other in range(p):
        shrink = np.maximum(-diff[:, other], 0)
        if shrink.any():
            part[:, other] -= _drop_random(part[:, other], shrink, rng)
    grow = np.maximum(diff, 0)
    short = np.flatnonzero(grow.any(axis=1))  # only these particles' unseen cards are dealt
    if short.size:
        pool = deck[None, :] - seen[short] - part[short].sum(axis=1)
        card, owner, to_seat, _ = deal_unseen(np.maximum(pool, 0), grow[short], None, None, rng)
        dealt = to_seat < p
        flat = (short[owner[dealt]] * p + to_seat[dealt]) * kinds + card[dealt]
        part += np.bincount(flat, minlength=m * p * kinds).reshape(m, p, kinds).astype(np.int16)
    return part.reshape(k, n, p, kinds).astype(np.int8)


def _updated_at_once(rules: Rules) -> int:
    """Most particles :func:`sync` mends at once (its temporary arrays, about 24 bytes per
    seat and kind of each, within :data:`~uno_rl.agents.search_budget.WORLD_BATCH_BYTES`)."""
    return max(1, WORLD_BATCH_BYTES // (24 * rules.players * rules.layout.num_kinds))


def _parts(count: int, per: int, lanes: int) -> list[slice]:
    """Slices of ``count`` games of ``per`` lanes each, at most ``lanes`` lanes a slice (one
    game at least; one slice when ``lanes`` is 0)."""
    step = max(1, lanes // max(per, 1)) if lanes else max(count, 1)
    return [slice(first, first + step) for first in range(0, count, step)]


def _decision_log_likelihood(
    hands: np.ndarray, state: State, games: np.ndarray, observer: np.ndarray,
    actions: np.ndarray, model: Agent, rng: np.random.Generator, floor: float, samples: int,
    lanes: int = 0,
) -> np.ndarray:  # fmt: skip
    """(k, N) float64: ``log(floor + (1 - floor) * q)`` of each particle (``hands`` (k, N, P,
    K)) for the decision ``actions`` (k,) of the actors of ``games`` (k,); the model plays
    at most ``lanes`` (N * samples per game, one game at least) at a time (0: all)."""
    k, n = hands.shape[:2]
    parts = _parts(k, n * samples, lanes)
    if len(parts) > 1:
        out = np.empty((k, n), np.float64)
        for part in parts:
            out[part] = _decision_log_likelihood(
                hands[part], state, games[part], observer[part], actions[part], model, rng,
                floor, samples,
            )  # fmt: skip
        return out
    per = n * samples
    check = public_snapshot(state, games, observer).take(np.repeat(np.arange(k), per))
    actor = np.repeat(state.actor[games].astype(np.int64), per)
    lane = np.arange(k * per)
    held = hands[np.arange(k), :, state.actor[games].astype(np.int64)]  # (k, N, K)
    check.hands[lane, actor] = np.repeat(held.reshape(k * n, -1), samples, axis=0)
    check.invalidate()
    masks = engine.legal_mask(check, validate=False)
    chosen = rollout_actions(model, check, None, masks, rng)
    right = chosen == np.repeat(actions, per)
    right &= check.hands[lane, actor].sum(axis=1) == check.hand_size[lane, actor]
    share = right.reshape(k, n, samples).mean(axis=2)
    return np.log(floor + (1.0 - floor) * share)


def observe_event(
    memory: Mapping[str, np.ndarray], rows: np.ndarray, state: State, games: np.ndarray,
    observer: np.ndarray, actions: np.ndarray, model: Agent, floor: float, samples: int,
    lanes: int = 0,
) -> None:  # fmt: skip
    """Update the particles of memory slots ``rows`` (k,) of seat ``observer`` (k,) with the
    ``actions`` (k,) the actors of ``games`` (k,) are about to play (before the step); the
    model plays at most ``lanes`` lanes at a time (0: all at once), and new particles are
    dealt and mended in parts of bounded memory (one game's at least)."""
    rng = _generator(memory, rows)
    hands, log_w = memory["belief_hands"], memory["belief_log_weight"]
    n = hands.shape[1]
    key = state.round_index[games].astype(np.int64)
    new = memory["belief_round"][rows] != key
    if new.any():
        r, g, o = rows[new], games[new], observer[new]
        for part in _parts(r.size, n, worlds_at_once(state.rules)):
            worlds = determinize(state, g[part], o[part], n, rng)
            dealt = worlds.hands.reshape(-1, n, *hands.shape[2:]).copy()
            dealt[np.arange(dealt.shape[0]), :, o[part]] = 0
            hands[r[part]] = dealt
        log_w[r] = 0.0
        memory["belief_round"][r] = key[new]
        memory["belief_off"][r] = False
    moved = state.shuffled[games] | (state.swap_seats[games] >= 0).any(axis=1)
    memory["belief_off"][rows[moved]] = True
    on = ~memory["belief_off"][rows]
    if not on.any():
        return
    rows, games, observer, actions = rows[on], games[on], observer[on], actions[on]
    for part in _parts(rows.size, n, _updated_at_once(state.rules)):
        hands[rows[part]] = sync(hands[rows[part]], state, games[part], observer[part], rng)
    actor = state.actor[games].astype(np.int64)
    layout = state.rules.layout
    kind = layout.action_card[np.clip(actions, 0, layout.num_actions - 1)].astype(np.int64)
    played = np.flatnonzero((actor != observer) & (kind >= 0) & (actions >= 0))
    if played.size:
        _hold_played_card(hands, rows[played], state, games[played], observer[played],
                          actor[played], kind[played], rng)  # fmt: skip
    # The drawn card is hidden: a decision after a draw is not weighed (its card still leaves).
    weigh = (actor != observer) & (state.phase[games] != DRAWN)
    if weigh.any():
        w = np.flatnonzero(weigh)
        r, s = rows[w][:, None], actor[w][:, None]
        every = np.arange(n)[None, :]
        weighed = log_w[r, every, s] + _decision_log_likelihood(
            hands[rows[w]], state, games[w], observer[w], actions[w], model, rng, floor,
            samples, lanes,
        )  # fmt: skip
        log_w[r, every, s] = np.maximum(weighed, _LOG_FLOOR)
        _resample_degenerate(memory, rows[w], actor[w], state, games[w], observer[w], rng)
    if played.size:  # the card leaves its player's hand in every particle
        r, s, c = rows[played], actor[played], kind[played]
        held = hands[r, :, s, c] > 0  # (m, N)
        hands[r[:, None], np.arange(n)[None, :], s[:, None], c[:, None]] -= held.astype(np.int8)


def _hold_played_card(
    hands: np.ndarray, rows: np.ndarray, state: State, games: np.ndarray,
    observer: np.ndarray, actor: np.ndarray, kind: np.ndarray, rng: np.random.Generator,
) -> None:  # fmt: skip
    """Particles (memory ``hands``) in which seat ``actor`` (m,) does not hold the card
    ``kind`` (m,) it is playing swap one of its cards, at random, for that card (where a copy
    of it is unseen in the particle): the play shows the card was held, and the rest of the
    particle's guess is kept for the model to weigh."""
    lacking = hands[rows, :, actor, kind] == 0  # (m, N)
    m_idx, n_idx = np.nonzero(lacking)
    if not m_idx.size:
        return
    r, s, c, g = rows[m_idx], actor[m_idx], kind[m_idx], games[m_idx]
    deck = state.rules.deck_cards.copies.astype(np.int64)
    seen = state.hands[g, observer[m_idx], c].astype(np.int64) + state.discard[g, c]
    guessed = hands[r, n_idx, :, c].astype(np.int64).sum(axis=1)
    hand = hands[r, n_idx, s].astype(np.int16)  # (x, K)
    ok = (deck[c] - seen - guessed > 0) & (hand.sum(axis=1) > 0)
    if not ok.any():
        return
    r, n_ok, s, c, hand = r[ok], n_idx[ok], s[ok], c[ok], hand[ok]
    hand -= _drop_random(hand, np.ones(r.size, np.int64), rng)
    hand[np.arange(r.size), c] += 1
    hands[r, n_ok, s] = hand.astype(np.int8)


def _resample_degenerate(
    memory: Mapping[str, np.ndarray], rows: np.ndarray, seats: np.ndarray, state: State,
    games: np.ndarray, observer: np.ndarray, rng: np.random.Generator,
) -> None:  # fmt: skip
    """Resample the hands of seat ``seats`` (m,) among the particles of the slots ``rows``
    (m,) where its effective sample size fell below half of them (systematic; its weights
    start again equal); the other seats' hands stay, and :func:`sync` mends cards two seats
    now claim (``games``, ``observer`` (m,): the position the particles are of)."""
    every = np.arange(memory["belief_log_weight"].shape[1])[None, :]
    log_w = memory["belief_log_weight"][rows[:, None], every, seats[:, None]]  # (m, N)
    n = log_w.shape[1]
    w = np.exp(log_w - log_w.max(axis=1, keepdims=True))
    ess = w.sum(axis=1) ** 2 / (w**2).sum(axis=1)
    low = np.flatnonzero(ess < n / 2)
    if not low.size:
        return
    r, s = rows[low], seats[low][:, None]
    pick = resample(log_w[low], low.size, n, n, rng).reshape(low.size, n) % n
    hands = memory["belief_hands"]
    hands[r[:, None], every, s] = hands[r[:, None], pick, s]
    memory["belief_log_weight"][r[:, None], every, s] = 0.0
    if hands.shape[2] > 2:  # another seat's guess may hold a card this seat's now holds
        g, o, kept = games[low], observer[low], seats[low]
        for part in _parts(r.size, n, _updated_at_once(state.rules)):
            hands[r[part]] = sync(hands[r[part]], state, g[part], o[part], rng, keep=kept[part])


def resample(
    log_weights: np.ndarray, k: int, candidates: int, keep: int, rng: np.random.Generator
) -> np.ndarray:
    """(k * keep,) int64: ``keep`` of each game's ``candidates`` (indices into the k *
    ``candidates``), drawn by systematic resampling with weights ``exp(log_weights)``."""
    log_weights = np.asarray(log_weights, np.float64).reshape(k, candidates)
    weights = np.exp(log_weights - log_weights.max(axis=1, keepdims=True))
    cdf = np.cumsum(weights, axis=1)
    cdf /= cdf[:, -1:]
    points = (rng.random((k, 1)) + np.arange(keep)[None, :]) / keep  # (k, keep) in [0, 1)
    pick = (cdf[:, None, :] <= points[:, :, None]).sum(axis=2)
    pick = np.minimum(pick, candidates - 1)
    return (np.arange(k)[:, None] * candidates + pick).ravel().astype(np.int64)
