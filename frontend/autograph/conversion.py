"""Converting a Python function: source -> AST rewrite -> a new function object.

The function's source (`source_lines.source_lines`, dedented) is parsed, rewritten by
`transformer.py`, and compiled with the original filename and line numbers (so
tracebacks and `at_user_line` point at the user's lines). To keep closures working, the
converted function is compiled inside a factory that declares the original free
variables; its code object is then bound to the *original* closure cells (plus one cell
for `ag__`, the runtime helpers), the original globals and default arguments.
Decorators are not re-applied: only the inner code object is used.

`converted_call(f, args, kwargs)` is what every call in converted code goes through: it
converts user functions (not NumPy's, the standard library's, installed packages' or
tracejit's own) once, caching the result per function.
"""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import os
import sysconfig
import textwrap
import threading
import types
import weakref
from typing import Any

import numpy as np

from tracejit.frontend.autograph import analysis
from tracejit.frontend.autograph.lowering import Namer
from tracejit.frontend.autograph.transformer import ExpressionConverter, FunctionConverter
from tracejit.frontend.staging import autograph_marks
from tracejit.frontend.staging.source_lines import source_lines
from tracejit.frontend.staging.trace_warnings import warn_at_user_line

# the package directory (frontend/autograph/ is two floors below it)
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_FACTORY = "__tj_autograph_factory"
_INNER = "__tj_autograph_converted"
_NON_USER_DIRS = tuple(
    os.path.abspath(path) + os.sep
    for path in {
        *(
            os.path.join(_PACKAGE_ROOT, sub)
            for sub in ("frontend", "ir", "passes", "codegen", "runtime", "compiler", "tools")
        ),
        os.path.dirname(np.__file__),
        *(sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")),
    }
)
_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class _Converted:
    """The converted code, and the converted tree `to_code` prints (written out only when
    asked: unparsing costs as much as the rest of a small function's conversion)."""

    def __init__(self, code: types.CodeType, tree: ast.AST) -> None:
        self.code = code
        self._tree = tree

    @functools.cached_property
    def source(self) -> str:
        return ast.unparse(self._tree)


# Keyed by (filename, code): equal code objects from different files compare equal.
# A ConversionError: the code cannot be converted (kept, to say why again).
_by_code: dict[tuple[str, types.CodeType], _Converted | ConversionError] = {}
# function -> weak reference to its converted version: a strong one would keep the function
# alive forever (the converted function's `__wrapped__` is the key), and with it whatever
# its closure holds. Re-instantiating from `_by_code` after the converted one died is cheap.
_by_function: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class ConversionError(Exception):
    """The function's source is not available or not convertible."""


# --- public entry points ----------------------------------------------------------------------
def convert(function: Any, warn: bool = True) -> Any:
    """The converted version of a Python function; the function itself if it cannot be
    converted (with a warning when `warn`), or if it is not a user function.

    `tj.function` converts the functions it traces (and, through `converted_call`, the
    user functions they call): `if`/`while`/`for`/`break`/`continue`/`return`/`and`/`or`/
    `not`/`assert` then dispatch when they run, running as Python on Python values and
    staging control flow on tensors. Conversion needs the function's source (a file, not
    the interactive prompt); the result is cached per function.

    Parameters
    ----------
    function : callable
        A Python function, method or `functools.partial`.
    warn : bool, default True
        Warn when a user function cannot be converted.

    Examples
    --------
    >>> def relu(x):
    ...     if x > 0:
    ...         return x
    ...     return 0.0 * x
    >>> converted = tj.autograph.convert(relu)
    >>> converted is relu, converted(np.float64(2.0))  # on a value: plain Python
    (False, np.float64(2.0))
    """
    if inspect.ismethod(function):
        return types.MethodType(convert(function.__func__, warn), function.__self__)
    if isinstance(function, functools.partial):
        return functools.partial(convert(function.func, warn), *function.args, **function.keywords)
    if not _is_user_function(function):
        return function
    cached_ref = _by_function.get(function)
    cached = cached_ref() if cached_ref is not None else None
    if cached is not None:
        return cached
    try:
        converted = _instantiate(function, _convert_code(function))
    except ConversionError as error:
        if warn:
            warn_at_user_line(
                f"AutoGraph could not convert {function.__qualname__} ({error}); it runs as "
                "plain Python, so tensor-dependent control flow in it will fail. Define it "
                "in a file (not at the prompt or in `python -c`), one lambda per line",
                UserWarning,
            )
        converted = function
    _by_function[function] = weakref.ref(converted)
    return converted


def to_code(function: object) -> str:
    """The source AutoGraph produces for `function` (a function, method or tj.Function).

    Raises
    ------
    TypeError
        `function` is not a Python function.

    Examples
    --------
    >>> def relu(x):
    ...     if x > 0:
    ...         return x
    ...     return 0.0 * x
    >>> print(tj.autograph.to_code(relu))  # doctest: +ELLIPSIS
    def relu(x):
        do_return = False
        ...
        ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ...)
        return ag__.ret(retval_)
    """
    function = getattr(function, "python_function", function)
    function = getattr(function, "__func__", function)
    if not inspect.isfunction(function):
        raise TypeError(f"to_code expects a Python function, got {function!r}")
    return _convert_code(function).source


def converted_call(function: object, args: tuple, kwargs: dict | None) -> Any:
    """Call `function(*args, **kwargs)`, converting it first if it is user code.

    Converted code calls every function through this, so that user functions called from
    a `tj.function` have their control flow staged too; NumPy and built-in functions are
    called as they are (a few, such as `range`, `len` and `np.zeros`, through AutoGraph's
    own versions).

    >>> def relu(x):
    ...     if x > 0:
    ...         return x
    ...     return 0.0 * x
    >>> @tj.function(autograph=False)
    ... def f(x):
    ...     return tj.autograph.converted_call(relu, (x,), None)  # stages relu's `if`
    >>> f(np.float64(-1.0)), f(np.float64(2.0))
    (np.float64(-0.0), np.float64(2.0))
    """
    from tracejit.frontend.autograph import operators

    kwargs = kwargs or {}
    operators.check_defined(args, kwargs)
    special = operators.BUILTIN_OVERRIDES.get(_builtin_key(function))
    if special is not None:
        return special(*args, **kwargs)
    cast = _scalar_type_cast(function, args, kwargs)
    if cast is not None:
        return cast
    operators.warn_if_random(function)
    missed = _dispatch_misses_a_tensor(function, args, kwargs)
    if missed is not None:
        from tracejit.frontend.numpy_api.registry import call_function

        return call_function(missed[0], missed[1], kwargs)
    converted = convert(function, warn=False)
    if converted is function:
        return function(*args, **kwargs)
    return _recursion_guarded(function, converted, args, kwargs)


def _scalar_type_cast(function: object, args: tuple, kwargs: dict) -> Any:
    """`np.float32(t)`, `np.uint8(t * 255)`, ... of a traced value: NumPy's scalar types
    called on an array cast it (`t.astype(np.float32)`, a NumPy scalar when 0-d), where
    tracejit converted the tensor to a concrete array and refused; None otherwise."""
    from tracejit.frontend.staging.tensor import Tensor

    if not (isinstance(function, type) and issubclass(function, np.number | np.bool_)):
        return None
    if kwargs or len(args) != 1 or not isinstance(args[0], Tensor):
        return None
    result = args[0].astype(function)
    if result.ndim == 0:
        result._is_array = False  # np.float32(a 0-d array) is a NumPy scalar
    return result


def _dispatch_misses_a_tensor(function: object, args: tuple, kwargs: dict) -> tuple | None:
    """`(numpy_function, args)` when `function` is a NumPy function tracejit implements (or
    an ndarray's method that such a function wraps) called with a Tensor that NumPy's
    dispatch would not look at: NumPy hands a call to `__array_function__` only for the
    arguments its dispatcher names, so `np.take(table, t)`, `table.take(t)`,
    `np.roll(table, t)` with an ndarray `table` would convert `t` to an array instead."""
    from tracejit.frontend.numpy_api.registry import FUNCTIONS
    from tracejit.frontend.staging.tensor import Tensor

    owner = getattr(function, "__self__", None)
    if isinstance(owner, np.ndarray):  # np.take(a, ...) is a.take(...) (numpy/_core/fromnumeric)
        name = getattr(function, "__name__", "")
        numpy_function = getattr(np, name, None)
        wraps = getattr(numpy_function, "__module__", "") == "numpy" and name in _FROMNUMERIC
        function, args = (numpy_function, (owner, *args)) if wraps else (None, args)
    if not hasattr(function, "_implementation") or function not in FUNCTIONS:
        return None
    leaves = [*args, *kwargs.values()]
    leaves += [item for leaf in leaves if isinstance(leaf, list | tuple) for item in leaf]
    return (function, args) if any(isinstance(leaf, Tensor) for leaf in leaves) else None


# The ndarray methods whose NumPy function takes the same arguments after the array
# (reshape and transpose take theirs as *args too, and are not here).
_FROMNUMERIC = {
    "take", "repeat", "clip", "searchsorted", "compress", "choose", "put", "round", "dot",
    "sum", "prod", "mean", "std", "var", "min", "max", "cumsum", "cumprod", "all", "any",
    "argmin", "argmax", "sort", "argsort", "diagonal", "trace", "nonzero", "ravel",
    "squeeze", "swapaxes", "partition", "argpartition",
}  # fmt: skip


# How deep each user function is in the current thread's calls: a recursion that reaches
# Python's limit while tracing is reported as what it almost always is (see below).
_depths = threading.local()


def _recursion_guarded(function: Any, converted: Any, args: tuple, kwargs: dict) -> Any:
    depths = _depths.__dict__.setdefault("depths", {})
    key = getattr(function, "__func__", getattr(function, "func", function))  # method, partial
    depth = depths.get(key, 0)
    depths[key] = depth + 1
    try:
        return converted(*args, **kwargs)
    except RecursionError:
        if depth > 0:
            raise
        raise NotImplementedError(_recursion_message(function)) from None
    finally:
        if depth:
            depths[key] = depth
        else:
            del depths[key]


def _recursion_message(function: Any) -> str:
    from tracejit.frontend.staging.source_location import at_user_line

    return at_user_line(
        f"the recursion of {function.__qualname__}() did not end while tracing. A recursion "
        "over Python values is unrolled at trace time, but one whose end depends on a "
        "tensor's value (e.g. `if np.sum(x) > 0: return f(...)`) would need a call staged "
        "at run time, which tracejit does not support: write it as a loop (`while` on the "
        "tensor condition, or tj.while_loop)"
    )


def _builtin_key(function: object) -> object:
    try:
        hash(function)
    except TypeError:
        return None
    return function


def _is_user_function(function: object) -> bool:
    if not inspect.isfunction(function):
        return False
    code = function.__code__
    if code in autograph_marks.CONVERTED or code.co_flags & _GENERATOR_FLAGS:
        return False
    if code.co_filename.startswith("<frozen"):
        return False
    # "<stdin>", "<string>" (python -c, exec): user code whose source cannot be read; trying
    # records that (the errors then say why AutoGraph did not convert it).
    filename = os.path.abspath(code.co_filename)
    return code.co_filename.startswith("<") or not filename.startswith(_NON_USER_DIRS)


# --- source -> converted code -----------------------------------------------------------------
def _convert_code(function: types.FunctionType) -> _Converted:
    key = (function.__code__.co_filename, function.__code__)
    if key not in _by_code:
        try:
            _by_code[key] = _compile(function)
        except ConversionError as error:
            _by_code[key] = error  # the next function with this code fails for the same reason
            autograph_marks.NO_SOURCE.add(function.__code__)
            raise
    converted = _by_code[key]
    if isinstance(converted, ConversionError):
        raise ConversionError(str(converted))
    return converted


def _compile(function: types.FunctionType) -> _Converted:
    node, tree = _parse(function)
    namer = Namer(analysis.all_identifiers(tree) | {"ag__", _FACTORY, _INNER})
    if isinstance(node, ast.Lambda):
        node = ExpressionConverter().visit(node)
        inner: ast.stmt = ast.Expr(node)
    else:
        node.decorator_list = []
        node = FunctionConverter(namer).function(node)
        node = ExpressionConverter().visit(node)
        # Defined under its own name inside the factory, a recursive function's call of
        # itself would read the factory's local instead of the global: rename the definition.
        renamed = ast.copy_location(copy.copy(node), node)
        assert isinstance(renamed, ast.FunctionDef)
        renamed.name = _INNER
        inner = renamed
    freevars = [*function.__code__.co_freevars, "ag__"]
    factory = ast.FunctionDef(
        name=_FACTORY,
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[
            *(ast.Assign([ast.Name(v, ast.Store())], ast.Constant(None)) for v in freevars),
            inner,
        ],
        decorator_list=[],
        returns=None,
    )
    if hasattr(ast, "TypeAlias"):  # Python 3.12+
        factory.type_params = []  # type: ignore[attr-defined]  # a 3.12 field; mypy checks 3.11
    module = ast.Module([ast.copy_location(factory, inner)], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        module_code = compile(module, function.__code__.co_filename, "exec")
    except SyntaxError as error:
        raise ConversionError(f"the converted code does not compile: {error}") from error
    code = _find_code(module_code, _INNER if isinstance(inner, ast.FunctionDef) else "<lambda>")
    code = code.replace(co_name=function.__code__.co_name)
    autograph_marks.CONVERTED.update(_all_codes(code))
    return _Converted(code, node)


def _parse(function: types.FunctionType) -> tuple[ast.FunctionDef | ast.Lambda, ast.Module]:
    try:
        # The code object, not the function: getsource would follow `__wrapped__`.
        lines, start = source_lines(function.__code__, function.__globals__)
    except (OSError, TypeError) as error:
        raise ConversionError("its source is not available") from error
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError as error:
        raise ConversionError("its source could not be parsed on its own") from error
    ast.increment_lineno(tree, start - 1)
    name = function.__code__.co_name
    if name == "<lambda>":  # several lambdas may share the lines: match line and parameters
        code = function.__code__
        params = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
        candidates: list[ast.Lambda | ast.FunctionDef] = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Lambda)
            and n.lineno == code.co_firstlineno
            and [a.arg for a in (*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs)] == params
        ]
    else:
        candidates = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if len(candidates) != 1:
        raise ConversionError(f"found {len(candidates)} definitions of it in its source")
    return candidates[0], tree


def _find_code(module_code: types.CodeType, name: str) -> types.CodeType:
    factory = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    return next(c for c in factory.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def _all_codes(code: types.CodeType) -> list[types.CodeType]:
    """`code` and the code nested in it, except class bodies: they run as written, and their
    methods are converted when called, like any user function."""
    nested = [
        c
        for c in code.co_consts
        if isinstance(c, types.CodeType) and c.co_flags & inspect.CO_OPTIMIZED
    ]
    return [code, *(inner for c in nested for inner in _all_codes(c))]


def _instantiate(function: types.FunctionType, converted: _Converted) -> types.FunctionType:
    """A function running the converted code with `function`'s closure cells, globals,
    defaults and metadata."""
    from tracejit.frontend.autograph import operators

    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or (), strict=True))
    cells["ag__"] = types.CellType(operators)
    closure = tuple(cells[name] for name in converted.code.co_freevars)
    new = types.FunctionType(
        converted.code, function.__globals__, function.__name__, function.__defaults__, closure
    )
    new.__kwdefaults__ = function.__kwdefaults__
    functools.update_wrapper(new, function)
    return new
