"""Placeholders for variables that have no value on some path.

Converted code binds every variable that staged control flow may assign to an
`Undefined` at function entry (the generated branch and loop functions declare them
`nonlocal`, which needs a binding). A staged `if` that assigns a variable in one
branch only leaves a `PartiallyDefined`; a staged loop leaves a `LoopLocal` for a
variable that exists only inside its body. None of them is an error until the
variable is used: any use raises `UnboundLocalError` naming the variable, the
construct that left it undefined, and the line of the use.
"""

from __future__ import annotations

import re
from typing import Any

from tracejit.frontend.staging.source_location import at_user_line

_RETURN_VALUE = re.compile(r"retval_(_\d+)?")


def is_return_value(name: str) -> bool:
    """Whether `name` is the variable the return lowering stores the return value in."""
    return _RETURN_VALUE.fullmatch(name) is not None


class Undefined:
    """A variable that was never assigned (reading it is Python's UnboundLocalError)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def message(self) -> str:
        return f"cannot access local variable '{self.name}' where it is not associated with a value"

    error: type[Exception] = UnboundLocalError  # what reading it raises

    def fail(self, *args: object, **kwargs: object) -> object:
        raise self.error(at_user_line(self.message()))

    def __repr__(self) -> str:
        return f"<undefined {self.name}>"

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        self.fail()


class PartiallyDefined(Undefined):
    """Assigned in only one branch of a staged `if`; `spec` is (shape, dtype) there, if known."""

    __slots__ = ("where", "spec")
    # TensorFlow's AutoGraph raises ValueError for a variable (or return value) that a staged
    # if defines on one path only (Python's own error would be UnboundLocalError)
    error = ValueError

    def __init__(self, name: str, where: str, spec: tuple | None):
        super().__init__(name)
        self.where, self.spec = where, spec

    def message(self) -> str:
        if is_return_value(self.name):
            return (
                f"the staged if at {self.where} returns a value in one branch and nothing in the "
                "other; return a value of the same dtype and shape on every path"
            )
        return (
            f"'{self.name}' is assigned in only one branch of the staged if at {self.where} and "
            "used after it; assign it in both branches (or before the if)"
        )


class LoopLocal(Undefined):
    """Assigned inside a staged loop's body but not defined before the loop."""

    __slots__ = ("where",)

    def __init__(self, name: str, where: str):
        super().__init__(name)
        self.where = where

    def message(self) -> str:
        return (
            f"'{self.name}' is assigned inside the staged loop at {self.where} but not defined "
            "before it, so it has no value after the loop; assign it before the loop"
        )


def is_undefined(value: object) -> bool:
    return isinstance(value, Undefined)


def _install_failing_dunders() -> None:
    """Every operator, conversion and NumPy protocol on an Undefined raises its error."""
    unary = [
        "str",
        "format",
        "bool",
        "call",
        "len",
        "iter",
        "getitem",
        "setitem",
        "contains",
        "index",
        "int",
    ]
    unary += ["float", "complex", "array", "array_ufunc", "array_function", "neg", "pos"]
    unary += ["abs", "invert", "lt", "le", "gt", "ge"]
    binary = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or"]
    binary += ["xor", "lshift", "rshift"]
    names = unary + binary
    for name in names:
        setattr(Undefined, f"__{name}__", Undefined.fail)
    for name in binary:
        setattr(Undefined, f"__r{name}__", Undefined.fail)
        setattr(Undefined, f"__i{name}__", Undefined.fail)


_install_failing_dunders()
Undefined.__eq__ = Undefined.fail  # type: ignore[assignment, method-assign]  # deliberately replaced
Undefined.__ne__ = Undefined.fail  # type: ignore[assignment, method-assign]  # deliberately replaced
Undefined.__hash__ = object.__hash__  # type: ignore[method-assign]  # deliberately replaced
