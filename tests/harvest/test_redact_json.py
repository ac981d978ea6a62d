"""Secrets inside JSON-escaped text (a model's reply as sent, a stored record) are redacted too."""

from __future__ import annotations

import json

from skillopt_sleep.redact import redact

KEY_TAIL = "Qm9ndXNLZXlUYWlsMTIz===="
TEXT = (
    "corrected twice\n-----BEGIN RSA PRIVATE KEY-----\nMIIEogIBAAKCAQEAx7\n-----END RSA PRIVATE KEY-----\n"
    f'…dGFpbA\n{KEY_TAIL}\n-----END RSA PRIVATE KEY-----\nDB_PASSWORD="hunter2-Secret"\n'
)


def test_an_escaped_password_and_a_cut_private_key_in_a_json_reply_are_redacted():
    reply = json.dumps({"edits": [{"content": "Use uv.", "rationale": TEXT}]})
    out = redact(reply)
    assert "hunter2-Secret" not in out and KEY_TAIL[:20] not in out
    assert "Use uv." in out and json.loads(out)["edits"][0]["content"] == "Use uv."


def test_redacting_twice_changes_nothing_more():
    once = redact(json.dumps({"r": TEXT}))
    assert redact(once) == once
