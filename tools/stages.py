"""The `--emit` ladder: which default-pipeline passes take a module from the stage it is at
to a requested stage.

An input may be at any stage (tj, linalg on memrefs, scf loops, cf), so the ladder starts at
the first pass the module still needs, found from what it contains.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp, TensorType

from tracejit.passes.pipeline import DEFAULT_PIPELINE


def _has_tensors(module: ModuleOp) -> bool:
    for op in module.walk():
        if op.dialect_name() == "tj" or any(isinstance(r.type, TensorType) for r in op.results):
            return True
        for region in op.regions:
            for block in region.blocks:
                if any(isinstance(a.type, TensorType) for a in block.args):
                    return True
    return False


def is_upstream_tensor_module(module: ModuleOp) -> bool:
    """Upstream linalg-on-tensors input: no tj op, and a linalg, tensor or arith op with a
    tensor result (bufferized tracejit IR has linalg ops too, on memrefs)."""
    ops = list(module.walk())
    if any(op.dialect_name() in ("tj", "memref") for op in ops):
        return False
    return any(
        op.dialect_name() in ("linalg", "tensor", "arith")
        and any(isinstance(r.type, TensorType) for r in op.results)
        for op in ops
    )


def _has_dialect(name: str) -> Callable[[ModuleOp], bool]:
    return lambda module: any(op.dialect_name() == name for op in module.walk())


def _lacks_status(module: ModuleOp) -> bool:
    from tracejit.ir.runtime_contract import MESSAGES_ATTR

    return MESSAGES_ATTR not in module.attributes


def _after(pass_name: str) -> int:
    return DEFAULT_PIPELINE.index(pass_name) + 1


# (what the module still contains, index in DEFAULT_PIPELINE of the first pass it needs).
# Loops are what lower-to-loops leaves, so the passes after it (expand-math, ...) come next.
_NEEDS = (
    (_has_tensors, 0),
    (_has_dialect("linalg"), DEFAULT_PIPELINE.index("lower-to-loops")),
    (_has_dialect("scf"), _after("lower-to-loops")),
    (_lacks_status, DEFAULT_PIPELINE.index("lower-asserts")),
)


def first_needed_pass(module: ModuleOp) -> int:
    """Index in DEFAULT_PIPELINE of the first pass `module` still needs (len: none)."""
    for needs, index in _NEEDS:
        if needs(module):
            return index
    return len(DEFAULT_PIPELINE)


def ladder(module: ModuleOp, last_pass: str | None) -> tuple[list[str], list[str]]:
    """The default-pipeline passes from `module`'s stage through `last_pass` (None: none),
    and the rest of the way to the cf level."""
    start = first_needed_pass(module)
    stop = start if last_pass is None else DEFAULT_PIPELINE.index(last_pass) + 1
    stop = max(stop, start)
    passes = _for_this_host()
    return passes[start:stop], passes[stop:]


def _for_this_host() -> list[str]:
    """DEFAULT_PIPELINE's passes with the options the driver gives them for this host
    (`tile-matmul{target=...}`), so that a slice runs what a compiled function runs."""
    from tracejit.compiler.driver import with_host_facts

    entries, depth, current = [], 0, ""
    for ch in with_host_facts(DEFAULT_PIPELINE):
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            entries.append(current)
            current = ""
        else:
            current += ch
    entries.append(current)
    assert [e.split("{")[0] for e in entries] == list(DEFAULT_PIPELINE)
    return entries
