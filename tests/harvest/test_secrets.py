"""Planted secrets of every kind never reach the store, the logs or the printed output."""

from __future__ import annotations

import json
import random
import string
from datetime import datetime, timezone
from pathlib import Path

import pytest

from bench.worlds import synthetic as syn
from skillopt_sleep.redact import find_secrets, redact
from skillopt_sleep.store import Store

PROJECT = "/work/leaky"
_rng = random.Random(7)


def _chars(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


# kind -> (the text planted, the secret part that must never be stored)
def _planted() -> dict[str, tuple[str, str]]:
    anthropic = "sk-ant-api03-" + _chars(60)
    openai = "sk-proj-" + _chars(48)
    github = "ghp_" + _chars(36)
    github_pat = "github_pat_" + _chars(22) + "_" + _chars(59)
    aws = "AKIA" + _chars(16, string.ascii_uppercase + string.digits)
    slack = "xoxb-" + _chars(12, string.digits) + "-" + _chars(13, string.digits) + "-" + _chars(24)
    key_body = "\n".join(_chars(64, string.ascii_letters + string.digits + "+/") for _ in range(6))
    private_key = f"-----BEGIN RSA PRIVATE KEY-----\n{key_body}\n-----END RSA PRIVATE KEY-----"
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI" + _chars(24) + "." + _chars(43)
    password = _chars(10) + "!9"
    token = _chars(24)
    entropy = _chars(48)
    return {
        "anthropic-key": (f"export ANTHROPIC_API_KEY={anthropic}", anthropic),
        "openai-key": (f"my key is {openai} ok", openai),
        "github-token": (f"git clone https://x:{github}@github.com/o/r", github),
        "github-pat": (f"GH={github_pat}", github_pat),
        "aws-access-key": (f"aws_access_key_id = {aws}", aws),
        "slack-token": (f"slack {slack}", slack),
        "private-key": (private_key, key_body.splitlines()[2]),
        "jwt": (f"Authorization: {jwt}", jwt.split(".")[2]),
        "password": (f'DB_PASSWORD="{password}"', password),
        "token": (f"api_token: {token}", token),
        "high-entropy": (f"the blob {entropy} was", entropy),
    }


PLANTED = _planted()


def test_each_kind_is_found_and_replaced_by_a_typed_placeholder():
    for kind, (text, secret) in PLANTED.items():
        out = redact(text)
        assert secret not in out, kind
        assert "[REDACTED:" in out, kind
        assert find_secrets(text), kind
    assert (
        redact(PLANTED["anthropic-key"][0]) == "export ANTHROPIC_API_KEY=[REDACTED:anthropic-key]"
    )
    assert redact(PLANTED["password"][0]) == 'DB_PASSWORD="[REDACTED:password]"'


@pytest.mark.parametrize(
    "text",
    [
        "Run the test suite with pytest -q and fix test_calc.py::test_add",
        "session 0ee3a2bc-368e-461d-a52b-eadedec77036 at commit 5b34314a12574697a84094d135daa1c20e5fdf8d",
        "/home/dev/work/beta_app.v2/README.md: ThisIsAVeryLongCamelCaseIdentifierName",
        "token count: 1234, password: required",
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert redact(text) == text


def _sessions(home: Path, now: datetime) -> list[Path]:
    everything = "\n".join(t for t, _ in PLANTED.values())
    turns = [
        syn.SynthTurn(
            f"Deploy with these settings:\n{everything}",
            f"Deployed. I used:\n{everything}",
            command="cat .env",
            output=everything,
            exit_code=1,
        ),
        syn.SynthTurn(f"No, that's wrong: always use {PLANTED['openai-key'][1]} here", "OK."),
    ]
    sid, tid = "11111111-2222-4333-8444-555555555555", "01a1fea5-0000-7000-8000-00000000feed"
    return [
        syn.write(
            syn.claude_path(home / ".claude", PROJECT, sid),
            syn.claude_session(sid, PROJECT, turns, now),
        ),
        syn.write(
            syn.codex_path(home / ".codex", tid, now), syn.codex_rollout(tid, PROJECT, turns, now)
        ),
    ]


def test_planted_secrets_appear_nowhere_in_store_logs_or_output(cli, sandbox_home):
    now = datetime.now(timezone.utc)
    claude_file, _ = _sessions(sandbox_home, now)
    hook = json.dumps(
        {
            "session_id": "11111111-2222-4333-8444-555555555555",
            "transcript_path": str(claude_file),
            "hook_event_name": "Stop",
            "last_assistant_message": "\n".join(t for t, _ in PLANTED.values()),
        }
    )
    outputs = [
        cli("log", "--wait", stdin=hook),
        cli("harvest", "--project", PROJECT, "--json"),
        cli("harvest", "--project", PROJECT),
        cli("log", stdin="{" + PLANTED["jwt"][0]),
        cli("status", "--json"),
    ]
    assert all(r.code == 0 for r in outputs), [r.err for r in outputs]

    store = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db")
    tasks = store.list_tasks(project=PROJECT)
    assert [t.source for t in tasks] == ["claude-code"] and tasks[0].occurrences == 2
    stored = json.dumps([t.model_dump(mode="json") for t in tasks])
    for kind in (
        "anthropic-key",
        "openai-key",
        "github-token",
        "aws-access-key",
        "slack-token",
        "private-key",
        "jwt",
        "password",
        "secret",
        "high-entropy",
    ):
        assert f"[REDACTED:{kind}]" in stored, kind  # the test would see a leak: it has data
    store.close()

    places = {f"output {i}": r.out + r.err for i, r in enumerate(outputs)}
    for path in (sandbox_home / "sleep-home").rglob("*"):
        if path.is_file():  # the database, its WAL, logs, spool, cursors' state
            places[str(path)] = path.read_bytes().decode("utf-8", "replace")
    for kind, (_, secret) in PLANTED.items():
        for where, text in places.items():
            assert secret not in text, f"{kind} leaked into {where}"
