"""Errors raised by the code generator."""


class CodegenError(Exception):
    """The cf-level module cannot be translated to LLVM IR or compiled.

    Raised for unsupported ops, types and attributes (the message names the op) and for
    LLVM verification failures; never a crash.
    """
