"""`--stats`: how many ops of each dialect the module has before and after the passes."""

from __future__ import annotations

from collections import Counter

from xdsl.dialects.builtin import ModuleOp


def dialect_counts(module: ModuleOp) -> Counter[str]:
    """Ops per dialect name (`tj`, `arith`, ...), the module op itself not counted."""
    return Counter(op.name.split(".")[0] for op in module.walk() if op is not module)


def render_stats(before: Counter[str], after: Counter[str]) -> str:
    dialects = sorted(set(before) | set(after))
    width = max([len("dialect"), *map(len, dialects)])
    lines = ["// ----- op counts per dialect -----", f"{'dialect':<{width}}  before   after"]
    lines.extend(f"{d:<{width}}  {before[d]:>6}  {after[d]:>6}" for d in dialects)
    lines.append(f"{'total':<{width}}  {sum(before.values()):>6}  {sum(after.values()):>6}")
    return "\n".join(lines) + "\n"
