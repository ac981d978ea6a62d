"""Secrets in the shapes a shell shows them (.env ``*_PASS``/``*_TOKEN`` lines, ``--password X``,
``mysql -pX``, ``sshpass -p X``, ``curl -u user:pass``, a private key in a heredoc), harvested
from real Claude Code and Codex transcripts where they sit in the prompt, the command the agent
ran, its output and the user's correction, are found nowhere after: not in the store, not in
``tasks list/show --json`` or ``status --json``, not in a night's artifacts, not in any request a
night sends to the model; no action path and no mined check is made of one or of its placeholder.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bench.worlds import synthetic as syn
from skillopt_sleep.harvest.shell_effects import shell_effects
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import simulated_night_responder

NOW = datetime.now(timezone.utc) - timedelta(hours=2)
LABELLED = Path(__file__).parents[1] / "fixtures/redaction/labelled.jsonl"
ROWS = [json.loads(line) for line in LABELLED.read_text().splitlines() if line.strip()]
SECRETS = {r["form"]: r["secret"] for r in ROWS if r["secret"]}
COMMANDS = [r["text"] for r in ROWS if r["secret"]]


def _turns() -> list[syn.SynthTurn]:
    out = []
    for text in COMMANDS:
        out.append(syn.SynthTurn(f"Set it up: {text}", "Done.", text, f"ok\n{text}"))
        out.append(
            syn.SynthTurn(
                f"no, never run `{text}` again; read the password from a file", "Understood."
            )
        )
    return out


def _sweep(where: dict[str, bytes]) -> list[str]:
    return [
        f"{form} in {name}"
        for name, data in where.items()
        for form, secret in SECRETS.items()
        if secret.encode() in data or json.dumps(secret)[1:-1].encode() in data
    ]


def test_secrets_a_shell_shows_are_found_nowhere(cli, sandbox_home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    outputs: list[str] = []

    def run(*argv: str, ok: tuple[int, ...] = (0,)) -> str:
        r = cli(*argv, cwd=project)
        outputs.append(r.out + r.err)
        assert r.code in ok, (argv, r.err)
        return r.out

    sid = "0ee3a2bc-368e-461d-a52b-eadedec77036"
    syn.write(
        syn.claude_path(sandbox_home / ".claude", str(project), sid),
        syn.claude_session(sid, str(project), _turns(), NOW),
    )
    tid = "01a1fea5-0000-7000-8000-000000000009"
    syn.write(
        syn.codex_path(sandbox_home / ".codex", tid, NOW),
        syn.codex_rollout(tid, str(project), _turns(), NOW),
    )
    run("harvest", "--json")
    tasks = json.loads(run("tasks", "list", "--json"))
    assert len(tasks) >= 2
    for task in tasks:
        run("tasks", "show", task["id"], "--json")
    paths = [a["path"] for t in tasks for a in t.get("actions", []) if a["path"]]
    assert "deploy.pem" in paths  # the heredoc's file is still seen written
    assert [p for p in paths if "REDACTED" in p or "KEY-----" in p or p == "<<"] == []
    checks = [
        f"{c['value']} {c.get('path')}"
        for t in tasks
        for c in t.get("checks", [])
        if c["kind"] != "rubric"  # a rubric quotes the user's redacted words, which is no rule
    ]
    assert checks and [c for c in checks if "REDACTED" in c] == []

    with ModelServer(responder=simulated_night_responder()) as srv:
        run(
            "run", "--backend", "openai", "--base-url", srv.v1, "--model", "gpt-test",
            "--k", "2", "--json", ok=(0, 6, 7),
        )  # fmt: skip
        requests = {
            f"request {i} {r.path}": json.dumps(r.body).encode() for i, r in enumerate(srv.requests)
        }
    assert any("chat/completions" in name for name in requests), "the night sent no model call"
    run("status", "--json", ok=(0, 8))
    run("review", "--json", ok=(0, 8))

    home = sandbox_home / "sleep-home"
    files = {str(p.relative_to(home)): p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert any(name.endswith(".db") for name in files)
    assert any(name.startswith("data/nights/") for name in files)
    found = (
        _sweep(files) + _sweep(requests) + _sweep({"the CLI output": "\n".join(outputs).encode()})
    )
    assert found == []
    # the secrets were carried in and replaced, not dropped with their turns
    stored = b"".join(files.values())
    assert b"[REDACTED:password]" in stored and b"[REDACTED:private-key]" in stored


def test_a_heredoc_is_the_input_of_its_command_and_names_no_file():
    key = "-----BEGIN PRIVATE KEY-----\nMIICdwIBADANBgkq\nQyNTUxOQAAACDkXb0=\n-----END PRIVATE KEY-----"
    assert shell_effects(f"cat > deploy.pem <<'EOF' && cat notes.txt\n{key}\nEOF") == [
        ("write", "deploy.pem"),
        ("read", "notes.txt"),
    ]
    assert shell_effects("cat <<-END > a.txt && tail b.log\n\thello\n\tEND") == [
        ("write", "a.txt"),
        ("read", "b.log"),
    ]
    # a shift in a quoted script, with no closing line, is no heredoc
    assert shell_effects('python -c "print(1 << 2)" > out.txt') == [("write", "out.txt")]
