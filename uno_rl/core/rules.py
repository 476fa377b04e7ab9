"""The rule set: a frozen, validated dataclass, and presets loaded by name.

Every switch of the rules specification (docs/specification.md), section 9, is one field.
Defaults are the official rules.
Presets are TOML files in the top-level ``envs/`` folder (data, not code)::

    description = "one line"
    [rules]
    stacking = "any"

``load_rules("house", players=4)`` loads a preset and applies overrides; any
unknown key or bad value raises :class:`RulesError` naming the key and what is allowed.
The switches' allowed values and checks are in :mod:`.switches`, finding and reading preset
files in :mod:`.presets`; their public names are importable from here too.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Mapping
from typing import Any

from .decks import Deck, DeckError, load_deck
from .presets import available_presets, presets_dir, read_preset_table
from .switches import (
    CHOICES,
    DEFAULT_DISPENSER_COUNT,
    RANGES,
    RulesError,
    check_keys,
    check_value,
    probabilities,
)

__all__ = [
    "CHOICES",
    "DEFAULT_DISPENSER_COUNT",
    "MAX_FIRST_CARD_ATTEMPTS",
    "RANGES",
    "Rules",
    "RulesError",
    "available_presets",
    "load_rules",
    "presets_dir",
    "read_preset",
]


#: Most reshuffles a deal makes to find a first card. A deck is refused unless the pile always
#: keeps one that may be turned first (see ``Rules``), so a deal needs about as many tries as
#: the pile has cards at worst; the bound only turns a broken invariant into an error.
MAX_FIRST_CARD_ATTEMPTS = 100_000


@dataclasses.dataclass(frozen=True)
class Rules:
    """One UNO rule set. Field docs say the values; the default is first.

    Attributes:
        players: seats at the table, 2 to 10.
        hand_size: cards dealt to each player, 1 to 20.
        drawn_card: after drawing a playable card: ``may-play`` (play it at once or keep it),
            ``must-play``, ``may-not-play`` (the turn always ends), or ``auto-play`` (RLCard:
            no decision; a drawn card of the current color is played at once with its
            effect, a drawn Wild or +4 is played at once naming a random color, and a +4
            played so makes nobody draw; any other drawn card is kept and the turn passes).
        voluntary_draw: a player may draw even holding a playable card; off: drawing is
            legal only when no card can be played (RLCard).
        draw_until_playable: keep drawing until a playable card comes (or both piles are empty).
        draw_four_legal: a +4 is legal with ``no-current-color`` in hand, or only with
            ``no-playable-card`` at all.
        bluffing: ``allowed``: an illegal +4 is a legal move, exposed only by a challenge;
            ``forbidden``: the mask hides illegal +4s and there is no challenge.
        caught_bluffer: a challenged bluffer ``draws-4``, or ``takes-back`` the +4, draws 4 and
            the previous top card and color are restored, or (``001``) ``loses-turn``: draws
            nothing and skips their next turn. Under ``loses-turn`` the +4 and its named color
            stand and the challenger (the victim) plays at once, as under ``draws-4``; the
            bluffer's next turn is the next time play would start a turn with them (the play
            phase; answering a +2/+4 in the respond phase or being passed over by a Skip is no
            turn): that turn is passed over to the next seat along the direction of play, no
            decision taken (so with two players the challenger plays twice). Each caught bluff
            costs one turn; several may wait at once. A bluffer caught on their last card
            cannot lose a turn they will not have: they draw the 4 instead (as ``draws-4``).
        stacking: ``none``; ``same`` (+2 on +2, +4 on +4); ``any`` (any draw card on any;
            a +2 on a +4 must match the named color). With stacking on, a +4 cannot be
            challenged and its legality is enforced by the mask.
        wild_cancels_draw: the victim of a +2/+4 may answer with a Wild, cancelling the draw.
        multi_play: after a number card, further cards of the same number (any color) may
            follow in the same turn; the combination may not empty the hand.
        multi_play_actions: under ``multi_play``, Skips, Reverses and +2s combine too (same
            symbol, any colors, the last one sets the color): n Skips skip n players (counted
            along the table, so with two players 2 Skips give the turn to the opponent), n
            Reverses flip the direction n times (with two players and
            ``two_player_reverse_skips`` an odd number acts as one Skip, an even number gives
            the turn to the opponent), n +2s give the next player 2n cards, answered as one
            +2 of that total (accepted, stacked on with one draw card, cancelled by a Wild,
            as section 9 says for a +2). A combination starts only in the play phase: a
            stacked answer, a jump-in or a drawn card is one card.
        seven_zero: a 7 swaps hands with a chosen player; a 0 passes every hand one seat along
            the direction of play.
        jump_in: after a colored card is played, another player holding the identical card may
            play it out of turn; play continues from them.
        last_card: the last card may be ``any``, ``no-draw-four``, or ``no-wild`` (no Wild, no +4).
        first_card_effects: the first turned card's effect applies.
        first_draw_two_skips: a first-card +2 makes the first player draw 2 and lose the
            turn; off: they draw 2 and then play (RLCard).
        two_player_reverse_skips: with two players a Reverse acts as a Skip (the player
            plays again); off: it only reverses, so the other player plays next (RLCard).
        first_wild_color_by: who names the color of a first-card Wild: the ``first-player``,
            the ``dealer``, or nobody: a ``random`` color (RLCard).
        uno_forget_prob: probability that a player reaching one card forgets to call UNO.
        uno_catch_prob: probability that a forgetful player is caught.
        uno_penalty: cards drawn when caught.
        scoring: ``winner-takes`` (winner scores the opponents' cards; first to the target wins),
            ``losers-add`` (each loser adds their own points; when someone reaches the target
            the lowest total wins), ``rounds`` (first to win ``match_target`` rounds).
        match: play matches of several rounds (rounds reset automatically) instead of single rounds.
        match_target: points (or rounds, under ``scoring='rounds'``) that end a match.
        match_rounds: 0 (off), or a match of exactly this many rounds (``000``), truncated
            rounds included, under ``scoring='losers-add'``: the lowest total after the last
            round wins (ties to the lower seat); reaching ``match_target`` does not end it
            (the target only scales the scores in observations). Needs ``match=true``.
        dealer: ``random`` dealer each round, or ``rotate`` the deal clockwise in a match.
        reward: per-round reward: ``win-loss`` (+1 winner, -1/(P-1) each loser) or ``points``
            (winner +sum of losers' card points, each loser -own points). Both are zero-sum.
        max_turns: decisions (engine steps) after which a round is truncated and scored as a draw.
        deck: the deck (rules specification §11): a shipped name (``classic``, ``modern-112``,
            ``swap-112``, ``extension``, ``extreme``), a user deck's name or a TOML path
            (:mod:`uno_rl.core.decks`).
        dispenser: the random card dispenser replaces the draw pile: ``auto`` (when the deck
            says so: ``extreme``), ``on`` or ``off``.
        dispenser_hazard: probability that a press fires, by presses since the last fire
            (the last entry must be 1).
        dispenser_count: probabilities of 1, 2, ... cards shot by a fire (sum 1; default
            1 + Binomial(11, 0.36)).
        discard_all_may_go_out: a Discard All may empty its player's hand (and win).
        swap_excludes_uno: a player in UNO (one card) cannot be chosen by a Swap Hands.
        downpour_includes_self: the player of a Downpour draws too.
        customizable_as: the effect of a Wild Customizable: a plain ``wild``, or another
            colorless card's.
    """

    players: int = 2
    hand_size: int = 7
    drawn_card: str = "may-play"
    voluntary_draw: bool = True
    draw_until_playable: bool = False
    draw_four_legal: str = "no-current-color"
    bluffing: str = "allowed"
    caught_bluffer: str = "draws-4"
    stacking: str = "none"
    wild_cancels_draw: bool = False
    multi_play: bool = False
    multi_play_actions: bool = False
    seven_zero: bool = False
    jump_in: bool = False
    last_card: str = "any"
    first_card_effects: bool = True
    first_draw_two_skips: bool = True
    two_player_reverse_skips: bool = True
    first_wild_color_by: str = "first-player"
    uno_forget_prob: float = 0.0
    uno_catch_prob: float = 1.0
    uno_penalty: int = 2
    scoring: str = "winner-takes"
    match: bool = False
    match_target: int = 500
    match_rounds: int = 0
    dealer: str = "random"
    reward: str = "win-loss"
    max_turns: int = 1000
    deck: str = "classic"
    dispenser: str = "auto"
    dispenser_hazard: tuple = (0.21, 0.11, 0.54, 1.0)
    dispenser_count: tuple = DEFAULT_DISPENSER_COUNT
    discard_all_may_go_out: bool = True
    swap_excludes_uno: bool = True
    downpour_includes_self: bool = False
    customizable_as: str = "wild"

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            check_value(field.name, getattr(self, field.name), field.default)
        for name in ("dispenser_hazard", "dispenser_count"):
            object.__setattr__(self, name, probabilities(name, getattr(self, name)))
        if self.dispenser_hazard[-1] != 1.0:
            raise RulesError(
                "dispenser_hazard: the last entry must be 1.0 (the dispenser fires at the "
                f"latest after {len(self.dispenser_hazard)} presses), got {self.dispenser_hazard}"
            )
        if abs(sum(self.dispenser_count) - 1.0) > 1e-6:
            raise RulesError(
                f"dispenser_count must sum to 1 (probabilities of 1, 2, ... cards), got "
                f"{sum(self.dispenser_count):.6g}"
            )
        size = self.deck_cards.size
        if self.players * self.hand_size > size - 9:
            raise RulesError(
                f"players={self.players} x hand_size={self.hand_size} deals "
                f"{self.players * self.hand_size} cards; at most {size - 9} may be dealt "
                f"(the deck {self.deck!r} has {size} cards and the piles need some)"
            )
        deck, dealt = self.deck_cards, self.players * self.hand_size
        turnable = int(deck.copies[~deck.layout.returns_as_first_card].sum(dtype="int64"))
        if turnable <= dealt:
            # A deal turns cards from the pile until one may start the discard pile; with every
            # such card possibly in the hands, it would never find one.
            raise RulesError(
                f"the deck {self.deck!r} has {turnable} cards that may be turned as the first "
                f"card (not a +4, Swap or Shuffle Hands, Targeted +4 or Boomerang); "
                f"players={self.players} x hand_size={self.hand_size} deals {dealt}, so a deal "
                f"could leave none in the pile: it needs more than {dealt}"
            )
        if self.draw_until_playable and self.drawn_card in ("may-not-play", "auto-play"):
            raise RulesError(
                f"draw_until_playable=true contradicts drawn_card='{self.drawn_card}': "
                "drawing until playable needs a drawn card that the player may choose to play"
            )
        if self.dispenser_on and (self.draw_until_playable or self.drawn_card == "auto-play"):
            raise RulesError(
                "the dispenser (a draw is one press that ends the turn) contradicts "
                f"draw_until_playable={str(self.draw_until_playable).lower()}, "
                f"drawn_card={self.drawn_card!r}: set dispenser='off' or drop them"
            )
        if self.match_rounds and (not self.match or self.scoring != "losers-add"):
            raise RulesError(
                f"match_rounds={self.match_rounds} (a match of a fixed number of rounds) needs "
                f"match=true and scoring='losers-add'; got match={str(self.match).lower()}, "
                f"scoring={self.scoring!r}"
            )
        if self.multi_play_actions and not self.multi_play:
            raise RulesError(
                "multi_play_actions=true needs multi_play=true (it extends the multi-play of "
                "numbers to Skips, Reverses and +2s)"
            )
        if self.scoring == "rounds" and self.match_target > 100:
            raise RulesError(
                f"match_target={self.match_target} with scoring='rounds' counts rounds won: "
                "allowed 1..100"
            )
        if self.dealer == "rotate" and not self.match:
            raise RulesError("dealer='rotate' needs match=true (the deal rotates between rounds)")

    # Derived switches, decided once here so engine and reference agree.
    @functools.cached_property
    def deck_cards(self) -> Deck:
        """The :class:`~uno_rl.core.decks.Deck` of ``deck`` (loaded once)."""
        try:
            return load_deck(self.deck)
        except DeckError as error:
            raise RulesError(f"rules key 'deck': {error}") from None

    @property
    def layout(self):
        """The deck's :class:`~uno_rl.core.layout.Layout` (kinds, actions, observation)."""
        return self.deck_cards.layout

    @functools.cached_property
    def effect_rank(self):
        """(K,) int8: the symbol of each kind's effect (a Customizable's is ``customizable_as``)."""
        return self.layout.effect_rank(self.customizable_as)

    @property
    def boomerangs(self) -> bool:
        """The deck holds Boomerangs: every Skip, +2, +4 and targeted draw gives its victim
        a decision (accept, or answer with a Boomerang), whether or not they hold one."""
        deck = self.deck_cards
        return deck.layout.name != "classic" and bool(deck.copies[-1])

    @property
    def dispenser_on(self) -> bool:
        """The dispenser replaces the draw pile (``dispenser``, ``auto``: as the deck says)."""
        return self.dispenser == "on" or (self.dispenser == "auto" and self.deck_cards.dispenser)

    @property
    def challenge_enabled(self) -> bool:
        """A +4 victim may challenge (bluffing allowed and no stacking)."""
        return self.bluffing == "allowed" and self.stacking == "none"

    @property
    def respond_enabled(self) -> bool:
        """The victim of a +2/+4 gets a decision (challenge, stack or cancel) instead of drawing."""
        return self.challenge_enabled or self.stacking != "none" or self.wild_cancels_draw

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (validated)."""
        check_keys(changes, _field_names())
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain values, ready for TOML/JSON logging."""
        values = dataclasses.asdict(self)
        for name in ("dispenser_hazard", "dispenser_count"):
            values[name] = list(values[name])
        return values

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Rules:
        """Build from a mapping; unknown keys raise :class:`RulesError`."""
        check_keys(values, _field_names())
        return cls(**dict(values))


def _field_names() -> list[str]:
    return [f.name for f in dataclasses.fields(Rules)]


def read_preset(name_or_path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``[rules]`` table of a preset, by name (``envs/NAME.toml``) or by path to a TOML file.

    Any problem (no such preset, a directory, unreadable or non-UTF-8 bytes, bad TOML, a
    ``rules`` that is not a table, an unknown or invalid switch) raises :class:`RulesError`
    naming the file and the problem; what is returned is a valid rule set.
    """
    path, values = read_preset_table(name_or_path)
    try:
        Rules.from_dict(values)
    except RulesError as error:
        raise RulesError(f"preset file {path}: {error}") from None
    return values


def load_rules(preset: str | os.PathLike[str] | Rules = "official", **overrides: Any) -> Rules:
    """Rules of a preset (name, TOML path or Rules) with keyword overrides applied and validated."""
    if isinstance(preset, Rules):
        return preset.replace(**overrides) if overrides else preset
    values = read_preset(preset)  # a valid preset, or an error naming its file
    values.update(overrides)
    return Rules.from_dict(values)
