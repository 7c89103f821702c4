"""`value-and-grad`: reverse-mode differentiation as a module transformation.

For each tensor-level function `@f` of the module (or the one named by `function`), add
`@f_value_and_grad` with the same arguments, returning `f`'s results followed by the
gradient of the sum of its first result with respect to each float tensor argument
(zeros for an argument it does not depend on). The new body is `f`'s ops, then the
adjoint ops of the reverse sweep (backprop.py): the same code `tj.grad` stages while
tracing, so `tracejit-opt -p value-and-grad` shows exactly what a traced gradient is.

    func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
      %s = tj.sin %x ; %r = tj.reduce "sum" %s ; func.return %r }
      ->  func.func @f_value_and_grad(%x) -> (tensor<f64>, tensor<3xf64>) {
            ... %c = tj.cos %x ; %g = tj.mul %seed, %c ; func.return %r, %g }
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tracejit.frontend.autodiff.adjoints import zeros_like
from tracejit.frontend.autodiff.backprop import backpropagate, is_float
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import TraceContext, tracing


def value_and_grad_function(module: ModuleOp, function: func.FuncOp) -> func.FuncOp:
    """Add `@<name>_value_and_grad` next to `function` in `module` and return it."""
    inputs = list(function.function_type.inputs.data)
    block = Block(arg_types=inputs)
    new = func.FuncOp(
        f"{function.sym_name.data}_value_and_grad", (inputs, []), Region(block)
    )
    module.body.block.insert_op_after(new, function)
    context = TraceContext(module, new)
    with tracing(context):
        mapping: dict[SSAValue, SSAValue] = dict(zip(function.body.block.args, block.args,
                                                     strict=True))
        copies: list[Operation] = []
        results: list[SSAValue] = []
        for op in function.body.block.ops:
            if isinstance(op, func.ReturnOp):
                results = [mapping.get(v, v) for v in op.arguments]
                break
            copies.append(context.builder.insert(op.clone(value_mapper=mapping)))
        sources = [a for a in block.args if isinstance(a.type, TensorType) and is_float(a)]
        seeds = {}
        if results and is_float(results[0]):
            target = Tensor(results[0])
            seeds[results[0]] = primitives.broadcast_to(
                primitives.constant(_one(target)), target.dims
            )
        found = backpropagate(copies, seeds, set(sources))
        grads = [found[a] if a in found else zeros_like(Tensor(a)) for a in sources]
        outputs = [*results, *[g.value for g in grads]]
        context.builder.insert(func.ReturnOp(*outputs))
    new.function_type = FunctionType.from_lists(inputs, [v.type for v in outputs])
    return new


def _one(target: Tensor):
    import numpy as np

    return np.ones((), target.dtype)


@dataclass(frozen=True)
class ValueAndGradPass(ModulePass):
    """Reverse-mode gradients: add `@f_value_and_grad` next to each function `@f`.

    It returns f's results, then the gradient of the sum of f's first result with respect
    to each float argument; for each function, or the one named `function`. Run it after
    `inline`."""

    name = "value-and-grad"
    function: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        chosen = [
            f for f in op.ops
            if isinstance(f, func.FuncOp) and not f.is_declaration
            and (not self.function or f.sym_name.data == self.function)
            and not f.sym_name.data.endswith("_value_and_grad")
        ]
        if self.function and not chosen:
            raise ValueError(f"value-and-grad: no function @{self.function} in the module")
        for function in chosen:
            value_and_grad_function(op, function)


PASSES: dict[str, Callable[[], type[ModulePass]]] = {"value-and-grad": lambda: ValueAndGradPass}
"""The passes autodiff adds to passes/'s registry (tools/pass_registry.py joins them)."""
