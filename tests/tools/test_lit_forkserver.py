"""The lit suite's tracejit-opt fork server (tests/filecheck/forkserver): a run through it
gets the client's stdin, stdout, stderr, arguments and exit status, as a fresh process
would; without a server the client runs the installed tracejit-opt."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

FORKSERVER = os.path.join(os.path.dirname(__file__), "..", "filecheck", "forkserver")
CLIENT = [sys.executable, "-S", os.path.join(FORKSERVER, "opt_client.py")]
INPUT = """func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = tj.neg %x : tensor<2xf32>
  %z = tj.neg %y : tensor<2xf32>
  func.return %z : tensor<2xf32>
}
"""


@pytest.fixture(scope="module")
def server_environment():
    directory = tempfile.mkdtemp(prefix="tj-opt-test-")  # short: a socket path is <= 107 bytes
    socket_path = os.path.join(directory, "socket")
    server = subprocess.Popen(
        [sys.executable, os.path.join(FORKSERVER, "opt_server.py"), socket_path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    while not os.path.exists(socket_path):
        time.sleep(0.05)
    yield {
        **os.environ,
        "TRACEJIT_OPT_SERVER": socket_path,
        "TRACEJIT_OPT_FALLBACK": "/nonexistent",
    }
    server.terminate()
    server.wait()
    shutil.rmtree(directory, ignore_errors=True)


def run_client(arguments, environment):
    return subprocess.run(
        [*CLIENT, *arguments], input=INPUT, capture_output=True, text=True, env=environment
    )


def test_a_run_in_the_server_reads_stdin_and_prints(server_environment):
    result = run_client(["-", "-p", "canonicalize"], server_environment)
    assert result.returncode == 0, result.stderr
    assert "tj.neg" not in result.stdout and "func.return %x" in result.stdout


def test_a_failing_run_reports_its_status_and_error(server_environment):
    result = run_client(["-", "-p", "nosuch"], server_environment)
    assert result.returncode == 1
    assert "unknown pass 'nosuch'" in result.stderr


def test_without_a_server_the_installed_tool_runs():
    installed = os.path.join(os.path.dirname(sys.executable), "tracejit-opt")
    environment = {**os.environ, "TRACEJIT_OPT_FALLBACK": installed}
    environment.pop("TRACEJIT_OPT_SERVER", None)
    result = run_client(["-", "-p", "nosuch"], environment)
    assert result.returncode == 1
    assert "unknown pass 'nosuch'" in result.stderr
