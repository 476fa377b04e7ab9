"""The OpenSpiel game ``python_uno_rl``: OpenSpiel's own checks, chance nodes, the rules against
the reference, what a seat sees and parameters (IS-MCTS against pimc:
``test_openspiel_versus.py``)."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from uno_rl.core import load_rules, reference, rng  # noqa: E402
from uno_rl.core.actions import DRAW  # noqa: E402
from uno_rl.core.phases import OVER  # noqa: E402
from uno_rl.core.reference import ReferenceGame  # noqa: E402
from uno_rl.envs import openspiel_chance  # noqa: E402
from uno_rl.envs.openspiel_chance import ChanceGame, SeededChance  # noqa: E402
from uno_rl.envs.openspiel_game import SHORT_NAME  # noqa: E402

#: Game strings OpenSpiel's random simulation test plays, and the rules they cover.
SIM_GAMES = [
    "python_uno_rl(players=2)",  # official
    "python_uno_rl(players=4,preset=official)",
    "python_uno_rl(players=3,preset=party)",  # stacking any, seven-zero, jump-in
    "python_uno_rl(players=2,preset=house)",  # draw until playable, no bluff
    "python_uno_rl(preset=rlcard)",  # auto-played drawn cards, random first Wild color
    "python_uno_rl(players=2,switches=deck:extreme)",  # the extended deck: dispenser, hands
    # forgetting UNO, points, and a round cut short (truncated: zero returns)
    "python_uno_rl(players=3,switches=uno_forget_prob:0.5;uno_catch_prob:0.5;reward:points;max_turns:60)",
]

#: (preset, switches) of the rounds played against the reference.
DIFFERENTIAL = [
    ("official", {"players": 2}),
    ("official", {"players": 4}),
    ("party", {"players": 3}),
    ("house", {"players": 2}),
    ("rlcard", {}),
    ("seven-zero", {"players": 3, "caught_bluffer": "takes-back", "multi_play": True}),
    ("official", {"players": 3, "deck": "extreme", "uno_forget_prob": 0.5, "uno_catch_prob": 0.5}),
    ("official", {"players": 2, "deck": "extension", "stacking": "any", "max_turns": 80}),
    # big hands: the draw pile runs out and is refilled; Shuffle Hands, Swap Hands
    ("official", {"players": 4, "hand_size": 20, "deck": "modern-112", "stacking": "any"}),
]


def prefer_play(legal: list[int], generator: np.random.Generator) -> int:
    """A legal action, a card play (not a draw) nine times in ten where there is one."""
    plays = [a for a in legal if a != DRAW]
    if plays and generator.random() < 0.9:
        return int(generator.choice(plays))
    return int(generator.choice(legal))


def fields(game) -> dict:
    """A game's fields, the pile as a multiset (its order means nothing under chance nodes)."""
    out = {k: v for k, v in game.__dict__.items() if k not in ("source", "_pile", "pile", "key")}
    out["pile"] = sorted(game.pile)
    return out


def follow(state, record: list[int], used: int) -> int:
    while state.is_chance_node():
        state.apply_action(record[used])
        used += 1
    return used


@pytest.mark.parametrize("name", SIM_GAMES)
def test_openspiel_random_simulations(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=1, serialize=name == SIM_GAMES[0], verbose=False)


def test_game_facts():
    game = pyspiel.load_game("python_uno_rl(players=4)")
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    sizes = (game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes())
    assert sizes == (4, 77, 54)
    assert game.observation_tensor_shape() == [583] == game.information_state_tensor_shape()
    assert (game.min_utility(), game.max_utility(), game.max_game_length()) == (-1 / 3, 1.0, 1000)
    extended = pyspiel.load_game("python_uno_rl(players=2,switches=deck:extreme;reward:points)")
    assert extended.num_distinct_actions() == 122 and extended.observation_tensor_size() == 877
    assert extended.min_utility() == -extended.max_utility() < -1000


def test_chance_nodes_are_distributions_and_the_deal_is_the_deck():
    game = pyspiel.load_game("python_uno_rl(players=3,preset=party)")
    rules = game.rules
    generator = np.random.default_rng(3)
    for _ in range(3):
        state = game.new_initial_state()
        assert state.chance_outcomes() == [(s, 1 / 3) for s in range(3)]  # the dealer
        state.apply_action(0)
        copies = rules.deck_cards.copies
        first = dict(state.chance_outcomes())  # the first card dealt: the deck's shares
        assert first == {k: c / copies.sum() for k, c in enumerate(copies) if c}
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes())
                assert len(outcomes) > 1 and list(outcomes) == sorted(set(outcomes))
                assert 0 <= min(outcomes) and max(outcomes) < game.max_chance_outcomes()
                assert min(probabilities) > 0 and math.isclose(sum(probabilities), 1.0)
                state.apply_action(int(generator.choice(outcomes, p=probabilities)))
            else:
                state.apply_action(prefer_play(state.legal_actions(), generator))
        assert sum(state.returns()) == pytest.approx(0.0)
        assert sorted(state.returns())[-1] in (0.0, 1.0)


def test_the_same_outcomes_and_actions_give_the_same_round():
    game = pyspiel.load_game("python_uno_rl(players=2,switches=deck:extreme)")
    generator = np.random.default_rng(5)
    state, history = game.new_initial_state(), []
    while not state.is_terminal() and len(history) < 400:
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            action = int(generator.choice(outcomes, p=probabilities))
        else:
            action = prefer_play(state.legal_actions(), generator)
        history.append(action)
        state.apply_action(action)
        if len(history) == 150:
            halfway = state.clone()
    again = game.new_initial_state()
    for action in history:
        again.apply_action(action)
    assert str(again) == str(state) and again.history() == state.history() == history
    for seat in range(2):
        assert again.observation_tensor(seat) == state.observation_tensor(seat)
        assert again.information_state_string(seat) == state.information_state_string(seat)
    for action in history[150:]:  # a clone goes on alone, the original untouched
        halfway.apply_action(action)
    assert str(halfway) == str(state)


def test_a_round_is_cut_short_after_max_turns_as_the_engine_does():
    game = pyspiel.load_game("python_uno_rl(players=3,switches=max_turns:30;reward:points)")
    generator, state, decisions = np.random.default_rng(0), game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(generator.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(generator.choice(state.legal_actions())))
            decisions += 1
    assert decisions == 30 and state.round.game.truncated and state.returns() == [0.0] * 3


@pytest.mark.parametrize(("preset", "switches"), DIFFERENTIAL)
def test_rounds_match_the_reference_with_the_same_cards(preset, switches):
    """The reference plays a seeded round; the OpenSpiel game, given the outcomes the deal
    seed drew (recorded by a seeded ChanceGame), plays the same round: the same legal
    actions, every seat's observation at every decision, the same end and rewards."""
    rules = load_rules(preset, **switches)
    game = pyspiel.load_game(SHORT_NAME, {"preset": preset, "switches": _switches(switches)})
    assert game.rules == rules
    for seed in range(2):
        generator = np.random.default_rng(seed)
        truth = ReferenceGame(rules, seed)
        seeded = ChanceGame(rules, SeededChance(), seed)
        record = seeded.source.outcomes
        state = game.new_initial_state()
        used = follow(state, record, 0)
        while truth.phase != OVER:
            assert fields(seeded) == fields(truth) and list(seeded.pile) == truth.pile
            assert fields(state.round.game) == fields(truth)
            legal = sorted(truth.legal_actions())
            assert state.current_player() == truth.actor and state.legal_actions() == legal
            for seat in range(rules.players):
                assert state.observation_tensor(seat) == truth.observe(seat).tolist()
            action = prefer_play(legal, generator)
            outcome = truth.step(action)
            assert seeded.step(action) == outcome
            state.apply_action(action)
            used = follow(state, record, used)
        assert used == len(record) and state.is_terminal()
        assert state.returns() == outcome.rewards and fields(state.round.game) == fields(truth)


def _switches(switches: dict) -> str:
    text = {True: "true", False: "false"}
    return ";".join(f"{k}:{text.get(v, v)}" for k, v in switches.items())


def test_a_chance_node_shows_the_round_as_far_as_it_got():
    rules = load_rules("official", players=2)
    seeded = ChanceGame(rules, SeededChance(), 11)
    game = pyspiel.load_game("python_uno_rl(players=2)")
    state = game.new_initial_state()
    for outcome in seeded.source.outcomes[:6]:  # the dealer and five cards
        state.apply_action(outcome)
    hands = state.round.game.hands
    assert sum(map(sum, hands)) == 5 and state.is_chance_node()
    for seat in range(2):
        tensor = np.array(state.observation_tensor(seat))
        assert tensor.sum() == sum(hands[seat]) and "dealing" in state.observation_string(seat)


def _decision(game, seed: int, decisions: int):
    generator = np.random.default_rng(seed)
    state = game.new_initial_state()
    while True:
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(generator.choice(outcomes, p=probabilities)))
        elif decisions == 0 or state.is_terminal():
            return state
        else:
            state.apply_action(prefer_play(state.legal_actions(), generator))
            decisions -= 1


def test_a_seat_sees_nothing_of_another_hand_or_the_pile():
    game = pyspiel.load_game("python_uno_rl(players=3)")
    state = _decision(game, 2, 6)
    assert not state.is_terminal()
    other = state.clone()
    hidden = other.round.game.clone()
    seat, victim = state.current_player(), (state.current_player() + 1) % 3
    give = next(k for k, n in enumerate(hidden.hands[victim]) if n)
    take = next(c for c in hidden.pile if c != give)
    hidden.hands[victim][give] -= 1
    hidden.hands[victim][take] += 1
    hidden.pile.remove(take)
    hidden.pile.append(give)
    other.round.game = hidden
    for view in (seat, (seat + 2) % 3):
        assert other.observation_tensor(view) == state.observation_tensor(view)
        assert other.information_state_string(view) == state.information_state_string(view)
    assert other.observation_tensor(victim) != state.observation_tensor(victim)
    assert other.observation_string(victim) != state.observation_string(victim)


def test_a_resample_keeps_the_seats_view_and_redraws_the_rest():
    game = pyspiel.load_game("python_uno_rl(players=3,preset=party)")
    state = _decision(game, 4, 10)
    seat = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    others = set()
    for _ in range(5):
        world = state.resample_from_infostate(seat, sampler)
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.observation_tensor(seat) == state.observation_tensor(seat)
        assert world.legal_actions() == state.legal_actions()
        others.add(str(world.round.game.hands))
        world.apply_action(world.legal_actions()[0])  # it plays on
    assert len(others) > 1


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("python_uno_rl(preset=nope)", "unknown preset 'nope'"),
        ("python_uno_rl(players=11)", "'players' must be in [2, 10]"),
        ("python_uno_rl(switches=stacking:sometimes)", "'stacking' must be one of"),
        ("python_uno_rl(switches=stacking)", "a rule switch must be KEY:VALUE"),
        ("python_uno_rl(switches=match:true)", "match rules are not supported"),
        ("python_uno_rl(players=2,switches=players:3)", "give the player count once"),
    ],
)
def test_bad_parameters_are_one_error(name, message):
    with pytest.raises(ValueError) as error:
        pyspiel.load_game(name)
    text = str(error.value)
    assert text.startswith(f"{SHORT_NAME}: ") and message in text and "\n" not in text


def test_switches_given_as_a_dict_take_equals_too():
    game = pyspiel.load_game(SHORT_NAME, {"switches": "stacking=any;jump_in:true", "players": 3})
    assert (game.rules.stacking, game.rules.jump_in, game.rules.players) == ("any", True, 3)


def _names_rng(function) -> bool:
    return "rng" in openspiel_chance._global_names(function.__code__)


def test_every_random_method_of_the_rules_asks_the_chance_source():
    """A method of the rules that draws random numbers is run with the dice (found by
    reading the code), and the card effects, called from a table, draw none themselves."""
    random = {
        name
        for cls in ReferenceGame.__mro__
        for name, member in vars(cls).items()
        if isinstance(member, types.FunctionType) and _names_rng(member)
    }
    assert random - {"_shuffled"} == set(openspiel_chance.RANDOM_METHODS)
    for name in random - {"_shuffled"}:
        assert getattr(ChanceGame, name).__globals__["rng"] is openspiel_chance.DICE
    assert not [e.__name__ for e in reference.CARD_EFFECTS.values() if _names_rng(e)]
    with pytest.raises(AttributeError, match="no random event"):
        openspiel_chance.DICE.new_seeds  # noqa: B018
    assert openspiel_chance.DICE.RESHUFFLE == rng.RESHUFFLE
