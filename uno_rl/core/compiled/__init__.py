"""The compiled engine: the rules of :mod:`uno_rl.core.reference` compiled with numba, one game
at a time, looped over the batch, behind the batched engine's API.

Conventions of every kernel function (``@numba.njit(cache=True)``):

* Arguments start ``(a, t, g, ...)``: ``a`` the :class:`.nb_state.GameArrays` of the batch
  (the :class:`~uno_rl.core.state.State`'s arrays, mutated in place), ``t`` the
  :class:`.nb_rules.RuleTables` (switches, string switches as codes: :func:`.nb_rules.code`,
  tables and work arrays), both structure references (one pointer per call), ``g`` the
  game's index (int64). Seats and kinds are int64.
* Nothing allocates: scratch space is ``t.work_*``.
* Nothing counts references on the hot path (an atomic operation each): array fields read
  as borrowed views, and the batch loops hand the kernel :func:`.nb_struct.borrow`'s bare
  pointers for ``a`` and ``t`` and :func:`.nb_struct.unowned` views of their output arrays
  (see :mod:`.nb_struct`).
* A function mirrors the reference method of the same name without its underscore
  (``ReferenceGame._draw_one`` -> ``draw_one``), statement for statement, so that both draw
  the same random numbers (:mod:`.nb_random`) in the same order.
* ``a.hand_size`` is kept in step with ``a.hands``: whatever adds or removes cards of a hand
  updates both.
* A card effect returns the hand-over ``(next actor, next phase)``, or ``(-1, -1)`` where the
  reference returns None (the effect has itself said who acts, or ended the round).

Modules, bottom up: :mod:`.nb_struct` (structure references without reference counts),
:mod:`.nb_random` (splitmix64), :mod:`.nb_rules`, :mod:`.nb_state`,
:mod:`.nb_basics` (seats, draws, hand-over, matching), :mod:`.nb_draw_effects` (draw cards,
the dispenser, challenges), :mod:`.nb_hand_effects` (Skip, Reverse, Boomerang, seven-zero,
swaps, shuffles, Discard All), :mod:`.nb_deal`, :mod:`.nb_play` (a step of one game and its
close), :mod:`.nb_masks`, :mod:`.nb_observe`, :mod:`.nb_sampling` (random legal actions)
and :mod:`.nb_engine` (the batched API).
"""
