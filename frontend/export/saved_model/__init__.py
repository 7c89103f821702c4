"""`tj.saved_model`: save compiled functions, Modules and Variables to a directory and load
them in a process that does not have their Python source (like `tf.saved_model`).

    tj.saved_model.save(obj, export_dir, signatures=None)
    loaded = tj.saved_model.load(export_dir, use_object_code=True)

A saved directory holds machine code: load only directories you trust (see `load`).
"""

from tracejit.frontend.export.saved_model.errors import LoadError, SaveError
from tracejit.frontend.export.saved_model.load import load
from tracejit.frontend.export.saved_model.pickling import register as _register_pickling
from tracejit.frontend.export.saved_model.save import save

_register_pickling()

__all__ = ["LoadError", "SaveError", "load", "save"]
