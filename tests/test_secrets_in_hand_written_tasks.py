"""A secret typed into a hand-written task is redacted wherever it sits: a check given with
``tasks add --check``, every text of a check in ``tasks import`` (an action check's path and
value included), a turn, an action. The redactor knows Slack's token prefixes and the
credentials of an HTTP ``Authorization`` / ``Proxy-Authorization`` header of any length."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skillopt_sleep.redact import find_secrets, redact
from skillopt_sleep.store import Store
from tests.linear_time import grows_linearly

SLACK_USER = "xoxp-2048-73519-k3Yq9"
BASIC = "dXNlcjpwYXNz"  # user:pass
BEARER = "Xq7-2kPz"
PLAIN = "admin:hunter2"


def _task_id(out: str) -> str:
    found = re.search(r"\bt_[0-9a-f]{16}\b", out)
    assert found, out
    return found.group(0)


def _stored(sandbox_home: Path) -> str:
    store = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db")
    return json.dumps([t.model_dump(mode="json") for t in store.list_tasks()])


def test_a_check_given_by_hand_keeps_no_secret_in_the_store_or_the_listing(
    cli, tmp_path, sandbox_home
):
    r = cli(
        "tasks",
        "add",
        "--intent",
        "Post the release note to Slack",
        "--check",
        f"contains=token {SLACK_USER}",
        "--check",
        f"not_contains=Authorization: Basic {BASIC}",
        "--check",
        f"passes_after=curl -fsS -H 'Proxy-Authorization: Bearer {BEARER}' http://localhost/",
        cwd=tmp_path,
    )
    assert r.code == 0, r.err
    listed = cli("tasks", "list", cwd=tmp_path)
    shown = cli("tasks", "show", _task_id(r.out), cwd=tmp_path)
    for text in (r.out, listed.out, shown.out, _stored(sandbox_home)):
        assert SLACK_USER[5:] not in text and BASIC not in text and BEARER not in text
    assert "contains 'token [REDACTED:slack-token]'" in listed.out
    assert "not_contains 'Authorization: Basic [REDACTED:basic-auth]'" in listed.out
    assert "Proxy-Authorization: Bearer [REDACTED:authorization]" in listed.out


def test_every_text_of_an_imported_task_is_redacted(cli, tmp_path, sandbox_home):
    task = {
        "intent": "Rotate the deploy credentials",
        "session_id": "s-1",
        "checks": [
            {"kind": "contains", "value": f"Authorization: Basic {PLAIN}"},
            {"kind": "file_contains", "path": f"secrets/{SLACK_USER}.txt", "value": "rotated"},
            {"kind": "never_ran", "value": f"curl .*{SLACK_USER}"},
        ],
        "turns": [
            {"kind": "correction", "text": f"no, the header is Authorization: Basic {BASIC}"}
        ],
        "actions": [
            {"kind": "command", "command": f"curl -u x -H 'Authorization: Bearer {BEARER}'"}
        ],
    }
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([task]))
    r = cli("tasks", "import", str(path), cwd=tmp_path)
    assert r.code == 0, r.err
    stored = _stored(sandbox_home)
    for secret in (PLAIN, SLACK_USER[5:], BASIC, BEARER):
        assert secret not in stored
    assert stored.count("[REDACTED:") == 5
    shown = cli("tasks", "show", _task_id(r.out), cwd=tmp_path).out
    assert "secrets/[REDACTED:slack-token].txt contains 'rotated' afterwards" in shown


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("xoxa-2-1234567", "slack-token"),
        ("xoxr-98765-abc", "slack-token"),
        ("xoxs-1-2-3-4", "slack-token"),
        ("xoxe.xoxp-1-Mi0yLTEy", "slack-token"),
        ("Authorization: Basic YTpi", "basic-auth"),
        ("authorization=basic admin:hunter2", "basic-auth"),
        ('{\\"Authorization\\": \\"Basic YWxhZGRpbjpvcGVu\\"}', "basic-auth"),
        ("Proxy-Authorization: Basic dXNlcjpw-YXNz", "basic-auth"),
        ("Authorization: Bearer abc.def", "authorization"),
        ('{"Proxy-Authorization": "Bearer k9z"}', "authorization"),
        ("Authorization: token 12ab34", "authorization"),
    ],
)
def test_slack_prefixes_and_authorization_credentials_are_redacted_whole(text, kind):
    assert [f.kind for f in find_secrets(text)] == [kind]
    out = redact(text)
    assert f"[REDACTED:{kind}]" in out
    tail = text.rsplit(" ", 1)[-1].strip('"\\}')
    assert tail not in out


@pytest.mark.parametrize(
    "text",
    [
        "the Authorization header carries Basic credentials",
        "Authorization: Bearer <token>",
        "Authorization: Basic ${CREDENTIALS}",
        "send Authorization: Bearer TOKEN, or Proxy-Authorization: Basic credentials",
        "Slack bot tokens start with xoxb- and user tokens with xoxp-",
    ],
)
def test_prose_about_authorization_and_slack_is_left_alone(text):
    assert redact(text) == text


def test_the_header_rules_stay_linear_on_hostile_text():
    units = ("authorization: basic ", "Proxy-Authorization=", "authorization: bearer x", "xoxe.")
    assert grows_linearly(redact, units, 200_000)
