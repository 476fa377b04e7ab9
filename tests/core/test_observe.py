"""Observations: layout, content, and no leak of hidden information.

The leak test changes only what an observer cannot know (the other players' cards and
the draw pile, redealt from their pooled cards with the same sizes; the deal seed; another player's
drawn card; whether someone else's +4 was a bluff; a hand revealed to someone else) and
requires the observer's observation to stay exactly the same.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from uno_rl.core import engine, load_rules
from uno_rl.core import observe as obs_module
from uno_rl.core.actions import CHALLENGE, DRAW
from uno_rl.core.cards import NUM_KINDS, WILD_DRAW_FOUR
from uno_rl.core.convert import to_reference
from uno_rl.core.observe import observe
from uno_rl.core.observe_layout import OBS_SIZE, PIECES, SLICES
from uno_rl.core.phases import DRAWN, OVER, RESPOND
from uno_rl.core.rules import available_presets
from uno_rl.core.state import State

PRESET_PLAYERS = {
    "official": 3,
    "house": 4,
    "seven-zero": 5,
    "party": 6,
    "no-bluff": 2,
    "kids": 10,
    "rlcard": 2,
}


def prefer_play(mask: np.ndarray, gen: np.random.Generator, challenge: float = 0.0) -> np.ndarray:
    """Mostly a random legal non-draw action; with prob. ``challenge`` a challenge when legal."""
    non_draw = mask.copy()
    non_draw[:, DRAW] = False
    prefer = non_draw.any(axis=1) & (gen.random(mask.shape[0]) < 0.8)
    actions = engine.sample_legal_actions(np.where(prefer[:, None], non_draw, mask), gen)
    challenge_now = mask[:, CHALLENGE] & (gen.random(mask.shape[0]) < challenge)
    actions[challenge_now] = CHALLENGE
    return actions


def random_states(
    rules, num_games: int, snapshots: int, every: int, seed: int, challenge: float = 0.0
) -> list[State]:
    """Snapshots of ``num_games`` games in random play (finished games are restarted)."""
    gen = np.random.default_rng(seed)

    def seeds(k):
        return gen.integers(0, 2**63 - 1, size=k, dtype=np.int64).astype(np.uint64)

    state = engine.reset(rules, seeds(num_games))
    out = []
    for t in range(snapshots * every):
        result = engine.step(state, prefer_play(engine.legal_mask(state), gen, challenge))
        finished = result.round_over & (result.match_over if rules.match else True)
        if finished.any():
            engine.reset_games(state, finished, seeds(int(finished.sum())))
        if t % every == every - 1:
            out.append(state.copy())
    return out


def hide_from(state: State, i: int, seat: int, gen: np.random.Generator) -> State:
    """A copy of ``state`` where game ``i``'s information hidden from ``seat`` is changed.

    The other players' cards and the draw pile are dealt anew from their pooled cards
    (same hand and pile sizes); the seed, another player's drawn card, the bluff flag of
    someone else's +4 and a hand revealed to someone else are changed as well.
    """
    s = state.copy()
    p = s.rules.players
    others = [q for q in range(p) if q != seat]
    size = int(s.pile_size[i])
    # the other hands and the draw pile form one pool of unseen cards: deal it anew
    pool = np.concatenate(
        [np.repeat(np.arange(NUM_KINDS), s.hands[i, others].sum(axis=0)), s.pile[i, :size]]
    )
    gen.shuffle(pool)
    start = 0
    for q in others:
        count = int(s.hand_size[i, q])
        s.hands[i, q] = np.bincount(pool[start : start + count], minlength=NUM_KINDS)
        start += count
    s.pile[i, :size] = pool[start:]
    s.pile[i, size:] = gen.integers(0, NUM_KINDS, s.pile.shape[1] - size)
    s.key[i] = gen.integers(0, 2**63 - 1, dtype=np.int64)
    if s.actor[i] != seat:
        s.drawn[i] = gen.integers(0, NUM_KINDS)
    if s.draw4_player[i] != seat:
        s.draw4_bluff[i] = not s.draw4_bluff[i]
    if s.reveal_viewer[i] != seat:
        s.revealed[i] = gen.integers(0, 3, NUM_KINDS)
    s.invalidate()
    return s


# --------------------------------------------------------------------- layout


def test_layout_sizes_add_up():
    assert sum(size for _, size in PIECES) == OBS_SIZE
    assert len({name for name, _ in PIECES}) == len(PIECES)
    position = 0
    for name, size in PIECES:
        assert SLICES[name] == slice(position, position + size), name
        position += size
    assert position == OBS_SIZE
    assert set(SLICES) == {name for name, _ in PIECES}
    assert obs_module.OBS_SIZE == OBS_SIZE


def test_layout_matches_its_documentation():
    from uno_rl.core import observe_layout

    rows = re.findall(r"^(\w+)\s+(\d+)\s+\S", observe_layout.__doc__, flags=re.MULTILINE)
    assert [(name, int(size)) for name, size in rows] == list(PIECES)


def test_piece_sizes_fit_every_player_count():
    assert SLICES["hand"].stop - SLICES["hand"].start == NUM_KINDS
    for name in ("actor", "hand_sizes", "draw4_player", "revealed_seat", "scores"):
        assert SLICES[name].stop - SLICES[name].start == 10, name  # up to 10 players
    assert SLICES["players"].stop - SLICES["players"].start == 9  # 2 .. 10


# ------------------------------------------------------------------ no leaks


@pytest.mark.parametrize("preset", sorted(PRESET_PLAYERS))
def test_hidden_information_does_not_leak(preset):
    assert set(PRESET_PLAYERS) == set(available_presets())
    rules = load_rules(preset, players=PRESET_PLAYERS[preset])
    gen = np.random.default_rng(99)
    checked = changed = 0
    for state in random_states(rules, num_games=24, snapshots=8, every=9, seed=3, challenge=0.5):
        for seat in range(rules.players):
            base = observe(state, seat)
            for i in range(state.num_games):
                other = hide_from(state, i, seat, gen)
                assert np.array_equal(observe(other, seat)[i], base[i]), (
                    f"{preset}: seat {seat}'s observation of game {i} depends on hidden information: "
                    + str(
                        [
                            n
                            for n, _ in PIECES
                            if not np.array_equal(
                                observe(other, seat)[i][SLICES[n]], base[i][SLICES[n]]
                            )
                        ]
                    )
                )
                changed += not np.array_equal(other.hands[i], state.hands[i])
                checked += 1
                if i % 8 == 0:  # the reference's observation too
                    assert np.array_equal(to_reference(other, i).observe(seat), base[i])
    assert checked > 0 and changed > checked // 3  # the perturbations really changed hands


def test_own_cards_do_show():
    """Sanity of the leak test: swapping the observer's hand with another's changes the view."""
    rules = load_rules("official", players=3)
    for state in random_states(rules, num_games=16, snapshots=3, every=5, seed=4):
        base = observe(state, 0)
        other = state.copy()
        other.hands[:, [0, 1]] = other.hands[:, [1, 0]]
        other.hand_size[:, [0, 1]] = other.hand_size[:, [1, 0]]
        differs = ~(other.hands[:, 0] == state.hands[:, 0]).all(axis=1)
        assert differs.any()
        assert (observe(other, 0) != base).any(axis=1)[differs].all()


# ----------------------------------------------------------------- contents


@pytest.mark.parametrize("preset", sorted(PRESET_PLAYERS))
def test_observation_contents(preset):
    rules = load_rules(preset, players=PRESET_PLAYERS[preset])
    p = rules.players
    for state in random_states(rules, num_games=16, snapshots=4, every=11, seed=5, challenge=0.5):
        n = state.num_games
        for seat in range(p):
            o = observe(state, seat)
            assert o.shape == (n, OBS_SIZE) and o.dtype == np.float32

            def piece(name, o=o):
                return o[:, SLICES[name]]

            assert np.array_equal(piece("hand"), state.hands[:, seat])
            assert np.array_equal(piece("top_card"), np.eye(NUM_KINDS)[state.top])
            assert np.array_equal(
                piece("color").argmax(1)[state.color >= 0], state.color[state.color >= 0]
            )
            assert (piece("color").sum(1) == (state.color >= 0)).all()
            assert np.array_equal(piece("direction")[:, 0], state.direction)
            assert np.array_equal(piece("phase").argmax(1), state.phase)
            live = state.phase != OVER
            assert np.array_equal(piece("actor").argmax(1)[live], ((state.actor - seat) % p)[live])
            assert (piece("actor").sum(1) == live).all()
            assert np.array_equal(piece("pending_draw")[:, 0], state.pending)
            rel = (seat + np.arange(p)) % p
            assert np.array_equal(piece("hand_sizes")[:, :p], state.hand_size[:, rel])
            assert (piece("hand_sizes")[:, p:] == 0).all()
            assert (piece("players").argmax(1) == p - 2).all() and (
                piece("players").sum(1) == 1
            ).all()
            assert np.array_equal(piece("discard"), state.discard)
            assert np.array_equal(piece("draw_pile_size")[:, 0], state.pile_size)
            sees_drawn = (state.phase == DRAWN) & (state.actor == seat)
            assert np.array_equal(
                piece("drawn_card")[sees_drawn].argmax(1), state.drawn[sees_drawn]
            )
            assert (piece("drawn_card").sum(1) == sees_drawn).all()
            on_d4 = state.top == WILD_DRAW_FOUR
            assert (piece("previous_color").sum(1) == on_d4).all()
            assert np.array_equal(piece("previous_color")[on_d4].argmax(1), state.prev_color[on_d4])
            assert np.array_equal(
                piece("draw4_player")[on_d4].argmax(1), ((state.draw4_player - seat) % p)[on_d4]
            )
            assert (piece("draw4_player")[~on_d4] == 0).all()
            mine = state.reveal_viewer == seat
            assert np.array_equal(piece("revealed_hand")[mine], state.revealed[mine])
            assert (piece("revealed_hand")[~mine] == 0).all()
            assert np.array_equal(
                piece("revealed_seat")[mine].argmax(1), ((state.reveal_target - seat) % p)[mine]
            )
            assert (piece("revealed_seat").sum(1) == mine).all()
            np.testing.assert_allclose(
                piece("scores")[:, :p], state.scores[:, rel] / rules.match_target, rtol=1e-6
            )
            assert (piece("scores")[:, p:] == 0).all()
            np.testing.assert_allclose(
                piece("progress")[:, 0], state.turn / rules.max_turns, rtol=1e-6
            )


def test_revealed_hand_is_seen_only_by_the_challenger():
    rules = load_rules("official", players=4)
    found = 0
    for state in random_states(rules, num_games=32, snapshots=6, every=7, seed=6, challenge=1.0):
        shown = np.flatnonzero(state.reveal_viewer >= 0)
        for i in shown:
            viewer, target = int(state.reveal_viewer[i]), int(state.reveal_target[i])
            assert viewer != target
            for seat in range(rules.players):
                o = observe(state, seat)[i]
                if seat == viewer:
                    assert np.array_equal(o[SLICES["revealed_hand"]], state.revealed[i])
                    assert o[SLICES["revealed_seat"]].argmax() == (target - viewer) % rules.players
                    assert o[SLICES["revealed_hand"]].sum() > 0 or state.revealed[i].sum() == 0
                else:
                    assert (
                        not o[SLICES["revealed_hand"]].any()
                        and not o[SLICES["revealed_seat"]].any()
                    )
            found += 1
    assert found >= 10, "too few challenges to test the revealed hand"


def test_challenge_reveals_the_bluffers_hand_to_the_challenger():
    rules = load_rules("official", players=3)
    gen = np.random.default_rng(8)
    state = engine.reset(rules, gen.integers(0, 2**62, 64).astype(np.uint64))
    seen = 0
    for _ in range(400):
        mask = engine.legal_mask(state)
        actions = prefer_play(mask, gen, challenge=1.0)
        challenging = np.flatnonzero((actions == CHALLENGE) & (state.phase == RESPOND))
        bluffer = state.draw4_player[challenging].copy()
        hands = state.hands[challenging, bluffer].copy()
        challenger = state.actor[challenging].copy()
        result = engine.step(state, actions)
        for j, i in enumerate(challenging):
            if result.round_over[i]:
                continue
            assert state.reveal_viewer[i] == challenger[j] and state.reveal_target[i] == bluffer[j]
            assert np.array_equal(state.revealed[i], hands[j])  # the hand at challenge time
            o = observe(state, int(challenger[j]))[i]
            assert np.array_equal(o[SLICES["revealed_hand"]], hands[j])
            seen += 1
        finished = result.round_over
        if finished.any():
            engine.reset_games(
                state, finished, gen.integers(0, 2**62, int(finished.sum())).astype(np.uint64)
            )
    assert seen >= 10


def test_observe_seat_arguments_and_out_buffer():
    rules = load_rules("party", players=5)
    (state,) = random_states(rules, num_games=12, snapshots=1, every=13, seed=7)
    seats = np.arange(12) % 5
    expected = np.stack([observe(state, s)[i] for i, s in enumerate(seats)])
    assert np.array_equal(observe(state, seats), expected)
    assert np.array_equal(observe(state, seats.tolist()), expected)
    assert np.array_equal(observe(state, 2), observe(state, np.full(12, 2)))
    out = np.full((12, OBS_SIZE), 7.0, np.float32)  # stale content must be cleared
    assert observe(state, seats, out=out) is out
    assert np.array_equal(out, expected)
    # observing does not change the state
    before = state.copy()
    observe(state, seats)
    for name, array in state.arrays().items():
        assert np.array_equal(array, getattr(before, name)), name
