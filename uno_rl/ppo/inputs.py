"""What a policy network reads and outputs: the layout, the deck and the observation pieces.

A network is trained on the rules' deck, hence on its layout (:mod:`uno_rl.core.layout`):
``CLASSIC`` (583 observation values, 77 actions) or ``EXTENDED`` (877 values, 122 actions).
:class:`NetworkInputs` gathers what follows from that: the observation columns it reads, their
input scales (the draw pile divided by the training deck's cards) and its number of logits.
Checkpoints record it in their ``network`` entry (``layout``, ``deck``, ``deck_size``
besides ``features``, ``hidden``, ``scaled``); an entry without them (every checkpoint written
before decks existed, the shipped ``agents/ppo-*.pt``) is the classic layout of the 108-card
deck, whose columns and scales are exactly the ones they were trained with.

The config's default ``features`` (every classic piece) means every piece of the layout: on an
extended deck the network reads the extended pieces too (:func:`resolve_features`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from uno_rl.core.layout import CLASSIC, EXTENDED_PIECES, Layout
from uno_rl.core.rules import Rules

from .config import ALL_FEATURES, TrainConfig
from .network import (
    CLASSIC_DECK_SIZE,
    PolicyNetwork,
    feature_columns,
    input_scale,
    layout_named,
)

__all__ = ["NetworkInputs", "describe_layout", "resolve_features"]


def resolve_features(features: Sequence[str], layout: Layout) -> list[str]:
    """The pieces a network of ``layout`` reads for the config's ``features``: the default
    (every classic piece, :data:`~uno_rl.ppo.config.ALL_FEATURES`) on a layout with more
    pieces (extended) is every piece of it; any other list is kept as given."""
    features = list(features)
    if layout.extended and features == list(ALL_FEATURES):
        return features + [name for name, _ in EXTENDED_PIECES]
    return features


def describe_layout(layout: Layout) -> str:
    """``'extended layout: 122 actions, 877 observation values'`` (for error messages)."""
    return (
        f"{layout.name} layout: {layout.num_actions} actions, {layout.obs_size} observation values"
    )


@dataclasses.dataclass(frozen=True, eq=False)
class NetworkInputs:
    """The layout, deck and observation pieces of one policy network.

    ``layout``: the card layout it plays; ``deck``: the name (or path) of the deck it was
    trained on; ``deck_size``: that deck's cards (the divisor of ``draw_pile_size``);
    ``features``: the observation pieces it reads (names of ``layout.pieces``).
    """

    layout: Layout
    deck: str
    deck_size: int
    features: tuple[str, ...]

    def __post_init__(self) -> None:
        feature_columns(self.features, self.layout)  # names checked: a clear ValueError
        input_scale(self.features, self.layout, self.deck_size)

    @classmethod
    def of_rules(cls, features: Sequence[str], rules: Rules) -> NetworkInputs:
        """The inputs of a network trained under ``rules`` with the config's ``features``."""
        layout = rules.layout
        return cls(
            layout, rules.deck, rules.deck_cards.size, tuple(resolve_features(features, layout))
        )

    @classmethod
    def of_config(cls, config: TrainConfig) -> NetworkInputs:
        """The inputs of the network ``config`` trains (its rules' deck and its features)."""
        return cls.of_rules(config.features, config.rules())

    def matches(self, spec: dict[str, Any]) -> bool:
        """Whether a checked checkpoint ``network`` entry has these inputs (features, layout,
        deck size; the deck's name may differ)."""
        other = NetworkInputs.of_spec(spec)
        return (other.features, other.layout.name, other.deck_size) == (
            self.features, self.layout.name, self.deck_size,
        )  # fmt: skip

    def describe(self) -> str:
        """``'11 observation pieces of deck 'classic' (classic layout: ...)'`` for errors."""
        return (
            f"{len(self.features)} observation pieces of deck {self.deck!r} ({self.deck_size} "
            f"cards, {describe_layout(self.layout)})"
        )

    @classmethod
    def of_spec(cls, spec: dict[str, Any]) -> NetworkInputs:
        """The inputs a checkpoint's checked ``network`` entry records
        (:func:`~uno_rl.ppo.checkpoint.network_spec`)."""
        return cls(
            layout_named(spec.get("layout", CLASSIC.name)),
            spec.get("deck", "classic"),
            spec.get("deck_size", CLASSIC_DECK_SIZE),
            tuple(spec["features"]),
        )

    @cached_property
    def columns(self) -> np.ndarray:
        """(F,) int64: the observation columns the network reads."""
        return feature_columns(self.features, self.layout)

    @cached_property
    def scale(self) -> np.ndarray:
        """(F,) float32: the multipliers of those columns."""
        return input_scale(self.features, self.layout, self.deck_size)

    @property
    def actions(self) -> int:
        """A: the network's logits (the layout's actions)."""
        return self.layout.num_actions

    def network(
        self,
        hidden: Sequence[int],
        scaled: bool = True,
        trunk_bf16: bool = False,
        sigmoid_form: bool = False,
    ) -> PolicyNetwork:
        """A fresh :class:`PolicyNetwork` of these inputs (``scaled``: apply :attr:`scale`;
        ``trunk_bf16`` and ``sigmoid_form``: the training settings of that class)."""
        scale = self.scale if scaled else None
        return PolicyNetwork(
            len(self.columns), hidden, scale, trunk_bf16, self.actions, sigmoid_form
        )

    def spec(self, hidden: Sequence[int], scaled: bool = True) -> dict[str, Any]:
        """The checkpoint's ``network`` entry of a network of these inputs."""
        return {
            "features": list(self.features),
            "hidden": list(hidden),
            "scaled": bool(scaled),
            "layout": self.layout.name,
            "deck": self.deck,
            "deck_size": int(self.deck_size),
        }

    def check_plays(self, rules: Rules, what: str) -> None:
        """ValueError (one line, starting with ``what``) unless ``rules`` play this layout."""
        if rules.layout.name != self.layout.name:
            raise ValueError(
                f"{what} was trained on deck {self.deck!r} ({describe_layout(self.layout)}); "
                f"the rules play deck {rules.deck!r} ({describe_layout(rules.layout)}): a "
                "policy plays only decks of the layout it was trained on"
            )
