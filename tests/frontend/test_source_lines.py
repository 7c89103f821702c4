"""source_lines finds what inspect.getsourcelines finds (without its module search), sees a
file edited since it was read, and fails with OSError where there is no source."""

from __future__ import annotations

import functools
import importlib.util
import inspect
import sys

import numpy as np
import pytest

import tracejit as tj
from tracejit.frontend.staging.source_lines import source_lines


def _decorated(function):
    @functools.wraps(function)
    def wrapper(*args):
        return function(*args)

    return wrapper


@_decorated
def decorated(x):
    return x + 1


def plain(x):
    y = x * 2
    return y


square = lambda x: x * x  # noqa: E731
pair = (lambda x: x + 1, lambda y: y - 1)


def nested_maker():
    def nested(x):
        if x > 0:
            return x
        return -x

    return nested


@pytest.mark.parametrize(
    "function",
    [plain, decorated.__wrapped__, square, *pair, nested_maker(), np.linspace.__wrapped__],
    ids=["plain", "decorated", "lambda", "lambda-pair-0", "lambda-pair-1", "nested", "numpy"],
)
def test_same_lines_as_inspect(function):
    code = inspect.unwrap(function).__code__
    assert source_lines(code, function.__globals__) == inspect.getsourcelines(code)


def test_code_without_a_file_has_no_source():
    namespace: dict = {}
    exec("def typed(x):\n    return x\n", namespace)
    with pytest.raises(OSError):
        source_lines(namespace["typed"].__code__, namespace)


class _ModuleFile:
    """A module loaded from a file that the test rewrites and runs again (a reload)."""

    def __init__(self, path, text: str) -> None:
        self.path = path
        path.write_text(text)
        self.spec = importlib.util.spec_from_file_location(path.stem, path)
        self.module = importlib.util.module_from_spec(self.spec)
        self.spec.loader.exec_module(self.module)

    def rewrite(self, text: str) -> None:
        self.path.write_text(text)  # a new size: linecache.checkcache sees it
        self.spec.loader.exec_module(self.module)


def test_a_file_edited_after_it_was_read(tmp_path, monkeypatch):
    loaded = _ModuleFile(tmp_path / "edited_module.py", "def f(x):\n    return x + 1\n")
    monkeypatch.setitem(sys.modules, "edited_module", loaded.module)
    module = loaded.module
    assert "x + 1" in "".join(source_lines(module.f.__code__, vars(module))[0])
    loaded.rewrite("def f(x):\n    return x + 20\n")
    assert "x + 20" in "".join(source_lines(module.f.__code__, vars(module))[0])


def test_autograph_converts_a_reloaded_function(tmp_path):
    """A Function built after the file changed traces the new code, compiled and eagerly."""
    body = "def f(x):\n    if x.sum() > 0:\n        return x {}\n    return x - 1\n"
    loaded = _ModuleFile(tmp_path / "reloaded_module.py", body.format("+ 1"))
    x = np.arange(3.0)
    assert np.array_equal(tj.function(loaded.module.f)(x), x + 1)
    loaded.rewrite(body.format("* 10"))
    f = tj.function(loaded.module.f)
    compiled = f(x)
    tj.config.run_functions_eagerly(True)
    try:
        eager = f(x)
    finally:
        tj.config.run_functions_eagerly(False)
    assert np.array_equal(compiled, x * 10) and np.array_equal(eager, x * 10)
