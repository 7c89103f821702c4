"""The shaped type of an SSA value, for code that knows the value is a tensor or memref.

xDSL types `SSAValue.type` as a bare `Attribute`; the ops' operand constraints (checked by
their verifiers) are what make it a tensor, memref or vector type. `shaped_type` says so
once, instead of an ignore at every `value.type.get_shape()`.
"""

from __future__ import annotations

from typing import Protocol, cast

from xdsl.ir import Attribute, SSAValue


class ShapedContainerType(Protocol):
    """What tensor, memref and vector types share: a shape and an element type."""

    def get_shape(self) -> tuple[int, ...]: ...

    def get_element_type(self) -> Attribute: ...

    def has_static_shape(self) -> bool: ...

    def get_num_dims(self) -> int: ...


def shaped_type(value: SSAValue) -> ShapedContainerType:
    """`value.type`, which the op defining or using `value` constrains to a shaped type."""
    return cast(ShapedContainerType, value.type)  # no run-time check: a cast, as before
