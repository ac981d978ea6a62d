"""Corrections that state a rule about the answer in plain words land on their request and become
the text check they state, in the harvest's four languages; the user's own example narrows what
a negation reaches; new requests that use the same modal words stay requests."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from bench.worlds import synthetic as syn
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.examples import user_example
from skillopt_sleep.harvest.turns import classify_turn
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.store import Store

from .test_user_example import _checks as _action_checks

START = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)


def _harvest(cli, sandbox_home: Path, request: str, bad: str, correction: str) -> list[TaskRecord]:
    sid = "7a1c2e3f-1b4c-4f0e-9d65-000000000001"
    turns = [syn.SynthTurn(request, bad), syn.SynthTurn(correction, "Done, as you said.")]
    syn.write(
        syn.claude_path(sandbox_home / ".claude", "/work/a", sid),
        syn.claude_session(sid, "/work/a", turns, START),
    )
    r = cli("harvest", "--all-projects", "--since", "2020-01-01", "--json")
    assert r.code == 0, r.err
    return Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db").list_tasks()


@pytest.mark.parametrize(
    ("request_", "bad", "correction", "check"),
    [
        (
            "Écris le message de commit.",
            "Mise à jour du parser",
            "Le message doit commencer par `fix:` comme tous les commits ici.",
            "starts_with 'fix:'",
        ),
        (
            "Schreib eine Fehlermeldung für fehlende Konfiguration.",
            "Error: config missing",
            "Die Meldung muss auf Deutsch sein und mit `Fehler:` beginnen.",
            "starts_with 'Fehler:'",
        ),
        (
            "Resume el README en una frase.",
            (
                "Esta herramienta revisa cada noche las sesiones de tu agente y propone cambios "
                "pequeños a sus instrucciones que luego comprueba con pruebas repetidas."
            ),
            "Máximo 80 caracteres, por favor.",
            "max_chars 80",
        ),
        (
            "Write the env var docs for the README.",
            "Set API_URL to the server and API_TOKEN to your token.",
            "Put every variable name in backticks, like `API_URL`.",
            "contains '`API_URL`'",
        ),
        (
            "Draft the reply to the customer.",
            "Hi John, the fix ships on Monday. Best, Dana",
            "Sign it as 'The Acme Support Team', never with my name.",
            "contains 'The Acme Support Team'",
        ),
        (
            "Return the config as JSON.",
            'Here is the config: {"port": 8080}',
            "Just the raw JSON, no prose around it.",
            "json_valid",
        ),
        (
            "Donne-moi la date de sortie.",
            "Le 12/03/2026.",
            "Au format ISO, s'il te plaît : 2026-03-12.",
            "an ISO date (YYYY-MM-DD)",
        ),
        (
            "Write a docstring for parse_date.",
            '"""Parse a date from text."""',
            "Docstrings here are Google style: they need an `Args:` section.",
            "contains 'Args:'",
        ),
        (
            "Review src/app.py.",
            "src/app.py:12 does not check for None.",
            "Each finding must start with its severity in brackets, e.g. `[high]`.",
            "starts_with '[high]'",
        ),
        (
            "Liste les fichiers de config.",
            "node_modules/x/config.js, config/app.toml",
            "Seulement dans `config/`, pas dans `node_modules/`.",
            "not_contains 'node_modules/'",
        ),
        (
            "Which files import requests?",
            "./.venv/lib/x.py and ./app/http.py",
            "Leave `.venv/` and `node_modules/` out, only search our `app/` package.",
            "not_contains '.venv/'",
        ),
    ],
)
def test_a_rule_in_plain_words_lands_on_its_request_as_its_check(
    cli, sandbox_home, request_, bad, correction, check
):
    [task] = _harvest(cli, sandbox_home, request_, bad, correction)
    assert task.intent == request_ and task.outcome == "failure"
    assert [n.kind for n in task.turns] == ["correction"]
    assert check in [plain(c) for c in task.checks]


@pytest.mark.parametrize(
    "prompt",
    [
        "I need a bash alias that cleans docker images.",
        "We need caching in the API client.",
        "What should I name the new module?",
        "Ich brauche ein Skript, das Backups macht.",
        "Il faudrait un test pour le parseur",
    ],
)
def test_a_new_request_with_the_same_modal_words_is_not_a_correction(prompt):
    assert classify_turn(prompt).kind == "new_request"


def test_a_negation_reaches_the_next_comma_not_the_command_the_user_names(tmp_path):
    checks = _action_checks(
        tmp_path,
        "Baue das Projekt.",
        "make build 2>&1 | tail -2",
        "Nicht mit make, wir bauen mit `cargo build --release`.",
        "cargo build --release",
    )
    assert "never runs make" in checks
    assert all("build" not in c or "make build" in c for c in checks if c.startswith("never"))


def test_a_list_after_a_negation_stays_negated():
    example = user_example("Never run `rm -rf`, `git clean` or `make clean`.", [])
    assert example is None
