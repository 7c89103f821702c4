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


def start_opt_server() -> None:
    """Put a `tracejit-opt` first on PATH that runs each RUN line's tracejit-opt in a fork
    of one server process that has imported tracejit already (forkserver/opt_server.py): a
    fresh process spends ~0.5 s of CPU importing, ~200 times in this suite.
    TRACEJIT_LIT_FORKSERVER=0 runs the installed tracejit-opt instead."""
    import atexit
    import shutil
    import subprocess
    import tempfile

    here = os.path.join(os.path.dirname(__file__), "forkserver")
    directory = tempfile.mkdtemp(prefix="tj-opt-")  # short: a socket path has <= 107 bytes
    socket_path = os.path.join(directory, "socket")
    shim = os.path.join(directory, "tracejit-opt")
    with open(os.path.join(here, "opt_client.py")) as client, open(shim, "w") as out:
        out.write(f"#!{sys.executable} -S\n" + client.read())
    os.chmod(shim, 0o755)
    with open(os.path.join(directory, "server.log"), "w") as log:
        server = subprocess.Popen(
            [sys.executable, os.path.join(here, "opt_server.py"), socket_path],
            env=dict(config.environment),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )

    def stop() -> None:
        server.terminate()
        server.wait()
        shutil.rmtree(directory, ignore_errors=True)

    atexit.register(stop)
    config.environment["TRACEJIT_OPT_FALLBACK"] = os.path.join(bin_dir, "tracejit-opt")
    config.environment["TRACEJIT_OPT_SERVER"] = socket_path
    config.environment["PATH"] = directory + os.pathsep + config.environment["PATH"]


config.excludes.append("forkserver")
if os.environ.get("TRACEJIT_LIT_FORKSERVER", "1") != "0":
    start_opt_server()
