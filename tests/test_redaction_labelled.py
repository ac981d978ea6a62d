"""redact() against a labelled set of real secrets and their look-alikes.

tests/fixtures/redaction/labelled.jsonl holds one string a line: ``secret`` is the part that must
be gone after redaction (a .env ``*_PASS``, a ``--password`` flag, ``mysql -pX``, ``curl -u u:p``,
a private key in a heredoc, ...), or null for a look-alike that must come back unchanged
(``mkdir -p``, ``PASS_COUNT=3``, ``--password-file``, ``ssh -p 2222``, a sha256, a UUID, ...).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.redact import redact
from tests.linear_time import grows_linearly

LABELLED = [
    json.loads(line)
    for line in (Path(__file__).parent / "fixtures/redaction/labelled.jsonl")
    .read_text()
    .splitlines()
    if line.strip()
]
SECRETS = [r for r in LABELLED if r["secret"]]
LOOK_ALIKES = [r for r in LABELLED if not r["secret"]]


def test_the_set_is_half_secrets_half_look_alikes():
    assert len(SECRETS) >= 20 and len(LOOK_ALIKES) >= 20


@pytest.mark.parametrize("row", SECRETS, ids=[r["form"] for r in SECRETS])
def test_a_secret_is_gone_and_its_name_stays(row):
    out = redact(row["text"])
    assert row["secret"] not in out
    assert "[REDACTED:" in out
    name = row["text"].split(row["secret"])[0].strip(" '\"=:")[:6]
    assert name in out  # the key or the command around it is still readable


@pytest.mark.parametrize("row", LOOK_ALIKES, ids=[r["form"] for r in LOOK_ALIKES])
def test_a_look_alike_is_left_as_it_is(row):
    assert redact(row["text"]) == row["text"]


def test_the_flag_and_command_rules_stay_linear_on_hostile_text():
    units = [
        "a_pass=",
        "x.pass ",
        "--token ",
        "--password=",
        "mysql -u ",
        "-p",
        "sshpass ",
        "curl -u ",
    ]
    assert grows_linearly(redact, units, 50_000)
