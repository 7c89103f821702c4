"""How compiled code calls LAPACK, stated once for bufferize, the code generator and the
runtime.

bufferize (passes/bufferize/lapack.py) calls a LAPACK routine as a bodiless function named
LAPACK_PREFIX + the routine (`dgetrf`, ...), declared in the module:

    func.func private @tracejit_lapack_dgetrf(i32, i32, memref<?xf64>, i32, memref<?xi32>)
                                              -> i32
    %info = func.call @tracejit_lapack_dgetrf(%m, %n, %a, %lda, %ipiv) : ...

in the routine's argument order without its last argument, `info`, which the call returns.
A routine called with arguments of several types (matrices of different shapes) has one
declaration per signature, the later ones named with a suffix SIGNATURE + a number
(`@tracejit_lapack_sgemm_1`).
Scalars (i32, and i8 for a character argument such as `uplo`) are passed by value in the
IR; the code generator (codegen/emit_lapack.py) passes every argument by pointer, as
Fortran does: a scalar through a stack slot, a memref as its data pointer (column-major
data: bufferize copies matrices in and out). There is no hidden string-length argument:
the routines called are SciPy's `scipy.linalg.cython_lapack` wrappers, whose C signatures
are the Fortran ones without them (`void dgetrs(char *trans, int *n, int *nrhs, double *a,
int *lda, int *ipiv, double *b, int *ldb, int *info)`).

A module that calls LAPACK has the global LAPACK_TABLE_GLOBAL, a pointer to an array of
function addresses, one per ROUTINES entry in that order; the loader fills it in
(runtime/lapack.py). While it is null, or the routine's entry is (SciPy is not installed in
this process), a call returns the status LAPACK_MISSING (ir/runtime_contract.py). A BLAS
call reads the same array through its own global, TABLE_GLOBAL: the loader fills that one
without importing SciPy (its LAPACK, ~0.2 s to import, is loaded for the first module
that has LAPACK_TABLE_GLOBAL), so a process that only multiplies matrices never imports it.

BLAS routines (BLAS_ROUTINES) are called the same way with three differences, because
compiled code must never fail for want of a BLAS where it has a kernel of its own
(passes/bufferize/blas.py), and because they may come from either of two libraries: they
have no `info`; while the table or the routine's entry is null the call does nothing and
returns BLAS_MISSING instead of returning from the kernel, so that the caller runs its own
kernel (a call returns 0 when the routine ran); and an integer argument is passed through an
8-byte slot holding it as an i64. The loader prefers NumPy's own OpenBLAS (bundled with its
wheels: 64-bit integers, `scipy_dgemm_64_`, which reads the whole slot) to SciPy's
`cython_blas` (32-bit integers, which reads the slot's first four bytes: the same value on
a little-endian machine, for any value a 32-bit BLAS takes). Each memref argument of a
BLAS call is followed by an `index`, the position of the matrix's first element in it (one
matrix of a batch), and is passed as the address of that element:

    %missing = func.call @tracejit_lapack_dgemv(%trans, %m, %n, %alpha, %a, %a0, %lda,
                                                %x, %x0, %incx, %beta, %y, %y0, %incy)
        : (i8, i32, i32, f64, memref<?x?xf64>, index, i32, ...) -> i32
"""

from __future__ import annotations

LAPACK_PREFIX = "tracejit_lapack_"
TABLE_GLOBAL = "tracejit_lapack_table"
LAPACK_TABLE_GLOBAL = "tracejit_lapack_routines"
SIGNATURE = "_"  # routine names have none


def routine_of(name: str) -> str:
    """The routine a declared function `name` calls (module docstring)."""
    return name.removeprefix(LAPACK_PREFIX).split(SIGNATURE)[0]


# one letter per element type: f32, f64, complex<f32>, complex<f64>
TYPE_LETTERS = ("s", "d", "c", "z")
# a family's routine per letter: its real name for s and d, its complex one for c and z
FAMILIES: dict[str, tuple[str, str]] = {
    "getrf": ("getrf", "getrf"),
    "getrs": ("getrs", "getrs"),  # unused since ?gesv; kept: later indices are in compiled code
    "potrf": ("potrf", "potrf"),
    "syevd": ("syevd", "heevd"),  # symmetric / Hermitian eigenproblem, divide and conquer
    "gesdd": ("gesdd", "gesdd"),  # SVD, divide and conquer
    "geqrf": ("geqrf", "geqrf"),  # QR: Householder reflectors
    "orgqr": ("orgqr", "ungqr"),  # QR: Q from the reflectors
    "gelsd": ("gelsd", "gelsd"),  # least squares through the SVD
}
# matrix @ matrix, matrix @ vector (either side), a matrix times its own transpose
BLAS_FAMILIES = ("gemm", "gemv", "syrk")
BLAS_ROUTINES: tuple[str, ...] = tuple(
    letter + family for family in BLAS_FAMILIES for letter in TYPE_LETTERS
)
BLAS_MISSING = 1
"""What a BLAS call returns while the table is null (0: the routine ran)."""
# Families added after the BLAS ones (their routines go after BLAS_ROUTINES in ROUTINES).
LATER_FAMILIES: dict[str, tuple[str, str]] = {
    "gesv": ("gesv", "gesv"),  # solve: ?getrf + ?getrs in one call (passes/bufferize/lapack.py)
}


def _routines(families: dict[str, tuple[str, str]]) -> tuple[str, ...]:
    return tuple(
        letter + names[letter in "cz"] for names in families.values() for letter in TYPE_LETTERS
    )


# New routines go at the end: an index into the table is baked into compiled code.
ROUTINES: tuple[str, ...] = _routines(FAMILIES) + BLAS_ROUTINES + _routines(LATER_FAMILIES)


def is_blas(routine: str) -> bool:
    """Whether `routine` (a ROUTINES entry) is a BLAS one (see the module docstring)."""
    return routine in BLAS_ROUTINES


def routine_name(letter: str, family: str) -> str:
    """LAPACK's name of `family` (a FAMILIES or LATER_FAMILIES key) for the element type
    `letter`."""
    return letter + {**FAMILIES, **LATER_FAMILIES}[family][letter in "cz"]


EXTRA = "linalg"
"""The optional dependency (`pip install tracejit[linalg]`) that brings SciPy's LAPACK."""
MISSING_TEXT = (
    "needs SciPy's LAPACK: install it with `pip install tracejit[linalg]` (or call NumPy's "
    "function through tj.py_function)"
)
