# ruff: noqa: F821  (lit injects `config`)
# lit configuration for tracejit's FileCheck tests: `tracejit-opt` and `filecheck` come
# from the virtualenv that runs the tests.
import os
import sys

import lit.formats

config.name = "tracejit"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
if "PYTHONPATH" in os.environ:  # lets a worktree run its own copy of the package
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
config.substitutions.append(("%python", sys.executable))
