"""The pass registry and the default pipeline.

`DEFAULT_PIPELINE` is the compiler, read top to bottom: the same list runs under
`@tj.function` and `tracejit-opt --pipeline default`, and `tracejit-opt --help` prints it.
Each pass lives in its own module named after it; the registry imports it on first use.

A pass is a function of its IR and its options: none reads the machine it runs on. The
two passes that depend on the CPU the code is compiled for take it as options
(`tile-matmul{target=...}`, `stream-stores{min-bytes=...}`) and have deterministic
defaults when a pipeline names none (AVX2, 32 MiB). `default_pipeline(target=...,
cache_bytes=...)` is the default pipeline with given host facts filled in: the compiler
driver (compiler/driver.py) runs it with the host's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline


def _inline():
    from tracejit.passes.inline import InlinePass

    return InlinePass


def _fuse_elementwise():
    from tracejit.passes.fuse_elementwise import FuseElementwisePass

    return FuseElementwisePass


def _lower_control_flow():
    from tracejit.passes.lower_control_flow import LowerControlFlowPass

    return LowerControlFlowPass


def _use_blas():
    from tracejit.passes.use_blas import UseBlasPass

    return UseBlasPass


def _bufferize():
    from tracejit.passes.bufferize import BufferizePass

    return BufferizePass


def _tile_matmul():
    from tracejit.passes.tile_matmul import TileMatmulPass

    return TileMatmulPass


def _lower_to_loops():
    from tracejit.passes.lower_to_loops import LowerToLoopsPass

    return LowerToLoopsPass


def _expand_math():
    from tracejit.passes.expand_math import ExpandMathPass

    return ExpandMathPass


def _scf_to_cf():
    from tracejit.passes.scf_to_cf import ScfToCfPass

    return ScfToCfPass


def _lower_asserts():
    from tracejit.passes.lower_asserts import LowerAssertsPass

    return LowerAssertsPass


def _simplify_loops():
    from tracejit.passes.simplify_loops import SimplifyLoopsPass

    return SimplifyLoopsPass


def _stream_stores():
    from tracejit.passes.stream_stores import StreamStoresPass

    return StreamStoresPass


def _dedupe_loop_nests():
    from tracejit.passes.dedupe_loop_nests import DedupeLoopNestsPass

    return DedupeLoopNestsPass


def _parallelize():
    from tracejit.passes.parallelize import ParallelizePass

    return ParallelizePass


def _extrema_nan_flags():
    from tracejit.passes.extrema_nan_flags import ExtremaNanFlagsPass

    return ExtremaNanFlagsPass


def _export_linalg():
    from tracejit.passes.export_linalg import ExportLinalgPass

    return ExportLinalgPass


def _import_linalg():
    from tracejit.passes.import_linalg import ImportLinalgPass

    return ImportLinalgPass


def _prove_in_bounds():
    from tracejit.passes.prove_in_bounds import ProveInBoundsPass

    return ProveInBoundsPass


def _strip_mine_polls():
    from tracejit.passes.strip_mine_polls import StripMinePollsPass

    return StripMinePollsPass


def _canonicalize():
    from tracejit.passes.canonicalize import CanonicalizePass

    return CanonicalizePass


def _constant_fold():
    from tracejit.passes.constant_fold import ConstantFoldPass

    return ConstantFoldPass


def _cse():
    from tracejit.passes.cse import CommonSubexpressionEliminationPass

    return CommonSubexpressionEliminationPass


def _dce():
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    return DeadCodeElimination


Registry = Mapping[str, Callable[[], type[ModulePass]]]
"""Pass names to functions returning the pass class (imported on first use)."""

PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "canonicalize": _canonicalize,
    "constant-fold": _constant_fold,
    "cse": _cse,
    "dce": _dce,
    "inline": _inline,
    "fuse-elementwise": _fuse_elementwise,
    "prove-in-bounds": _prove_in_bounds,
    "lower-control-flow": _lower_control_flow,
    "use-blas": _use_blas,
    "bufferize": _bufferize,
    "strip-mine-polls": _strip_mine_polls,
    "tile-matmul": _tile_matmul,
    "lower-to-loops": _lower_to_loops,
    "expand-math": _expand_math,
    "scf-to-cf": _scf_to_cf,
    "lower-asserts": _lower_asserts,
    "simplify-loops": _simplify_loops,
    "stream-stores": _stream_stores,
    "parallelize": _parallelize,
    "dedupe-loop-nests": _dedupe_loop_nests,
    "extrema-nan-flags": _extrema_nan_flags,
    "export-linalg": _export_linalg,  # not lowering steps: the ways out to and in from
    "import-linalg": _import_linalg,  # upstream MLIR (tools/opt_session.py)
}

BUILTIN_PASSES: Mapping[str, Callable[[], type[ModulePass]]] = dict(PASSES)
"""PASSES as this package defines it, before anyone registers a pass of their own."""

# Tensor-level clean-up, then lowering: tensors -> buffers -> loops -> branches.
TENSOR_OPT_PIPELINE = ("inline", "canonicalize", "cse", "prove-in-bounds", "fuse-elementwise")
LOWERING_PIPELINE = (
    "use-blas",
    "lower-control-flow",
    "bufferize",
    "strip-mine-polls",
    "tile-matmul",
    "lower-to-loops",
    "expand-math",
    "simplify-loops",
    "stream-stores",
    "parallelize",
    "dedupe-loop-nests",
    "extrema-nan-flags",
    "scf-to-cf",
    "lower-asserts",
)
DEFAULT_PIPELINE = TENSOR_OPT_PIPELINE + LOWERING_PIPELINE



def default_pipeline(*, target: str, cache_bytes: int, blas: bool = True) -> str:
    """The default pipeline as text, with the facts of the CPU the code is compiled for as
    options: `target` (`avx2` or `avx512`) sizes tile-matmul's register tiles, and
    `cache_bytes`, the last-level cache size, is the output size from which stream-stores
    writes around the cache; `blas`, whether SciPy's BLAS can be called (its absence turns
    use-blas off). Its passes are DEFAULT_PIPELINE's, in order:

        ...,tile-matmul{target=avx512},...,stream-stores{min-bytes=33554432},...
    """
    if not isinstance(cache_bytes, int) or cache_bytes < 0:
        raise ValueError(f"cache_bytes must be a size in bytes, got {cache_bytes!r}")
    options = {
        "use-blas": "" if blas else "{enabled=false}",
        "tile-matmul": f"{{target={target}}}",
        "stream-stores": f"{{min-bytes={cache_bytes}}}",
    }
    return ",".join(name + options.get(name, "") for name in DEFAULT_PIPELINE)


NAMED_PIPELINES: dict[str, tuple[str, ...]] = {
    "default": DEFAULT_PIPELINE,
    "tensor-opt": TENSOR_OPT_PIPELINE,
    "lower": LOWERING_PIPELINE,
}

# The stages `tracejit-opt --emit` (and the README's ladder) name: each is the IR after the
# default-pipeline pass given here; llvm and asm go on from the cf stage through LLVM.
EMIT_LAST_PASS: dict[str, str] = {
    "tj": "cse",
    "dot": "cse",
    "loops": "lower-to-loops",
    "cf": "lower-asserts",
    "llvm": "lower-asserts",
    "asm": "lower-asserts",
    "linalg": "fuse-elementwise",  # then export-linalg (tools/opt_session.py)
}

# after_pass(pass_name, module): called after every pass (the IR-dump hook).
AfterPassHook = Callable[[str, ModuleOp], None]


class PipelineError(Exception):
    """A pass failed or left invalid IR; `pass_name` says which."""

    def __init__(self, pass_name: str, message: str):
        super().__init__(f"{message}\n(after pass '{pass_name}')")
        self.pass_name = pass_name
        self.detail = message


@dataclass
class Pipeline:
    """A parsed pass list such as `canonicalize,cse,bufferize`."""

    passes: tuple[ModulePass, ...]

    @staticmethod
    def parse(spec: str | Sequence[str], registry: Registry | None = None) -> Pipeline:
        """Parse a pass list with the passes of `registry` (default: PASSES, this package's;
        a caller adds others, e.g. tracejit-opt autodiff's `value-and-grad`)."""
        text = _pipeline_text(spec)
        if registry is None or registry is PASSES:
            return Pipeline(_parse_passes(text))
        return Pipeline(_parse_with(text, registry))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.passes)

    def run(
        self,
        module: ModuleOp,
        ctx: Context | None = None,
        verify_each: bool = True,
        after_pass: AfterPassHook | None = None,
    ) -> ModuleOp:
        """Apply the passes in place; verify after each and report it to `after_pass`."""
        from tracejit.ir.dialect import make_context

        ctx = ctx or make_context()
        for module_pass in self.passes:
            try:
                module_pass.apply(ctx, module)
                if verify_each:
                    module.verify()
            except Exception as error:  # report which pass broke the IR
                raise PipelineError(module_pass.name, str(error)) from error
            if after_pass is not None:
                after_pass(module_pass.name, module)
        return module


def _parse_passes(text: str) -> tuple[ModulePass, ...]:
    """The pass objects of a pass list, parsed once per distinct text and registry (parsing
    the default pipeline costs ~1 ms, per compile): a pass registered again under the same
    name (a course exercise's class defined anew) is parsed again. Sharing them is safe:
    passes are frozen dataclasses whose `apply` keeps no state in the pass."""
    return _parse_cached(text, tuple(PASSES.items()))


@functools.lru_cache(maxsize=64)
def _parse_cached(text: str, registry: tuple) -> tuple[ModulePass, ...]:
    return _parse_with(text, dict(registry))


def uses_only_builtin_passes(spec: str | Sequence[str]) -> bool:
    """Whether every pass of `spec` is one of this package's own (BUILTIN_PASSES): the code
    it makes of a module then depends only on the pipeline's text, on which the compiled-code
    caches key. A pass registered since, a user's or a course exercise's, may behave
    differently from one call to the next (its code edited, its globals changed), so what
    it compiles is never cached. (Read from the names alone: a cache hit imports no pass.)"""
    return all(
        name in BUILTIN_PASSES and PASSES.get(name) is BUILTIN_PASSES[name]
        for name in _pass_names(_pipeline_text(spec))
        if name
    )


def _pipeline_text(spec: str | Sequence[str]) -> str:
    """A pass list as text, a named pipeline ("default", "lower"...) spelt out."""
    text = spec if isinstance(spec, str) else ",".join(spec)
    return ",".join(NAMED_PIPELINES[text]) if text in NAMED_PIPELINES else text


def _parse_with(text: str, registry: Registry) -> tuple[ModulePass, ...]:
    if not text.strip():
        return ()
    unknown = _unknown_passes(text, registry)
    if unknown:
        known = ", ".join(sorted(registry))
        raise ValueError(f"unknown pass '{unknown[0]}'; known passes: {known}")
    return tuple(PassPipeline.parse_spec(dict(registry), text).passes)


def _unknown_passes(text: str, registry: Registry) -> list[str]:
    return [name for name in _pass_names(text) if name not in registry]


def _pass_names(text: str) -> list[str]:
    """The pass names of a pass list, without their `{options}` (which may hold commas)."""
    names, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            names.append(current)
            current = ""
        else:
            current += ch
    names.append(current)
    return [n.split("{")[0].strip() for n in names]


def describe(pass_name: str, registry: Registry | None = None) -> str:
    """The first line of a pass's docstring (for --list-passes)."""
    doc = ((registry or PASSES)[pass_name]().__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""
