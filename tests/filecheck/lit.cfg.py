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
# tests/test_filecheck.py runs lit in shards at once: each gets its own directory for the
# Output/ files and lit's timing file, which concurrent runs would otherwise both rewrite.
if "TRACEJIT_LIT_EXEC_ROOT" in os.environ:
    config.test_exec_root = os.environ["TRACEJIT_LIT_EXEC_ROOT"]
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
if "PYTHONPATH" in os.environ:  # lets a worktree run its own copy of the package
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
config.substitutions.append(("%python", sys.executable))
