"""`tj.linalg`: NumPy's LAPACK-backed `np.linalg` functions on stacks of matrices.

    %x, %ok = tj.linalg "solve" %a, %b : (tensor<2x3x3xf64>, tensor<2x3x4xf64>)
                                          -> (tensor<2x3x4xf64>, tensor<i1>)
    %x, %ok = tj.linalg "inv" %a : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i1>)
    %l, %ok = tj.linalg "cholesky" %a : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i1>)
    %s, %l = tj.linalg "slogdet" %a : (tensor<5x3x3xf64>) -> (tensor<5xf64>, tensor<5xf64>)
    %w, %v, %ok = tj.linalg "eigh" %a : (tensor<3x3xf64>)
                                      -> (tensor<3xf64>, tensor<3x3xf64>, tensor<i1>)
    %u, %s, %vh, %ok = tj.linalg "svd" %a : (tensor<4x2xf32>)
                                 -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<i1>)

The first operand of "solve", "inv", "cholesky", "slogdet", "eigh" and "eigvalsh" is a
stack `[..., n, n]` of square matrices (for "solve", `b` is
`[..., n, k]` with the same batch dims: the frontend broadcasts them, and checks at run
time the dims it does not know at trace time, which may be `?`); the op works on
each matrix of the stack, as NumPy's gufuncs do:

* "solve": x with a @ x == b; "inv": the inverse; both `ok` unless a matrix is singular
  (LAPACK's ?gesv, NumPy's `LinAlgError: Singular matrix`);
* "cholesky": the lower triangular l with l @ l^H == a, read from a's lower triangle; `ok`
  unless a matrix is not positive definite (?potrf);
* "slogdet": the sign (a unit complex number for complex a) and the log of the absolute
  value of the determinant, from ?getrf's factors: (0, -inf) for a singular matrix;
* "eigh": the eigenvalues w (ascending, real) and the orthonormal eigenvectors v (columns)
  of the Hermitian matrix whose lower triangle a holds (?syevd / ?heevd); "eigvalsh": w
  only; `ok` unless the iteration did not converge.

The other kinds take stacks `[..., m, n]` of any shape, k = min(m, n):

* "svd": u [..., m, k], s [..., k] (real, descending), vh [..., k, n] with
  a = u @ diag(s) @ vh (?gesdd "S"); "svd_complete": u [..., m, m], vh [..., n, n]
  (?gesdd "A"); "svdvals": s only (?gesdd "N"); `ok` unless ?gesdd did not converge;
* "qr": q [..., m, k] with orthonormal columns and upper triangular r [..., k, n]
  (?geqrf, then ?orgqr / ?ungqr); "qr_complete": q [..., m, m], r [..., m, n]; "qr_r": r
  only. These never fail (no `ok`);
* "lstsq" of a [m, n], b [m, k] and the 0-d real rcond: x [n, k] minimising |a x - b|,
  the squared residual norm of each column of b [k] (0 unless m > n), the effective
  rank (0-d i32), the singular values [min(m, n)] and `ok` (?gelsd, NumPy's way).

The 0-d bool `ok` says whether every matrix of the stack succeeded; the frontend stages a
`tj.assert` on it (LinAlgError). The results of a failed matrix are unspecified (never
seen: the call raises). Element types: f32, f64, complex<f32>, complex<f64>. The buffer form
calls LAPACK (passes/bufferize/lapack.py and lapack_decompositions.py,
ir/lapack_contract.py); the adjoints of the kinds that have one are in
frontend/autodiff/linalg_adjoints.py.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, Float16Type, StringAttr, TensorType, i1, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import component_type, is_inexact


def _ok() -> TensorType:
    return TensorType(i1, [])


@irdl_op_definition
class LinalgOp(IRDLOperation):
    """One LAPACK-backed `np.linalg` function, `kind`, on stacks of matrices (see the module
    docstring)."""

    name = "tj.linalg"
    # kind -> its operand count
    KINDS: ClassVar[dict[str, int]] = {
        "solve": 2, "inv": 1, "cholesky": 1, "slogdet": 1, "eigh": 1, "eigvalsh": 1,
        "svd": 1, "svd_complete": 1, "svdvals": 1, "qr": 1, "qr_complete": 1, "qr_r": 1,
        "lstsq": 3,
    }  # fmt: skip
    kind = prop_def(StringAttr)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$kind $inputs attr-dict `:` functional-type($inputs, $outputs)"

    def __init__(self, kind: str, inputs: list[SSAValue]):
        super().__init__(
            operands=[inputs],
            result_types=[result_types(kind, [v.type for v in inputs])],
            properties={"kind": StringAttr(kind)},
        )

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in self.KINDS:
            raise VerifyException(f"unknown tj.linalg kind '{kind}'")
        if len(self.inputs) != self.KINDS[kind]:
            raise VerifyException(f"tj.linalg {kind} takes {self.KINDS[kind]} operands")
        types = [v.type for v in self.inputs]
        expected = result_types(kind, types)
        if [r.type for r in self.outputs] != expected:
            raise VerifyException(
                f"tj.linalg {kind} results must be ({', '.join(map(str, expected))})"
            )


def result_types(kind: str, inputs: list[Attribute]) -> list[TensorType]:
    """The result types of `kind` on operands of types `inputs` (VerifyException if they
    are not stacks of matrices of a LAPACK element type, square where `kind` needs it)."""
    if kind in _RECTANGULAR:
        return _RECTANGULAR[kind](kind, _stack(inputs[0]), list(inputs[1:]))
    a = _square_stack(inputs[0])
    if kind in ("eigh", "eigvalsh"):
        values = TensorType(component_type(a.get_element_type()), a.get_shape()[:-1])
        return [values, a, _ok()] if kind == "eigh" else [values, _ok()]
    if kind == "slogdet":
        batch = list(a.get_shape()[:-2])
        element = a.get_element_type()
        return [TensorType(element, batch), TensorType(component_type(element), batch)]
    if kind != "solve":
        return [a, _ok()]
    b = inputs[1]
    if not isinstance(b, TensorType) or b.get_num_dims() != a.get_num_dims():
        raise VerifyException(f"tj.linalg solve: b must be a stack of matrices like a, got {b}")
    if b.get_element_type() != a.get_element_type():
        raise VerifyException("tj.linalg solve: a and b must have one element type")
    a_shape, b_shape = a.get_shape(), b.get_shape()
    needed = (*a_shape[:-2], a_shape[-1])  # the batch dims, and b's rows: a's columns
    if not all(_compatible(x, y) for x, y in zip(needed, b_shape[:-1], strict=True)):
        raise VerifyException(f"tj.linalg solve: shapes {a} and {b} do not match")
    return [b, _ok()]


def _compatible(x: int, y: int) -> bool:
    """Equal, or one of them known only at run time (the frontend checks it there)."""
    return x == y or DYNAMIC_INDEX in (x, y)


def _stack(ttype: Attribute, what: str = "a stack of matrices") -> TensorType:
    if not isinstance(ttype, TensorType) or ttype.get_num_dims() < 2:
        raise VerifyException(f"tj.linalg expects {what}, got {ttype}")
    element = ttype.get_element_type()
    if not is_inexact(element) or isinstance(component_type(element), Float16Type):
        raise VerifyException(f"tj.linalg: no LAPACK routine for {element}")
    return ttype


def _square_stack(ttype: Attribute) -> TensorType:
    ttype = _stack(ttype, "a stack of square matrices")
    rows, columns = ttype.get_shape()[-2:]
    if not _compatible(rows, columns):
        raise VerifyException(f"tj.linalg expects square matrices, got {ttype}")
    return ttype


def _smaller(m: int, n: int) -> int:
    """min(m, n), unknown if either is (zero if either is zero)."""
    if 0 in (m, n):
        return 0
    return DYNAMIC_INDEX if DYNAMIC_INDEX in (m, n) else min(m, n)


def _svd(kind: str, a: TensorType, rest: list[Attribute]) -> list[TensorType]:
    *batch, m, n = a.get_shape()
    k, element = _smaller(m, n), a.get_element_type()
    values = TensorType(component_type(element), [*batch, k])
    if kind == "svdvals":
        return [values, _ok()]
    u_columns, vh_rows = (m, n) if kind == "svd_complete" else (k, k)
    u = TensorType(element, [*batch, m, u_columns])
    vh = TensorType(element, [*batch, vh_rows, n])
    return [u, values, vh, _ok()]


def _qr(kind: str, a: TensorType, rest: list[Attribute]) -> list[TensorType]:
    *batch, m, n = a.get_shape()
    k, element = _smaller(m, n), a.get_element_type()
    columns = m if kind == "qr_complete" else k
    r = TensorType(element, [*batch, columns, n])
    return [r] if kind == "qr_r" else [TensorType(element, [*batch, m, columns]), r]


def _lstsq(kind: str, a: TensorType, rest: list[Attribute]) -> list[TensorType]:
    b, rcond = rest
    element, real = a.get_element_type(), component_type(a.get_element_type())
    if a.get_num_dims() != 2:
        raise VerifyException(f"tj.linalg lstsq: a must be a matrix, got {a}")
    if not isinstance(b, TensorType) or b.get_num_dims() != 2 or b.get_element_type() != element:
        raise VerifyException(f"tj.linalg lstsq: b must be a matrix of {element}, got {b}")
    if rcond != TensorType(real, []):
        raise VerifyException(f"tj.linalg lstsq: rcond must be a tensor<{real}>, got {rcond}")
    (m, n), (b_rows, k) = a.get_shape(), b.get_shape()
    if not _compatible(m, b_rows):
        raise VerifyException(f"tj.linalg lstsq: shapes {a} and {b} do not match")
    return [
        TensorType(element, [n, k]),
        TensorType(real, [k]),
        TensorType(i32, []),
        TensorType(real, [_smaller(m, n)]),
        _ok(),
    ]


_RECTANGULAR = {
    "svd": _svd, "svd_complete": _svd, "svdvals": _svd,
    "qr": _qr, "qr_complete": _qr, "qr_r": _qr, "lstsq": _lstsq,
}  # fmt: skip
