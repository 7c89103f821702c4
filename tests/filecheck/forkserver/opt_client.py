# The `tracejit-opt` that lit's RUN lines call (lit.cfg.py writes it, behind a `python -S`
# shebang, into a directory at the front of PATH): it hands its command line, working
# directory, environment and stdin/stdout/stderr to opt_server.py, which runs tracejit-opt's
# main() in a fork of a process that has imported tracejit already, and exits with its
# status. Without a server it runs the real tracejit-opt. Standard library only: it starts
# without `site`, so it costs ~20 ms instead of ~0.5 s of imports.
import json
import os
import socket
import struct
import sys
import time

CONNECT_SECONDS = 20  # the server binds its socket ~0.1 s after lit starts it
STARTED = b"R"  # what the server's fork sends once it has the request and takes it on


def connect(path):
    """A connection to the server, or None if there is none (it failed or exited)."""
    deadline = time.monotonic() + CONNECT_SECONDS
    while True:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            client.connect(path)
            return client
        except FileNotFoundError:  # not bound yet
            client.close()
            if time.monotonic() > deadline:
                return None
            time.sleep(0.05)
        except OSError:  # refused: the server is gone
            client.close()
            return None


def receive(client, size):
    data = b""
    while len(data) < size:
        chunk = client.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def run_in_server(client):
    """The exit status of the run, or None if the server did not take the request on."""
    request = json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)})
    payload = request.encode()
    try:
        socket.send_fds(client, [struct.pack("!Q", len(payload))], [0, 1, 2])
        client.sendall(payload)
        if receive(client, 1) != STARTED:
            return None
        status = receive(client, 4)
    except OSError:
        return None
    if status is None:  # the run died without reporting, as a crashed process would
        sys.stderr.write("tracejit-opt: the run in the lit fork server ended without a status\n")
        return 134
    return struct.unpack("!i", status)[0]


def main():
    path = os.environ.get("TRACEJIT_OPT_SERVER")
    client = connect(path) if path else None
    status = run_in_server(client) if client is not None else None
    if status is None:
        real = os.environ["TRACEJIT_OPT_FALLBACK"]
        os.execv(real, [real, *sys.argv[1:]])
    sys.exit(status)


main()
