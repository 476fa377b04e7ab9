"""A block of NumPy uniforms read where needed: the values ``rng.random((k, K), np.float32)``
(or float64) would draw, computed only at the positions a caller reads, the generator left
exactly where that draw leaves it.

The heuristics draw a float32 per card kind and decision to break ties (:mod:`uno_rl.agents.
colors`) and read it only for the kinds they can play, a few of some fifty: drawing the whole
block was about a third of a search's play-outs. NumPy's default bit generator, PCG64, is a
128-bit linear congruential generator: the state ``n`` steps ahead is ``A_n * state + C_n``
(mod 2**128), so any value of the block follows from the block's first state in one
multiply-add (:func:`block_float32`, from a table of ``A_d, C_d`` for short hops,
:func:`hop_table`), and the state after the block in ``log2(n)`` of them (:func:`jump`).

This reads and writes the generator's state in place, in NumPy's C structure; it is used only
for a ``numpy.random.PCG64`` whose layout :func:`reads_in_place` has checked in this process
against NumPy's own draws (other bit generators, or a layout it does not recognise, draw the
block as before). A block's array (:func:`start_block`, (9,) uint64): its first state (low,
high), the increment (low, high), NumPy's buffered half-word flag and value, and a cursor
(state low, high, steps from the first state), moved forward only.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from .nb_jit import kernel

_U64 = types.uint64
_MULT_LOW = np.uint64(0x4385DF649FCCF645)
_MULT_HIGH = np.uint64(0x2360ED051FC65DA4)
_LOW32 = np.uint64(0xFFFFFFFF)
_ONE, _ZERO = np.uint64(1), np.uint64(0)
_TO_UNIT = np.float32(1.0 / 16777216.0)
#: Block array fields.
S0_LOW, S0_HIGH, INC_LOW, INC_HIGH, HAS, BUFFERED, CUR_LOW, CUR_HIGH, CUR_STEP = range(9)


@intrinsic
def _mul_add(typingctx, a_low, a_high, b_low, b_high, c_low, c_high):
    """``a * b + c`` mod 2**128 of three (low, high) uint64 pairs: (low, high)."""
    sig = types.UniTuple(_U64, 2)(_U64, _U64, _U64, _U64, _U64, _U64)

    def codegen(context, builder, signature, args):
        wide, word = ir.IntType(128), ir.IntType(64)

        def join(low, high):
            shifted = builder.shl(builder.zext(high, wide), ir.Constant(wide, 64))
            return builder.or_(builder.zext(low, wide), shifted)

        a, b, c = join(*args[0:2]), join(*args[2:4]), join(*args[4:6])
        value = builder.add(builder.mul(a, b), c)
        low = builder.trunc(value, word)
        high = builder.trunc(builder.lshr(value, ir.Constant(wide, 64)), word)
        return context.make_tuple(builder, signature.return_type, (low, high))

    return sig, codegen


@intrinsic
def _state_address(typingctx, generator):
    """The address of a ``numpy.random.Generator``'s bit generator state (its C structure)."""
    if not isinstance(generator, types.NumPyRandomGeneratorType):
        return None

    def codegen(context, builder, signature, args):
        rng = cgutils.create_struct_proxy(generator)(context, builder, value=args[0])
        bit_generator = cgutils.create_struct_proxy(types.NumPyRandomBitGeneratorType("b"))(
            context, builder, value=rng.bit_generator
        )
        return bit_generator.state

    return types.uintp(generator), codegen


def _memory_access(width: int):
    kind = types.uint64 if width == 64 else types.uint32

    @intrinsic
    def load(typingctx, address):
        def codegen(context, builder, signature, args):
            pointer = builder.inttoptr(args[0], ir.IntType(width).as_pointer())
            return builder.load(pointer)

        return kind(types.uintp), codegen

    @intrinsic
    def store(typingctx, address, value):
        def codegen(context, builder, signature, args):
            pointer = builder.inttoptr(args[0], ir.IntType(width).as_pointer())
            builder.store(args[1], pointer)
            return context.get_dummy_value()

        return types.none(types.uintp, kind), codegen

    return load, store


_load64, _store64 = _memory_access(64)
_load32, _store32 = _memory_access(32)


@kernel
def _output(low, high):
    """PCG64's XSL-RR output of a state: 64 bits."""
    value = high ^ low
    rotation = high >> np.uint64(58)
    return (value >> rotation) | (value << ((np.uint64(64) - rotation) & np.uint64(63)))


@kernel
def jump(low, high, inc_low, inc_high, steps):
    """The state ``steps`` (int64 >= 0) steps after (low, high): (low, high)."""
    acc_mult_low, acc_mult_high, acc_plus_low, acc_plus_high = _ONE, _ZERO, _ZERO, _ZERO
    mult_low, mult_high, plus_low, plus_high = _MULT_LOW, _MULT_HIGH, inc_low, inc_high
    while steps > 0:
        if steps & 1:
            acc_mult_low, acc_mult_high = _mul_add(acc_mult_low, acc_mult_high, mult_low,
                                                   mult_high, _ZERO, _ZERO)  # fmt: skip
            acc_plus_low, acc_plus_high = _mul_add(acc_plus_low, acc_plus_high, mult_low,
                                                   mult_high, plus_low, plus_high)  # fmt: skip
        # plus = (mult + 1) * plus, then mult = mult * mult
        plus_low, plus_high = _mul_add(mult_low, mult_high, plus_low, plus_high, plus_low,
                                       plus_high)  # fmt: skip
        mult_low, mult_high = _mul_add(mult_low, mult_high, mult_low, mult_high, _ZERO, _ZERO)
        steps >>= 1
    return _mul_add(acc_mult_low, acc_mult_high, low, high, acc_plus_low, acc_plus_high)


@kernel
def start_block(rng, count):
    """Take ``count`` float32 uniforms from ``rng`` (a PCG64 ``numpy.random.Generator`` whose
    layout :func:`reads_in_place` checked) as ``rng.random(count, np.float32)`` would, without
    computing them: the generator moves past them at once; the (9,) uint64 block returned
    gives any of them (:func:`block_float32`)."""
    address = _state_address(rng)
    pcg = numba.uint64(_load64(address))
    has = numba.uint64(_load32(address + 8))
    block = np.empty(9, np.uint64)
    block[S0_LOW], block[S0_HIGH] = _load64(pcg), _load64(pcg + 8)
    block[INC_LOW], block[INC_HIGH] = _load64(pcg + 16), _load64(pcg + 24)
    block[HAS], block[BUFFERED] = has, numba.uint64(_load32(address + 12))
    block[CUR_LOW], block[CUR_HIGH], block[CUR_STEP] = block[S0_LOW], block[S0_HIGH], _ZERO
    if count == 0:
        return block
    rest = count - 1 if has else count  # uint32 words drawn from new outputs
    steps = (rest + 1) // 2
    low, high = jump(block[S0_LOW], block[S0_HIGH], block[INC_LOW], block[INC_HIGH], steps)
    _store64(pcg, low)
    _store64(pcg + 8, high)
    # The last output's high half went to NumPy's buffer, and was used where ``rest`` is even
    # (NumPy leaves a used value in place).
    _store32(address + 8, numba.uint32(rest % 2))
    if rest:
        _store32(address + 12, numba.uint32(_output(low, high) >> np.uint64(32)))
    return block


@kernel
def hop_table(block, hops):
    """(hops + 1, 4) uint64: ``A_d`` (low, high) and ``C_d`` (low, high) for d steps, d in
    ``[0, hops]``: the state d steps after s is ``A_d * s + C_d``."""
    table = np.empty((hops + 1, 4), np.uint64)
    table[0, 0], table[0, 1], table[0, 2], table[0, 3] = _ONE, _ZERO, _ZERO, _ZERO
    inc_low, inc_high = block[INC_LOW], block[INC_HIGH]
    for d in range(hops):
        table[d + 1, 0], table[d + 1, 1] = _mul_add(table[d, 0], table[d, 1], _MULT_LOW,
                                                    _MULT_HIGH, _ZERO, _ZERO)  # fmt: skip
        table[d + 1, 2], table[d + 1, 3] = _mul_add(table[d, 2], table[d, 3], _MULT_LOW,
                                                    _MULT_HIGH, inc_low, inc_high)  # fmt: skip
    return table


@kernel
def _hop(table, low, high, steps):
    return _mul_add(table[steps, 0], table[steps, 1], low, high, table[steps, 2], table[steps, 3])


@kernel
def _advance(block, table, target):
    """Move the block's cursor forward to ``target`` steps from the block's first state, in
    hops of the table's size at most."""
    step = np.int64(block[CUR_STEP])
    hops = table.shape[0] - 1
    low, high = block[CUR_LOW], block[CUR_HIGH]
    while step < target:
        d = min(target - step, hops)
        low, high = _hop(table, low, high, d)
        step += d
    block[CUR_LOW], block[CUR_HIGH], block[CUR_STEP] = low, high, np.uint64(step)


@kernel
def seek(block, table, position):
    """Move the block's cursor to the output before uint32 ``position`` of the block (int64:
    the positions at or after it are then read in one hop each, while within the table's
    hops). Positions come in order: the cursor never moves back."""
    _advance(block, table, max(position - np.int64(block[HAS]), 0) // 2)


@kernel
def block_float32(block, table, position):
    """The float32 uniform at uint32 ``position`` (int64) of the block, at most the table's
    hops (less one) past the cursor (:func:`seek`)."""
    p = position - np.int64(block[HAS])
    if p < 0:
        word = block[BUFFERED]
    else:
        low, high = _hop(table, block[CUR_LOW], block[CUR_HIGH],
                         p // 2 + 1 - np.int64(block[CUR_STEP]))  # fmt: skip
        out = _output(low, high)
        word = out >> np.uint64(32) if p % 2 else out & _LOW32
    return np.float32(word >> np.uint64(8)) * _TO_UNIT


_TO_UNIT_64 = 1.0 / 9007199254740992.0


@kernel
def start_block64(rng, count):
    """Take ``count`` float64 uniforms from ``rng`` as ``rng.random(count)`` would (one 64-bit
    output each; NumPy's buffered half-word is left alone), without computing them: the
    block (:func:`start_block`'s fields, the half-word ones unused) gives any of them
    (:func:`block_float64`)."""
    address = _state_address(rng)
    pcg = numba.uint64(_load64(address))
    block = np.zeros(9, np.uint64)
    block[S0_LOW], block[S0_HIGH] = _load64(pcg), _load64(pcg + 8)
    block[INC_LOW], block[INC_HIGH] = _load64(pcg + 16), _load64(pcg + 24)
    block[CUR_LOW], block[CUR_HIGH] = block[S0_LOW], block[S0_HIGH]
    low, high = jump(block[S0_LOW], block[S0_HIGH], block[INC_LOW], block[INC_HIGH], count)
    _store64(pcg, low)
    _store64(pcg + 8, high)
    return block


@kernel
def seek64(block, table, position):
    """:func:`seek` for a float64 block: the cursor to the state before value ``position``."""
    _advance(block, table, position)


@kernel
def block_float64(block, table, position):
    """The float64 uniform at ``position`` (int64) of a float64 block, at most the table's hops
    (less one) past the cursor (:func:`seek64`)."""
    low, high = _hop(table, block[CUR_LOW], block[CUR_HIGH],
                     position + 1 - np.int64(block[CUR_STEP]))  # fmt: skip
    return np.float64(_output(low, high) >> np.uint64(11)) * _TO_UNIT_64


@kernel
def _read_block(rng, k, kinds, out, out64):
    """Every value of a (k, kinds) float32 block, then of a float64 one, row by row, as the
    heuristics read theirs: the self-check of :func:`reads_in_place`."""
    block = start_block(rng, k * kinds)
    table = hop_table(block, kinds // 2 + 2)
    for i in range(k):
        seek(block, table, i * kinds)
        for kind in range(kinds):
            out[i, kind] = block_float32(block, table, i * kinds + kind)
    block = start_block64(rng, k * kinds)
    table = hop_table(block, kinds + 1)
    for i in range(k):
        seek64(block, table, i * kinds)
        for kind in range(kinds):
            out64[i, kind] = block_float64(block, table, i * kinds + kind)


_checked: list[bool] = []


def reads_in_place(rng: np.random.Generator) -> bool:
    """Whether blocks of ``rng`` can be read in place: its bit generator is NumPy's
    ``PCG64`` and, checked once a process, blocks read so give NumPy's values and leave
    the generator's state as NumPy's draws do."""
    if type(rng.bit_generator) is not np.random.PCG64:
        return False
    if not _checked:
        _checked.append(_self_check())
    return _checked[0]


def _self_check() -> bool:
    try:
        for buffered, k, kinds in ((False, 7, 54), (True, 5, 55), (True, 1, 1), (False, 0, 3)):
            ours, theirs = np.random.default_rng(20261207), np.random.default_rng(20261207)
            if buffered:
                ours.random(1, np.float32), theirs.random(1, np.float32)
            values, doubles = np.empty((k, kinds), np.float32), np.empty((k, kinds))
            _read_block(ours, k, kinds, values, doubles)
            if not np.array_equal(values, theirs.random((k, kinds), np.float32)):
                return False
            if not np.array_equal(doubles, theirs.random((k, kinds))):
                return False
            if ours.bit_generator.state != theirs.bit_generator.state:
                return False
            if not np.array_equal(ours.random(3, np.float32), theirs.random(3, np.float32)):
                return False
        return True
    except Exception:  # a layout numba or NumPy changed: draw blocks as NumPy does
        return False
