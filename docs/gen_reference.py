"""Generate `docs/reference.md` from the code: every public name of `tj` (`tracejit.__all__`).

    .venv/bin/python docs/gen_reference.py            # rewrite docs/reference.md
    .venv/bin/python docs/gen_reference.py --check    # exit 1 if it is out of date

Each entry is the name, its signature (annotations left out) and the first line of its
docstring; classes list their public methods and properties, namespaces (`tj.config`,
`tj.debugging`, ...) their functions and classes. `tests/docs/test_docs.py` fails when the
file differs from what this script generates, so the reference cannot drift from the code.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

import tracejit as tj

REFERENCE = Path(__file__).resolve().parent / "reference.md"

HEADER = """\
# Reference: `import tracejit as tj`

Every public name of `tj` (`tracejit.__all__`) with its signature and the first line of its
docstring. **Generated** by `docs/gen_reference.py` from the code (do not edit by hand; run
`.venv/bin/python docs/gen_reference.py`); `tests/docs/test_docs.py` fails when this file
differs from what the script generates. The [user guide](guide.md) shows how the pieces fit
together; the [tutorial](tutorial/01-tracing.md) shows how they work inside.
"""

SECTIONS = (
    ("Decorator and functions", "function"),
    ("Classes", "class"),
    ("Namespaces", "namespace"),
    ("Dtypes", "dtype"),
)


def kind_of(value: Any) -> str:
    if isinstance(value, type) and issubclass(value, np.generic):
        return "dtype"
    if isinstance(value, types.ModuleType) or (
        isinstance(value, type) and value.__name__ == "errors"
    ):
        return "namespace"
    return "class" if isinstance(value, type) else "function"


def signature(value: Any) -> str:
    """`(a, b=1, *, c=None)`: the call signature without annotations."""
    try:
        sig = inspect.signature(value)
    except (TypeError, ValueError):
        return "(...)"
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    if params and params[0].name == "self":
        params = params[1:]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def summary(value: Any, name: str = "") -> str:
    """The first paragraph of the object's own docstring (tests/docs/test_docstrings.py
    makes sure every public name has one)."""
    own = value.fget.__doc__ if isinstance(value, property) else value.__doc__
    doc = inspect.cleandoc(own) if own else ""  # not inherited ("Call self as a function.")
    return doc.strip().split("\n\n")[0].replace("\n", " ").strip()


def public_members(cls: type) -> list[tuple[str, Any]]:
    """Methods and properties the class itself defines (and `__call__`)."""
    members = []
    for name, value in vars(cls).items():
        if name.startswith("_") and name != "__call__":
            continue
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if inspect.isfunction(value) or isinstance(value, property):
            members.append((name, value))
    return members


def namespace_members(namespace: Any) -> list[tuple[str, Any]]:
    """A module's `__all__` (its functions and classes: constants are left to the guide),
    else the functions and classes it defines (not its imports); for a class used as a
    namespace (`tj.errors`), its public attributes."""
    if isinstance(namespace, type):
        return [(n, v) for n, v in vars(namespace).items() if not n.startswith("_")]
    if hasattr(namespace, "__all__"):
        members = [(n, getattr(namespace, n)) for n in namespace.__all__]
        return [(n, v) for n, v in members if callable(v) or inspect.ismodule(v)]
    return [
        (name, value)
        for name, value in vars(namespace).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or isinstance(value, type))
        and value.__module__ == namespace.__name__
    ]


def render_class(name: str, cls: type) -> list[str]:
    lines = [f"### `tj.{name}`", "", f"`tj.{name}{signature(cls)}`", "", summary(cls), ""]
    for member_name, member in public_members(cls):
        if isinstance(member, property):
            lines.append(_item(f"`.{member_name}` (property)", summary(member)))
        else:
            lines.append(_item(f"`.{member_name}{signature(member)}`", summary(member)))
    return lines + [""] if public_members(cls) else lines


def _item(title: str, text: str) -> str:
    return f"- {title}: {text}" if text else f"- {title}"


def render_function(name: str, function: Any) -> list[str]:
    text = summary(function, name)
    return [f"### `tj.{name}`", "", f"`tj.{name}{signature(function)}`", "", text, ""]


def render_namespace(name: str, namespace: Any) -> list[str]:
    lines = [f"### `tj.{name}`", "", summary(namespace, name), ""]
    for member_name, member in namespace_members(namespace):
        shown = (
            "" if isinstance(member, type) and issubclass(member, Exception) else signature(member)
        )
        lines.append(_item(f"`tj.{name}.{member_name}{shown}`", summary(member)))
    return lines + [""]


def render_dtypes(names: list[str]) -> list[str]:
    aliases = ", ".join(f"`tj.{n}`" for n in names)
    return [
        f"{aliases}: the NumPy scalar types of the same names (`tj.float32 is np.float32`).",
        "",
    ]


RENDER = {"function": render_function, "class": render_class, "namespace": render_namespace}


def generate() -> str:
    lines = HEADER.split("\n")
    grouped: dict[str, list[str]] = {kind: [] for _, kind in SECTIONS}
    for name in tj.__all__:
        grouped[kind_of(getattr(tj, name))].append(name)
    for title, kind in SECTIONS:
        lines += [f"## {title}", ""]
        if kind == "dtype":
            lines += render_dtypes(grouped[kind])
            continue
        for name in grouped[kind]:
            lines += RENDER[kind](name, getattr(tj, name))
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="generate docs/reference.md")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        current = REFERENCE.read_text() if REFERENCE.exists() else ""
        if current != text:
            print(f"{REFERENCE} is out of date: run docs/gen_reference.py", file=sys.stderr)
            return 1
        return 0
    REFERENCE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
