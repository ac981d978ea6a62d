"""Run inside the outer sandbox, which has no network: listen on 127.0.0.1:PORT and carry each
connection over a unix socket to the night's side, which forwards it to the model API and
nowhere else. Then run the agent and exit with its status.

    python inner_proxy.py SOCKET PORT [MAX_TOOL_CALLS] -- AGENT ARGV...

With ``MAX_TOOL_CALLS`` (for ``codex exec --json``, ``copilot --output-format json`` and
``opencode run --format json``, which have no turn limit of their own that stops them) the
agent's JSON events pass through, counted: at the first tool call over the limit the agent and
its children are killed and a ``{"type": "turn_limit"}`` event ends the output.

Standard library only: it runs with nothing of the package importable.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading

TOOL_ITEMS = frozenset({"command_execution", "file_change", "mcp_tool_call", "web_search"})


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            up.connect(path)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=_pump, args=(conn, up), daemon=True).start()
        threading.Thread(target=_pump, args=(up, conn), daemon=True).start()


def _is_tool_call(line: bytes) -> bool:
    try:
        event = json.loads(line)
    except ValueError:
        return False
    if not isinstance(event, dict):
        return False
    if event.get("type") in ("tool.execution_start", "tool_use"):  # copilot, opencode
        return True
    item = event.get("item")
    return (
        event.get("type") == "item.started"
        and isinstance(item, dict)
        and item.get("type") in TOOL_ITEMS
    )


def run_limited(command: list[str], limit: int) -> int:
    """Run ``command``, passing its stdout on; stop it at tool call ``limit + 1``."""
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, start_new_session=True
    )
    assert proc.stdout is not None
    calls = 0
    out = sys.stdout.buffer
    for line in proc.stdout:
        calls += _is_tool_call(line)
        if calls > limit:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
            event = {"type": "turn_limit", "limit": limit, "message": f"over {limit} tool calls"}
            out.write((json.dumps(event) + "\n").encode())
            out.flush()
            return 124
        out.write(line)
        out.flush()
    return proc.wait()


def main(argv: list[str]) -> int:
    limit = None
    if len(argv) >= 5 and argv[3] == "--" and argv[2].isdigit():
        limit, argv = int(argv[2]), [*argv[:2], *argv[3:]]
    if len(argv) < 4 or argv[2] != "--":
        print("usage: inner_proxy.py SOCKET PORT [MAX_TOOL_CALLS] -- ARGV...", file=sys.stderr)
        return 2
    path, port, command = argv[0], int(argv[1]), argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    if limit is not None:
        return run_limited(command, limit)
    return subprocess.call(command, stdin=subprocess.DEVNULL)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
