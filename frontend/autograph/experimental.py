"""`tj.autograph.experimental`, as TensorFlow spells it."""

from tracejit.frontend.staging.loop_options import set_loop_options

__all__ = ["set_loop_options"]
