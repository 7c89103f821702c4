"""Pickling `tj.Function`s, so that Dask, `multiprocessing` and `ProcessPoolExecutor` can ship
them to worker processes.

A Function pickles as its Python function plus the options it was made with (input_signature,
autograph, jit_compile, ...), never its traces or machine code: machine code is tied to one
process's JIT, and the receiving process traces (or loads from the persistent cache) what it
calls. The Python function goes

- by reference, as module and qualified name, when importing that name gives it back (the
  usual case: `@tj.function` at the top of a module, whose name then holds the Function). The
  plain pickle of the function itself would fail there, as the name resolves to the Function,
  not to the function it wraps, so the name is resolved by hand when unpickling;
- by value, through cloudpickle, when no import can find it: a function defined in `__main__`
  or a notebook (the worker's `__main__` is another program), a nested function or lambda, or
  a module registered with `cloudpickle.register_pickle_by_value`. The cloudpickle bytes are
  nested in the outer pickle, so plain `pickle` ships such functions too wherever cloudpickle
  is installed (it is whenever Dask is).

Every Function gets a random token on its first pickle, and a process keeps the Functions it
unpickled by token: a worker that receives the same Function with every task (Dask pickles
the function into each task) reuses one Function and so traces once per input signature, not
once per task. The original process gets a fresh Function on its first unpickle (the original
is not looked up), so pickle's round trip never aliases the object it started from.
"""

from __future__ import annotations

import importlib
import linecache
import os
import pickle
import sys
import threading
import uuid
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from tracejit.frontend.staging.source_lines import source_lines

if TYPE_CHECKING:
    from tracejit.frontend.api.function import Function

# Functions unpickled in this process, by the token of the Function they were pickled from.
# Bounded, oldest first out: a long-lived worker receiving ever new Functions keeps the last ones.
_RESTORED: OrderedDict[str, Any] = OrderedDict()
_RESTORED_LIMIT = 1024
_lock = threading.Lock()


# Each Function's pickling token, made on its first pickle (or given by its unpickle).
_TOKENS: weakref.WeakKeyDictionary[Function, str] = weakref.WeakKeyDictionary()


def token_of(function: Function) -> str:
    """The Function's pickling token (made on first use)."""
    with _lock:
        return _TOKENS.setdefault(function, uuid.uuid4().hex)


def reduce_function(function: Function) -> tuple:
    """`Function.__reduce__`: rebuild from the Python function's source and the options."""
    source = _source_of(function.python_function)
    return (restore_function, (source, function.binding, function.options, token_of(function)))


def restore_function(source: tuple, binding: str, options: dict, token: str) -> Any:
    """The Function for `token` in this process, made on its first unpickle."""
    from tracejit.frontend.api.function import Function

    with _lock:
        existing = _RESTORED.get(token)
        if existing is not None:
            _RESTORED.move_to_end(token)
            return existing
    python_function = _load_source(source)
    if binding == "static":
        python_function = staticmethod(python_function)
    elif binding == "class":
        python_function = classmethod(python_function)
    restored: Function[..., Any] = Function(python_function, **options)
    with _lock:
        restored = _RESTORED.setdefault(token, restored)  # another thread may have won
        _TOKENS.setdefault(restored, token)
        while len(_RESTORED) > _RESTORED_LIMIT:
            _RESTORED.popitem(last=False)
    return restored


def reduce_bound_function(function: Function, instance: object) -> tuple:
    """A method Function bound to `instance` (or, as a classmethod, to a class) pickles as
    `getattr(instance, name)`, like a bound method."""
    name = getattr(function, "__name__", None)
    owner = instance if function.binding == "class" else type(instance)
    found = None
    for klass in getattr(owner, "__mro__", ()):
        if name is not None and name in vars(klass):
            found = vars(klass)[name]
            break
    if found is not function:
        raise pickle.PicklingError(
            f"cannot pickle the tj.function method {function!r} bound to {instance!r}: "
            f"{getattr(owner, '__qualname__', owner)!r} has no attribute {name!r} holding it, "
            "so the receiving process could not look it up again. Define it in the class body "
            "under its own name (`@tj.function` on a `def` in the class)."
        )
    return (getattr, (instance, name))


# --- the Python function --------------------------------------------------------------------
def _source_of(python_function: Any) -> tuple:
    """("name", module, qualname) or ("value", cloudpickle bytes)."""
    module = getattr(python_function, "__module__", None)
    qualname = getattr(python_function, "__qualname__", None)
    importable = (
        isinstance(module, str)
        and isinstance(qualname, str)
        and _resolve(module, qualname) is python_function
    )
    if importable and module != "__main__" and not _registered_by_value(str(module)):
        return ("name", module, qualname)
    try:
        import cloudpickle
    except ImportError:
        if importable:  # __main__ without cloudpickle: multiprocessing's spawn re-imports it
            return ("name", module, qualname)
        raise pickle.PicklingError(
            f"cannot pickle tj.function {qualname or python_function!r}: its Python function "
            f"is not importable by name ({module}.{qualname}), so it must go by value, which "
            "needs cloudpickle (`pip install cloudpickle`); or define it at the top level of "
            "a module."
        ) from None
    return ("value", cloudpickle.dumps(python_function), *_source_lines(python_function))


def _source_lines(python_function: Any) -> tuple[str, list[str]]:
    """The function's file name and its lines there (the lines before it blank): AutoGraph
    reads the source to convert control flow, and the receiving process may not have the file
    (a script or notebook cell), while cloudpickle renames the code's file."""
    code = getattr(python_function, "__code__", None)
    if code is None:
        return "", []
    try:
        lines, start = source_lines(code, getattr(python_function, "__globals__", {}))
    except (OSError, TypeError):
        return code.co_filename, []  # AutoGraph will say so where it runs
    return code.co_filename, ["\n"] * (start - 1) + lines


def _load_source(source: tuple) -> Any:
    if source[0] == "value":
        import cloudpickle

        python_function = cloudpickle.loads(source[1])
        filename, lines = source[2], source[3]
        code = getattr(python_function, "__code__", None)
        if code is not None and filename and lines:
            python_function.__code__ = code.replace(co_filename=filename)
            if not os.path.isfile(filename):  # the shipped lines stand in for the file
                linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
        return python_function
    _, module, qualname = source
    found = _resolve(module, qualname, must=True)
    if found is None:
        raise pickle.UnpicklingError(
            f"cannot unpickle tj.function {module}.{qualname}: importing {module!r} does not "
            "define it (is the same code installed in this process?)"
        )
    return found


def _resolve(module_name: str, qualname: str, must: bool = False) -> Any:
    """The Python function `module.qualname` names (unwrapping a tj.Function, a staticmethod
    or classmethod found in a class body), or None when the name leads nowhere."""
    from tracejit.frontend.api.function import Function

    if "<locals>" in qualname or "<lambda>" in qualname:
        return None
    if must:
        target: object = importlib.import_module(module_name)
    else:
        target = sys.modules.get(module_name)  # never import while pickling
    for part in qualname.split("."):
        if target is None:
            return None
        # a class's own dict: getattr would bind a method or run a descriptor
        namespace = vars(target) if isinstance(target, type) else None
        if namespace is not None and part in namespace:
            target = namespace[part]
        else:
            target = getattr(target, part, None)
        if isinstance(target, staticmethod | classmethod):
            target = target.__func__
    if isinstance(target, Function):
        target = target.python_function
    return target


def _registered_by_value(module: str) -> bool:
    cloudpickle = sys.modules.get("cloudpickle")
    if cloudpickle is None:
        return False
    registry = getattr(cloudpickle, "list_registry_pickle_by_value", None)
    return registry is not None and any(
        module == name or module.startswith(name + ".") for name in registry()
    )
