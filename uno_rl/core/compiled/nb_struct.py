"""Structure references whose array fields are read without reference counting.

Numba's :func:`numba.experimental.structref.register` makes every attribute read of an array
field take a reference (an atomic increment, and a decrement when the variable dies): some
ten nanoseconds per read, the better part of a compiled step. :func:`register` defines the
same data model and attribute setters, but an array field reads as a borrowed view: the same
data, shape and strides with no memory-info pointer, which reference counting skips.

A kernel call still takes a reference to each structure argument it receives (two atomic
operations per structure per call). The batch loops therefore pass :func:`borrow`'s
:class:`Borrowed` pointer to the kernel instead: the same fields, read the same way, with
nothing to count.

That is safe because a kernel never keeps such a view past the call that holds the structure
(the structure keeps its arrays alive), never returns one to Python and never replaces a
field (:mod:`.nb_state`, :mod:`.nb_rules`).
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, imputils, types
from numba.core.datamodel import default_manager, models
from numba.core.extending import (
    infer_getattr,
    intrinsic,
    lower_getattr_generic,
    lower_setattr_generic,
    register_model,
)
from numba.core.typing.templates import AttributeTemplate
from numba.experimental import structref
from numba.experimental.structref import _Utils


def _read_field(context, builder, field_type, dataval, attr):
    value = getattr(dataval, attr)
    if isinstance(field_type, types.Array):
        view = context.make_array(field_type)(context, builder, value=value)
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()  # no memory info: not reference counted
    return imputils.impl_ret_borrowed(context, builder, field_type, value)


class Borrowed(types.Type):
    """The numba type of a structure reference's data, borrowed: a bare pointer (the caller
    keeps the structure alive), its fields read as the structure's."""

    def __init__(self, struct_type):
        self.struct_type = struct_type
        super().__init__(name=f"Borrowed[{struct_type}]")

    @property
    def field_dict(self):
        return self.struct_type.field_dict


register_model(Borrowed)(models.OpaqueModel)


@infer_getattr
class BorrowedAttribute(AttributeTemplate):
    key = Borrowed

    def generic_resolve(self, typ, attr):
        if attr in typ.field_dict:
            return typ.field_dict[attr]


@lower_getattr_generic(Borrowed)
def borrowed_getattr_impl(context, builder, typ, val, attr):
    data_type = context.data_model_manager[typ.struct_type.get_data_type()].get_value_type()
    pointer = builder.bitcast(val, data_type.as_pointer())
    dataval = cgutils.create_struct_proxy(typ.struct_type.get_data_type())(
        context, builder, ref=pointer
    )
    return _read_field(context, builder, typ.field_dict[attr], dataval, attr)


@intrinsic
def borrow(typingctx, struct):
    """The :class:`Borrowed` pointer of ``struct`` (a registered structure reference, or
    already a :class:`Borrowed`, returned as it is)."""
    if isinstance(struct, Borrowed):
        return struct(struct), lambda context, builder, sig, args: args[0]
    if not isinstance(struct, types.StructRef):
        return None

    def codegen(context, builder, sig, args):
        pointer = _Utils(context, builder, sig.args[0]).get_data_pointer(args[0])
        return builder.bitcast(pointer, ir.IntType(8).as_pointer())

    return Borrowed(struct)(struct), codegen


@intrinsic
def data_address(typingctx, struct):
    """The address (intp) of a registered structure reference's data, which
    :func:`borrowed_at` turns back into its :class:`Borrowed` pointer. Valid while the
    structure lives: whoever keeps the address keeps the structure."""
    if not isinstance(struct, types.StructRef):
        return None

    def codegen(context, builder, sig, args):
        pointer = _Utils(context, builder, sig.args[0]).get_data_pointer(args[0])
        return builder.ptrtoint(pointer, context.get_value_type(types.intp))

    return types.intp(struct), codegen


def borrowed_at(struct_type):
    """An intrinsic taking an address of :func:`data_address` (intp) to the
    :class:`Borrowed` pointer of a ``struct_type`` structure. An int argument costs a
    compiled function's caller far less to pass than a structure (about 0.1 us against
    0.5): the single-game kernels take their structures this way."""

    @intrinsic
    def at(typingctx, address):
        if not isinstance(address, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            return builder.inttoptr(args[0], ir.IntType(8).as_pointer())

        return Borrowed(struct_type)(address), codegen

    return at


@intrinsic
def unowned(typingctx, array):
    """``array`` without its memory-info pointer: reference counting skips it (to pass to
    kernel calls while the caller's ``array`` keeps the memory alive)."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, sig, args):
        view = context.make_array(sig.args[0])(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


def register(struct_type):
    """Register ``struct_type`` (a :class:`numba.core.types.StructRef` subclass), as
    ``structref.register`` does, with borrowed array reads."""
    default_manager.register(struct_type, models.StructRefModel)

    @infer_getattr
    class StructAttribute(AttributeTemplate):
        key = struct_type

        def generic_resolve(self, typ, attr):
            if attr in typ.field_dict:
                return typ.field_dict[attr]

    @lower_getattr_generic(struct_type)
    def struct_getattr_impl(context, builder, typ, val, attr):
        dataval = _Utils(context, builder, typ).get_data_struct(val)
        return _read_field(context, builder, typ.field_dict[attr], dataval, attr)

    @lower_setattr_generic(struct_type)
    def struct_setattr_impl(context, builder, sig, args, attr):
        inst_type, val_type = sig.args
        instance, val = args
        dataval = _Utils(context, builder, inst_type).get_data_struct(instance)
        field_type = inst_type.field_dict[attr]
        casted = context.cast(builder, val, val_type, field_type)
        old_value = getattr(dataval, attr)
        context.nrt.incref(builder, val_type, casted)
        context.nrt.decref(builder, val_type, old_value)
        setattr(dataval, attr, casted)

    return struct_type


class FieldsType(types.StructRef):
    """A structure type whose fields keep no literal types (a structure built from the value
    ``True`` or ``3`` types as any bool or int, so every rule set shares one type)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(kind)) for name, kind in fields)


class FieldsProxy(structref.StructRefProxy):
    """A structure as Python sees it: its fields read as attributes, from the ``fields``
    dict its builder sets (the same objects the kernel reads)."""

    def __getattr__(self, name):
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None
