"""Export: SavedModel directories (saved_model/) and pickling (pickling.py, and
saved_model/pickling.py for ConcreteFunctions by value).

Importing this package installs how Functions and ConcreteFunctions pickle
(frontend/api/pickling_hooks.py): the API floor below never imports its serialisation.
"""

from tracejit.frontend.api.pickling_hooks import PICKLING
from tracejit.frontend.export import pickling, saved_model
from tracejit.frontend.export.saved_model import pickling as concrete_pickling

PICKLING.install(
    reduce_function=pickling.reduce_function,
    reduce_bound_function=pickling.reduce_bound_function,
    token_of=pickling.token_of,
    reduce_concrete=concrete_pickling.reduce_concrete,
)

__all__ = ["pickling", "saved_model"]
