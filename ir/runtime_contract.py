"""The run-time contract between a compiled kernel and its Python caller, stated once.

Every layer uses these names: the passes that stage checks and callbacks, the code
generator that emits statuses, and the frontend that turns statuses back into exceptions.
They live in `ir/` because every other layer may import it.

Kernel status (the `i32` every kernel returns, see `codegen/abi.py`):

    0                  the call succeeded
    k > 0              check number k failed: its message is `messages[k - 1]`, read from
                       the module attribute MESSAGES_ATTR (`passes/lower_asserts.py`)
    NOT_CONTIGUOUS..WRONG_TYPE
                       answers of a kernel's array-object entry point (never an error: the
                       caller takes its slow path, `codegen/pyobject_entry.py`)
    OUT_OF_MEMORY      a heap allocation inside the kernel failed (MemoryError)
    LAPACK_MISSING     a LAPACK call found no routine: SciPy is not installed in this
                       process (ImportError; ir/lapack_contract.py)

A check's message is "ErrorType: text"; the caller raises `ErrorType(text)` (an unknown
type name raises `tj.errors.InvalidArgumentError`).
"""

from __future__ import annotations

# --- statuses ----------------------------------------------------------------------------------
SUCCESS = 0
NOT_CONTIGUOUS = -1  # an input is not C-contiguous and aligned: copy it first
WRONG_SHAPE = -2  # an input's rank or static dims differ from the trace's: another trace
WRONG_TYPE = -3  # an input is not an ndarray of the trace's dtype: convert or retrace
OUT_OF_MEMORY = -4
LAPACK_MISSING = -5
ENTRY_POINT_ANSWERS = (NOT_CONTIGUOUS, WRONG_SHAPE, WRONG_TYPE)

# --- check messages ----------------------------------------------------------------------------
MESSAGES_ATTR = "tj.messages"  # module attribute: the messages, indexed by status - 1


def check_message(error_type: str, text: str) -> str:
    """The message of a run-time check raising `error_type(text)`."""
    return f"{error_type}: {text}"


def split_message(message: str) -> tuple[str, str]:
    """(error type name, text) of a check message."""
    name, _, text = message.partition(": ")
    return name, text


# --- run-time callbacks (tj.print, tj.py_function) ---------------------------------------------
CALLBACK_PREFIX = "__tj_callback_"  # the bodiless function a callback site calls
PRINT_ATTR = "tj.print"  # on a callback declaration: the print's pieces
PY_FUNCTION_ATTR = "tj.py_function"  # on a callback declaration: the py_function's name
ARG_DTYPES_ATTR = "tj.arg_dtypes"  # its arguments' NumPy dtypes (buffer types are signless)
CALLBACK_ERROR = "CallbackError"  # the check type of a callback's failure; text: its name

# --- bounds checks (check_bounds builds) -------------------------------------------------------
# A bounds-checked kernel's memory accesses are checks too: the code generator appends one
# message per access to MESSAGES_ATTR, "OutOfBoundsError: <op> at <file:line:col>", and the
# caller says whose fault it is (tracejit's, or the author's of hand-edited IR).
BOUNDS_ERROR = "OutOfBoundsError"
