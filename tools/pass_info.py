"""What `--list-passes` and `--help` say about the pass registry: each pass's one-line
description and its options (the dataclass fields of its ModulePass class)."""

from __future__ import annotations

from xdsl.passes import get_pass_option_infos

from tracejit.passes.pipeline import DEFAULT_PIPELINE, NAMED_PIPELINES, describe
from tracejit.tools.pass_registry import ALL_PASSES

# xDSL's own passes without a docstring.
_FALLBACK_DESCRIPTIONS = {
    "cse": "Common subexpression elimination: merge identical side-effect-free ops.",
    "dce": "Dead code elimination: erase unused side-effect-free ops.",
}


def description(pass_name: str) -> str:
    return describe(pass_name, ALL_PASSES) or _FALLBACK_DESCRIPTIONS.get(pass_name, "")


QUOTES = "'\""  # a type written under `from __future__ import annotations` is a string


def options(pass_name: str) -> list[str]:
    """`name: type = default` for each option of the pass, as `-p name{option=value}` takes."""
    return [
        f"{info.name}: {info.expected_type.strip(QUOTES)}"
        + ("" if info.default_value is None else f" = {info.default_value}")
        for info in get_pass_option_infos(ALL_PASSES[pass_name]())
    ]


def pass_listing() -> str:
    """One line per registered pass, then one indented line per option."""
    lines = []
    width = max(map(len, ALL_PASSES))
    for name in sorted(ALL_PASSES):
        lines.append(f"  {name:<{width}}  {description(name)}")
        lines.extend(f"  {'':<{width}}    {{{option}}}" for option in options(name))
    return "\n".join(lines) + "\n"


def pipelines_listing() -> str:
    lines = [f"default pipeline: {','.join(DEFAULT_PIPELINE)}", "named pipelines (--pipeline):"]
    width = max(map(len, NAMED_PIPELINES))
    for name, passes in NAMED_PIPELINES.items():
        lines.append(f"  {name:<{width}}  {','.join(passes)}")
    return "\n".join(lines) + "\n"
