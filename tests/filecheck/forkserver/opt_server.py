"""A fork server for tracejit-opt in the lit suite: `python opt_server.py SOCKET`.

Each lit RUN line starts tracejit-opt anew, and ~90% of such a process is Python importing
xDSL, NumPy and tracejit. This server imports all of it once; each request from
opt_client.py (the `tracejit-opt` on lit's PATH) is run in a fork of it, with the client's
command line, working directory, environment and stdin/stdout/stderr, by the same `main()`
the installed `tracejit-opt` calls. A fork starts from the server's state, never from an
earlier run's, so runs cannot affect each other. What differs from a fresh process: the
modules are imported before the run (so an import the code forgot cannot fail here), and
all runs of one lit invocation share one string hash seed (random states are reseeded).

The server exits when lit (its parent) does, or after IDLE_SECONDS without a request.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import random
import signal
import socket
import struct
import sys
import traceback

IDLE_SECONDS = 600


def preload() -> None:
    """Import everything a tracejit-opt run may need, so that no fork imports it again."""
    from tracejit.codegen import _LAZY as codegen_modules
    from tracejit.ir.dialect import UPSTREAM_DIALECTS
    from tracejit.passes.pipeline import PASSES

    for name in (
        "tracejit.tools.opt_main",
        "tracejit.tools.opt_session",
        "tracejit.compiler.dot_graph",
        "tracejit.tools.python_input",
        "tracejit.tools.saved_input",
        "tracejit.tools.run_module",
        "tracejit.passes.import_linalg",
        *(f"tracejit.codegen.{module}" for module in set(codegen_modules.values())),
    ):
        importlib.import_module(name)
    for factory in [*UPSTREAM_DIALECTS.values(), *PASSES.values()]:
        factory()


def receive_request(connection: socket.socket) -> tuple[dict, list[int]]:
    header, fds, _, _ = socket.recv_fds(connection, 8, 3)
    while len(header) < 8:
        header += connection.recv(8 - len(header))
    (length,) = struct.unpack("!Q", header)
    payload = b""
    while len(payload) < length:
        chunk = connection.recv(length - len(payload))
        if not chunk:
            raise ConnectionError("the client went away")
        payload += chunk
    return json.loads(payload), fds


def run_request(connection: socket.socket) -> None:
    """In the fork: become the client's tracejit-opt process, run it, report its status."""
    request, fds = receive_request(connection)
    connection.sendall(b"R")  # taken on: the client waits for the status from now on
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["tracejit-opt", *request["argv"]]
    reseed()
    from tracejit.tools.opt_main import main

    try:
        status = main(request["argv"])
    except SystemExit as exit_request:
        status = exit_code(exit_request.code)
    except BaseException:
        traceback.print_exc()
        status = 1
    status = finish(status)
    connection.sendall(struct.pack("!i", status))


def reseed() -> None:
    """Fresh random states, as a new process would have (the hash seed stays the server's)."""
    random.seed()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()


def exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def finish(status: int) -> int:
    """What the interpreter does at exit: atexit handlers, then flushing the output."""
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # as Python reports a failed flush at exit
        return 120
    return status


def reap(signum: int, frame: object) -> None:
    """Wait for the finished forks (so that their CPU time counts as the server's, and the
    server's as lit's, as if lit had run them)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def serve(path: str) -> None:
    sys.path[0] = os.path.dirname(sys.executable)  # as for the installed tracejit-opt script
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)  # before preloading: early clients wait in the backlog
    listener.listen(128)
    try:
        preload()
    except BaseException:  # tracejit does not import: each client runs tracejit-opt itself
        traceback.print_exc()
        return
    signal.signal(signal.SIGCHLD, reap)
    listener.settimeout(1.0)
    parent, idle = os.getppid(), 0.0
    while os.getppid() == parent and idle < IDLE_SECONDS:
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            idle += 1.0
            continue
        idle = 0.0
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            try:
                connection.settimeout(None)
                run_request(connection)
            finally:
                os._exit(0)
        connection.close()


if __name__ == "__main__":
    serve(sys.argv[1])
