"""Chapter 08: a kernel small enough to read as LLVM IR and assembly."""


def axpy(a, x, y):
    return a * x + y
