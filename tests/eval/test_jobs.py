"""The duplicate-deal tournament loop."""

import numpy as np
import pytest

from uno_rl.agents import Agent, make_agent
from uno_rl.core import load_rules
from uno_rl.core.rng import new_seeds
from uno_rl.eval.jobs import play_jobs, rotations
from uno_rl.eval.tournament import Chunk, Matchup, make_matchups, plan_chunks


def test_rotations_seat_every_position_in_every_seat_once():
    for p in (2, 3, 4, 10):
        r = rotations(p)
        assert r.shape == (p, p)
        for seat in range(p):
            assert sorted(r[:, seat]) == list(range(p))


def run(spec_a, spec_b, preset="official", players=2, deals=300, seed=0, slots=128):
    rules = load_rules(preset, players=players)
    a, b = make_agent(spec_a, rules), make_agent(spec_b, rules)
    lineup = [a] + [b] * (players - 1)
    seeds = new_seeds(np.random.default_rng(seed), deals)
    return rules, play_jobs(rules, lineup, seeds, np.random.default_rng(seed + 1), slots=slots)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_outcomes_are_consistent(players):
    rules, out = run("color-first", "bayes-challenger", players=players, deals=200)
    jobs = 200 * players
    assert out.winner.shape == (jobs,) and out.position.shape == (jobs, players)
    np.testing.assert_array_equal(out.position[:players], rotations(players))
    assert (out.net_points.sum(axis=1) == 0).all()  # zero-sum
    won = out.winner >= 0
    assert (out.net_points[np.flatnonzero(won), out.winner[won]] >= 0).all()
    assert (out.truncated == ~won).all() and (out.truncated_rounds == out.truncated).all()
    assert (out.decisions > 0).all() and (out.rounds == 1).all()
    np.testing.assert_array_equal(out.round_wins.sum(axis=1), won)
    np.testing.assert_array_equal(out.round_wins[np.flatnonzero(won), out.winner[won]], 1)
    np.testing.assert_array_equal(out.penalty, np.maximum(-out.net_points, 0))
    assert not out.scores.any()


def test_same_inputs_same_outcomes():
    _, first = run("rule", "random-playable", deals=100)
    _, again = run("rule", "random-playable", deals=100)
    np.testing.assert_array_equal(first.winner, again.winner)
    np.testing.assert_array_equal(first.net_points, again.net_points)
    _, other = run("rule", "random-playable", deals=100, seed=5)
    assert not np.array_equal(first.net_points, other.net_points)


def test_match_mode_plays_whole_matches():
    rules, out = run("color-first", "random-playable", preset="kids", deals=60)
    assert (out.rounds >= 3).all()
    winners = out.winner[out.winner >= 0]
    assert (out.scores[np.flatnonzero(out.winner >= 0), winners] == 3).all()
    # kids: a round won is a point of the match score
    np.testing.assert_array_equal(out.scores, out.round_wins)
    assert (out.rounds == out.round_wins.sum(axis=1) + out.truncated_rounds).all()
    assert (out.net_points.sum(axis=1) == 0).all() and not out.truncated.any()


class Cheater(Agent):
    name = "cheater"

    def act(self, observations, masks, rng, memory=None, rows=None):
        return np.full(masks.shape[0], 62)  # challenge, whatever the phase


def test_an_illegal_action_names_the_agent():
    rules = load_rules("official")
    with pytest.raises(ValueError, match="agent 'cheater' chose illegal action 62"):
        play_jobs(rules, [Cheater(rules), make_agent("rule", rules)], np.arange(4, dtype=np.uint64),
                  np.random.default_rng(0))  # fmt: skip


def test_match_ups_and_shared_deals():
    assert [m.lineup for m in make_matchups(["a", "b"], 3, "head-to-head")] == [("a", "b", "b")]
    assert len(make_matchups(["a", "b", "c"], 2, "round-robin")) == 3
    assert len(make_matchups(["a", "b", "c"], 4, "round-robin")) == 6
    assert make_matchups(["a", "b", "c"], 3, "table")[0].label == "a | b | c"
    assert Matchup(("a", "b", "b", "b")).label == "a vs 3 x b"
    with pytest.raises(ValueError, match="3 players need 3 agents"):
        make_matchups(["a", "b"], 3, "table")
    with pytest.raises(ValueError, match="exactly 2"):
        make_matchups(["a", "b", "c"], 2, "head-to-head")
    rules = load_rules("official")
    chunks = plan_chunks(rules, make_matchups(["a", "b", "c"], 2, "round-robin"), 5000, seed=3)
    assert len(chunks) == 3 * 2 and sum(c.deals for c in chunks) == 3 * 2500
    first = [c for c in chunks if c.chunk_index == 0]
    for c in first[1:]:  # every match-up plays the same deals
        np.testing.assert_array_equal(c.deal_seeds(), first[0].deal_seeds())
    other = Chunk(rules, ("a", "b"), 0, 4, 0, 0, 10)
    assert not np.array_equal(
        other.deal_seeds(), Chunk(rules, ("a", "b"), 0, 3, 0, 0, 10).deal_seeds()
    )


def test_chunks_are_planned_lazily_and_submitted_a_few_at_a_time():
    import types
    from concurrent.futures import ThreadPoolExecutor

    from uno_rl.eval.tournament import chunk_count, iter_chunks, play_chunks

    rules = load_rules("official")
    matchups = make_matchups(["a", "b", "c"], 2, "round-robin")
    plan = iter_chunks(rules, matchups, 50_000, seed=3)
    assert not isinstance(plan, list) and next(plan).chunk_index == 0
    listed = plan_chunks(rules, matchups, 50_000, seed=3)
    assert chunk_count(rules, matchups, 50_000) == len(listed) == 3 * 13
    pulled, ahead = [], []

    def lazily():
        for chunk in listed:
            pulled.append(chunk)
            yield chunk

    def task(chunk, report=None):
        return types.SimpleNamespace(winner=np.zeros(chunk.deals), chunk=chunk)

    finished = []

    def on_finished(i, rounds):
        finished.append(i)
        ahead.append(len(pulled) - len(finished))

    with ThreadPoolExecutor(2) as pool:
        parts = play_chunks(lazily(), 2, on_finished, pool, task, pending=3)
    assert [p.chunk for p in parts] == listed  # chunk order, whatever the finishing order
    assert max(ahead) <= 3  # never more than `pending` chunks read ahead of the finished ones


def test_a_huge_legal_count_starts_at_once(monkeypatch):
    import time

    from uno_rl.eval import run

    seen = {}

    class Started(Exception):
        pass

    def first_chunk(chunks, workers, on_finished, pool, task):
        seen["plan"] = chunks
        seen["first"] = next(iter(chunks))
        raise Started

    monkeypatch.setattr(run, "play_chunks", first_chunk)
    rules = load_rules("official")
    matchups = make_matchups(["rule", "random", "color-first"], 2, "round-robin")
    start = time.perf_counter()
    with pytest.raises(Started):
        run.evaluate_variant(rules, "official", matchups, run.MAX_ROUNDS, 0, 2, progress=False)
    assert time.perf_counter() - start < 2.0
    assert not isinstance(seen["plan"], list | tuple) and seen["first"].chunk_index == 0
