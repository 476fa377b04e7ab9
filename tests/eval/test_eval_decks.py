"""The evaluator on every shipped deck (rules specification §11): 2 and 4 players, the deck named
in the labels, duplicate deals that replay exactly (every seating of a deal starts from the
same cards), and the same tables for the same seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from uno_rl.core import engine, load_rules
from uno_rl.eval.replays import ReplaySample, play_sampled_chunk
from uno_rl.eval.run import evaluate
from uno_rl.eval.tournament import Matchup, plan_chunks, play_chunk
from uno_rl.eval.variant_names import variant_name
from uno_rl.programs import evaluate as cli
from uno_rl.replays import deal, outcome_of, simulate

SHIPPED = ["classic", "modern-112", "swap-112", "extension", "extreme"]
CASES = [(deck, players) for deck in SHIPPED for players in (2, 4)]


@pytest.mark.parametrize("deck, players", CASES)
def test_evaluate_on_every_deck(deck, players):
    kwargs = dict(players=players, rounds=48, seed=2, workers=1, progress=False)
    agents = ["rule", "random-playable"]
    table = evaluate(agents, switches={"deck": deck}, **kwargs)
    label = "official" if deck == "classic" else f"official, deck={deck}"
    assert set(table.agents["variant"]) == {label}
    assert set(table.agents["agent"]) == set(agents)
    if players == 2:  # one seat each: the points are zero-sum on any deck
        assert table.agents["points"].sum() == pytest.approx(0.0, abs=1e-9)
    rounds = table.agents["rounds"].iloc[0]
    assert table.agents["wins"].sum() + table.agents["truncated"].iloc[0] == rounds
    again = evaluate(agents, switches={"deck": deck}, **kwargs)
    pd.testing.assert_frame_equal(table.seats, again.seats)  # a function of the seed


@pytest.mark.parametrize("deck, players", CASES)
def test_duplicate_deals_replay_exactly(deck, players):
    rules = load_rules("official", players=players, deck=deck)
    lineup = ("rule", "random-playable") + ("random",) * (players - 2)
    (chunk,) = plan_chunks(rules, [Matchup(lineup)], 6 * players, seed=3, slots=16)
    jobs = chunk.deals * players
    plain = play_chunk(chunk)
    sample = ReplaySample(random=jobs)
    sampled = play_sampled_chunk(chunk, sample=sample, picks={0: tuple(range(jobs))})
    np.testing.assert_array_equal(sampled.winner, plain.winner)  # recording changes nothing
    assert len(sampled.kept) == jobs
    first: dict[int, tuple[int, np.ndarray, tuple]] = {}
    for entry in sampled.kept:
        replay = entry.replay
        assert replay.rules.deck == deck
        final = simulate(replay)  # every action legal on this deck's layout
        assert outcome_of(final, len(replay.actions)) == replay.outcome
        assert replay.outcome.winner == plain.winner[entry.job]
        assert len(replay.actions) == plain.decisions[entry.job]
        hands = deal(replay).hands[0].copy()
        # every seating of one deal gets the same cards, taken by other agents
        d = entry.job // players
        if d not in first:
            first[d] = (replay.seed, hands, replay.seats)
            continue
        seed, dealt, seats = first[d]
        assert replay.seed == seed and replay.seats != seats
        np.testing.assert_array_equal(hands, dealt)
    assert len(first) == chunk.deals


def test_labels_name_a_deck_the_preset_sets():
    base = load_rules("official", deck="extreme")
    assert variant_name("official", [], base) == "official, deck=extreme"
    assert variant_name("official", [("deck", "extreme")], base) == "official, deck=extreme"
    classic = load_rules("official")
    assert variant_name("official", [("deck", "extension")], classic) == "official, deck=extension"
    assert variant_name("official", [], classic) == "official"


def test_the_command_line_evaluates_a_deck(tmp_path, capsys):
    out = tmp_path / "tables"
    code = cli.main(["rule", "random-playable", "--set", "deck=extreme", "--rounds", "20",
                     "--workers", "1", "--no-progress", "--out", str(out)])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "deck=extreme" in printed


def test_duplicate_deals_deal_the_same_cards_on_an_extended_deck():
    rules = load_rules("official", players=4, deck="extension")
    seeds = np.array([11, 11, 12], np.uint64)
    state = engine.reset(rules, seeds)
    np.testing.assert_array_equal(state.hands[0], state.hands[1])
    assert not np.array_equal(state.hands[0], state.hands[2])
