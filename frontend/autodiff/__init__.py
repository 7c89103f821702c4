"""Reverse-mode differentiation of traced `tj` code: GradientTape, grad, value_and_grad."""

from tracejit.frontend.autodiff.backprop import NotDifferentiableError
from tracejit.frontend.autodiff.custom import custom_gradient
from tracejit.frontend.autodiff.tape import GradientTape
from tracejit.frontend.autodiff.transforms import grad, value_and_grad

__all__ = ["GradientTape", "NotDifferentiableError", "custom_gradient", "grad", "value_and_grad"]
