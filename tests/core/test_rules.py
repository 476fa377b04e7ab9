"""Rules: presets load and match their TOML, defaults are the official rules, round trips."""

from __future__ import annotations

import dataclasses
import json
import tomllib

import pytest
import suite_profile
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from uno_rl.core import Rules, RulesError, available_presets, load_rules
from uno_rl.core.rules import CHOICES, RANGES, presets_dir, read_preset

SHIPPED = {"official", "house", "seven-zero", "party", "no-bluff", "kids", "rlcard"}
FIELDS = [f.name for f in dataclasses.fields(Rules)]


def _toml(name: str) -> dict:
    return tomllib.loads((presets_dir() / f"{name}.toml").read_text(encoding="utf-8"))


def test_shipped_presets_are_available():
    assert set(available_presets()) == SHIPPED
    assert available_presets() == sorted(available_presets())


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_preset_matches_its_toml(name):
    data = _toml(name)
    assert set(data) <= {"description", "rules"}
    assert isinstance(data.get("description"), str) and data["description"].strip()
    table = data.get("rules", {})
    rules = load_rules(name)
    assert read_preset(name) == table
    for field in dataclasses.fields(Rules):
        expected = table.get(field.name, field.default)
        assert getattr(rules, field.name) == expected, field.name
        assert type(getattr(rules, field.name)) is type(field.default), field.name
    # the same file by path
    assert load_rules(presets_dir() / f"{name}.toml") == rules
    assert load_rules(str(presets_dir() / f"{name}.toml")) == rules


def test_preset_contents():
    assert load_rules("official") == Rules()
    assert _toml("official").get("rules", {}) == {}
    house = load_rules("house")
    assert (house.stacking, house.draw_until_playable, house.bluffing) == ("any", True, "forbidden")
    assert not house.challenge_enabled
    party = load_rules("party")
    assert (party.stacking, party.seven_zero, party.jump_in) == ("any", True, True)
    assert load_rules("seven-zero").seven_zero
    nb = load_rules("no-bluff")
    assert nb.bluffing == "forbidden" and not nb.challenge_enabled and not nb.respond_enabled
    kids = load_rules("kids")
    assert (kids.match, kids.scoring, kids.match_target) == (True, "rounds", 3)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_preset_overrides(name):
    rules = load_rules(name, players=5, hand_size=5)
    assert (rules.players, rules.hand_size) == (5, 5)
    assert rules.replace(players=5, hand_size=5) == rules
    assert load_rules(name).replace(players=5, hand_size=5) == rules
    assert load_rules(rules) is rules
    assert load_rules(rules, players=3) == rules.replace(players=3)


def test_every_switch_has_an_official_default():
    official = load_rules("official")
    for field in dataclasses.fields(Rules):
        assert field.default is not dataclasses.MISSING, f"{field.name} has no default"
        assert field.default_factory is dataclasses.MISSING
        assert getattr(official, field.name) == field.default
        if field.name in CHOICES:
            assert CHOICES[field.name][0] == field.default, field.name
            assert len(set(CHOICES[field.name])) == len(CHOICES[field.name])
        elif isinstance(field.default, bool) or field.name in OTHER_FIELDS:
            pass
        else:
            low, high = RANGES[field.name]
            assert low <= field.default <= high, field.name
    described = set(CHOICES) | set(RANGES)
    assert described | OTHER_FIELDS | {
        f.name for f in dataclasses.fields(Rules) if isinstance(f.default, bool)
    } == set(FIELDS)
    assert set(CHOICES).isdisjoint(RANGES)
    assert set(CHOICES) | set(RANGES) <= set(FIELDS)


def test_official_values():
    r = Rules()
    assert (r.players, r.hand_size, r.match_target, r.max_turns) == (2, 7, 500, 1000)
    assert r.drawn_card == "may-play" and r.bluffing == "allowed" and r.stacking == "none"
    assert r.challenge_enabled and r.respond_enabled
    assert r.first_card_effects and not r.match and r.scoring == "winner-takes"


def test_rules_are_frozen_and_hashable():
    r = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.players = 3  # type: ignore[misc]
    assert hash(r) == hash(Rules())
    assert len({Rules(), Rules(), Rules(players=3)}) == 2


def test_derived_switches():
    for bluffing in CHOICES["bluffing"]:
        for stacking in CHOICES["stacking"]:
            for cancel in (False, True):
                r = Rules(bluffing=bluffing, stacking=stacking, wild_cancels_draw=cancel)
                challenge = bluffing == "allowed" and stacking == "none"
                assert r.challenge_enabled == challenge
                assert r.respond_enabled == (challenge or stacking != "none" or cancel)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_to_dict_from_dict_round_trip(name):
    rules = load_rules(name)
    values = rules.to_dict()
    assert list(values) == FIELDS
    assert Rules.from_dict(values) == rules
    # plain values: survive JSON
    assert Rules.from_dict(json.loads(json.dumps(values))) == rules


#: Fields neither a choice nor a range: the deck (a name or path) and the dispenser's tables.
OTHER_FIELDS = {"deck", "dispenser_hazard", "dispenser_count"}


@st.composite
def rule_dicts(draw):
    values = {}
    for field in dataclasses.fields(Rules):
        if field.name == "deck":
            values[field.name] = draw(st.sampled_from(["classic", "modern-112", "swap-112"]))
        elif field.name in ("dispenser_hazard", "dispenser_count"):
            values[field.name] = list(field.default)
        elif field.name in CHOICES:
            values[field.name] = draw(st.sampled_from(CHOICES[field.name]))
        elif isinstance(field.default, bool):
            values[field.name] = draw(st.booleans())
        elif isinstance(field.default, float):
            low, high = RANGES[field.name]
            values[field.name] = draw(st.floats(low, high, allow_nan=False))
        else:
            low, high = RANGES[field.name]
            values[field.name] = draw(st.integers(int(low), int(high)))
    return values


@settings(
    max_examples=suite_profile.examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much],
)
@given(rule_dicts())
def test_random_rules_round_trip(values):
    try:
        rules = Rules.from_dict(values)
    except RulesError:
        assume(False)
        return
    assert rules.to_dict() == values
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules(**values) == rules
    assert rules.replace() == rules


def test_partial_dict_takes_defaults():
    assert Rules.from_dict({}) == Rules()
    assert Rules.from_dict({"stacking": "same"}) == Rules(stacking="same")


def test_presets_dir_override(tmp_path, monkeypatch):
    (tmp_path / "mine.toml").write_text(
        'description = "x"\n[rules]\nplayers = 4\n', encoding="utf-8"
    )
    monkeypatch.setenv("UNO_RL_PRESETS", str(tmp_path))
    # The user folders are searched before the shipped presets, which stay available.
    assert available_presets() == sorted(SHIPPED | {"mine"})
    assert load_rules("mine") == Rules(players=4)
    assert load_rules("official") == Rules()
    (tmp_path / "official.toml").write_text("[rules]\nplayers = 3\n", encoding="utf-8")
    assert load_rules("official") == Rules(players=3)  # a user file hides a shipped one
    with pytest.raises(RulesError, match="mine"):
        load_rules("nothing-of-that-name")


def test_preset_without_rules_table(tmp_path):
    path = tmp_path / "bare.toml"
    path.write_text('description = "nothing changed"\n', encoding="utf-8")
    assert load_rules(path) == Rules()
