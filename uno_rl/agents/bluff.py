"""The +4 bluff, analytically: when a challenge pays, and how likely a given +4 is a bluff.

Penalties (official rules): a +4 makes its victim draw 4. The victim may challenge: if the
+4 was a bluff (its player held a card of the previous color, or under
``draw_four_legal="no-playable-card"`` any playable card), the bluffer draws the 4 instead (and
under ``caught_bluffer="takes-back"`` also takes the +4 back into their hand); if it was
legal, the challenger draws 4 + 2 = 6.

:func:`challenge_break_even` is the probability of a bluff above which challenging beats
accepting, for two objectives: ``own-cards`` (cards the challenger draws) and
``card-difference`` (the challenger's cards minus the bluffer's, what decides a 2-player race).

:func:`bluff_probability` is the probability that a +4 was a bluff, from public information
only, exact under the assumption that every card the observer has not seen (not in their hand,
not in the discard pile) is equally likely to be anywhere unseen: the +4 player's ``h``
remaining cards are then a uniform sample without replacement from the ``U`` unseen cards, of
which ``B`` would have made the +4 illegal, and ``P(bluff) = 1 - C(U - B, h) / C(U, h)``.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.cards import KIND_COPIES
from uno_rl.core.rules import Rules

__all__ = [
    "OBJECTIVES",
    "bluff_kinds",
    "bluff_probability",
    "challenge_break_even",
    "unseen_counts",
]

#: Objectives a challenge decision can minimise.
OBJECTIVES = ("own-cards", "card-difference")

#: Cards drawn by a challenger whose challenge fails, beyond the pending draw.
FAILED_CHALLENGE_EXTRA = 2


def challenge_break_even(rules: Rules, objective: str = "own-cards", pending: int = 4) -> float:
    """Bluff probability above which challenging a +4 beats accepting it.

    Accepting costs the victim ``pending`` cards. A successful challenge costs the victim
    nothing and the bluffer ``pending`` cards (plus the +4 itself under ``takes-back``); a failed
    one costs the victim ``pending + 2``. With ``p`` the bluff probability:

    * ``own-cards``: challenge when ``(1 - p) (pending + 2) < pending``, i.e.
      ``p > 2 / (pending + 2)`` (1/3 for a plain +4).
    * ``card-difference`` (victim minus bluffer): challenge when
      ``-p b + (1 - p)(pending + 2) < pending`` with ``b`` the bluffer's penalty (``pending``,
      or ``pending + 1`` under ``takes-back``): ``p > 2 / (pending + 2 + b)`` (1/5 for a plain
      +4, 2/11 under ``takes-back``).

    Raises:
        ValueError: an unknown objective, or rules without a +4 challenge.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if not rules.challenge_enabled:
        raise ValueError(
            "these rules have no +4 challenge (bluffing forbidden or stacking on): "
            "no break-even probability"
        )
    fail = pending + FAILED_CHALLENGE_EXTRA
    if objective == "own-cards":
        return FAILED_CHALLENGE_EXTRA / fail
    bluffer_penalty = pending + (1 if rules.caught_bluffer == "takes-back" else 0)
    return FAILED_CHALLENGE_EXTRA / (fail + bluffer_penalty)


def bluff_kinds(rules: Rules, previous_color: np.ndarray) -> np.ndarray:
    """(k, K) bool: kinds whose presence in the +4 player's hand made the +4 a bluff.

    K is the rules' layout's kind count (54 classic, 75 extended). ``no-current-color``: the
    colored kinds of ``previous_color``. ``no-playable-card``: those and the kinds playable on
    anything (the Wild; in the extended layout every wild but the +4s). A card matching the
    previous top card's symbol is not counted: the observation does not carry that symbol,
    so this is a lower bound of the bluff set. The same holds for a Targeted +4.
    """
    layout = rules.layout
    previous_color = np.asarray(previous_color, np.int64)
    kinds = layout.kind_color[None, :] == previous_color[:, None]
    if rules.draw_four_legal == "no-playable-card":
        kinds[:, layout.always_playable] = True
    return kinds


def bluff_probability(
    unseen_bluff: np.ndarray, unseen_total: np.ndarray, hand_size: np.ndarray
) -> np.ndarray:
    """(k,) float64: ``P(bluff) = 1 - C(U - B, h) / C(U, h)`` for each game.

    Args:
        unseen_bluff: (k,) ``B``, unseen cards that would have made the +4 a bluff.
        unseen_total: (k,) ``U``, all unseen cards (``U >= h``, ``U >= B``).
        hand_size: (k,) ``h``, cards the +4 player may hold a bluff card among (their hand
            after the +4, or fewer when some are known not to be of that kind).
    """
    b = np.asarray(unseen_bluff, np.float64)
    u = np.asarray(unseen_total, np.float64)
    h = np.asarray(hand_size, np.int64)
    if (b < 0).any() or (b > u).any() or (h < 0).any():
        raise ValueError("need 0 <= unseen_bluff <= unseen_total and hand_size >= 0")
    h = np.minimum(h, u.astype(np.int64))
    none = np.ones(np.broadcast(b, u, h).shape)
    for i in range(int(h.max(initial=0))):  # product over the h draws, all games at once
        draw = i < h
        ratio = np.divide(u - b - i, u - i, out=np.zeros_like(none), where=(u - i) > 0)
        none = np.where(draw, none * np.clip(ratio, 0.0, 1.0), none)
    return 1.0 - none


def unseen_counts(
    own_hand: np.ndarray, discard: np.ndarray, copies: np.ndarray | None = None
) -> np.ndarray:
    """(k, K) float64: copies of each kind the observer has not seen (deck - hand - discard).

    ``copies`` (K,) is the deck (``rules.deck_cards.copies``); the default is the classic
    108-card deck (K = 54).
    """
    deck = KIND_COPIES if copies is None else np.asarray(copies)
    own_hand = np.asarray(own_hand)
    if own_hand.shape[-1] != deck.shape[0] or np.shape(discard)[-1] != deck.shape[0]:
        raise ValueError(
            f"own_hand and discard must have one column per deck kind ({deck.shape[0]}), got "
            f"{own_hand.shape} and {np.shape(discard)}"
        )
    unseen = deck[None, :].astype(np.float64) - own_hand - discard
    return np.maximum(unseen, 0.0)
