"""The compiled heuristics (``uno_rl/agents/compiled``) play exactly the batched agents'
actions with the same generator draws: decision by decision over random play on every rule
family and the extended decks, in play-outs (every objective, cut-offs), and in whole evaluations; and they are
used only where they apply."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

import uno_rl.agents.compiled.policy as compiled_module
import uno_rl.agents.playout as playout_module
import uno_rl.eval.jobs as jobs_module
from uno_rl.agents import challenge, make_agent
from uno_rl.agents.compiled.policy import compiled_policy
from uno_rl.agents.state_view import StateView
from uno_rl.agents.strategies import ColorFirstAgent
from uno_rl.core import backend, engine, load_rules
from uno_rl.core.phases import OVER
from uno_rl.core.sampling import sample_legal_actions
from uno_rl.eval.jobs import play_jobs

CONFIGS = [
    ("official", dict(players=2)),
    ("official", dict(players=4)),
    ("official", dict(players=3, match=True)),
    ("official", dict(players=3, draw_four_legal="no-playable-card", drawn_card="must-play")),
    ("official", dict(players=2, caught_bluffer="takes-back", voluntary_draw=False)),
    ("house", dict(players=4)),
    ("party", dict(players=5)),
    ("seven-zero", dict(players=3)),
    ("official", dict(players=3, deck="extreme", dispenser="off")),
    ("official", dict(players=4, deck="extreme")),
    ("house", dict(players=4, deck="extension")),
    ("official", dict(players=3, deck="swap-112")),
    ("party", dict(players=5, deck="modern-112")),
]
AGENTS = [
    "random",
    "random-playable",
    "color-first",
    "points-dumper",
    "aggressive",
    "rule",
    "bluffer",
    "suspicious",
    "bayes-challenger",
    "color-first:bluff=0.3,challenge=threshold,challenge_color=true,challenge_hand=6",
    "aggressive:attack_at=3,bluff=1,bluff_next_max=2,challenge=always,challenge_named=kept",
    "points-dumper:challenge=bayes,objective=card-difference,stack=false,play_drawn=false",
    "rule:bluff=0.5,bluff_when=any,bluff_hand_min=5,bluff_lead_max=-10,bluff_wilds_max=0,"
    "challenge=always,challenge_own_max=3,challenge_when=any,challenge_turn_min=20,"
    "challenge_their_min=4",
    "color-first:bluff=0.7,bluff_color_max=1,bluff_top_min=1,bluff_turn_max=60,"
    "challenge=threshold,challenge_lead_min=-50,challenge_named=changed",
]


def batched(agent, state, masks, rng, rows):
    """The batched agent's actions on the state (what ``act_on_state`` did before)."""
    if hasattr(agent, "act_view"):
        return agent.act_view(StateView(state, rows), masks, rng)
    return agent.act(None, masks, rng)


@pytest.mark.parametrize(("preset", "switches"), CONFIGS)
def test_compiled_heuristics_choose_the_batched_actions(preset, switches):
    rules = load_rules(preset, **switches)
    agents = [make_agent(spec, rules) for spec in AGENTS]
    rng = np.random.default_rng(len(preset) + rules.players)
    state = engine.reset(rules, np.arange(48, dtype=np.uint64) + 11)
    decisions = 0
    for _ in range(60):
        done = state.phase == OVER
        if done.any():
            engine.reset_games(state, done, rng.integers(1, 2**62, int(done.sum()), np.uint64))
        masks = engine.legal_mask(state)
        rows = np.flatnonzero(rng.random(state.num_games) < 0.8)
        for agent in agents:
            policy = compiled_policy(agent)
            assert policy is not None, agent.label
            seed = int(rng.integers(2**31))
            ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
            expected = batched(agent, state, masks[rows], theirs, rows)
            got = policy.actions(state, masks[rows], ours, rows)
            np.testing.assert_array_equal(got, expected, err_msg=agent.label)
            assert ours.random() == theirs.random(), f"{agent.label}: other generator draws"
            decisions += rows.size
        engine.step(state, sample_legal_actions(masks, rng))
    assert decisions > 25_000


@pytest.fixture
def batched_only(monkeypatch):
    """Make every agent play batched (as without the compiled engine)."""

    def switch_off():
        monkeypatch.setattr(compiled_module, "compiled_policy", lambda agent: None)
        monkeypatch.setattr(playout_module, "compiled_policy", lambda agent: None)
        monkeypatch.setattr(jobs_module, "compiled_policy", lambda agent: None)

    return switch_off


PLAYOUTS = [
    ("official", dict(players=2), "color-first", "points", 0),
    ("official", dict(players=4, deck="extreme"), "aggressive", "points", 0),
    ("house", dict(players=3, deck="extension"), "rule", "win", 0),
    ("official", dict(players=4), "bayes-challenger", "win", 0),
    ("official", dict(players=3, match=True), "aggressive", "match", 0),
    ("house", dict(players=4), "rule:bluff=0.5", "points", 0),
    ("seven-zero", dict(players=3), "random-playable", "points", 15),
    ("official", dict(players=2), "random", "win", 25),
]


@pytest.mark.parametrize(("preset", "switches", "spec", "objective", "cut"), PLAYOUTS)
def test_compiled_play_outs_give_the_batched_values(
    preset, switches, spec, objective, cut, batched_only
):
    rules = load_rules(preset, **switches)
    agent = make_agent(spec, rules)
    rng = np.random.default_rng(3)
    lanes = engine.reset(rules, np.arange(160, dtype=np.uint64) + 5)
    for _ in range(6):
        engine.step(lanes, sample_legal_actions(engine.legal_mask(lanes), rng))
    seat = np.arange(lanes.num_games) % rules.players

    def cut_off(state, seats):
        return -state.hand_size[np.arange(state.num_games), seats].astype(np.float64)

    args = (seat, objective, cut, cut_off if cut else None)
    copy = lanes.copy()
    ours = np.random.default_rng(9)
    got = playout_module.play_out(lanes, agent, ours, *args)
    batched_only()
    theirs = np.random.default_rng(9)
    expected = playout_module.play_out(copy, agent, theirs, *args)
    np.testing.assert_array_equal(got, expected)
    assert ours.random() == theirs.random()
    if cut:
        assert (got < 0).any()  # some lanes were cut and valued by the cut-off


@pytest.mark.parametrize(("preset", "switches", "spec", "objective", "cut"), PLAYOUTS[::2])
def test_play_outs_in_parts_on_threads_give_the_batched_values(
    preset, switches, spec, objective, cut, batched_only, monkeypatch
):
    from uno_rl.core.compiled import threads

    monkeypatch.setattr(playout_module, "PART_LANES", 37)  # 160 lanes: 5 parts of 32
    threads.set_threads(2)
    try:
        test_compiled_play_outs_give_the_batched_values(
            preset, switches, spec, objective, cut, batched_only
        )
    finally:
        threads.set_threads(None)


def test_the_parts_do_not_depend_on_the_threads(monkeypatch):
    from uno_rl.core.compiled import threads

    monkeypatch.setattr(playout_module, "PART_LANES", 50)
    rules = load_rules("official", players=3)
    agent = make_agent("rule:bluff=0.5", rules)
    lanes = engine.reset(rules, np.arange(200, dtype=np.uint64))
    seat = np.arange(200) % 3
    values = []
    for count in (1, 2, 3):
        threads.set_threads(count)
        try:
            rng = np.random.default_rng(1)
            values.append(playout_module.play_out(lanes.copy(), agent, rng, seat))
        finally:
            threads.set_threads(None)
    np.testing.assert_array_equal(values[0], values[1])
    np.testing.assert_array_equal(values[0], values[2])
    monkeypatch.setattr(playout_module, "PART_LANES", 200)  # one part: the generator's own draws
    assert not np.array_equal(
        playout_module.play_out(lanes.copy(), agent, np.random.default_rng(1), seat), values[0]
    )


@pytest.mark.parametrize(
    ("preset", "switches", "lineup"),
    [
        ("official", dict(players=2), ["color-first", "random-playable"]),
        ("official", dict(players=4, match=True), ["aggressive", "rule", "bluffer", "random"]),
        ("seven-zero", dict(players=3), ["points-dumper", "suspicious", "bayes-challenger"]),
        ("official", dict(players=3, deck="extension"), ["color-first", "points-dumper", "rule"]),
        ("official", dict(players=2), ["bayes-challenger", "color-first:bluff=0.6"]),
        (
            "official",
            dict(players=4, deck="extension"),
            ["bayes-challenger", "bluffer", "points-dumper:challenge=bayes,bluff=0.4", "random"],
        ),
    ],
)
def test_evaluations_of_compiled_heuristics_equal_batched_ones(preset, switches, lineup,
                                                               batched_only):  # fmt: skip
    rules = load_rules(preset, **switches)
    seeds = np.arange(40, dtype=np.uint64) + 100

    def play():
        agents = [make_agent(spec, rules) for spec in lineup]
        return play_jobs(rules, agents, seeds, np.random.default_rng(5), slots=64)

    got = play()
    batched_only()
    expected = play()
    for field in dataclasses.fields(expected):
        name = field.name
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), name)


def test_only_the_zoo_heuristics_under_the_compiled_engine_are_compiled(
    monkeypatch,
):
    classic = load_rules("official", players=2)
    assert compiled_policy(make_agent("color-first", classic)) is not None
    assert compiled_policy(make_agent("pimc", classic)) is None
    extended = load_rules("official", players=3, deck="extreme")
    assert compiled_policy(make_agent("color-first", extended)) is not None

    class Mine(ColorFirstAgent):
        def card_scores(self, view, rng):
            return super().card_scores(view, rng)[:, ::-1].copy()

    assert compiled_policy(Mine(classic)) is None
    monkeypatch.setattr(backend, "_compiled", None)  # the NumPy engine in use
    assert compiled_policy(make_agent("color-first", classic)) is None


def test_a_finished_game_gets_the_batched_error():
    rules = load_rules("official", players=2)
    state = engine.reset(rules, np.arange(4, dtype=np.uint64) + 1)
    masks = engine.legal_mask(state)
    state.phase[2] = OVER
    agent = make_agent("color-first", rules)
    with pytest.raises(ValueError) as compiled_error:
        compiled_policy(agent).actions(state, masks, np.random.default_rng(0))
    with pytest.raises(ValueError) as batched_error:
        batched(agent, state, masks, np.random.default_rng(0), None)
    assert str(compiled_error.value) == str(batched_error.value)
    masks[1] = False
    random = compiled_policy(make_agent("random-playable", rules))
    with pytest.raises(ValueError, match="game 1 has no legal action"):
        random.actions(state, masks, np.random.default_rng(0))


def test_pimc_searches_alike_with_compiled_play_outs(batched_only):
    rules = load_rules("official", players=2)
    state = engine.reset(rules, np.arange(6, dtype=np.uint64) + 21)
    rng = np.random.default_rng(0)
    for _ in range(5):
        engine.step(state, sample_legal_actions(engine.legal_mask(state), rng))
    games = np.arange(state.num_games)
    masks = engine.legal_mask(state)

    def decide():
        agent = make_agent("pimc:determinizations=4,rollouts=2", rules)
        memory = agent.new_memory(state.num_games)
        generator = np.random.default_rng(4)
        actions = agent.act(None, masks, generator, memory, games, state=state, games=games)
        return actions, generator.random()

    got = decide()
    batched_only()
    expected = decide()
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[1] == expected[1]


def test_an_unpickled_agent_hands_the_kernel_writable_arrays():
    # Ray's object store unpickles arrays read-only; numba would compile the kernels again
    # for read-only arrays in every worker.
    rules = load_rules("official", players=2)
    agent = make_agent("color-first:bluff=0.5,bluff_next_max=2", rules)
    compiled_policy(agent)
    buffers = []
    data = pickle.dumps(agent, protocol=5, buffer_callback=buffers.append)
    readonly = [memoryview(b.raw()).toreadonly() for b in buffers]
    copy = pickle.loads(data, buffers=readonly)
    arguments = compiled_policy(copy).kernel_arguments()
    assert all(array.flags.writeable for array in arguments)
    state = engine.reset(rules, np.arange(8, dtype=np.uint64) + 1)
    masks = engine.legal_mask(state)
    expected = compiled_policy(agent).actions(state, masks, np.random.default_rng(1))
    got = compiled_policy(copy).actions(state, masks, np.random.default_rng(1))
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("preset", "switches"),
    [("official", dict(players=2)), ("official", dict(players=4, deck="extension")),
     ("official", dict(players=3, match=True))],
)  # fmt: skip
def test_a_bayes_memory_is_kept_and_read_as_the_batched_agent_does(preset, switches):
    """Seat 0 a ``bayes-challenger`` with its memory, the others random: the compiled
    decisions with the batched memory beside them are the batched agent's, and both memories
    stay equal; the memory bounds the estimate at some challenges."""
    rules = load_rules(preset, **switches)
    agent = make_agent("bayes-challenger", rules)
    policy = compiled_policy(agent)
    state = engine.reset(rules, np.arange(300, dtype=np.uint64) + 11)
    ours, theirs = agent.new_memory(state.num_games), agent.new_memory(state.num_games)
    rng_ours, rng_theirs, others = (np.random.default_rng(2), np.random.default_rng(2),
                                    np.random.default_rng(3))  # fmt: skip
    bounded = 0
    for _ in range(400):
        running = np.flatnonzero(state.phase != OVER)
        if not running.size:
            break
        masks = engine.legal_mask(state, running)
        actions = sample_legal_actions(masks, others)
        mine = np.flatnonzero(state.actor[running] == 0)
        if mine.size:
            rows = running[mine]
            view = StateView(state, rows)
            expected = agent.act_view(view, masks[mine], rng_theirs, theirs, rows)
            got = policy.remembering_actions(state, masks[mine], rng_ours, rows, ours)
            np.testing.assert_array_equal(got, expected)
            actions[mine] = got
            on_d4 = (view.previous_color >= 0) & (view.draw4_player > 0)
            caps = challenge.memory_caps(ours, rows, view)
            sizes = view.hand_sizes[np.arange(rows.size), np.maximum(view.draw4_player, 0)]
            bounded += int((on_d4 & (caps < sizes)).sum())
        for name in ours:
            np.testing.assert_array_equal(ours[name], theirs[name], name)
        engine.step(state, actions, running)
    assert bounded > 0


@pytest.mark.parametrize("bit_generator", ["PCG64DXSM", "Philox", "MT19937", "unchecked"])
def test_other_bit_generators_draw_the_tie_noise_block_and_choose_alike(bit_generator, monkeypatch):
    """The tie noise is read in place only from a checked PCG64 (:mod:`uno_rl.core.compiled.
    nb_pcg64`); with any other bit generator, or where the check failed, the whole block is
    drawn, and the actions and draws are the batched agent's all the same."""
    from uno_rl.core.compiled import nb_pcg64

    if bit_generator == "unchecked":
        monkeypatch.setattr(nb_pcg64, "_checked", [False])
        kind = np.random.PCG64
    else:
        kind = getattr(np.random, bit_generator)
    rules = load_rules("official", players=4)
    agents = [make_agent(spec, rules) for spec in AGENTS[2:6]]
    rng = np.random.default_rng(5)
    state = engine.reset(rules, np.arange(32, dtype=np.uint64) + 3)
    for _ in range(30):
        masks = engine.legal_mask(state)
        for agent in agents:
            ours, theirs = (np.random.Generator(kind(int(rng.integers(2**31)))) for _ in "ab")
            theirs.bit_generator.state = ours.bit_generator.state
            assert nb_pcg64.reads_in_place(ours) is False
            expected = batched(agent, state, masks, theirs, np.arange(state.num_games))
            np.testing.assert_array_equal(compiled_policy(agent).actions(state, masks, ours),
                                          expected, err_msg=agent.label)  # fmt: skip
            assert ours.random() == theirs.random(), agent.label
        engine.step(state, sample_legal_actions(masks, rng))
        done = state.phase == OVER
        if done.any():
            engine.reset_games(state, done, rng.integers(1, 2**62, int(done.sum()), np.uint64))
