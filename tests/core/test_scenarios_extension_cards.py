"""Scenarios: the cards of rules specification §11 built so far (Wild Customizable, Downpour
+1/+2, Wild Shuffle Hands, Wild Swap Hands), each run through both the reference and the
engine (``run_both`` checks legal actions, states, observations and outcomes agree after
every action, and that every card of the deck stays accounted for)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from uno_rl.core import engine
from uno_rl.core.convert import to_state
from uno_rl.core.layout import EXTENDED
from uno_rl.core.observe import observe
from uno_rl.core.phases import COLOR, OVER, PLAY, TARGET

try:
    from .scenario import build, hand_of, rules, run_both
except ImportError:
    from scenario import build, hand_of, rules, run_both

DECKS = Path(__file__).parent / "decks"
CHAOS = str(DECKS / "chaos.toml")
P1 = ["yellow 1", "yellow 2", "yellow 3"]
P2 = ["blue 1", "blue 2", "blue 3"]
PILE = ["green 3", "green 4", "green 5", "green 6", "green 7", "green 8"]  # next drawn last


def test_customizable_is_a_plain_wild_by_default():
    r = rules(deck="modern-112", players=3)
    g = build(r, hands={0: ["wild customizable", "red 2"], 1: P1, 2: P2}, top="red 5")
    run = run_both(g, ["wild customizable blue"])
    assert run.game.color == 3 and run.game.actor == 1 and run.game.phase == PLAY
    assert (
        "wild customizable naming green"
        in run_both(
            build(r, hands={0: ["wild customizable", "red 2"], 1: P1}, top="blue 9"), []
        ).legal()
    )


def test_customizable_bound_to_downpour():
    r = rules(deck="modern-112", players=3, customizable_as="downpour+2")
    g = build(r, hands={0: ["wild customizable", "red 2"], 1: P1, 2: P2}, top="red 5", pile=PILE)
    run = run_both(g, ["wild customizable green"])
    g = run.game
    assert g.hand_size(1) == 5 and g.hand_size(2) == 5 and g.hand_size(0) == 1
    assert g.actor == 1  # nobody is skipped


def test_downpour_every_other_player_draws_in_order_nobody_skipped():
    r = rules(deck=CHAOS, players=3)
    g = build(r, hands={0: ["downpour +1", "red 2"], 1: P1, 2: P2}, top="red 5", pile=PILE)
    run = run_both(g, ["downpour +1 yellow"])
    g = run.game
    assert hand_of(g, 1)["green 8"] == 1 and hand_of(g, 2)["green 7"] == 1  # seat 1 first
    assert g.hand_size(0) == 1 and g.actor == 1 and g.phase == PLAY and g.color == 1


def test_downpour_counter_clockwise_and_including_self():
    r = rules(deck=CHAOS, players=3, downpour_includes_self=True)
    g = build(
        r, hands={0: ["downpour +2", "red 2"], 1: P1, 2: P2}, top="red 5", pile=PILE, direction=-1
    )
    run = run_both(g, ["downpour +2 red"])
    g = run.game
    assert hand_of(g, 2)["green 8"] == 1 and hand_of(g, 2)["green 7"] == 1  # seat 2 first
    assert hand_of(g, 1)["green 6"] == 1 and hand_of(g, 0)["green 4"] == 1  # the player last
    assert g.hand_size(0) == 3 and g.actor == 2


def test_final_downpour_is_still_drawn_and_scored():
    r = rules(deck=CHAOS, players=3, downpour_includes_self=True, reward="points")
    g = build(r, hands={0: ["downpour +2"], 1: P1, 2: P2}, top="red 5", pile=PILE)
    run = run_both(g, ["downpour +2 red"])
    g = run.game
    assert g.phase == OVER and g.winner == 0 and g.hand_size(0) == 0  # the winner draws nothing
    assert g.hand_size(1) == 5 and g.hand_size(2) == 5
    # seat 1 draws green 8 and 7, seat 2 green 6 and 5: 6 + 15 and 6 + 11 points
    assert hand_of(g, 1)["green 7"] == 1 and hand_of(g, 2)["green 5"] == 1
    assert run.last.points == 21 + 17 and run.last.net_points == [38, -21, -17]


def test_shuffle_hands_gathers_and_deals_from_the_players_left():
    r = rules(deck="modern-112", players=3)
    hands = {0: ["wild shuffle hands", "red 2", "red 3"], 1: P1, 2: ["blue 1", "blue 2"]}
    g = build(r, hands=hands, top="red 5")
    before = sum((hand_of(g, s) for s in range(3)), Counter())
    run = run_both(g, ["wild shuffle hands blue"])
    g = run.game
    after = sum((hand_of(g, s) for s in range(3)), Counter())
    before.subtract({"wild shuffle hands": 1})
    assert after == +before  # the same 7 cards, dealt again
    assert [g.hand_size(s) for s in (1, 2, 0)] == [3, 2, 2]  # one at a time from seat 1
    assert g.shuffled and g.actor == 1 and g.color == 3


def test_shuffle_forgets_a_revealed_hand_and_the_last_swap():
    r = rules(deck=CHAOS, players=3)
    g = build(
        r,
        hands={0: ["wild shuffle hands", "red 2"], 1: P1, 2: P2},
        top="red 5",
        revealed=[1] + [0] * 74,
        reveal_viewer=0,
        reveal_target=1,
        swap_seats=[0, 2],
        swap_given=[[0] * 74 + [0], [1] + [0] * 74],
    )
    before = [g.observe(s) for s in range(3)]
    run = run_both(g, ["wild shuffle hands red"])
    g = run.game
    assert g.reveal_viewer == -1 and g.swap_seats == [-1, -1] and g.shuffled
    obs, layout = g.observe(0), EXTENDED
    assert obs[layout.slices["revealed_hand"]].sum() == 0
    assert obs[layout.slices["shuffled"]][0] == 1 and before[0][layout.slices["shuffled"]][0] == 0


def test_shuffle_that_leaves_a_hand_empty_ends_the_round():
    r = rules(deck=CHAOS, players=4)
    g = build(r, hands={0: ["wild shuffle hands", "red 2"], 1: ["blue 4"], 2: P2, 3: P1},
              top="red 5")  # fmt: skip
    run = run_both(g, ["wild shuffle hands red"])
    g = run.game
    assert sum(g.hand_size(s) for s in range(4)) == 8
    # 8 cards dealt from seat 1: every seat gets two, so nobody is out.
    assert g.phase == PLAY
    g = build(r, hands={0: ["wild shuffle hands", "red 2"], 1: ["blue 4"], 2: ["green 1"], 3: []},
              top="red 5")  # fmt: skip
    run = run_both(g, ["wild shuffle hands red"])
    g = run.game  # 3 cards for 4 seats, dealt from seat 1: seat 0 gets none and wins
    assert g.phase == OVER and g.winner == 0 and g.hand_size(0) == 0


def test_last_card_shuffle_or_swap_wins_without_effect():
    for card in ("wild shuffle hands", "wild swap hands"):
        r = rules(deck=CHAOS, players=3)
        g = build(r, hands={0: [card], 1: P1, 2: P2}, top="red 5")
        run = run_both(g, [f"{card} red"])
        assert run.game.phase == OVER and run.game.winner == 0
        assert hand_of(run.game, 1) == Counter(P1) and not run.game.shuffled


def test_swap_hands_chooses_a_target_not_in_uno():
    r = rules(deck="swap-112", players=4)
    g = build(
        r,
        hands={0: ["wild swap hands", "red 2", "red 3"], 1: ["blue 4"], 2: P2, 3: P1},
        top="red 5",
    )
    run = run_both(g, ["wild swap hands green"])
    g = run.game
    assert g.phase == TARGET and g.actor == 0
    assert run.legal() == ["target the player 2 seat(s) clockwise",
                           "target the player 3 seat(s) clockwise"]  # fmt: skip
    run = run_both(g, ["target 3"])
    g = run.game
    assert hand_of(g, 0) == Counter(P1) and hand_of(g, 3) == Counter(["red 2", "red 3"])
    assert g.swap_seats == [0, 3] and g.actor == 1 and g.color == 2
    # Both players see both hands; a third sees only who swapped with whom.
    for seat, gave, got in ((0, ["red 2", "red 3"], P1), (3, P1, ["red 2", "red 3"])):
        obs = g.observe(seat)
        given = obs[EXTENDED.slices["swap_given"]]
        received = obs[EXTENDED.slices["swap_received"]]
        assert given[[EXTENDED.parse_card(c) for c in gave]].tolist() == [1.0] * len(gave)
        assert received[[EXTENDED.parse_card(c) for c in got]].tolist() == [1.0] * len(got)
    third = g.observe(2)
    assert third[EXTENDED.slices["swap_given"]].sum() == 0
    assert third[EXTENDED.slices["swap_seats"]].tolist()[:4] == [0.0, 1.0, 1.0, 0.0]


def test_swap_hands_with_everyone_in_uno_is_a_wild():
    r = rules(deck="swap-112", players=3)
    g = build(r, hands={0: ["wild swap hands", "red 2"], 1: ["blue 4"], 2: ["blue 5"]},
              top="red 5")  # fmt: skip
    run = run_both(g, ["wild swap hands green"])
    assert run.game.phase == PLAY and run.game.actor == 1 and run.game.swap_seats == [-1, -1]
    r = rules(deck="swap-112", players=3, swap_excludes_uno=False)
    g = build(r, hands={0: ["wild swap hands", "red 2"], 1: ["blue 4"], 2: ["blue 5"]},
              top="red 5")  # fmt: skip
    run = run_both(g, ["wild swap hands green", "target 1"])
    assert hand_of(run.game, 0) == Counter(["blue 4"]) and run.game.actor == 1


def test_first_card_downpour_every_player_but_the_dealer_draws():
    r = rules(deck=CHAOS, players=3)
    for seed in range(3000):
        state = engine.reset(r, np.array([seed], np.uint64))
        if EXTENDED.card_name(int(state.top[0])).startswith("downpour"):
            break
    else:
        raise AssertionError("no first-card Downpour in 3000 deals")
    dealer = int(state.dealer[0])
    amount = 1 if "+1" in EXTENDED.card_name(int(state.top[0])) else 2
    expected = [7 + (0 if s == dealer else amount) for s in range(3)]
    assert state.hand_size[0].tolist() == expected
    assert state.phase[0] == COLOR  # its color is named as for a Wild
    from uno_rl.core.reference import ReferenceGame

    game = ReferenceGame(r, seed)
    assert [game.hand_size(s) for s in range(3)] == expected
    assert np.array_equal(observe(state, 0)[0], game.observe(0))
    assert np.array_equal(to_state([game]).hands, state.hands)


def test_first_card_shuffle_and_swap_go_back():
    r = rules(deck=CHAOS, players=2)
    names = set()
    for seed in range(400):
        game_top = EXTENDED.card_name(int(engine.reset(r, np.array([seed], np.uint64)).top[0]))
        names.add(game_top)
    assert not names & {"wild shuffle hands", "wild swap hands", "+4"}
    assert "wild customizable" in names or "downpour +1" in names


def test_a_one_card_hand_handed_over_is_in_uno_without_calling():
    # Everyone forgets to call UNO and is caught, when they play down to one card: a hand of
    # one card received by a swap or a shuffle is in UNO without calling (no penalty).
    r = rules(deck=CHAOS, players=3, uno_forget_prob=1.0, uno_catch_prob=1.0)
    g = build(r, hands={0: ["wild swap hands", "red 2", "red 3"], 1: ["blue 9"], 2: P2},
              top="red 5")  # fmt: skip
    run = run_both(g, ["wild swap hands green"])
    # seat 1 is in UNO: it cannot be chosen; swap with seat 2
    run = run_both(run.game, ["target 2"])
    g = run.game
    assert hand_of(g, 2) == Counter(["red 2", "red 3"]) and g.hand_size(1) == 1
    r = rules(deck=CHAOS, players=2, uno_forget_prob=1.0, uno_catch_prob=1.0,
              swap_excludes_uno=False)  # fmt: skip
    g = build(r, hands={0: ["wild swap hands", "red 2", "red 3"], 1: ["blue 9"]}, top="red 5")
    run = run_both(g, ["wild swap hands green", "target 1"])
    g = run.game
    assert hand_of(g, 0) == Counter(["blue 9"]) and g.hand_size(1) == 2  # no penalty drawn
    g = build(r, hands={0: ["wild shuffle hands", "red 2", "red 3"], 1: ["blue 9"]}, top="red 5")
    run = run_both(g, ["wild shuffle hands green"])  # 3 cards dealt from seat 1: 2 and 1
    assert [run.game.hand_size(s) for s in (0, 1)] == [1, 2]  # seat 0 in UNO, no penalty
