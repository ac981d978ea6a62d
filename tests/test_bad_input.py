"""Bad input from the user gets the exit code of its kind and a line naming the file, never 70."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.redact import redact
from skillopt_sleep.store import Store
from tests.linear_time import grows_linearly


def _store(sandbox_home: Path) -> Store:
    return Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db")


def test_an_unusable_home_is_a_store_error_naming_it(cli, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for argv in (("status",), ("harvest",), ("tasks", "list")):
        r = cli(*argv, env={"SKILLOPT_SLEEP_HOME": str(blocker / "home")})
        assert r.code == 5, argv
        assert r.err.startswith(
            f"skillopt-sleep: error: cannot create {blocker / 'home' / 'config'}: "
        )


def test_a_lookback_that_is_not_a_number_of_days_is_a_usage_error(cli):
    for value in ("nan", "inf", "-1", "0"):
        r = cli("harvest", "--lookback", value)
        assert r.code == 2, value
        assert "must be a positive number of days" in r.err
    assert cli("harvest", "--lookback", "1e12").code == 0  # "everything", not an overflow
    assert cli("harvest", "--since", "999999999999d").code == 0
    assert cli("harvest", "--since", "0001-01-01T00:00:00+05:00").code == 0


def test_an_unknown_backend_is_refused_even_with_no_tasks(cli, tmp_path):
    r = cli("run", "--backend", "nope", cwd=tmp_path)
    assert r.code == 11
    assert "unknown backend 'nope'" in r.err


def test_a_deeply_nested_import_is_an_input_error_naming_the_file(cli, tmp_path):
    for name, text in (
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep.toml", "a = " + "[" * 100_000 + "]" * 100_000),
    ):
        path = tmp_path / name
        path.write_text(text)
        r = cli("tasks", "import", str(path))
        assert r.code == 4, (name, r.err)
        assert r.err.startswith(f"skillopt-sleep: error: {path} is nested too deeply to read")


def test_a_non_utf8_import_names_the_file_and_the_byte(cli, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('[{"intent": "café"}]'.encode("latin-1"))
    r = cli("tasks", "import", str(path))
    assert r.code == 4
    assert f"cannot read {path}: byte 16 is not UTF-8 (save it as UTF-8 text)" in r.err


def test_an_import_never_moves_another_projects_task(cli, tmp_path, sandbox_home):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    record = {"intent": "Run the tests", "session_id": "shared-session", "turn": 0}
    path = tmp_path / "t.json"
    path.write_text(json.dumps([record]))
    assert cli("tasks", "import", str(path), cwd=a).code == 0
    assert cli("tasks", "import", str(path), cwd=b).code == 0
    store = _store(sandbox_home)
    assert sorted(t.project for t in store.list_tasks()) == [str(a), str(b)]
    [held] = store.list_tasks(project=str(a))
    # an explicit id of a task of another project is refused, not taken over
    path.write_text(json.dumps([{**record, "id": held.id}]))
    r = cli("tasks", "import", str(path), cwd=b)
    assert r.code == 4
    assert f"has the id {held.id} of a task of {a}; storing it would move that task" in r.err
    assert _store(sandbox_home).get_task(held.id).project == str(a)


def test_tasks_add_and_import_store_no_secret(cli, tmp_path, sandbox_home):
    key = "sk-ant-api03-" + "Q7x" * 20
    r = cli(
        "tasks",
        "add",
        "--intent",
        f"Deploy with {key}",
        "--feedback",
        f"use {key}",
        "--check",
        f"contains={key}",
        "--tag",
        key,
        cwd=tmp_path,
    )
    assert r.code == 0 and key not in r.out
    path = tmp_path / "t.json"
    path.write_text(
        json.dumps([{"intent": "Rotate it", "context": f"KEY={key}", "session_id": key}])
    )
    assert cli("tasks", "import", str(path), cwd=tmp_path).code == 0
    stored = [t.model_dump_json() for t in _store(sandbox_home).list_tasks()]
    assert len(stored) == 2 and not any(key in s for s in stored)
    assert all("[REDACTED:anthropic-key]" in s for s in stored)


def test_a_non_utf8_memory_file_is_left_out_and_the_night_goes_on(cli, tmp_path, sandbox_home):
    project = tmp_path / "project"
    write_sample_project(project)
    (project / "AGENTS.md").write_bytes("# Règles\n\nToujours tester.\n".encode("latin-1"))
    _store(sandbox_home).upsert_tasks(sample_tasks(project), datetime.now(timezone.utc))
    r = cli("run", "--backend", "simulated", "--json", cwd=project)
    assert r.code == 0, r.err
    night = r.json()
    assert night["decision"] in ("accept", "reject", "no_evidence")
    assert (
        f"{project / 'AGENTS.md'} is not UTF-8 (byte 3): left out of tonight's training; "
        "save it as UTF-8 to include it" in night["skipped"]
    )
    assert (project / "AGENTS.md").read_bytes() == "# Règles\n\nToujours tester.\n".encode(
        "latin-1"
    )
    staged = {p.name for p in Path(night["proposal_dir"] or tmp_path).rglob("*.md")}
    assert "AGENTS.md" not in staged


def test_redaction_stays_linear_on_hostile_text():
    """Inputs that made a rule rescan the rest of the text from every position: each of these
    took seconds to minutes at 200,000 characters."""
    units = [
        "eyJ",
        "secret",
        "token",
        "password",
        "api_key",
        "secret: ",
        "eyJabcdefgh.eyJ",
        "-----END RSA PRIVATE KEY-----\n",
        "QUJD\n",
        "://a:b",
        "sk-",
        "ghp_",
        "xoxb-",
        "AKIA",
        "a" * 30 + "B9 ",
    ]

    assert grows_linearly(redact, units, 50_000)


def test_a_headless_private_key_leaves_no_line_behind():
    body = [
        "MIIEowIBAAKCAQEAx" + "Ab3" * 15 + "Q",
        "Zm9vYmFyYmF6cXV4" * 4,
        "kD0xYz/9+Q2LmNoPq3Rs1TuV",
    ]
    excerpt = "…" + "\n".join(body) + "\n-----END RSA PRIVATE KEY-----\nDone."
    out = redact(excerpt)
    assert out == "[REDACTED:private-key]\nDone."
    assert not any(line in out for line in body)


def test_half_an_emoji_or_bytes_that_are_not_utf8_are_stored_as_a_replacement(
    cli, tmp_path, sandbox_home
):
    path = tmp_path / "t.json"
    path.write_text('[{"intent": "Fix the \\ud83d test"}]')  # a lone surrogate, as JSON allows
    assert cli("tasks", "import", str(path), cwd=tmp_path).code == 0
    not_utf8 = b"Run it \xff".decode("utf-8", "surrogateescape")  # as Python hands over such argv
    r = cli("tasks", "add", "--intent", not_utf8, "--check", f"contains={not_utf8}", cwd=tmp_path)
    assert r.code == 0, r.err
    stored = sorted(t.intent for t in _store(sandbox_home).list_tasks())
    assert stored == ["Fix the \ufffd test", "Run it \ufffd"]
