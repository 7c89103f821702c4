"""The array-object entry point: `<kernel>__pyentry`, the cheap way to call a kernel.

ctypes spends about a microsecond per array getting a data pointer from Python
(`arr.ctypes.data`), more than a small kernel costs. The entry point instead takes the
NumPy array objects themselves (ctypes `py_object`, passed as their address) and reads
the data pointer and the dims straight from NumPy's `PyArrayObject` struct:

    struct PyArrayObject { PyObject_HEAD;        // ob_refcnt, then ob_type at offset 8
                           char *data;           // offset 16
                           int nd;               // offset 24
                           npy_intp *dimensions; // offset 32
                           npy_intp *strides; PyObject *base; PyArray_Descr *descr;
                           int flags;            // offset 64
                           ... }

then calls the kernel with the usual ABI (`abi.py`). Every check happens here, before the
kernel runs: an argument whose type is not `np.ndarray` or whose dtype object is not
the expected one returns -3 (WRONG_TYPE) — the expected addresses are process-specific,
so the caller stores them in the global `<kernel>__pyexpect` once after loading
(`[&PyArray_Type, descr of argument 0, ...]`, see `jit.JitModule.entry_point`); an
array that is not C-contiguous
and aligned makes the entry return -1 (NOT_CONTIGUOUS), one whose rank or static dims
differ from the kernel's returns -2 (WRONG_SHAPE), without calling the kernel: the
caller then takes its slow path, which copies, checks and explains. The struct layout
is checked against NumPy at run time before anyone uses the entry point
(`layout_is_supported`).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir

from tracejit.codegen.abi import KernelSignature, MemRefArg
from tracejit.codegen.entry_layout import (  # noqa: F401  (re-exported for callers)
    C_CONTIGUOUS_AND_ALIGNED,
    DATA_OFFSET,
    DESCR_OFFSET,
    DIMENSIONS_OFFSET,
    EXPECT_SUFFIX,
    FASTCALL_SUFFIX,
    FLAGS_OFFSET,
    NDIM_OFFSET,
    PYTHON_API,
    SMALL_KERNEL_ELEMENTS,
    SUFFIX,
    TYPE_OFFSET,
    fastcall_supported,
    layout_is_supported,
)
from tracejit.codegen.llvm_types import I32, I64, PTR
from tracejit.ir.runtime_contract import NOT_CONTIGUOUS, WRONG_SHAPE, WRONG_TYPE


def emit_entry(module: ir.Module, kernel: ir.Function, signature: KernelSignature) -> None:
    """Define `<kernel>__pyentry(ptr array_object, ...) -> i32` calling `kernel`."""
    if not all(isinstance(arg, MemRefArg) for arg in signature.args):
        return  # only kernels whose arguments are all buffers get an entry point
    entry_type = ir.FunctionType(I32, [PTR] * len(signature.args))
    entry = ir.Function(module, entry_type, signature.name + SUFFIX)
    builder = ir.IRBuilder(entry.append_basic_block("entry"))
    expected = ir.GlobalVariable(
        module, ir.ArrayType(PTR, len(signature.args) + 1), signature.name + EXPECT_SUFFIX
    )
    expected.initializer = ir.Constant(expected.value_type, None)
    _check_types(builder, entry, entry.args, expected)
    _check_contiguous(builder, entry, entry.args)  # outputs are fresh: they always pass
    _check_shapes(builder, entry, entry.args, signature)
    pointers, dims = [], []
    for obj, arg in zip(entry.args, signature.args, strict=True):
        pointers.append(_load_field(builder, obj, DATA_OFFSET, PTR))
        if arg.dynamic_dims:  # type: ignore[union-attr]  # a MemRefArg here
            sizes = _load_field(builder, obj, DIMENSIONS_OFFSET, PTR)
            for d in arg.dynamic_dims:  # type: ignore[union-attr]  # a MemRefArg here
                slot = builder.gep(sizes, [ir.Constant(I64, d)], inbounds=True, source_etype=I64)
                dims.append(builder.load(slot, typ=I64))
    status = builder.call(kernel, pointers + dims)
    builder.ret(status if kernel.function_type.return_type == I32 else ir.Constant(I32, 0))
    if signature.args:
        _emit_fastcall(module, entry, signature)


def _emit_fastcall(module: ir.Module, entry: ir.Function, signature: KernelSignature) -> None:
    """Define `<kernel>__pyfast(self, PyObject *const *args, Py_ssize_t nargs) -> PyObject*`,
    a METH_FASTCALL C function that `jit.JitModule.entry_point` wraps as a builtin: calling
    it costs the interpreter ~0.05 us, a ctypes call ~0.6 us. It returns its last argument
    (a new reference) when the kernel succeeded, else the status as a Python int; a wrong
    argument count is WRONG_SHAPE (the caller's slow path explains it)."""
    count = len(signature.args)
    wrapper = ir.Function(
        module, ir.FunctionType(PTR, [PTR, PTR, I64]), signature.name + FASTCALL_SUFFIX
    )
    _self, args, nargs = wrapper.args
    from_status = _declare(module, "PyLong_FromLongLong", ir.FunctionType(PTR, [I64]))
    builder = ir.IRBuilder(wrapper.append_basic_block("entry"))
    go_on, wrong = wrapper.append_basic_block("go_on"), wrapper.append_basic_block("wrong")
    builder.cbranch(builder.icmp_signed("==", nargs, ir.Constant(I64, count)), go_on, wrong)
    builder.position_at_end(wrong)
    builder.ret(builder.call(from_status, [ir.Constant(I64, WRONG_SHAPE)]))
    builder.position_at_end(go_on)
    objects = [
        builder.load(builder.gep(args, [ir.Constant(I64, i)], source_etype=PTR), typ=PTR)
        for i in range(count)
    ]
    release = not _is_small(signature)
    if release:
        save = _declare(module, "PyEval_SaveThread", ir.FunctionType(PTR, []))
        thread_state = builder.call(save, [])
    status = builder.call(entry, objects)
    if release:
        restore = _declare(module, "PyEval_RestoreThread", ir.FunctionType(ir.VoidType(), [PTR]))
        builder.call(restore, [thread_state])
    done, failed = wrapper.append_basic_block("done"), wrapper.append_basic_block("failed")
    builder.cbranch(builder.icmp_signed("==", status, ir.Constant(I32, 0)), done, failed)
    builder.position_at_end(done)
    last = objects[-1]  # Py_INCREF: ob_refcnt is the first field (the GIL is held here)
    builder.store(builder.add(builder.load(last, typ=I64), ir.Constant(I64, 1)), last)
    builder.ret(last)
    builder.position_at_end(failed)
    builder.ret(builder.call(from_status, [builder.sext(status, I64)]))


def _is_small(signature: KernelSignature) -> bool:
    total = 0
    for arg in signature.args:
        assert isinstance(arg, MemRefArg)  # entries are only built for memref-only signatures
        if None in arg.shape:
            return False
        total += int(np.prod([d for d in arg.shape if d is not None], dtype=np.int64))
    return total <= SMALL_KERNEL_ELEMENTS


def _declare(module: ir.Module, name: str, function_type: ir.FunctionType) -> ir.Function:
    existing = module.globals.get(name)
    return existing if existing is not None else ir.Function(module, function_type, name)


def _check_contiguous(builder: ir.IRBuilder, entry: ir.Function, objects) -> None:
    """Return NOT_CONTIGUOUS unless every array in `objects` is C-contiguous and aligned."""
    wanted = ir.Constant(I32, C_CONTIGUOUS_AND_ALIGNED)
    ok = ir.Constant(ir.IntType(1), 1)
    for obj in objects:
        flags = _load_field(builder, obj, FLAGS_OFFSET, I32)
        ok = builder.and_(ok, builder.icmp_unsigned("==", builder.and_(flags, wanted), wanted))
    _branch_or_return(builder, entry, ok, NOT_CONTIGUOUS)


def _check_types(builder: ir.IRBuilder, entry: ir.Function, objects, expected) -> None:
    """Return WRONG_TYPE unless every object is an ndarray with the expected dtype object."""

    def slot(index: int) -> ir.Value:
        address = builder.gep(
            expected,
            [ir.Constant(I32, 0), ir.Constant(I32, index)],
            inbounds=True,
            source_etype=expected.value_type,
        )
        return builder.load(address, typ=PTR)

    ok = builder.icmp_unsigned("!=", slot(0), ir.Constant(PTR, None))  # filled in?
    array_type = slot(0)
    for obj in objects:
        found = _load_field(builder, obj, TYPE_OFFSET, PTR)
        ok = builder.and_(ok, builder.icmp_unsigned("==", found, array_type))
    _branch_or_return(builder, entry, ok, WRONG_TYPE)
    ok = ir.Constant(ir.IntType(1), 1)  # all are arrays: their descr field may be read
    for position, obj in enumerate(objects, start=1):
        descr = _load_field(builder, obj, DESCR_OFFSET, PTR)
        ok = builder.and_(ok, builder.icmp_unsigned("==", descr, slot(position)))
    _branch_or_return(builder, entry, ok, WRONG_TYPE)


def _check_shapes(builder: ir.IRBuilder, entry: ir.Function, objects, signature) -> None:
    """Return WRONG_SHAPE unless every array has the kernel's rank and static dims."""
    ok = ir.Constant(ir.IntType(1), 1)
    for obj, arg in zip(objects, signature.args, strict=True):
        ndim = _load_field(builder, obj, NDIM_OFFSET, I32)
        ok = builder.and_(ok, builder.icmp_signed("==", ndim, ir.Constant(I32, len(arg.shape))))
    _branch_or_return(builder, entry, ok, WRONG_SHAPE)
    ok = ir.Constant(ir.IntType(1), 1)  # the rank is right: the dims may be read
    for obj, arg in zip(objects, signature.args, strict=True):
        static = [(d, size) for d, size in enumerate(arg.shape) if size is not None]
        if not static:
            continue
        sizes = _load_field(builder, obj, DIMENSIONS_OFFSET, PTR)
        for d, size in static:
            slot = builder.gep(sizes, [ir.Constant(I64, d)], inbounds=True, source_etype=I64)
            found = builder.load(slot, typ=I64)
            ok = builder.and_(ok, builder.icmp_signed("==", found, ir.Constant(I64, size)))
    _branch_or_return(builder, entry, ok, WRONG_SHAPE)


def _branch_or_return(builder: ir.IRBuilder, entry: ir.Function, ok, code: int) -> None:
    """Continue in a new block if `ok`, else return `code`."""
    go_on = entry.append_basic_block()
    stop = entry.append_basic_block()
    builder.cbranch(ok, go_on, stop)
    builder.position_at_end(stop)
    builder.ret(ir.Constant(I32, code))
    builder.position_at_end(go_on)


def _load_field(builder: ir.IRBuilder, obj: ir.Value, offset: int, typ: ir.Type) -> ir.Value:
    offset_value = ir.Constant(I64, offset)
    address = builder.gep(obj, [offset_value], inbounds=True, source_etype=ir.IntType(8))
    return builder.load(address, typ=typ)
