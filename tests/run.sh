#!/usr/bin/env bash
# Install everything the test suite needs (the package and dev tools into a virtual environment,
# the real agent CLIs from npm into ./.tools) and run it. Inside an active virtual
# environment that one is used; outside one, ./.venv is made (a system Python may refuse pip
# installs, PEP 668). Tests that need a binary that could not be installed skip with the reason.
#
# Arguments go to pytest: `bash tests/run.sh -m "not slow and not realbin" -n 2` is the quick
# inner loop (no test that takes more than a few seconds, none that starts the real claude/codex).
# The agent CLIs are pinned to the versions the tests were written against, installed only when
# ./.tools holds another version, from npm's cache (~/.npm) when it has them (--prefer-offline):
# a machine downloads each pinned version once; a fresh CI machine once per run, unless it keeps
# ~/.npm or .tools between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
CLAUDE_CODE_VERSION=2.1.197
CODEX_VERSION=0.169.0
# The other agents whose sessions, hooks and replays are tested for real (Qwen Code 0.15.10 is the
# newest that runs on Node 20).
AGENT_CLIS="@github/copilot@1.0.102 opencode-ai@1.18.33 @google/gemini-cli@0.61.0 @qwen-code/qwen-code@0.15.10 @mariozechner/pi-coding-agent@0.73.1"
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the checkout

if [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
  py="$VIRTUAL_ENV/bin/python"
else
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv || {
      echo "error: python3 cannot make a virtual environment; install python3-venv" \
        "(Debian/Ubuntu: apt-get install python3-venv) and run this again" >&2
      exit 1
    }
  fi
  py="$PWD/.venv/bin/python"
fi
installed() {  # the version of an npm package in ./.tools, or nothing
  "$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' \
    ".tools/node_modules/$1/package.json" 2>/dev/null || true
}
if command -v npm >/dev/null 2>&1; then
  stale=""
  for spec in "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" $AGENT_CLIS; do
    [ "$(installed "${spec%@*}")" = "${spec##*@}" ] || stale=1
  done
  if [ -n "$stale" ]; then
    # In the background, while pip installs the package and then while the tests that need no
    # agent CLI run: npm mostly waits on the network (about 100 s for the seven on a fresh
    # machine). The tests marked realbin run last and wait for the file it leaves when it ends
    # (tests/conftest.py); its bin folder joins PATH in each worker then.
    tools_done="${TMPDIR:-/tmp}/skillopt-sleep-tools-installed.$$"
    rm -f "$tools_done"
    export SKILLOPT_TESTS_TOOLS_PENDING="$tools_done"
    # shellcheck disable=SC2086  # one word per package
    { npm install --silent --no-audit --no-fund --prefer-offline --prefix .tools \
        "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" $AGENT_CLIS \
        || echo "warning: npm could not install the agent CLIs; their tests will skip" >&2
      : >"$tools_done"; } &
    npm_job=$!
  else
    export PATH="$PWD/.tools/node_modules/.bin:$PATH"
  fi
else
  echo "warning: npm not found; tests of the real claude/codex CLIs will skip" >&2
fi
"$py" -m pip install -q --disable-pip-version-check -e ".[dev]"
[ -n "${npm_job:-}" ] || exec "$py" -m pytest -q "$@"
rc=0
"$py" -m pytest -q "$@" || rc=$?
wait "$npm_job" || true
rm -f "$tools_done"
exit "$rc"
