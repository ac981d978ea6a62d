#!/bin/sh
# Install skillopt-sleep from this checkout: the engine (built into a wheel, installed with pipx,
# else uv, else into a private virtual environment), the Claude Code plugin, the Codex skill and
# the Copilot CLI, OpenCode, Gemini CLI, Qwen Code and Pi plugins for the agents found here
# (copies the installation owns), and, if asked, the nightly schedule.
# Every change is written to a manifest, so `--uninstall` removes exactly those.
#
#   sh install/install.sh [--dry-run] [--uninstall] [--schedule | --no-schedule] [--yes]
#                         [--with pipx|uv|venv|pip] [--claude | --no-claude]
#                         [--codex | --no-codex] [--agents copilot,opencode,gemini,qwen,pi|none]
#                         [--package SPEC]
#
# This script only finds a Python 3.10 or newer and hands over to `skillopt-sleep setup`
# (skillopt_sleep/setup/), which does every step; it runs from the checkout's sources with the
# standard library alone, before the engine's dependencies exist.
set -u

PROG=install.sh
SRC=$(cd "$(dirname "$0")/.." && pwd -P)
RECORD="${XDG_DATA_HOME:-$HOME/.local/share}/skillopt-sleep/engine-command"

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

for arg in "$@"; do
    case $arg in
        -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    esac
done

pick_python() {  # the first Python 3.10 or newer on PATH
    for p in python3 python python3.14 python3.13 python3.12 python3.11 python3.10; do
        if command -v "$p" >/dev/null 2>&1 &&
                "$p" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            command -v "$p"
            return 0
        fi
    done
    return 1
}

is_checkout() { [ -f "$SRC/pyproject.toml" ] && [ -f "$SRC/skillopt_sleep/setup/main.py" ]; }

installed_engine() {  # the engine the installation recorded, else the usual places
    if [ -r "$RECORD" ]; then
        read -r engine <"$RECORD"
        if [ -x "$engine" ]; then printf '%s\n' "$engine"; return 0; fi
    fi
    for engine in "${XDG_DATA_HOME:-$HOME/.local/share}/skillopt-sleep/engine/bin/skillopt-sleep" \
        "$HOME/.local/bin/skillopt-sleep"; do
        if [ -x "$engine" ]; then printf '%s\n' "$engine"; return 0; fi
    done
    return 1
}

SKILLOPT_SLEEP_INSTALLER=$PROG
# Nothing written into the checkout: no __pycache__ next to the sources.
PYTHONDONTWRITEBYTECODE=1
export SKILLOPT_SLEEP_INSTALLER PYTHONDONTWRITEBYTECODE

if is_checkout; then
    PY=$(pick_python) || die "no Python 3.10 or newer on PATH: install one first (python3)"
    # The checkout's sources and the standard library alone; the installer takes PYTHONPATH out
    # of every command it starts, so pip sees what is installed, not this checkout.
    PYTHONPATH=$SRC
    export PYTHONPATH
    exec "$PY" -m skillopt_sleep.setup --source "$SRC" "$@"
fi

# No checkout around this script (the clone is gone): only the installed engine can uninstall.
case " $* " in
    *" --uninstall "*)
        engine=$(installed_engine) ||
            die "no checkout at $SRC and no installed engine: nothing this script can remove"
        exec "$engine" setup "$@"
        ;;
esac
die "run this script from a skillopt-sleep checkout ($SRC has no pyproject.toml)"
