"""use-blas: mark the matrix products that BLAS computes faster than our kernels.

Expects tensor-level IR (after `fuse-elementwise`). Produces the same IR in which each
`tj.matmul` that should call BLAS carries the routine family `bufferize` calls for it:

    %y = tj.matmul %x, %a : (tensor<2000xf32>, tensor<2000x2000xf32>) -> tensor<2000xf32>
  =>
    %y = tj.matmul %x, %a {blas = "gemv"} : (...) -> tensor<2000xf32>

`bufferize` (passes/bufferize/blas.py) lowers a marked product to `?gemv` / `?gemm` calls on
its operands' buffers, reading a 2-D transpose operand in place (BLAS's `trans` flag), with
our own kernel behind a run-time branch for a process without a BLAS (runtime/lapack.py:
NumPy's own OpenBLAS, else SciPy's). The rule, with the
measurements behind it (one thread, a 2-core Rocket Lake, SciPy's OpenBLAS 0.3.x; see
benchmarks/matmul_bench.py), for float32, float64, complex64 and complex128 only (integers,
bools and float16 have no BLAS, and NumPy does not use it for them either):

* vector @ matrix and `A.T @ v`, from GEMV_MIN elements of the matrix: 2-3x faster
  through BLAS from 128² (ours: 0.55x NumPy for a 2000² matrix, and `A.T @ v` copied A.T
  first: 0.03x); below 64² a call costs more than our inlined loops. Row-major matrix @
  vector (and a stack of matrices @ vector) stays ours: it is memory bound, ours and BLAS
  measured equal from 64² to 2000² (0.54 vs 0.55 ms at 2000² float32, 1.07 ms both in
  float64, complex too), and ours runs on tracejit's thread pool, which backs off when the
  cores are busy, where OpenBLAS's spinning threads took 10-12 ms instead of 0.5 ms on a
  loaded 2-core machine. But a 2-D slice of a matrix (`A[:, 1:] @ x`) is BLAS's: it reads
  the slice in place, where ours copied it first (3-6x slower than NumPy at 2000²). And so
  is a matrix @ vector in a function that calls BLAS anyway: there OpenBLAS's threads,
  spinning after its call, took the core our pool's worker wanted (`A.T @ (A @ x)` at 2000²,
  float64, two idle cores: 1.7 ms median, 4.0 ms at the 90th percentile, against NumPy's 1.1;
  both products through BLAS: 1.1-1.2 ms).
* matrix @ matrix, from GEMM_MIN multiply-adds in all (BLAS 1.1-2x faster from 32³ in
  float32 and float64, equal below), with a B of at least NARROW_MIN columns (a 256x512 @
  512x10 product, an MLP's last layer: ours 45 us, BLAS 62 us), and always for a
  transposed lhs (our kernel would copy it). A stack of products is a loop of calls, even
  narrow ones: from 8x8 @ 8x8 each (256 of them: BLAS 12.6 us, ours 40 us, float32).
  A matrix times its own transpose (`A @ A.T`, `A.T @ A`: np.cov's product) is a `?syrk`,
  half the multiply-adds: 1000² float64 19 ms where `?gemm` took 37 ms (NumPy's 20 ms:
  it calls `?syrk` for these too).
* dims unknown at compile time count as large.

`enabled=false` (the compiler driver's choice when SciPy is not installed) marks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ComplexType,
    Float32Type,
    Float64Type,
    ModuleOp,
    StringAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from tracejit.ir.matmul import MatmulOp
from tracejit.ir.shape_ops import SliceOp, TransposeOp
from tracejit.ir.shaped import shaped_type

BLAS_ATTR = "blas"
"""The attribute of a marked `tj.matmul`: "gemv", "gemm" or "syrk"."""
GEMV_MIN = 64 * 64
GEMM_MIN = 32 * 32 * 32
NARROW_MIN = 16
BATCHED_MIN = 8 * 8 * 8  # multiply-adds per call of a stack
LARGE = 1 << 40  # what an unknown dim makes of a size


def blas_family(op: MatmulOp, calls_blas: bool = False) -> str | None:
    """The BLAS routine family that should compute `op`, or None for our own kernel;
    `calls_blas`: its function has another product BLAS computes."""
    element = shaped_type(op.lhs).get_element_type()
    if isinstance(element, ComplexType):
        element = element.element_type
    if not isinstance(element, Float32Type | Float64Type):
        return None
    lhs, rhs = shaped_type(op.lhs).get_shape(), shaped_type(op.rhs).get_shape()
    if len(lhs) == 1 and len(rhs) == 1:
        return None  # a dot product: our vectorised reduction
    # a stack of matrices times one matrix or vector is one product of taller matrices
    m = _size(lhs[:-1]) if len(rhs) <= 2 else _size(lhs[-2:-1])
    if len(rhs) == 1 and not _transposed(op.lhs) and not is_window(op.lhs):
        plain = len(lhs) == 2 and not isinstance(op.lhs.owner, SliceOp)  # no copy for BLAS
        if not (calls_blas and plain):
            return None  # rows of A times a vector: our blocked dot products, as fast
    if len(lhs) == 1 or len(rhs) == 1:
        matrix = _size(lhs) if len(rhs) == 1 else _size(rhs[-2:])
        return "gemv" if matrix >= GEMV_MIN else None
    product = "syrk" if _gram(op) else "gemm"
    if _transposed(op.lhs):
        return product
    each = m * _size(rhs[-2:])
    calls = _size(op.result.type.get_shape()[:-2]) if len(rhs) > 2 else 1
    narrow = len(rhs) == 2 and _size(rhs[-1:]) < NARROW_MIN
    if narrow or each < BATCHED_MIN or each * calls < GEMM_MIN:
        return None
    return product


def is_window(value: SSAValue) -> bool:
    """Whether `value` is a 2-D slice of a 2-D array that BLAS can read in place: unit
    column step, positive row step (bufferize/blas_windows.py)."""
    owner = value.owner
    if not isinstance(owner, SliceOp) or len(shaped_type(owner.operand).get_shape()) != 2:
        return False
    steps = owner.get_step()
    return len(steps) == 2 and steps[0] >= 1 and steps[1] == 1


def _transposed(value: SSAValue) -> bool:
    """Whether `value` is a 2-D transpose."""
    return _transpose_operand(value) is not None


def _transpose_operand(value: SSAValue) -> SSAValue | None:
    """The matrix `value` is the 2-D transpose of, or None."""
    owner = value.owner
    if isinstance(owner, TransposeOp) and owner.get_permutation() == (1, 0):
        return owner.operand
    return None


def _gram(op: MatmulOp) -> bool:
    """`A @ A.T` or `A.T @ A` (np.cov's product): a matrix times its own transpose, which
    `?syrk` computes in half the multiply-adds (one triangle; bufferize mirrors it)."""
    return _transpose_operand(op.rhs) is op.lhs or _transpose_operand(op.lhs) is op.rhs


def _size(dims) -> int:
    return prod(LARGE if d == DYNAMIC_INDEX else d for d in dims)


def mark_blas_products(module: ModuleOp) -> None:
    for function in module.walk():
        if isinstance(function, FuncOp):
            products = [op for op in function.walk() if isinstance(op, MatmulOp)]
            calls_blas = any(blas_family(op) is not None for op in products)
            for op in products:
                if (family := blas_family(op, calls_blas)) is not None:
                    op.attributes[BLAS_ATTR] = StringAttr(family)


@dataclass(frozen=True)
class UseBlasPass(ModulePass):
    """Mark the matrix products that BLAS computes faster than our kernels."""

    name = "use-blas"

    enabled: bool = True
    """false: mark nothing (the compiler driver's choice when SciPy is not installed; the
    pass never looks for SciPy itself, and marked code runs without it too)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.enabled:
            mark_blas_products(op)
