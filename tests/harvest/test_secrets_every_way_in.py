"""Secrets of every kind the redactor knows, planted on every way in, are found nowhere after.

Ways in: harvested Claude Code and Codex transcripts (prompts, tool output, replies), the
SessionEnd hook, ``tasks add``, ``tasks import``, the model's answers, the optimizer's reply,
and the user's own CLAUDE.md. Looked for in: every file under SKILLOPT_SLEEP_HOME (the store
included), every request the loopback model server received, and everything the CLI printed.

One place is exempt, by design, for the secrets the user wrote into CLAUDE.md themselves: a
staged candidate of CLAUDE.md (``candidate/CLAUDE.md``) and its adoption backups are the user's
file byte for byte plus the learned rules, since ``adopt`` writes exactly that file.
"""

from __future__ import annotations

import json
import random
import string
from datetime import datetime, timedelta, timezone

import pytest

from bench.worlds import synthetic as syn
from skillopt_sleep.redact import _RULES
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import role_of, simulated_night_responder
from skillopt_sleep.testing.replies import Text

pytestmark = pytest.mark.slow
_rng = random.Random(11)
NOW = datetime.now(timezone.utc) - timedelta(hours=2)


def _chars(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def planted(tag: str) -> dict[str, tuple[str, str]]:
    """kind -> (text that carries the secret, the secret part that must never be seen).

    ``tag`` makes every way in carry its own values, so a leak names the way it came in.
    """
    up = string.ascii_uppercase + string.digits
    body = "\n".join(_chars(64, string.ascii_letters + string.digits + "+/") for _ in range(5))
    last = _chars(20, string.ascii_letters + string.digits + "+/") + "===="
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n{last}\n-----END RSA PRIVATE KEY-----"
    s = {
        "anthropic-key": f"sk-ant-api03-{tag}{_chars(50)}",
        "openai-key": f"sk-proj-{tag}{_chars(40)}",
        "github-token": f"ghp_{tag}{_chars(32)}",
        "aws-access-key": f"AKIA{_chars(16, up)}",
        "slack-token": f"xoxb-{_chars(12, string.digits)}-{tag}{_chars(20)}",
        "slack-webhook": f"B{_chars(8, up)}/{tag}{_chars(20)}",
        "google-api-key": f"AIza{_chars(35)}",
        "stripe-key": f"sk_live_{tag}{_chars(24)}",
        "gitlab-token": f"glpat-{tag}{_chars(20)}",
        "huggingface-token": f"hf_{tag}{_chars(34)}",
        "npm-token": f"npm_{_chars(36)}",
        "pypi-token": f"pypi-AgEIcHlwaS5vcmc{tag}{_chars(60)}",
        "sendgrid-key": f"SG.{tag}{_chars(20)}.{_chars(40)}",
        "jwt-signature": f"{tag}{_chars(40)}",
        "url-password": f"{tag}{_chars(14)}",
        "bearer-token": f"{tag}{_chars(30)}",
        "password": f"{tag}{_chars(12)}!9",
        "secret": f"{tag}{_chars(26)}",
        "high-entropy": f"{tag}{_chars(44)}",
        "azure-storage-key": f"{tag}{_chars(60)}==",
        "basic-auth": f"{tag}{_chars(24)}=",
        "authorization": f"{tag}{_chars(8)}",
        "docker-auth": f"{tag}{_chars(28)}",
        "url-empty-user": f"{tag}{_chars(14)}",
    }
    return {
        "private-key": (key, body.splitlines()[1]),
        "private-key-tail": (
            f"…{body.splitlines()[-1][30:]}\n{last}\n-----END RSA PRIVATE KEY-----",
            last[:20],
        ),
        "anthropic-key": (f"ANTHROPIC_API_KEY={s['anthropic-key']}", s["anthropic-key"]),
        "openai-key": (f"use {s['openai-key']} here", s["openai-key"]),
        "github-token": (
            f"git clone https://x:{s['github-token']}@github.com/o/r",
            s["github-token"],
        ),
        "aws-access-key": (f"aws_access_key_id = {s['aws-access-key']}", s["aws-access-key"]),
        "slack-token": (f"slack {s['slack-token']}", s["slack-token"]),
        "slack-webhook": (
            f"https://hooks.slack.com/services/T{_chars(8, up)}/{s['slack-webhook']}",
            s["slack-webhook"],
        ),
        "google-api-key": (f"maps key {s['google-api-key']}", s["google-api-key"]),
        "stripe-key": (f"stripe {s['stripe-key']}", s["stripe-key"]),
        "gitlab-token": (s["gitlab-token"], s["gitlab-token"]),
        "huggingface-token": (s["huggingface-token"], s["huggingface-token"]),
        "npm-token": (f"token {s['npm-token']}", s["npm-token"]),
        "pypi-token": (s["pypi-token"], s["pypi-token"]),
        "sendgrid-key": (s["sendgrid-key"], s["sendgrid-key"]),
        "jwt": (
            f"Authorization: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI{_chars(20)}.{s['jwt-signature']}",
            s["jwt-signature"],
        ),
        "url-password": (
            f"postgres://admin:{s['url-password']}@db.internal:5432/app",
            s["url-password"],
        ),
        "bearer-token": (f"curl -H 'Authorization: Bearer {s['bearer-token']}'", s["bearer-token"]),
        "password": (f'DB_PASSWORD="{s["password"]}"', s["password"]),
        "secret": (f"client_secret: {s['secret']}", s["secret"]),
        "high-entropy": (f"the blob {s['high-entropy']} was", s["high-entropy"]),
        "azure-storage-key": (
            (
                f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s['azure-storage-key']};"
                "EndpointSuffix=core.windows.net"
            ),
            s["azure-storage-key"],
        ),
        "basic-auth": (
            f"curl -H 'Authorization: Basic {s['basic-auth']}' https://api.internal",
            s["basic-auth"],
        ),
        "authorization": (
            f"curl -x proxy:3128 -H 'Proxy-Authorization: Bearer {s['authorization']}' https://x",
            s["authorization"],
        ),
        "docker-auth": (
            f'{{"auths": {{"registry.internal": {{"auth": "{s["docker-auth"]}"}}}}}}',
            s["docker-auth"],
        ),
        "url-empty-user": (
            f"redis://:{s['url-empty-user']}@cache.internal:6379/0",
            s["url-empty-user"],
        ),
    }


KINDS = {kind for kind, _, _ in _RULES} | {"high-entropy"}


def test_the_plants_cover_every_kind_the_redactor_knows():
    assert set(planted("x")) >= KINDS


def _blob(kinds: dict[str, tuple[str, str]]) -> str:
    return "\n".join(text for text, _ in kinds.values())


def _sweep(where: dict[str, bytes], secrets: dict[str, str]) -> list[str]:
    """``way/kind in where`` for every secret found."""
    found = []
    for name, data in where.items():
        for label, secret in secrets.items():
            if secret.encode() in data or json.dumps(secret)[1:-1].encode() in data:
                found.append(f"{label} in {name}")
    return found


def test_no_planted_secret_is_found_anywhere(cli, sandbox_home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    ways = {
        w: planted(w[:3].upper())
        for w in (
            "harvest-claude",
            "harvest-codex",
            "hook",
            "add",
            "import",
            "answer",
            "optimizer",
            "claude-md",
        )
    }
    secrets = {f"{way}/{kind}": s for way, kinds in ways.items() for kind, (_, s) in kinds.items()}
    outputs: list[str] = []

    def run(*argv: str, ok: tuple[int, ...] = (0,)) -> None:
        r = cli(*argv, cwd=project)
        outputs.append(r.out + r.err)
        assert r.code in ok, (argv, r.err)

    # the user's own memory file
    (project / "CLAUDE.md").write_text(
        "# Project\n\nAlways be careful.\n\n" + _blob(ways["claude-md"]) + "\n"
    )

    # harvested transcripts of both agents: secrets in the prompt, the tool output and the reply
    def turns(kinds):
        items = list(kinds.values())
        return [
            syn.SynthTurn(f"Deploy with {t}", f"Done, I used {t}", "deploy.sh", f"ok {t}")
            for t, _ in items
        ]

    claude_root, codex_root = sandbox_home / ".claude", sandbox_home / ".codex"
    syn.write(
        syn.claude_path(claude_root, str(project), "0ee3a2bc-368e-461d-a52b-eadedec77036"),
        syn.claude_session(
            "0ee3a2bc-368e-461d-a52b-eadedec77036", str(project), turns(ways["harvest-claude"]), NOW
        ),
    )
    tid = "01a1fea5-0000-7000-8000-000000000009"
    syn.write(
        syn.codex_path(codex_root, tid, NOW),
        syn.codex_rollout(tid, str(project), turns(ways["harvest-codex"]), NOW),
    )
    run("harvest", "--json")
    # the SessionEnd hook
    hooked = syn.write(
        syn.claude_path(claude_root, str(project), "11111111-2222-4333-8444-555555555555"),
        syn.claude_session(
            "11111111-2222-4333-8444-555555555555", str(project), turns(ways["hook"]), NOW
        ),
    )
    r = cli(
        "log",
        "--wait",
        cwd=project,
        stdin=json.dumps({"session_id": "x", "transcript_path": str(hooked), "cwd": str(project)}),
    )
    outputs.append(r.out + r.err)
    # by hand
    add = list(ways["add"].values())
    for i, (text, _) in enumerate(add):
        run(
            "tasks",
            "add",
            "--intent",
            f"Configure {text}",
            "--feedback",
            f"no, use {text}",
            "--context",
            text,
            "--attempt",
            text,
            "--tag",
            f"t{i}",
            "--check",
            f"contains={text[:40]}",
        )
    imported = tmp_path / "tasks.json"
    imported.write_text(
        json.dumps(
            [
                {
                    "intent": f"Rotate {text}",
                    "context": text,
                    "attempt": text,
                    "feedback": text,
                    "session_id": f"imp-{i}",
                    "checks": [{"kind": "contains", "value": "rotated"}],
                }
                for i, (text, _) in enumerate(ways["import"].values())
            ]
        )
    )
    run("tasks", "import", str(imported))

    # a night through the openai SDK against the loopback server, whose model leaks secrets
    base = simulated_night_responder()
    answer_blob = _blob(ways["answer"])
    optimizer_blob = _blob(ways["optimizer"])

    def leaky(call):
        reply = base(call)
        role = role_of(call.system)
        if role == "target":
            return Text(reply.text + "\nFor reference: " + answer_blob)
        if role == "optimizer":
            data = json.loads(reply.text)
            for edit in data.get("edits", []):
                edit["rationale"] = edit.get("rationale", "") + " " + optimizer_blob
            data.setdefault("edits", []).append(
                {
                    "target": "memory",
                    "op": "add",
                    "content": "Deploy with " + optimizer_blob.splitlines()[3],
                    "rationale": optimizer_blob,
                }
            )
            return Text(json.dumps(data))
        return reply

    with ModelServer(responder=leaky) as srv:
        run(
            "run",
            "--backend",
            "openai",
            "--base-url",
            srv.v1,
            "--model",
            "gpt-test",
            "--k",
            "2",
            "--json",
            ok=(0, 6, 7),
        )
        run(
            "run",
            "--backend",
            "openai",
            "--base-url",
            srv.v1,
            "--model",
            "gpt-test",
            "--k",
            "2",
            ok=(0, 6, 7),
        )
        requests = {
            f"request {i} {r.path}": json.dumps(r.body).encode() + json.dumps(r.headers).encode()
            for i, r in enumerate(srv.requests)
        }
    assert any("chat/completions" in name for name in requests), "the night sent no model call"
    for argv in (
        ("status",),
        ("status", "--json"),
        ("review",),
        ("review", "--json"),
        ("tasks", "list", "--all-projects"),
        ("tasks", "list", "--json", "--all-projects"),
        ("harvest", "--json"),
    ):
        run(*argv, ok=(0, 8))
    home = sandbox_home / "sleep-home"
    files = {str(p.relative_to(home)): p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert any(name.endswith(".db") for name in files)
    own = {k: v for k, v in secrets.items() if k.startswith("claude-md/")}
    exempt = {n for n in files if "/candidate/" in f"/{n}" or "/backups/" in f"/{n}"}
    found = _sweep({n: d for n, d in files.items() if n not in exempt}, secrets)
    found += _sweep(
        {n: files[n] for n in exempt}, {k: v for k, v in secrets.items() if k not in own}
    )
    found += _sweep(requests, secrets)
    found += _sweep({"the CLI output": "\n".join(outputs).encode()}, secrets)
    assert found == []
    # and the ways in really carried them: what was stored says it redacted them
    assert b"[REDACTED:" in b"".join(files.values())
