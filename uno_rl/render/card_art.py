"""Card pictures for the frames of :mod:`uno_rl.render.frames`, drawn with Pillow.

:func:`card_image` draws a card face in UNO's colors: a white oval on the card's color (the four
colors on black for a Wild, a +4 and every colorless card) holding the label (``7``, ``+2``,
``Wild``, ``+4``) or, for Skip and Reverse, their symbol (a barred circle, two opposed
arrows) over the word. Kinds are those of the extended layout (:mod:`uno_rl.core.layout`,
whose kinds 0 .. 53 are the classic ones), so the cards of rules specification §11 have faces
too: their label is the symbol's text (``DISCARD ALL``, ``HIT 2``, ``+2?`` for a Targeted +2,
``+1 ALL`` for a Downpour +1, ``BOOMERANG``, ...; :data:`NEW_LABELS`).
:func:`back_image` draws a card's back. Both return RGBA pictures (transparent corners), cached
by size; fonts are Pillow's own (``ImageFont.load_default(size=...)``, Pillow >= 10.1).
"""

from __future__ import annotations

import functools
import math

from PIL import Image, ImageDraw, ImageFont

from uno_rl.core import layout as layouts
from uno_rl.core.cards import DRAW_TWO_RANK, REVERSE_RANK, SKIP_RANK, WILD, WILD_DRAW_FOUR

__all__ = [
    "CARD_COLORS",
    "NEW_LABELS",
    "back_image",
    "card_image",
    "card_label",
    "default_font",
    "fitting_font",
]

#: Symbol (``uno_rl.core.layout``) -> label of the cards of rules specification §11.
NEW_LABELS: dict[int, str] = {
    layouts.DISCARD_ALL: "DISCARD ALL",
    layouts.HIT_TWO: "HIT 2",
    layouts.TARGETED_TWO: "+2?",
    layouts.HIT_FIRE: "HIT-FIRE",
    layouts.ALL_HIT: "ALL HIT",
    layouts.SWAP_HANDS: "SWAP",
    layouts.SHUFFLE_HANDS: "SHUFFLE",
    layouts.CUSTOMIZABLE: "CUSTOM",
    layouts.TARGETED_FOUR: "+4?",
    layouts.DOWNPOUR_ONE: "+1 ALL",
    layouts.DOWNPOUR_TWO: "+2 ALL",
    layouts.BOOMERANG: "BOOMERANG",
}
_KIND_RANK = layouts.EXTENDED.kind_rank
_KIND_COLOR = layouts.EXTENDED.kind_color

RGB = tuple[int, int, int]
#: UNO's red, yellow, green, blue.
CARD_COLORS: tuple[RGB, ...] = ((215, 38, 0), (236, 196, 0), (55, 151, 17), (9, 86, 191))
#: Labels and symbols on the white oval (a darker yellow: yellow on white is faint).
INK: tuple[RGB, ...] = (CARD_COLORS[0], (200, 150, 0), CARD_COLORS[2], CARD_COLORS[3])
WILD_BLACK: RGB = (24, 24, 24)
WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)
GOLD: RGB = (255, 200, 0)


@functools.cache
def default_font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's own font at ``size`` pixels (no system font), one object per size."""
    return ImageFont.load_default(size=size)


def card_label(kind: int) -> str:
    """The label printed on a card: ``"7"``, ``"Skip"``, ``"Reverse"``, ``"+2"``, ``"Wild"``,
    ``"+4"``, or a new card's :data:`NEW_LABELS` entry (``kind`` of the extended layout)."""
    k = int(kind)
    if not 0 <= k < _KIND_RANK.shape[0]:
        raise ValueError(f"card kind must be in [0, {_KIND_RANK.shape[0]}), got {kind!r}")
    if k == WILD:
        return "Wild"
    if k == WILD_DRAW_FOUR:
        return "+4"
    rank = int(_KIND_RANK[k])
    if rank in NEW_LABELS:
        return NEW_LABELS[rank]
    return {SKIP_RANK: "Skip", REVERSE_RANK: "Reverse", DRAW_TWO_RANK: "+2"}.get(rank, str(rank))


def fitting_font(draw: ImageDraw.ImageDraw, text: str, width: float, size: int, least: int = 8):
    """The largest default font, at most ``size``, in which ``text`` is at most ``width`` wide."""
    while size > least and draw.textlength(text, font=default_font(size)) > width:
        size -= 1
    return default_font(size)


def _symbol(d: ImageDraw.ImageDraw, rank: int, cx: float, cy: float, r: float, ink: RGB) -> None:
    """The Skip (a barred circle) or Reverse (two opposed arrows) symbol, radius ``r``."""
    width = max(2, round(r / 4))
    if rank == SKIP_RANK:
        d.ellipse((cx - r, cy - r, cx + r, cy + r), outline=ink, width=width)
        k = r * 0.7
        d.line((cx - k, cy + k, cx + k, cy - k), fill=ink, width=width)
        return
    # Two arrows along the rising diagonal, side by side: one up-right, one down-left.
    dx, dy = math.sqrt(0.5), -math.sqrt(0.5)  # up-right
    nx, ny = math.sqrt(0.5), math.sqrt(0.5)  # across the diagonal
    length, off, head = r * 0.8, r * 0.36, r * 0.42
    for sign in (1, -1):
        ox, oy = cx - sign * nx * off, cy - sign * ny * off
        ux, uy = sign * dx, sign * dy  # where this arrow points
        tail = (ox - ux * length, oy - uy * length)
        tip = (ox + ux * length, oy + uy * length)
        base = (tip[0] - ux * head, tip[1] - uy * head)
        d.line((*tail, *base), fill=ink, width=width)
        d.polygon(
            [
                tip,
                (base[0] + nx * head * 0.7, base[1] + ny * head * 0.7),
                (base[0] - nx * head * 0.7, base[1] - ny * head * 0.7),
            ],
            fill=ink,
        )


@functools.cache
def card_image(kind: int, w: int, h: int, outline: bool) -> Image.Image:
    """RGBA picture of card ``kind``, ``w`` x ``h`` pixels, plus a 3-pixel gold ring if ``outline``."""
    pad = 3
    img = Image.new("RGBA", (w + 2 * pad, h + 2 * pad), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    radius = max(3, w // 8)
    if outline:
        d.rounded_rectangle((0, 0, w + 2 * pad - 1, h + 2 * pad - 1), radius + pad, fill=GOLD)
    d.rounded_rectangle(
        (pad, pad, pad + w - 1, pad + h - 1), radius, fill=WHITE, outline=(60, 60, 60)
    )
    inset = max(2, w // 14)
    color, rank = int(_KIND_COLOR[kind]), int(_KIND_RANK[kind])
    face = CARD_COLORS[color] if color >= 0 else WILD_BLACK
    left, top, right, bottom = pad + inset, pad + inset, pad + w - 1 - inset, pad + h - 1 - inset
    d.rounded_rectangle((left, top, right, bottom), max(2, radius - inset), fill=face)
    label = card_label(kind)
    words = rank in (SKIP_RANK, REVERSE_RANK)
    word_font = fitting_font(d, label, right - left - 2, max(9, h // 6), least=7)
    cx = pad + w / 2
    cy = pad + h / 2 - (word_font.size * 0.45 if words else 0)  # room for the word below
    ew, eh = (right - left) * 0.45, (bottom - top) * (0.3 if words else 0.36)
    oval = (cx - ew, cy - eh, cx + ew, cy + eh)
    if color < 0:  # the four colors of a wild
        for q, start in enumerate((180, 270, 0, 90)):
            d.pieslice(oval, start, start + 90, fill=CARD_COLORS[q])
    else:
        d.ellipse(oval, fill=WHITE)
    ink = WHITE if color < 0 else INK[color]
    if words:
        _symbol(d, rank, cx, cy, min(ew, eh) * 0.72, ink)
        d.text(
            (pad + w / 2, bottom - 1),
            label,
            font=word_font,
            fill=WHITE,
            anchor="md",
            stroke_width=1,
            stroke_fill=BLACK,
        )
    else:
        font = fitting_font(d, label, 2 * ew * 0.9, max(10, int(h * 0.36)))
        stroke = max(1, font.size // 12)
        d.text(
            (cx, cy),
            label,
            font=font,
            fill=ink,
            anchor="mm",
            stroke_width=stroke,
            stroke_fill=BLACK,
        )
    if w >= 70 and len(label) <= 7:  # corner labels on large cards (short labels only)
        corner = default_font(max(10, w // 7))
        d.text(
            (left + 3, top + 2), label, font=corner, fill=WHITE, stroke_width=1, stroke_fill=BLACK
        )
    return img


@functools.cache
def back_image(w: int, h: int) -> Image.Image:
    """RGBA picture of a card's back."""
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    radius = max(2, w // 8)
    d.rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=WHITE, outline=(60, 60, 60))
    inset = max(1, w // 12)
    if w < 20:  # a small back in a fanned hand: plain red, its white edge shows
        d.rounded_rectangle((1, 1, w - 2, h - 2), radius, fill=(190, 25, 20))
        return img
    d.rounded_rectangle((inset, inset, w - 1 - inset, h - 1 - inset), radius, fill=WILD_BLACK)
    ew, eh = w * 0.36, h * 0.3
    d.ellipse((w / 2 - ew, h / 2 - eh, w / 2 + ew, h / 2 + eh), fill=CARD_COLORS[0])
    if w >= 30:
        font = fitting_font(d, "UNO", w * 0.6, w // 3)
        d.text(
            (w / 2, h / 2),
            "UNO",
            font=font,
            fill=CARD_COLORS[1],
            anchor="mm",
            stroke_width=1,
            stroke_fill=BLACK,
        )
    return img
