"""State of N games in lockstep: a struct of arrays with a leading batch axis.

All games of a batch share one :class:`~uno_rl.core.rules.Rules` (so one player count P).
Seats are absolute (0 .. P-1); ``direction`` +1 is clockwise. Small integer dtypes keep
a 2-player game at about 430 bytes (:meth:`State.nbytes_per_game`). Counters that grow with
the length of a round (``turn``, ``reshuffles``, ``stats``) are int32: a round may last
``max_turns`` = 1,000,000 decisions, which can take an int16 counter past 32,767.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .rules import Rules

__all__ = ["STAT_NAMES", "State"]

#: Per-seat counters of a round (``State.stats[:, i]``): +4s played, +4s that were bluffs,
#: challenges made, challenges won (the +4 was a bluff), own +4s challenged, own bluffs caught.
STAT_NAMES = (
    "draw4_plays",
    "bluffs",
    "challenges",
    "challenges_won",
    "draw4_challenged",
    "bluffs_caught",
)


@dataclasses.dataclass
class State:
    """Batched game state. Engine functions mutate it in place; :meth:`copy` snapshots it."""

    rules: Rules
    key: np.ndarray  # (N,) uint64: the round's deal seed; all in-round randomness derives from it
    hands: np.ndarray  # (N, P, K) int8: cards of each kind in each seat's hand (K: layout's kinds)
    hand_size: np.ndarray  # (N, P) int16: hands summed over kinds (kept in step with hands)
    pile: np.ndarray  # (N, D) int8: draw pile (D: the deck's cards), drawn from pile_size - 1 down
    pile_size: np.ndarray  # (N,) int16: cards in the draw pile
    discard: np.ndarray  # (N, K) int8: cards of each kind in the discard pile, top card included
    top: np.ndarray  # (N,) int8: kind of the discard pile's top card
    color: np.ndarray  # (N,) int8: current color 0..3 (-1 before a first-card Wild gets one)
    dealer: np.ndarray  # (N,) int8: seat of this round's dealer
    actor: np.ndarray  # (N,) int8: seat that acts now
    direction: np.ndarray  # (N,) int8: +1 clockwise, -1 counter-clockwise
    phase: np.ndarray  # (N,) int8: phase of the turn (uno_rl.core.phases)
    pending: np.ndarray  # (N,) int16: cards the victim of a +2/+4 (chain) will draw
    drawn: np.ndarray  # (N,) int8: kind just drawn (meaningful in the drawn phase)
    prev_top: np.ndarray  # (N,) int8: top card before the last +4
    prev_color: np.ndarray  # (N,) int8: color before the last +4 (what a challenge checks)
    draw4_player: np.ndarray  # (N,) int8: seat that played the last +4 (-1 none)
    draw4_bluff: np.ndarray  # (N,) bool: that +4 was a challengeable bluff
    multi_rank: np.ndarray  # (N,) int8: number (or symbol) being multi-played (multi phase)
    multi_count: np.ndarray  # (N,) int8: cards of the combination played so far (multi phase)
    skip_turn: np.ndarray  # (N, P) int8: turns each seat is yet to lose (loses-turn bluffers)
    jump_card: np.ndarray  # (N,) int8: card a jump-in must match (jump phase)
    jump_from: np.ndarray  # (N,) int8: seat whose play opened the jump-in window
    jump_cursor: np.ndarray  # (N,) int8: seats after jump_from of the candidate asked now
    resume_actor: np.ndarray  # (N,) int8: who acts after the jump-in window if nobody jumps
    resume_phase: np.ndarray  # (N,) int8: in which phase
    revealed: np.ndarray  # (N, K) int8: hand shown by the last challenge this round
    reveal_viewer: np.ndarray  # (N,) int8: seat that saw it (-1 none)
    reveal_target: np.ndarray  # (N,) int8: seat whose hand it was
    turn: np.ndarray  # (N,) int32: decisions taken this round
    reshuffles: np.ndarray  # (N,) int32: reshuffles of the discard pile this round
    winner: np.ndarray  # (N,) int8: round winner (-1 none yet, or truncated)
    truncated: np.ndarray  # (N,) bool: round stopped at max_turns
    match_over: np.ndarray  # (N,) bool: match decided (match mode)
    round_index: np.ndarray  # (N,) int32: rounds completed in this match
    scores: np.ndarray  # (N, P) int32: match scores (points, or rounds won)
    stats: np.ndarray  # (N, len(STAT_NAMES), P) int32: per-seat counters of the round
    presses: np.ndarray  # (N,) int8: dispenser presses since it last fired
    press_index: np.ndarray  # (N,) int32: presses this round (indexes their randomness)
    cause: np.ndarray  # (N,) int8: seat whose Skip / draw card is pending (-1 none yet)
    swap_seats: np.ndarray  # (N, 2) int8: the two seats of the last hand swap this round (-1)
    swap_given: np.ndarray  # (N, 2, X) int8: the hand each of them gave (X = K extended, else 0)
    shuffled: np.ndarray  # (N,) bool: hands were shuffled this round
    void_color: np.ndarray  # (N, P) int8: color each hand showed it lacked (its holder drew in
    #   the play phase on it) until the holder next drew; moves with the hand (-1 none)
    void_symbol: np.ndarray  # (N, P) int8: symbol of the colored top card it drew on then (-1)
    played: np.ndarray  # (N, P, 5) int32: cards each seat played this round, by color (4: none)
    named: np.ndarray  # (N, P) int8: color each seat last named with a card this round (-1)
    _mask: np.ndarray | None = dataclasses.field(default=None, repr=False)
    #: (games, their mask rows) of the last legal_mask(state, games) call, until the next step
    _rows_mask: tuple[np.ndarray, np.ndarray] | None = dataclasses.field(default=None, repr=False)
    #: the compiled engine's view of these arrays (uno_rl.core.compiled.nb_state.game_arrays)
    _compiled: object = dataclasses.field(default=None, repr=False, compare=False)

    def __setattr__(self, name: str, value) -> None:
        object.__setattr__(self, name, value)
        if name[0] != "_":  # a field replaced: the compiled view holds the old array
            object.__setattr__(self, "_compiled", None)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_compiled": None}  # the compiled view is rebuilt on demand

    def __post_init__(self) -> None:
        # The engine addresses (game, seat, card) through flat views of these arrays.
        for name, array in self.arrays().items():
            if not array.flags.c_contiguous:
                setattr(self, name, np.ascontiguousarray(array))

    @property
    def num_games(self) -> int:
        return int(self.key.shape[0])

    @property
    def num_players(self) -> int:
        return self.rules.players

    @classmethod
    def empty(cls, rules: Rules, num_games: int) -> State:
        """Zeroed state of ``num_games`` games (not dealt yet)."""
        n, p = num_games, rules.players
        kinds, cards = rules.layout.num_kinds, rules.deck_cards.size
        extended = kinds if rules.layout.extended else 0

        def small(fill: int = 0, dtype=np.int8) -> np.ndarray:
            return np.full(n, fill, dtype=dtype)

        return cls(
            rules=rules,
            key=np.zeros(n, np.uint64),
            hands=np.zeros((n, p, kinds), np.int8),
            hand_size=np.zeros((n, p), np.int16),
            pile=np.zeros((n, cards), np.int8),
            pile_size=small(dtype=np.int16),
            discard=np.zeros((n, kinds), np.int8),
            top=small(),
            color=small(-1),
            dealer=small(),
            actor=small(),
            direction=small(1),
            phase=small(),
            pending=small(dtype=np.int16),
            drawn=small(-1),
            prev_top=small(-1),
            prev_color=small(-1),
            draw4_player=small(-1),
            draw4_bluff=np.zeros(n, bool),
            multi_rank=small(-1),
            multi_count=small(),
            skip_turn=np.zeros((n, p), np.int8),
            jump_card=small(-1),
            jump_from=small(-1),
            jump_cursor=small(),
            resume_actor=small(),
            resume_phase=small(),
            revealed=np.zeros((n, kinds), np.int8),
            reveal_viewer=small(-1),
            reveal_target=small(-1),
            turn=small(dtype=np.int32),
            reshuffles=small(dtype=np.int32),
            winner=small(-1),
            truncated=np.zeros(n, bool),
            match_over=np.zeros(n, bool),
            round_index=small(dtype=np.int32),
            scores=np.zeros((n, p), np.int32),
            stats=np.zeros((n, len(STAT_NAMES), p), np.int32),
            presses=small(),
            press_index=small(dtype=np.int32),
            cause=small(-1),
            swap_seats=np.full((n, 2), -1, np.int8),
            swap_given=np.zeros((n, 2, extended), np.int8),
            shuffled=np.zeros(n, bool),
            void_color=np.full((n, p), -1, np.int8),
            void_symbol=np.full((n, p), -1, np.int8),
            played=np.zeros((n, p, 5), np.int32),
            named=np.full((n, p), -1, np.int8),
        )

    def arrays(self) -> dict[str, np.ndarray]:
        """The per-game arrays by field name (everything but ``rules`` and caches)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name != "rules" and not f.name.startswith("_")
        }

    def copy(self) -> State:
        """A deep copy (arrays copied)."""
        return dataclasses.replace(
            self,
            **{k: v.copy() for k, v in self.arrays().items()},
            _mask=None,
            _rows_mask=None,
            _compiled=None,
        )

    def take(self, games) -> State:
        """A new state holding only ``games`` (indices or a boolean mask), copied."""
        return dataclasses.replace(
            self,
            **{k: v[games].copy() for k, v in self.arrays().items()},
            _mask=None,
            _rows_mask=None,
            _compiled=None,
        )

    def invalidate(self) -> None:
        """Forget cached derived data; call after editing arrays by hand (tests, scenarios)."""
        self._mask = None
        self._rows_mask = None

    def nbytes_per_game(self) -> float:
        """Memory of the state arrays per game, in bytes."""
        return sum(v.nbytes for v in self.arrays().values()) / self.num_games
