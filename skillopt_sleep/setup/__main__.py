"""`python -m skillopt_sleep.setup`: what the install scripts hand over to."""

from __future__ import annotations

import sys

from .main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
