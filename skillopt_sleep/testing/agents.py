"""Run the real ``claude`` and ``codex`` CLIs against a loopback model server, in a sandbox home.

The helpers build an environment (and, for codex, a config file) that points the CLI at the
server and keeps every file it writes under the given ``home``; the real ``~/.claude`` and
``~/.codex`` are never touched. Always run the CLIs with ``stdin=subprocess.DEVNULL``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CODEX_MODEL = "gpt-5.5"  # a slug bundled with codex 0.169: gets exec_command and apply_patch
CODEX_KEY_ENV = "LOCAL_API_KEY"
# Variables that would point a CLI at a real account or config, dropped from the base env.
_LEAKY = (
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CONFIG_DIR",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CODEX_HOME",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
)


def pinned_cli(name: str) -> str | None:
    """Path of an agent CLI: on PATH, else the checkout's pinned ``.tools`` (what ``tests/run.sh``
    installs), or None."""
    found = shutil.which(name)
    if found:
        return found
    pinned = Path(__file__).resolve().parents[2] / ".tools" / "node_modules" / ".bin" / name
    return str(pinned) if pinned.is_file() else None


def which_claude() -> str | None:
    """Path of the ``claude`` binary on PATH, or ``None``."""
    return shutil.which("claude")


def which_codex() -> str | None:
    """Path of the ``codex`` binary on PATH, or ``None``."""
    return shutil.which("codex")


def _base_env(home: Path, base: Mapping[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in _LEAKY}
    env["HOME"] = str(home)
    return env


def claude_env(
    home: Path, url: str, *, base: Mapping[str, str] | None = None, nonessential: bool = False
) -> dict[str, str]:
    """Environment for ``claude`` talking to ``url`` (the server's base URL, without ``/v1``).

    Transcripts land under ``home/.claude/projects/``. ``nonessential=True`` keeps Claude's
    side requests (session title) on, which the server answers automatically.
    """
    home.mkdir(parents=True, exist_ok=True)
    env = _base_env(home, base)
    env.update(
        {
            "ANTHROPIC_BASE_URL": url.rstrip("/").removesuffix("/v1"),
            "ANTHROPIC_API_KEY": "x",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
    )
    if not nonessential:
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
    return env


def codex_config(url: str, *, model: str = CODEX_MODEL, sandbox: str = "workspace-write") -> str:
    """The ``config.toml`` text pointing codex at ``url`` through a ``local`` provider."""
    base_url = url.rstrip("/").removesuffix("/v1") + "/v1"
    return "\n".join(
        [
            f'model = "{model}"',
            'model_provider = "local"',
            'approval_policy = "never"',
            f'sandbox_mode = "{sandbox}"',
            "",
            "[model_providers.local]",
            'name = "Local"',
            f'base_url = "{base_url}"',
            f'env_key = "{CODEX_KEY_ENV}"',
            'wire_api = "responses"',
            "",
        ]
    )


def codex_home(
    home: Path,
    url: str,
    *,
    base: Mapping[str, str] | None = None,
    model: str = CODEX_MODEL,
    sandbox: str = "workspace-write",
) -> dict[str, str]:
    """Write ``home/.codex/config.toml`` for ``url`` and return the env for ``codex``.

    ``CODEX_HOME`` is ``home/.codex``: rollouts land under ``home/.codex/sessions/``.
    """
    codex_dir = home / ".codex"
    codex_dir.mkdir(parents=True, exist_ok=True)
    (codex_dir / "config.toml").write_text(
        codex_config(url, model=model, sandbox=sandbox), encoding="utf-8"
    )
    env = _base_env(home, base)
    # Codex refuses to make its sandbox helpers under the temp dir, and a CODEX_HOME made by a
    # test lies under /tmp; where bubblewrap is installed its sandbox then cannot start at all
    # ("bwrap: execvp codex-linux-sandbox"). A temp dir of the home's own puts CODEX_HOME outside
    # it, as a user's ~/.codex is.
    tmp = home / ".tmp"
    tmp.mkdir(exist_ok=True)
    env.update({"CODEX_HOME": str(codex_dir), CODEX_KEY_ENV: "x", "TMPDIR": str(tmp)})
    return env


@dataclass(frozen=True)
class AgentRun:
    """What a CLI run produced: exit code, stdout, stderr."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout parsed as one JSON document (``claude --output-format json``)."""
        return json.loads(self.out)

    def jsonl(self) -> list[Any]:
        """stdout parsed as JSON lines, skipping non-JSON lines (``codex exec --json``)."""
        rows = []
        for line in self.out.splitlines():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue
        return rows


def run_agent(
    argv: Sequence[str], env: Mapping[str, str], cwd: Path, timeout: float = 60
) -> AgentRun:
    """Run a CLI with stdin closed (codex waits on an open stdin), bounded by ``timeout``."""
    proc = subprocess.run(
        list(argv),
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return AgentRun(proc.returncode, proc.stdout, proc.stderr)


def run_claude(
    prompt: str,
    *,
    home: Path,
    url: str,
    cwd: Path,
    extra: Sequence[str] = (),
    allowed_tools: str = "Bash",
    timeout: float = 60,
) -> AgentRun:
    """``claude -p PROMPT --allowedTools Bash --output-format json`` against ``url``."""
    binary = which_claude()
    if binary is None:
        raise FileNotFoundError("claude is not installed (npm i -g @anthropic-ai/claude-code)")
    argv = [binary, "-p", prompt, "--output-format", "json", *extra]
    if allowed_tools:
        argv[3:3] = ["--allowedTools", allowed_tools]
    return run_agent(argv, claude_env(home, url), cwd, timeout)


def run_claude_turns(
    prompts: Sequence[str],
    *,
    home: Path,
    url: str,
    cwd: Path,
    allowed_tools: str = "Bash",
    timeout: float = 120,
) -> AgentRun:
    """One ``claude -p`` session of several user turns, as a user types them one after another:
    each prompt is sent on stdin (``--input-format stream-json``) once the previous turn's result
    is out. One process and one transcript, where a ``--resume`` per turn would start the binary
    again for each."""
    binary = which_claude()
    if binary is None:
        raise FileNotFoundError("claude is not installed (npm i -g @anthropic-ai/claude-code)")
    argv = [binary, "-p", "--input-format", "stream-json", "--output-format", "stream-json"]
    argv += ["--verbose", *(["--allowedTools", allowed_tools] if allowed_tools else [])]
    proc = subprocess.Popen(
        argv,
        env=claude_env(home, url),
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    timer = threading.Timer(timeout, proc.kill)  # a hung turn fails the run, never the suite
    timer.start()
    assert proc.stdin is not None and proc.stdout is not None
    out: list[str] = []
    try:
        for prompt in prompts:
            message = {"type": "user", "message": {"role": "user", "content": prompt}}
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                out.append(line)
                if _is_result(line):
                    break
        rest, err = proc.communicate()
    except BrokenPipeError:  # claude exited early: its code and stderr say why
        rest, err = proc.communicate()
    finally:
        timer.cancel()
    return AgentRun(proc.returncode, "".join(out) + rest, err)


def _is_result(line: str) -> bool:
    try:
        return bool(json.loads(line).get("type") == "result")
    except (ValueError, AttributeError):
        return False


def run_codex(
    prompt: str, *, home: Path, url: str, cwd: Path, extra: Sequence[str] = (), timeout: float = 60
) -> AgentRun:
    """``codex exec --json --skip-git-repo-check PROMPT`` against ``url``."""
    binary = which_codex()
    if binary is None:
        raise FileNotFoundError("codex is not installed (npm i -g @openai/codex)")
    argv = [binary, "exec", "--json", "--skip-git-repo-check", *extra, prompt]
    return run_agent(argv, codex_home(home, url), cwd, timeout)


def claude_transcripts(home: Path) -> list[Path]:
    """Every Claude Code session transcript under ``home/.claude/projects``."""
    return sorted((home / ".claude" / "projects").glob("*/*.jsonl"))


def codex_rollouts(home: Path) -> list[Path]:
    """Every codex rollout file under ``home/.codex/sessions``."""
    return sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
