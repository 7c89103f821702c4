"""Reverse-mode differentiation of traced `tj` code: GradientTape and custom gradients
(`tj.grad` and `tj.value_and_grad`, which make Functions, are frontend/api/transforms.py)."""

from tracejit.frontend.autodiff.backprop import NotDifferentiableError
from tracejit.frontend.autodiff.custom import custom_gradient
from tracejit.frontend.autodiff.tape import GradientTape

__all__ = ["GradientTape", "NotDifferentiableError", "custom_gradient"]
