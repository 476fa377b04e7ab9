"""RGB frames of one game (``render_mode="rgb_array"``), drawn with Pillow.

:func:`render_frame` takes the arguments of :func:`uno_rl.render.text.render_text` and draws
the same :class:`~uno_rl.render.text.TableView` (so the picture shows what the text shows and
nothing more) as a ``(FRAME_HEIGHT, FRAME_WIDTH, 3)`` uint8 array, the same size for every
game and player count, which is what Gymnasium's ``RecordVideo`` needs:

* a header: title, players, decision, and in a match the round and the target;
* the player table, one row a seat: name, the hand as card backs and a count, the match
  score; the seat to act sits on a highlighted row with a yellow arrow, its phase named;
  the round's winner is marked;
* the top card, the current color (a swatch), the direction of play (an arrow), the draw
  pile's size and the pending draws;
* the viewer's hand face up, one card per kind with a ``x2`` badge for copies (so at most K, 54
  or 75, cards to place: they shrink to fit), the card just drawn, and when the viewer is to act
  the legal actions, the playable cards outlined in gold and every legal action listed;
* once the round is over, its outcome instead of the hand.

Cards (:mod:`uno_rl.render.card_art`) are in UNO's colors with their labels (numbers, Skip,
Reverse, +2, Wild, +4, and the cards of rules specification §11 on every deck: ``DISCARD ALL``,
``HIT 2``, ``+2?``, ...). With the random card dispenser on, the pile shows the dispenser's
cards and its presses since it last fired; the header names the seats of the round's last
hand swap (public; the hands swapped are in the text rendering, to the two swappers only). Text uses Pillow's own font (``ImageFont.load_default(size=...)``,
Pillow >= 10.1), never a system font; that font draws ASCII only, so names lose their accents
(``José`` -> ``Jose``) and other characters are written as escapes (``\\u674e``). Card and
text pictures are cached, so a frame costs about 5 ms of CPU.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import unicodedata
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw

from uno_rl.core.actions import CHOOSE_COLOR, DRAW, TARGET
from uno_rl.core.cards import COLOR_NAMES, WILD, WILD_DRAW_FOUR
from uno_rl.core.layout import CLASSIC, Layout
from uno_rl.core.state import State

from .card_art import (
    BLACK,
    CARD_COLORS,
    GOLD,
    RGB,
    WHITE,
    back_image,
    card_image,
    card_label,
    default_font,
)
from .text import TableView, match_length, table_view

__all__ = ["FRAME_HEIGHT", "FRAME_SHAPE", "FRAME_WIDTH", "card_label", "draw_view", "render_frame"]

FRAME_WIDTH = 960
FRAME_HEIGHT = 640
#: Shape of every frame: (height, width, RGB).
FRAME_SHAPE = (FRAME_HEIGHT, FRAME_WIDTH, 3)

BACKGROUND: RGB = (30, 70, 52)  # card-table felt
PANEL: RGB = (22, 52, 39)
HEADER: RGB = (14, 30, 23)
TEXT: RGB = (235, 240, 236)
DIM: RGB = (160, 185, 170)
ACTING_ROW: RGB = (92, 82, 20)
ALERT: RGB = (230, 60, 40)

MARGIN = 16
TABLE_TOP = 46  # the player table and the pile
ROW_HEIGHT = 28  # one seat (10 seats fit above the hand)
HAND_TOP = 336  # the hand's caption; cards below it
HAND_CARDS_TOP = 368
HAND_CARDS_HEIGHT = 196
LEGAL_TOP = 568  # the legal actions, to the bottom


def _clip(draw: ImageDraw.ImageDraw, text: str, width: float, font) -> str:
    """``text`` cut (with ``...``) to at most ``width`` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "...", font=font) > width:
        text = text[:-1]
    return text + "..."


def _paste(canvas: Image.Image, picture: Image.Image, x: float, y: float) -> None:
    canvas.paste(picture, (int(x), int(y)), picture)


def _hand_layout(n: int, width: int, height: int) -> tuple[int, int, int]:
    """(card width, card height, columns) of the largest cards of which ``n`` fit the area."""
    gap = 10  # room for the gold ring and the count badge
    for w in range(64, 19, -2):
        h = w * 3 // 2
        cols = max(1, (width + gap) // (w + gap))
        if math.ceil(n / cols) * (h + gap) <= height:
            return w, h, cols
    w = 20
    return w, 30, max(1, (width + gap) // (w + gap))


def _wild_word(kind: int, layout: Layout) -> str:
    """How a colorless card is named in the legal actions: ``wild``, ``+4``, ``wild swap hands``."""
    return {WILD: "wild", WILD_DRAW_FOUR: "+4"}.get(kind) or layout.card_name(kind)


def _legal_lines(legal: Sequence[int], layout: Layout = CLASSIC) -> list[str]:
    """The legal actions, grouped: ``play red 1 7 Skip``, ``wild naming red/blue``, ``draw``,
    ``swap hands with the player 1/2 seat(s) clockwise``, ``name color red/green``
    (``layout``: the deck's; in the extended layout the seat actions are ``target the player
    1/2 seat(s) clockwise``, for a Swap Hands, a targeted draw or a 7)."""
    parts: list[str] = []
    plays: dict[int, list[str]] = {}
    wilds: dict[int, list[str]] = {}
    card, named_color = layout.action_card, layout.action_color
    seats = [a for a in legal if TARGET <= a < CHOOSE_COLOR]
    targets = [str(int(layout.action_target[a])) for a in seats]
    colors = [COLOR_NAMES[int(named_color[a])] for a in legal if card[a] < 0 <= named_color[a]]
    others: list[str] = []
    for a in legal:
        kind = int(card[a])
        if kind < 0:
            if DRAW <= a < TARGET:
                others.append(layout.action_name(a))
        elif named_color[a] >= 0:
            wilds.setdefault(kind, []).append(COLOR_NAMES[int(named_color[a])])
        elif layout.kind_color[kind] >= 0:
            plays.setdefault(int(layout.kind_color[kind]), []).append(card_label(kind))
        else:  # a colorless card naming no color (Boomerang)
            others.append(layout.action_name(a))
    for color, labels in sorted(plays.items()):
        parts.append(f"play {COLOR_NAMES[color]} " + " ".join(labels))
    for kind, named in sorted(wilds.items()):
        parts.append(_wild_word(kind, layout) + " naming " + "/".join(named))
    parts += others
    if targets:
        verb = "target" if layout.extended else "swap hands with"
        parts.append(f"{verb} the player {'/'.join(targets)} seat(s) clockwise")
    if colors:
        parts.append("name color " + "/".join(colors))
    return parts


def _wrap(draw: ImageDraw.ImageDraw, parts: Sequence[str], width: float, font) -> list[str]:
    """``parts`` joined by ``;`` into lines at most ``width`` pixels wide."""
    lines: list[str] = []
    line = ""
    for part in parts:
        candidate = f"{line};  {part}" if line else part
        if line and draw.textlength(candidate, font=font) > width:
            lines.append(line + ";")
            line = part
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def _arrow(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, clockwise: bool) -> None:
    """A circular arrow around (cx, cy), open at the top: clockwise or counter-clockwise."""
    # Pillow's angles grow clockwise on screen (y points down).
    draw.arc((cx - r, cy - r, cx + r, cy + r), 300, 600, fill=TEXT, width=3)
    end = math.radians(240 if clockwise else 300)
    ex, ey = cx + r * math.cos(end), cy + r * math.sin(end)
    sign = 1 if clockwise else -1
    tx, ty = -math.sin(end) * sign, math.cos(end) * sign  # the direction of travel
    nx, ny = -ty, tx
    size = r * 0.6
    head = [
        (ex + tx * size, ey + ty * size),
        (ex + nx * size * 0.6, ey + ny * size * 0.6),
        (ex - nx * size * 0.6, ey - ny * size * 0.6),
    ]
    draw.polygon(head, fill=TEXT)


@functools.lru_cache(maxsize=4096)
def _text_sprite(text: str, font, fill: RGB, anchor: str) -> tuple[Image.Image, int, int]:
    """RGBA picture of ``text`` and its offset from the anchor point (frames repeat their
    texts, and rendering a text costs more than pasting it)."""
    x0, y0, x1, y1 = font.getbbox(text, anchor=anchor)
    img = Image.new("RGBA", (max(1, x1 - x0), max(1, y1 - y0)), (0, 0, 0, 0))
    ImageDraw.Draw(img).text((-x0, -y0), text, font=font, fill=fill, anchor=anchor)
    return img, x0, y0


def _text(canvas: Image.Image, xy, text: str, font, fill: RGB, anchor: str = "la") -> None:
    """Draw ``text`` at ``xy`` as ``ImageDraw.text`` would (without a stroke)."""
    img, x0, y0 = _text_sprite(text, font, fill, anchor)
    canvas.paste(img, (round(xy[0] + x0), round(xy[1] + y0)), img)


def _draw_header(canvas: Image.Image, draw: ImageDraw.ImageDraw, v: TableView) -> None:
    draw.rectangle((0, 0, FRAME_WIDTH, 36), fill=HEADER)
    text = f"{v.title}  |  {v.players} players  |  decision {v.decision}"
    if v.match_round is not None:
        text += f"  |  round {v.match_round} {match_length(v)}"
    if v.swap is not None:
        text += f"  |  last swap: {v.seats[v.swap[0]].name} <-> {v.seats[v.swap[1]].name}"
    font = default_font(20)
    _text(
        canvas,
        (MARGIN, 18),
        _clip(draw, text, FRAME_WIDTH - 2 * MARGIN, font),
        font=font,
        fill=TEXT,
        anchor="lm",
    )


def _draw_seats(canvas: Image.Image, draw: ImageDraw.ImageDraw, v: TableView) -> None:
    right = 566
    draw.rounded_rectangle(
        (MARGIN - 6, TABLE_TOP - 4, right, TABLE_TOP + v.players * ROW_HEIGHT + 4), 8, fill=PANEL
    )
    font, small = default_font(16), default_font(14)
    back = back_image(14, 21)
    for k, seat in enumerate(v.seats):
        top = TABLE_TOP + k * ROW_HEIGHT
        mid = top + ROW_HEIGHT / 2
        if seat.acting:
            draw.rounded_rectangle(
                (MARGIN - 2, top + 1, right - 4, top + ROW_HEIGHT - 1),
                6,
                fill=ACTING_ROW,
                outline=GOLD,
            )
            draw.polygon(
                [(MARGIN + 2, mid - 8), (MARGIN + 16, mid), (MARGIN + 2, mid + 8)], fill=GOLD
            )
        name = _clip(draw, seat.name, 150, font)
        _text(
            canvas,
            (MARGIN + 24, mid),
            name,
            font=font,
            fill=GOLD if seat.acting else TEXT,
            anchor="lm",
        )
        for j in range(min(seat.size, 10)):  # the hand as backs; the count says how many
            _paste(canvas, back, 196 + 7 * j, mid - 10)
        count = f"{seat.size} card" + ("s" if seat.size != 1 else "")
        _text(canvas, (278, mid), count, font=font, fill=TEXT, anchor="lm")
        x = 356
        if seat.score is not None:
            _text(canvas, (x, mid), f"score {seat.score}", font=small, fill=TEXT, anchor="lm")
            x += 86
        if seat.acting:
            status = _clip(draw, f"to act: {v.phase}", right - 8 - x, small)
            _text(canvas, (x, mid), status, font=small, fill=GOLD, anchor="lm")
        if seat.winner:
            draw.rounded_rectangle((x, mid - 10, x + 72, mid + 10), 5, fill=GOLD)
            _text(canvas, (x + 36, mid), "WINNER", font=small, fill=BLACK, anchor="mm")


def _draw_pile(canvas: Image.Image, draw: ImageDraw.ImageDraw, v: TableView) -> None:
    left, small, font = 590, default_font(14), default_font(16)
    _text(canvas, (left, TABLE_TOP + 4), "top card", font=small, fill=DIM)
    _paste(canvas, card_image(v.top, 110, 165, False), left - 3, TABLE_TOP + 22)
    x, y = left + 134, TABLE_TOP + 14
    if v.color >= 0:
        draw.ellipse((x, y, x + 32, y + 32), fill=CARD_COLORS[v.color], outline=WHITE, width=2)
        name = COLOR_NAMES[v.color]
    else:
        draw.ellipse((x, y, x + 32, y + 32), outline=WHITE, width=2)
        name = "none yet"
    _text(canvas, (x + 44, y + 16), f"color: {name}", font=font, fill=TEXT, anchor="lm")
    y += 56
    clockwise = v.direction > 0
    _arrow(draw, x + 16, y + 16, 13, clockwise)
    direction = "clockwise" if clockwise else "counter-clockwise"
    _text(canvas, (x + 44, y + 16), direction, font=font, fill=TEXT, anchor="lm")
    y += 52
    _paste(canvas, back_image(28, 42), x + 2, y)
    if v.presses is None:
        _text(
            canvas, (x + 44, y + 21), f"draw pile: {v.pile_size}", font=font, fill=TEXT, anchor="lm"
        )
    else:  # the dispenser: its cards and its presses since it last fired
        small = default_font(14)
        _text(
            canvas, (x + 44, y + 12), f"dispenser: {v.pile_size}", font=font, fill=TEXT, anchor="lm"
        )
        _text(canvas, (x + 44, y + 32), f"presses: {v.presses}", font=small, fill=GOLD, anchor="lm")
    y += 64
    pending = f"pending draw: {v.pending}"
    if v.pending > 0:
        width = draw.textlength(pending, font=font)
        draw.rounded_rectangle((x - 4, y - 2, x + width + 12, y + 26), 6, fill=ALERT)
    _text(canvas, (x + 4, y + 12), pending, font=font, fill=TEXT, anchor="lm")


def _draw_hand(canvas: Image.Image, draw: ImageDraw.ImageDraw, v: TableView) -> None:
    font, small = default_font(18), default_font(15)
    if v.viewer is None:
        if v.outcome is not None:
            text = _clip(draw, v.outcome, FRAME_WIDTH - 2 * MARGIN, default_font(26))
            _text(
                canvas,
                (FRAME_WIDTH / 2, HAND_CARDS_TOP + 70),
                text,
                font=default_font(26),
                fill=GOLD,
                anchor="mm",
            )
        return
    owner = v.seats[v.viewer]
    cards = sum(n for _, n in v.hand)
    caption = f"hand of {owner.name}: {cards} card" + ("s" if cards != 1 else "")
    _text(
        canvas,
        (MARGIN, HAND_TOP + 12),
        _clip(draw, caption, 560, font),
        font=font,
        fill=TEXT,
        anchor="lm",
    )
    if v.drawn is not None:  # beside the draw pile, in the free space above the hand
        x, mid = 590, HAND_TOP - 36
        _text(canvas, (x, mid), "just drew:", font=font, fill=GOLD, anchor="lm")
        x += draw.textlength("just drew:", font=font) + 12
        _paste(canvas, card_image(v.drawn, 36, 54, False), x - 3, mid - 30)
        name = _drawn_name(v.drawn, v.layout)
        _text(canvas, (x + 48, mid), name, font=font, fill=TEXT, anchor="lm")
    card = v.layout.action_card
    playable = {int(card[a]) for a in (v.legal or ()) if card[a] >= 0}
    width = FRAME_WIDTH - 2 * MARGIN
    w, h, cols = _hand_layout(len(v.hand), width, HAND_CARDS_HEIGHT)
    gap = 10
    badge = default_font(max(10, w // 4))
    for j, (kind, count) in enumerate(v.hand):
        x = MARGIN + (j % cols) * (w + gap)
        y = HAND_CARDS_TOP + (j // cols) * (h + gap)
        _paste(canvas, card_image(kind, w, h, kind in playable), x - 3, y - 3)
        if count > 1:
            r = max(8, w // 5)
            cx, cy = x + w - 2, y + 2
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=WHITE, outline=BLACK, width=1)
            _text(canvas, (cx, cy), f"x{count}", font=badge, fill=BLACK, anchor="mm")
    if v.legal is not None:
        parts = _legal_lines(v.legal, v.layout)
        parts[0] = "legal:  " + parts[0]  # there is always a legal action
        font = small
        lines = _wrap(draw, parts, width, font)
        if len(lines) > 3:  # a smaller font, four lines; never seen cut in play
            font = default_font(12)
            lines = _wrap(draw, parts, width, font)
            if len(lines) > 4:
                lines[3] = _clip(draw, lines[3] + " " + " ".join(lines[4:]), width, font)
        for k, line in enumerate(lines[:4]):
            _text(canvas, (MARGIN, LEGAL_TOP + 4 + k * (font.size + 4)), line, font=font, fill=GOLD)


def _drawn_name(kind: int, layout: Layout) -> str:
    color = int(layout.kind_color[kind])
    label = card_label(kind)
    return label if color < 0 else f"{COLOR_NAMES[color]} {label}"


def _drawable(text: str) -> str:
    """``text`` in ASCII, which is all Pillow's default font draws: accents dropped
    (``José`` -> ``Jose``), anything else written as its escape (``\\u674e``)."""
    if text.isascii():
        return text
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return folded.encode("ascii", "backslashreplace").decode("ascii")


def _ascii_view(v: TableView) -> TableView:
    seats = tuple(dataclasses.replace(seat, name=_drawable(seat.name)) for seat in v.seats)
    outcome = None if v.outcome is None else _drawable(v.outcome)
    return dataclasses.replace(v, title=_drawable(v.title), seats=seats, outcome=outcome)


def draw_view(view: TableView) -> np.ndarray:
    """The frame of ``view``: ``(FRAME_HEIGHT, FRAME_WIDTH, 3)`` uint8 (module docstring)."""
    view = _ascii_view(view)
    canvas = Image.new("RGB", (FRAME_WIDTH, FRAME_HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    _draw_header(canvas, draw, view)
    _draw_seats(canvas, draw, view)
    _draw_pile(canvas, draw, view)
    _draw_hand(canvas, draw, view)
    return np.array(canvas, dtype=np.uint8)


def render_frame(
    state: State,
    game: int = 0,
    names: Sequence[str] | None = None,
    title: str = "UNO",
    show_hand: bool = True,
    viewer: int | None = None,
) -> np.ndarray:
    """An RGB picture of game ``game`` of ``state``: ``(640, 960, 3)`` uint8.

    The arguments are :func:`uno_rl.render.text.render_text`'s (no ``color``): it shows the
    same, seen by ``viewer`` (``None``: the player to act).
    """
    return draw_view(table_view(state, game, names, title, show_hand, viewer))
