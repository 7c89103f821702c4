"""The public docstrings: each one's examples run as doctests, and each public name has one.

Public means what docs/reference.md lists (docs/gen_reference.py decides): the names of
`tracejit.__all__` but the NumPy dtype aliases, the functions and classes of its namespaces
(`tj.config`, `tj.optimizers`, `tj.saved_model`, `tj.autograph.experimental`, ...), and the
public methods and properties of its classes. Every function and class there has a
docstring with an example (`>>> ...`); every method and property, and every namespace, has a
docstring. The examples run as `help()` shows them, with `np` and `tj` imported, under the
suite's settings (tiered compilation off: tests/conftest.py), and must print exactly what
they show (NumPy's doctest flags: `...` matches anything, runs of whitespace are equal).
An example that changes a `tj.config` setting sets it back.
"""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import tracejit as tj

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _load_gen_reference() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("_docs_gen_reference", DOCS / "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gen_reference = _load_gen_reference()


def public_names() -> dict[str, object]:
    """`tj.config.set_num_threads` -> the object, for every public function, class and
    namespace (not the dtype aliases, which are NumPy's)."""
    found: dict[str, object] = {}

    def add(name: str, value: object) -> None:
        found[name] = value
        if gen_reference.kind_of(value) == "namespace":
            for member_name, member in gen_reference.namespace_members(value):
                add(f"{name}.{member_name}", member)

    for name in tj.__all__:
        value = getattr(tj, name)
        if gen_reference.kind_of(value) != "dtype":
            add(f"tj.{name}", value)
    return found


PUBLIC = public_names()


def is_namespace(value: object) -> bool:
    return gen_reference.kind_of(value) == "namespace"


def own_doc(value: object) -> str:
    """The docstring the object itself has (a class's, not one inherited from its base)."""
    if isinstance(value, type):
        doc = value.__dict__.get("__doc__")
    elif isinstance(value, property):
        doc = value.fget.__doc__ if value.fget is not None else None
    else:
        doc = getattr(value, "__doc__", None)
    return inspect.cleandoc(doc) if doc else ""


def public_members() -> dict[str, object]:
    """`tj.Function.get_concrete_function` -> the function, for every public class's public
    methods and properties (and `__call__`). A `tj.Tensor` method that `np.ndarray` has too
    (`sum`, `reshape`, `T`, ...) does what NumPy's does, and NumPy documents it."""
    members = {}
    for name, value in PUBLIC.items():
        if isinstance(value, type) and not is_namespace(value):
            for member_name, member in gen_reference.public_members(value):
                if value is tj.Tensor and hasattr(np.ndarray, member_name):
                    continue
                members[f"{name}.{member_name}"] = member
    return members


MEMBERS = public_members()


# --- every public name documents itself, with an example ----------------------------------
@pytest.mark.parametrize("name", [n for n, v in PUBLIC.items() if not is_namespace(v)])
def test_every_public_function_and_class_has_a_docstring_with_an_example(name):
    doc = own_doc(PUBLIC[name])
    assert doc, f"{name} has no docstring"
    assert ">>> " in doc, f"{name}'s docstring has no example (`>>> ...`) for the doctests"


@pytest.mark.parametrize("name", [n for n, v in PUBLIC.items() if is_namespace(v)])
def test_every_namespace_has_a_docstring(name):
    assert own_doc(PUBLIC[name]), f"{name} has no docstring"


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_every_public_method_and_property_has_a_docstring(name):
    assert own_doc(MEMBERS[name]), f"{name} has no docstring"


def test_the_list_of_public_names_is_what_the_issue_names():
    """The check reaches the API users meet first (a regression guard for public_names)."""
    expected = {
        "tj.function", "tj.Function", "tj.ConcreteFunction", "tj.TensorSpec", "tj.Variable",
        "tj.GradientTape", "tj.grad", "tj.value_and_grad", "tj.custom_gradient",
        "tj.py_function", "tj.TensorArray", "tj.range", "tj.saved_model.save",
        "tj.saved_model.load", "tj.Module", "tj.config.set_num_threads", "tj.optimizers.SGD",
        "tj.optimizers.Adam", "tj.autograph.experimental.set_loop_options",
    }  # fmt: skip
    assert expected <= set(PUBLIC)
    assert {"tj.Function.get_concrete_function", "tj.ConcreteFunction.ir"} <= set(MEMBERS)


# --- the examples run ------------------------------------------------------------------------
def collect_doctests() -> list[doctest.DocTest]:
    """The examples of every public docstring (a class's with its methods' and properties'),
    each docstring once."""
    globs = {"np": np, "tj": tj}
    tests: dict[tuple[str | None, int | None, str], doctest.DocTest] = {}
    for name, value in PUBLIC.items():
        # a namespace's members are listed in PUBLIC themselves, so it is not recursed into
        recurse = not isinstance(value, types.ModuleType)
        module = inspect.getmodule(value)  # for the file and line of a failing example
        for test in doctest.DocTestFinder(recurse=recurse).find(
            value, name, module=module, globs=globs
        ):
            key = (test.filename, test.lineno, test.docstring or "")
            if test.examples and key not in tests:
                tests[key] = test
    return sorted(tests.values(), key=lambda t: t.name)


DOCTESTS = collect_doctests()
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# (getter, setter) of each tj.config setting an example may change (and must set back)
SETTINGS = [
    ("functions_run_eagerly", "run_functions_eagerly"),
    ("tiered_compilation", "set_tiered_compilation"),
    ("loop_unroll_limit", "set_loop_unroll_limit"),
    ("buffer_cache_bytes", "set_buffer_cache_bytes"),
    ("num_threads", "set_num_threads"),
    ("log_compiles", "set_log_compiles"),
    ("check_bounds", "set_check_bounds"),
    ("cache_dir", None),
    ("cache_max_bytes", None),
]


def settings() -> dict[str, object]:
    return {getter: getattr(tj.config, getter)() for getter, _ in SETTINGS}


@pytest.mark.parametrize("test", DOCTESTS, ids=lambda t: t.name)
def test_docstring_examples_print_what_they_show(test):
    before = settings()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    try:
        runner.run(test, out=report.append, clear_globs=True)
    finally:
        after = settings()
        for getter, setter in SETTINGS:
            if setter is not None and after[getter] != before[getter]:
                getattr(tj.config, setter)(before[getter])
        if after["cache_dir"] != before["cache_dir"]:
            tj.config.set_cache_dir(before["cache_dir"], before["cache_max_bytes"])
    assert runner.failures == 0, "".join(report)
    changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    assert not changed, f"{test.name}'s example left tj.config changed: {changed}"


def test_the_doctests_cover_the_issue_list():
    names = {t.name for t in DOCTESTS}
    for name in ("tj.function", "tj.Function", "tj.ConcreteFunction", "tj.Variable"):
        assert name in names, f"no example of {name} was collected"
