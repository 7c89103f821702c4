"""`tj.optimizers`: SGD and Adam over `tj.Variable`s, with Keras's update rules.

`apply_gradients(zip(grads, variables))` updates each Variable in place. The same code runs
eagerly (NumPy on the Variables' buffers) and inside a `tj.function` (staged
`tj.var_write`s, compiled into the training step's kernel). Slot Variables (momentum,
Adam's moments, the step count) are created on first use, so a `tj.function` train step
creates them during its first trace only, as the rules for Variables in tf.function ask.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np

from tracejit.frontend.staging.variable import Variable


class Optimizer:
    """The shared part: the step count, slots per Variable, skipping None gradients."""

    def __init__(self, learning_rate: float, name: str):
        self.learning_rate = learning_rate
        self.name = name
        self.iterations: Variable | None = None
        self._slots: dict[tuple[int, str], tuple[weakref.ref[Variable], Variable]] = {}

    def slot(self, variable: Variable, name: str) -> Variable:
        """The optimizer's Variable `name` for `variable` (zeros like it, made once)."""
        key = (id(variable), name)
        known = self._slots.get(key)
        if known is not None and known[0]() is variable:
            return known[1]
        # new, or the id of a Variable that died, reused by this one
        slot = Variable(
            np.zeros(variable.shape, variable.dtype), name=f"{self.name}/{name}", trainable=False
        )
        self._slots[key] = (weakref.ref(variable), slot)
        return slot

    def apply_gradients(self, grads_and_vars: Iterable[tuple[object, Variable]]) -> Any:
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable")
        for _, variable in pairs:
            if not isinstance(variable, Variable):
                raise TypeError(f"apply_gradients updates tj.Variables, got {type(variable)}")
        if self.iterations is None:
            self.iterations = Variable(np.int64(0), name=f"{self.name}/iterations",
                                       trainable=False)
        step = self.iterations.value() + 1
        for grad, variable in pairs:
            self.update(variable, grad, step)
        self.iterations.assign_add(1)
        return self.iterations

    def minimize(self, loss: Any, var_list: list[Variable], tape: Any) -> Any:
        """Keras's `minimize`, with the tape that recorded `loss`."""
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list, strict=True))

    def update(self, variable: Variable, grad: Any, step: object) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum, as Keras's `SGD`."""

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, name: str = "SGD"):
        super().__init__(learning_rate, name)
        if not 0 <= momentum <= 1:
            raise ValueError("momentum must be in [0, 1]")
        self.momentum = momentum
        self.nesterov = nesterov

    def update(self, variable: Variable, grad: Any, step: Any) -> None:
        lr = self.learning_rate
        if not self.momentum:
            variable.assign_sub(np.multiply(grad, lr).astype(variable.dtype))
            return
        velocity = self.slot(variable, "momentum")
        new = velocity.value() * self.momentum - np.multiply(grad, lr)
        velocity.assign(new)
        if self.nesterov:
            variable.assign_add(new * self.momentum - np.multiply(grad, lr))
        else:
            variable.assign_add(new)


class Adam(Optimizer):
    """Adam (Kingma & Ba), as Keras's `Adam` computes it (epsilon outside the sqrt)."""

    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, name: str = "Adam"):
        super().__init__(learning_rate, name)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def update(self, variable: Variable, grad: Any, step: Any) -> None:
        m, v = self.slot(variable, "m"), self.slot(variable, "v")
        dtype = variable.dtype
        t = np.asarray(step).astype(dtype) if not hasattr(step, "astype") else step.astype(dtype)
        beta_1, beta_2 = dtype.type(self.beta_1), dtype.type(self.beta_2)
        alpha = self.learning_rate * np.sqrt(1 - beta_2**t) / (1 - beta_1**t)
        m.assign_add((grad - m.value()) * (1 - beta_1))
        v.assign_add((np.square(grad) - v.value()) * (1 - beta_2))
        variable.assign_sub(alpha * m.value() / (np.sqrt(v.value()) + dtype.type(self.epsilon)))
