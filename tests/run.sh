#!/usr/bin/env bash
# Install everything the test suite needs (the package, dev tools, the real claude and codex
# CLIs from npm into ./.tools) and run it. Tests that need a binary that could not be installed
# skip with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -e ".[dev]"
if command -v npm >/dev/null 2>&1; then
  if [ ! -x .tools/node_modules/.bin/claude ] || [ ! -x .tools/node_modules/.bin/codex ]; then
    npm install --silent --no-audit --no-fund --prefix .tools @anthropic-ai/claude-code @openai/codex \
      || echo "warning: npm could not install claude/codex; their tests will skip" >&2
  fi
  export PATH="$PWD/.tools/node_modules/.bin:$PATH"
else
  echo "warning: npm not found; tests of the real claude/codex CLIs will skip" >&2
fi
exec python3 -m pytest -q "$@"
