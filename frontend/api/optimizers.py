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
    """The base of the optimizers: the step count, slots per Variable, None gradients skipped.

    A subclass implements `update(variable, grad, step)`, which assigns the Variable its new
    value with NumPy code (traced when the update runs inside a `tj.function`).

    Parameters
    ----------
    learning_rate : float
        The step size.
    name : str
        Prefix of the names of the optimizer's own Variables (`"SGD/iterations:0"`).

    Examples
    --------
    >>> class SignSGD(tj.optimizers.Optimizer):
    ...     def __init__(self, learning_rate=0.1):
    ...         super().__init__(learning_rate, name="SignSGD")
    ...     def update(self, variable, grad, step):
    ...         variable.assign_sub(self.learning_rate * np.sign(grad))
    >>> w = tj.Variable([1.0, -2.0], name="w")
    >>> SignSGD().apply_gradients([(np.array([3.0, -0.5]), w)])
    <tj.Variable 'SignSGD/iterations:0' shape=() dtype=int64, numpy=1>
    >>> w.numpy()
    array([ 0.9, -1.9])
    """

    def __init__(self, learning_rate: float, name: str):
        self.learning_rate = learning_rate
        self.name = name
        self.iterations: Variable | None = None
        self._slots: dict[tuple[int, str], tuple[weakref.ref[Variable], Variable]] = {}

    def slot(self, variable: Variable, name: str) -> Variable:
        """The optimizer's Variable `name` for `variable` (zeros like it, made once): the
        state an update keeps per Variable, such as momentum.

        >>> w = tj.Variable([1.0, 2.0], name="w")
        >>> tj.optimizers.SGD(momentum=0.9).slot(w, "momentum")
        <tj.Variable 'SGD/momentum:0' shape=(2,) dtype=float64, numpy=[0., 0.]>
        """
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
        """Update each Variable by its gradient (eagerly, or staged in a `tj.function`), and
        count the step.

        Parameters
        ----------
        grads_and_vars : iterable of (gradient, tj.Variable)
            Pairs, such as `zip(tape.gradient(loss, variables), variables)`; a None
            gradient leaves its Variable alone.

        Returns
        -------
        tj.Variable
            The step count, `iterations` (an int64 Variable).

        Raises
        ------
        ValueError
            Every gradient is None.
        TypeError
            A pair holds something else than a `tj.Variable`.

        Examples
        --------
        >>> w = tj.Variable([1.0, -2.0], name="w")
        >>> sgd = tj.optimizers.SGD(learning_rate=0.1)
        >>> sgd.apply_gradients([(np.array([2.0, -4.0]), w)])
        <tj.Variable 'SGD/iterations:0' shape=() dtype=int64, numpy=1>
        >>> w.numpy()
        array([ 0.8, -1.6])
        """
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
        """Keras's `minimize`, with the tape that recorded `loss`: `apply_gradients` of the
        tape's gradients of `loss` with respect to `var_list`.

        >>> w = tj.Variable([1.0, -2.0], name="w")
        >>> @tj.function
        ... def loss():
        ...     return np.sum(w * w)
        >>> with tj.GradientTape() as tape:
        ...     value = loss()
        >>> _ = tj.optimizers.SGD(learning_rate=0.1).minimize(value, [w], tape)
        >>> w.numpy()
        array([ 0.8, -1.6])
        """
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list, strict=True))

    def update(self, variable: Variable, grad: Any, step: object) -> None:
        """Assign `variable` its new value from `grad` (a subclass's rule); `step` is the
        1-based step count, for rules that depend on it (Adam's bias correction). See the
        class docstring for an example."""
        raise NotImplementedError


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum, as Keras's `SGD`.

    Without momentum, `w -= learning_rate * g`. With it, a velocity `v = momentum * v -
    learning_rate * g` is kept per Variable and `w += v` (Nesterov: `w += momentum * v -
    learning_rate * g`).

    Parameters
    ----------
    learning_rate : float, default 0.01
    momentum : float, default 0.0
        In [0, 1].
    nesterov : bool, default False
    name : str, default "SGD"

    Raises
    ------
    ValueError
        `momentum` is outside [0, 1].

    Examples
    --------
    >>> w = tj.Variable([1.0, -2.0], name="w")
    >>> sgd = tj.optimizers.SGD(learning_rate=0.1)
    >>> @tj.function
    ... def train_step():
    ...     with tj.GradientTape() as tape:
    ...         loss = np.sum(w * w)
    ...     sgd.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    ...     return loss
    >>> print(train_step(), train_step().round(6))
    5.0 3.2
    >>> w.numpy().round(6)
    array([ 0.64, -1.28])
    """

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, name: str = "SGD"):
        super().__init__(learning_rate, name)
        if not 0 <= momentum <= 1:
            raise ValueError("momentum must be in [0, 1]")
        self.momentum = momentum
        self.nesterov = nesterov

    def update(self, variable: Variable, grad: Any, step: Any) -> None:
        """One SGD step for `variable` (see the class docstring).

        >>> w = tj.Variable([1.0], name="w")
        >>> tj.optimizers.SGD(learning_rate=0.5).update(w, np.array([1.0]), 1)
        >>> w.numpy()
        array([0.5])
        """
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
    """Adam (Kingma & Ba), as Keras's `Adam` computes it (epsilon outside the sqrt).

    Keeps the moments `m` and `v` per Variable; each step,
    `w -= lr * sqrt(1 - beta_2**t) / (1 - beta_1**t) * m / (sqrt(v) + epsilon)`.

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta_1, beta_2 : float, default 0.9 and 0.999
        The decay rates of the first and second moments.
    epsilon : float, default 1e-7
    name : str, default "Adam"

    Examples
    --------
    >>> w = tj.Variable([1.0, -2.0], name="w")
    >>> adam = tj.optimizers.Adam(learning_rate=0.1)
    >>> @tj.function
    ... def train_step():
    ...     with tj.GradientTape() as tape:
    ...         loss = np.sum(w * w)
    ...     adam.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    ...     return loss
    >>> for _ in range(3):
    ...     _ = train_step()
    >>> w.numpy().round(3), adam.iterations.numpy()
    (array([ 0.702, -1.701]), np.int64(3))
    """

    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, name: str = "Adam"):
        super().__init__(learning_rate, name)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def update(self, variable: Variable, grad: Any, step: Any) -> None:
        """One Adam step for `variable` at step count `step` (see the class docstring).

        >>> w = tj.Variable([1.0], name="w")
        >>> tj.optimizers.Adam(learning_rate=0.1).update(w, np.array([1.0]), np.int64(1))
        >>> w.numpy().round(6)
        array([0.9])
        """
        m, v = self.slot(variable, "m"), self.slot(variable, "v")
        dtype = variable.dtype
        t = np.asarray(step).astype(dtype) if not hasattr(step, "astype") else step.astype(dtype)
        beta_1, beta_2 = dtype.type(self.beta_1), dtype.type(self.beta_2)
        alpha = self.learning_rate * np.sqrt(1 - beta_2**t) / (1 - beta_1**t)
        m.assign_add((grad - m.value()) * (1 - beta_1))
        v.assign_add((np.square(grad) - v.value()) * (1 - beta_2))
        variable.assign_sub(alpha * m.value() / (np.sqrt(v.value()) + dtype.type(self.epsilon)))
