"""``python -m skillopt_sleep.testing.model_server`` serves the loopback model server by hand.

    python -m skillopt_sleep.testing.model_server --port 8765 --delay 0.3 --reply "hello"

prints the base URL and answers every model call with ``--reply`` (or the default responder)
until interrupted.
"""

from __future__ import annotations

import argparse
import sys
import threading

from . import ModelServer, Text


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted; print the base URL first."""
    parser = argparse.ArgumentParser(prog="python -m skillopt_sleep.testing.model_server")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--fail-rate", type=float, default=0.0, help="share of transient errors")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fault RNG")
    parser.add_argument("--reply", help="answer every model call with this text")
    args = parser.parse_args(argv)
    responder = (lambda call: Text(args.reply)) if args.reply is not None else None
    with ModelServer(
        responder=responder,
        fail_rate=args.fail_rate,
        seed=args.seed,
        delay=args.delay,
        port=args.port,
    ) as srv:
        print(srv.url, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
