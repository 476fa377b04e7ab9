"""Every zoo heuristic and the cards of rules specification §11: hand-made positions (built
with the rule-test scenario helper on the shipped decks) with the expected choice, and a smoke
run of every zoo agent over full rounds of every shipped deck through the batched engine."""

import sys
from pathlib import Path

import numpy as np
import pytest
import suite_profile

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from scenario import act, build, rules, run_both  # noqa: E402
from test_agents import play_batch  # noqa: E402

from uno_rl.agents import ObservationView, challenge, make_agent  # noqa: E402
from uno_rl.agents.play_order import shuffle_gain, swap_gain  # noqa: E402
from uno_rl.agents.targets import swap_targets  # noqa: E402
from uno_rl.core import engine, load_rules  # noqa: E402
from uno_rl.core.convert import to_state  # noqa: E402
from uno_rl.core.layout import EXTENDED  # noqa: E402
from uno_rl.core.observe import observe  # noqa: E402
from uno_rl.core.phases import RESPOND  # noqa: E402
from uno_rl.core.phases import TARGET as TARGET_PHASE  # noqa: E402

HEURISTICS = ["rule", "color-first", "points-dumper", "aggressive", "bluffer", "suspicious",
              "bayes-challenger"]  # fmt: skip
ZOO = ["random", "random-playable", *HEURISTICS]
DECKS = ["classic", "modern-112", "swap-112", "extension", "extreme"]
MANY = ["green 1", "green 2", "green 3", "green 4", "green 6", "green 7"]


def decide(spec, game, times=1, seed=0):
    """The agent's actions in ``game`` (repeated ``times`` with one generator), as names."""
    agent = make_agent(spec, game.rules)
    state = to_state([game] * times)
    mask = engine.legal_mask(state)
    actions = agent.act(observe(state, state.actor), mask, np.random.default_rng(seed))
    assert mask[np.arange(times), actions].all()
    return [game.layout.action_name(a) for a in actions]


def name(action: str) -> str:
    """The readable name of a scenario action string (``"target 2"``, ``"accept"``)."""
    return EXTENDED.action_name(act(action))


def extreme(players=2):
    return rules(deck="extreme", dispenser="off", players=players)


def others(n: int, color: str = "green") -> list[str]:
    """``n`` number cards of ``color`` (no 5: tops are often a 5)."""
    return [f"{color} {v}" for v in (1, 2, 3, 4, 6, 7, 8, 9)][:n]


# ---------------------------------------------------------------- Discard All
def test_color_first_plays_a_discard_all_that_sheds_several_cards_first():
    r = extreme()
    sheds = build(r, {0: ["red discard all", "red hit 2", "red 2", "red 3"], 1: others(5)},
                  "red 5")  # fmt: skip
    assert decide("color-first", sheds) == ["play red discard all"]
    one = build(r, {0: ["red discard all", "red hit 2", "blue 3", "blue 4", "blue 6"],
                    1: others(5)}, "red 5")  # fmt: skip
    assert decide("color-first", one) == ["play red hit 2"]  # by rank: no shedding bonus


def test_points_dumper_plays_a_discard_all_for_the_points_it_dumps():
    r = extreme()
    hand = ["red discard all", "red 9", "red 8", "wild hit-fire", "blue 1"]
    few = build(r, {0: hand, 1: others(5)}, "red 5")
    assert decide("points-dumper", few)[0].startswith("wild hit-fire")  # 50 > 30 + 17
    hand = ["red discard all", "red 9", "red 8", "red 7", "wild hit-fire"]
    many = build(r, {0: hand, 1: others(5)}, "red 5")
    assert decide("points-dumper", many) == ["play red discard all"]  # 30 + 24 > 50


@pytest.mark.parametrize("spec", ["rule", "aggressive"])
def test_rule_and_aggressive_play_a_discard_all_that_sheds_several(spec):
    g = build(extreme(), {0: ["red discard all", "red 2", "red 3", "blue 9"], 1: others(6)},
              "red 5")  # fmt: skip
    assert decide(spec, g, times=20) == ["play red discard all"] * 20


# ---------------------------------------------------------------- hits and downpours
def test_aggressive_hits_a_next_player_close_to_uno_and_saves_hits_otherwise():
    r = extreme()
    hand = ["red hit 2", "red 8", "blue 3"]
    calm = build(r, {0: hand, 1: others(5)}, "red 5")
    assert decide("aggressive", calm) == ["play red 8"]
    close = build(r, {0: hand, 1: others(2)}, "red 5")
    assert decide("aggressive", close) == ["play red hit 2"]
    fire = build(r, {0: ["wild hit-fire", "red 8"], 1: others(2)}, "red 5")
    assert decide("aggressive", fire)[0].startswith("wild hit-fire naming")
    fire_calm = build(r, {0: ["wild hit-fire", "red 8"], 1: others(5)}, "red 5")
    assert decide("aggressive", fire_calm) == ["play red 8"]


def test_aggressive_hits_everyone_when_any_opponent_is_close():
    r = extreme(players=4)
    hand = ["wild all hit", "red hit 2", "red 8"]
    g = build(r, {0: hand, 1: others(6), 2: ["blue 1", "blue 2"], 3: others(6, "yellow")},
              "red 5")  # fmt: skip
    assert decide("aggressive", g) == ["wild all hit naming red"]  # Hit 2 would hit seat 1
    r = rules(deck="extension", players=4)
    g = build(r, {0: ["downpour +2", "red 8"], 1: others(6), 2: ["blue 1"],
                  3: others(6, "yellow")}, "red 5")  # fmt: skip
    assert decide("aggressive", g) == ["downpour +2 naming red"]
    g = build(r, {0: ["downpour +2", "red 8"], 1: others(6), 2: others(5, "blue"),
                  3: others(6, "yellow")}, "red 5")  # fmt: skip
    assert decide("aggressive", g) == ["play red 8"]


def test_color_first_plays_attack_wilds_by_its_color_logic():
    r = extreme()
    g = build(r, {0: ["wild hit-fire", "wild", "red 8"], 1: others(2)}, "red 5")
    assert decide("color-first", g) == ["play red 8"]  # colored cards first
    g = build(r, {0: ["wild hit-fire", "wild", "blue 3", "blue 4"], 1: others(5)}, "red 5")
    assert decide("color-first", g) == ["wild hit-fire naming blue"]  # before a plain Wild


# ---------------------------------------------------------------- Swap and Shuffle Hands
SWAP = ["wild swap hands", "red 2", "red 3", "red 4", "red 6", "blue 9"]


@pytest.mark.parametrize("spec", HEURISTICS)
def test_swap_hands_gaining_cards_goes_first_and_swaps_with_the_fewest(spec):
    r = rules(deck="swap-112", players=3)
    g = build(r, {0: SWAP, 1: others(4), 2: ["blue 1", "blue 2"]}, "red 5")
    played = decide(spec, g)[0]
    assert played.startswith("wild swap hands naming"), played
    run = run_both(g, [EXTENDED.parse_action(played)])
    assert run.game.phase == TARGET_PHASE and run.game.actor == 0
    assert decide(spec, run.game, times=10) == [name("target 2")] * 10


@pytest.mark.parametrize("spec", HEURISTICS)
def test_swap_hands_is_held_back_when_the_hand_is_already_smallest(spec):
    r = rules(deck="swap-112", players=3)
    small = build(
        r, {0: ["wild swap hands", "red 2"], 1: others(5), 2: others(6, "yellow")}, "blue 9"
    )
    assert decide(spec, small, times=10) == ["draw"] * 10  # keeps it, draws instead
    playable = build(
        r, {0: ["wild swap hands", "red 2"], 1: others(5), 2: others(6, "yellow")}, "red 9"
    )
    assert decide(spec, playable, times=10) == ["play red 2"] * 10
    uno = build(
        r, {0: SWAP[:5], 1: ["blue 1"], 2: others(6, "yellow")}, "blue 9"
    )  # seat 1 can't be chosen
    assert decide(spec, uno, times=10) == ["draw"] * 10
    last = build(r, {0: ["wild swap hands"], 1: others(5), 2: others(6, "yellow")}, "blue 9")
    assert decide(spec, last)[0].startswith("wild swap hands naming")  # it wins


@pytest.mark.parametrize("spec", HEURISTICS)
def test_shuffle_hands_only_with_a_hand_larger_than_its_share(spec):
    r = rules(deck="modern-112", players=3)
    hand = ["wild shuffle hands", "red 2", "red 3", "red 4", "red 6", "red 7", "red 8", "red 9"]
    big = build(r, {0: hand, 1: ["blue 1", "blue 2"], 2: others(3)}, "red 5")
    assert decide(spec, big)[0].startswith("wild shuffle hands naming")  # 7 > 12 // 3
    small = build(r, {0: ["wild shuffle hands", "blue 9", "blue 8"], 1: others(6),
                      2: others(6, "yellow")}, "red 5")  # fmt: skip
    assert decide(spec, small, times=10) == ["draw"] * 10  # 2 < 14 // 3


# ---------------------------------------------------------------- targeted draws
@pytest.mark.parametrize("spec", HEURISTICS)
def test_targeted_victim_is_the_fewest_cards_ties_to_the_next_player(spec):
    r = rules(deck="extension", players=4)

    def victim(sizes, direction=1):
        hands = {0: ["red targeted +2", "red 8"]}
        colors = ("green", "yellow", "blue")
        hands.update(
            {seat: others(n, c) for seat, n, c in zip((1, 2, 3), sizes, colors, strict=True)}
        )
        g = build(r, hands, "red 5", direction=direction)
        g = run_both(g, ["red targeted +2"]).game
        assert g.phase == TARGET_PHASE
        return decide(spec, g, times=5)

    assert victim((5, 2, 2)) == [name("target 2")] * 5  # seat 2 plays before seat 3
    assert victim((2, 5, 2)) == [name("target 1")] * 5  # the next player
    assert (
        victim((2, 5, 2), direction=-1) == [name("target 3")] * 5
    )  # the next player, anticlockwise
    assert victim((6, 5, 3)) == [name("target 3")] * 5


def test_a_forced_bluff_plays_a_targeted_four_and_seven_zero_still_swaps():
    r = rules(deck="extension", players=3)
    g = build(r, {0: ["+4", "targeted +4", "red 2"], 1: others(5), 2: others(3)}, "red 5")
    assert decide("color-first:bluff=1", g, times=5) == ["targeted +4 naming red"] * 5
    r = rules("seven-zero", deck="extension", players=3)
    g = build(r, {0: ["red 7", "red 2", "blue 3"], 1: others(5), 2: others(3)}, "red 5")
    g = run_both(g, ["red 7"]).game
    assert g.phase == TARGET_PHASE
    for spec in HEURISTICS:
        assert decide(spec, g, times=5) == [name("target 2")] * 5


# ---------------------------------------------------------------- Boomerang
def respond(card, cause_cards, own_cards, players=3, **over):
    """Seat 0 holding a Boomerang, answering ``card`` played by the previous seat."""
    r = rules(deck="extension", players=players, **over)
    cause = players - 1
    own = ["boomerang", *MANY][:own_cards]
    hands = {0: own, cause: [card, *["yellow 1", "yellow 2", "yellow 3", "yellow 4",
                                     "yellow 6", "yellow 7"][: cause_cards]]}  # fmt: skip
    for seat in range(1, cause):
        hands[seat] = ["blue 1", "blue 2", "blue 3", "blue 4"]
    g = build(r, hands, "red 5", actor=cause)
    action = card + " green" if card in ("+4", "targeted +4") else card
    g = run_both(g, [action] + (["target 1"] if "targeted" in card else [])).game
    assert g.phase == RESPOND and g.actor == 0, g.phase
    return g


@pytest.mark.parametrize("spec", [*HEURISTICS, "color-first:challenge=always"])
def test_boomerang_always_answers_a_draw_of_four(spec):
    g = respond("+4", cause_cards=6, own_cards=6)
    assert decide(spec, g, times=5) == ["play boomerang"] * 5
    g = respond("targeted +4", cause_cards=6, own_cards=6)
    assert decide(spec, g, times=5) == ["play boomerang"] * 5


@pytest.mark.parametrize("spec", HEURISTICS)
@pytest.mark.parametrize("card", ["red +2", "red skip"])
def test_boomerang_answers_a_two_or_skip_only_when_someone_is_close(spec, card):
    assert decide(spec, respond(card, cause_cards=5, own_cards=5)) == ["accept the draw"]
    assert decide(spec, respond(card, cause_cards=2, own_cards=5)) == ["play boomerang"]
    assert decide(spec, respond(card, cause_cards=5, own_cards=2)) == ["play boomerang"]


def test_aggressive_boomerang_threshold_is_attack_at_and_targeted_two_counts_own_hand():
    g = respond("red +2", cause_cards=4, own_cards=6)
    assert decide("aggressive", g) == ["accept the draw"]
    assert decide("aggressive:attack_at=4", g) == ["play boomerang"]
    g = respond("red targeted +2", cause_cards=1, own_cards=6)  # who played it is not shown
    assert decide("color-first", g) == ["accept the draw"]
    g = respond("red targeted +2", cause_cards=5, own_cards=2)
    assert decide("color-first", g) == ["play boomerang"]


# ---------------------------------------------------------------- layout checks, memory
def test_agents_check_the_layout_of_their_rules():
    rng = np.random.default_rng(0)
    agent = make_agent("color-first", rules(deck="extension"))
    with pytest.raises(ValueError, match=r"masks must be a \(k, 122\) bool array"):
        agent.act(np.zeros((2, 583), np.float32), np.ones((2, 77), bool), rng)
    with pytest.raises(ValueError, match="must have 877 values per row"):
        agent.act(np.zeros((2, 583), np.float32), np.ones((2, 122), bool), rng)
    with pytest.raises(ValueError, match="583 .classic. or 877 .extended. values per row"):
        ObservationView(np.zeros((2, 100), np.float32), 2)
    with pytest.raises(ValueError, match="no piece 'swap_seats'"):
        _ = ObservationView(np.zeros((2, 583), np.float32), 2).swap_seats


def test_bayes_memory_forgets_the_seats_of_a_swap():
    r = rules(deck="swap-112", players=3)
    g = build(r, {0: SWAP, 1: others(4), 2: ["blue 1", "blue 2"]}, "red 5")
    g = run_both(g, ["wild swap hands red", "target 2"]).game
    view = ObservationView(g.observe(1)[None, :], 3)  # seat 1 saw seats 0 and 2 swap
    assert view.swap_seats[0].tolist() == [False, True, True]
    memory = challenge.new_memory(1, 3)
    memory["sizes"][0] = view.hand_sizes[0]
    memory["possible"][0] = 0  # evidence: nobody holds any color
    challenge.update_memory(memory, np.array([0]), view)
    assert (memory["possible"][0, 0] == 0).all()  # seat 1 itself: kept
    assert (memory["possible"][0, 1:] == challenge.UNKNOWN).all()  # the swapped seats: gone


def test_new_card_facts_from_the_observation():
    r = rules(deck="swap-112", players=3)
    g = build(r, {0: SWAP, 1: ["blue 1"], 2: ["blue 2", "blue 3"]}, "red 5")
    view = ObservationView(g.observe(0)[None, :], 3)
    assert swap_targets(view, r)[0].tolist() == [False, False, True]
    gain, has = swap_gain(view, r)
    assert gain.tolist() == [3] and has.tolist() == [True]
    assert shuffle_gain(view).tolist() == [5 - 8 // 3]


# ---------------------------------------------------------------- smoke: full rounds
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("deck", DECKS)
def test_every_zoo_agent_finishes_its_rounds_on_every_deck(deck, players):
    """200 rounds per agent in the long profile (``suite_profile``), all finished in time."""
    r = load_rules("official", deck=deck, players=players)
    games = suite_profile.rounds(200)
    for spec in ZOO:
        assert play_batch(spec, r, games=games, steps=4000) == games, spec
