"""The crontab method, against a `crontab` program that behaves like the real one but stores its
table in the test's temp dir. The machine's own crontab is never touched."""

from __future__ import annotations

import os
import shlex
import stat
import sys

from skillopt_sleep.schedule.crontab import add_block, begin_marker, end_marker, remove_block

USER_TABLE = (
    "# my own jobs\n"
    "MAILTO=me@example.com\n"
    "*/5 * * * * /usr/bin/backup --quick   # trailing comment\n"
    "\n"
    "@reboot /home/me/bin/start-things\n"
)


def _schedule(cli, fake_cron, project, *extra, env=None):
    return cli(
        "schedule",
        "--method",
        "crontab",
        "--project",
        str(project),
        "--backend",
        "simulated",
        *extra,
        env={**fake_cron.env, **(env or {})},
    )


def _our_lines(table: str) -> list[str]:
    return [line for line in table.splitlines() if "skillopt-sleep" in line or "run-job" in line]


def test_install_keeps_the_users_lines_and_uninstall_restores_them_byte_for_byte(
    cli, fake_cron, project
):
    fake_cron.write(USER_TABLE)
    r = _schedule(cli, fake_cron, project)
    assert r.code == 0, r.err
    assert r.out.startswith("scheduled a nightly run\nmethod: crontab, every day at 03:17")
    table = fake_cron.read()
    assert table.startswith(USER_TABLE)
    ours = table[len(USER_TABLE) :].splitlines()
    assert (
        len(ours) == 3
        and ours[0].startswith("# >>> skillopt-sleep-")
        and ours[2].startswith("# <<< ")
    )
    assert ours[1].startswith("17 3 * * * mkdir -p ")
    r = cli("unschedule", env=fake_cron.env)
    assert r.code == 0 and "block of your crontab" in r.out
    assert fake_cron.read() == USER_TABLE


def test_a_second_install_replaces_the_block_in_place(cli, fake_cron, project):
    fake_cron.write(USER_TABLE)
    assert _schedule(cli, fake_cron, project).code == 0
    fake_cron.write(
        fake_cron.read() + "0 12 * * * /usr/bin/lunch\n"
    )  # the user adds a line after ours
    assert _schedule(cli, fake_cron, project, "--time", "04:41").code == 0
    table = fake_cron.read()
    assert table.count("# >>> skillopt-sleep-") == 1 and table.count("run-job") == 1
    assert "\n41 4 * * * mkdir -p " in table and "17 3 * * *" not in table
    assert table.endswith(
        "# <<< " + table.split("# <<< ")[1].split("\n")[0] + "\n0 12 * * * /usr/bin/lunch\n"
    )
    assert cli("unschedule", env=fake_cron.env).code == 0
    assert fake_cron.read() == USER_TABLE + "0 12 * * * /usr/bin/lunch\n"


def test_no_crontab_before_means_no_crontab_after(cli, fake_cron, project):
    assert fake_cron.read() is None
    assert _schedule(cli, fake_cron, project).code == 0
    assert fake_cron.read() is not None
    assert cli("unschedule", env=fake_cron.env).code == 0
    assert fake_cron.read() is None
    assert fake_cron.calls()[-1] == "-r"


def test_a_table_without_a_final_newline_gets_the_one_crontab_insists_on(cli, fake_cron, project):
    fake_cron.write("0 1 * * * /usr/bin/true")  # stored by hand: `crontab` itself refuses this
    assert _schedule(cli, fake_cron, project).code == 0
    assert fake_cron.read().startswith("0 1 * * * /usr/bin/true\n# >>> skillopt-sleep-")
    assert cli("unschedule", env=fake_cron.env).code == 0
    assert fake_cron.read() == "0 1 * * * /usr/bin/true\n"


def test_block_helpers_leave_every_other_byte_alone():
    block = f"{begin_marker('skillopt-sleep')}\n17 3 * * * job\n{end_marker('skillopt-sleep')}\n"
    for text in (
        "",
        "a b c d e f\n",
        "\r\nx y z w v u\r\n\n\n",
        "# >>> skillopt-sleep-other nightly\n",
    ):
        with_block = add_block(text, block, "skillopt-sleep")
        assert remove_block(with_block, "skillopt-sleep") == (text, True)
        assert add_block(with_block, block, "skillopt-sleep") == with_block


def test_print_changes_nothing_and_shows_the_line(cli, fake_cron, project):
    fake_cron.write(USER_TABLE)
    r = _schedule(cli, fake_cron, project, "--print", "--json")
    assert r.code == 0, r.err
    payload = r.json()
    assert payload["changed"] is False and payload["method"] == "crontab"
    assert len(payload["next_runs"]) == 3
    line = payload["plan"]["crontab_lines"][1]
    assert line.startswith("17 3 * * * ") and f"--project {shlex.quote(str(project))}" in line
    assert fake_cron.read() == USER_TABLE
    assert fake_cron.calls() == []  # not even read
    text = _schedule(cli, fake_cron, project, "--print").out
    assert text.startswith("would schedule a nightly run\n") and text.endswith(
        "nothing was changed (--print)\n"
    )


def test_the_line_carries_absolute_paths_and_no_key(cli, fake_cron, project, sandbox_home):
    key = "sk-ant-api03-" + "x" * 40
    r = cli(
        "schedule",
        "--method",
        "crontab",
        "--project",
        str(project),
        "--backend",
        "anthropic",
        env={**fake_cron.env, "ANTHROPIC_API_KEY": key, "SKILLOPT_SLEEP_NIGHT__K": "2"},
    )
    assert r.code == 0, r.err
    table = fake_cron.read()
    assert key not in table and "ANTHROPIC_API_KEY" not in table
    line = _our_lines(table)[1]
    words = shlex.split(line.split(" ", 5)[5])
    assert words[:4] == ["mkdir", "-p", str(sandbox_home / "sleep-home" / "logs"), "&&"]
    words = words[4:]
    python = next(w for w in words if not w.count("=") or w.startswith("/"))
    assert os.path.isabs(python) and python == sys.executable
    env = dict(w.split("=", 1) for w in words[: words.index(python)])
    assert env["SKILLOPT_SLEEP_NIGHT__K"] == "2"
    assert env["SKILLOPT_SLEEP_HOME"] == str(sandbox_home / "sleep-home")
    assert os.path.dirname(sys.executable) in env["PATH"].split(":")
    assert words[words.index(python) + 1 : words.index(python) + 5] == [
        "-m",
        "skillopt_sleep",
        "schedule",
        "run-job",
    ]
    assert "--backend" in words and words[words.index("--backend") + 1] == "anthropic"
    secrets = sandbox_home / "sleep-home" / "config" / "secrets.env"
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o600
    assert f"ANTHROPIC_API_KEY={key}\n" in secrets.read_text()
    r = cli("unschedule", env=fake_cron.env)
    assert r.code == 0 and "ANTHROPIC_API_KEY from " in r.out
    assert not secrets.exists()


def test_a_failing_crontab_is_a_one_line_error_and_changes_nothing(cli, fake_cron, project):
    fake_cron.write(USER_TABLE)
    r = _schedule(cli, fake_cron, project, env={"FAKE_CRONTAB_FAIL": "1"})
    assert r.code == 10
    assert r.err == (
        "skillopt-sleep: error: `crontab -` failed: crontab: cannot write to /var/spool/cron: "
        "Permission denied (fix the scheduler's problem above, or choose another --method)\n"
    )
    assert fake_cron.read() == USER_TABLE
    assert cli("schedule", "status", "--json").json()["scheduled"] is False


def test_auto_picks_crontab_when_it_is_the_only_scheduler(cli, fake_cron, project):
    bindir = fake_cron.env["PATH"].split(os.pathsep)[0]
    r = cli(
        "schedule",
        "--project",
        str(project),
        "--backend",
        "simulated",
        env={**fake_cron.env, "PATH": bindir},
    )
    assert r.code == 0, r.err
    assert "method: crontab" in r.out
    assert "warning: no cron daemon seems to be running" in r.out or sys.platform != "linux"


def test_without_any_scheduler_the_error_points_to_the_loop(cli, project, tmp_path):
    empty = tmp_path / "emptybin"
    empty.mkdir()
    r = cli(
        "schedule", "--project", str(project), "--backend", "simulated", env={"PATH": str(empty)}
    )
    assert r.code == 10
    assert "no OS scheduler is usable here" in r.err and "`skillopt-sleep schedule run`" in r.err


def test_status_shows_what_is_scheduled_and_unschedule_twice_is_harmless(cli, fake_cron, project):
    assert _schedule(cli, fake_cron, project).code == 0
    status = cli("schedule", "status", "--json", env=fake_cron.env).json()
    assert status["method"] == "crontab" and status["present"] is True
    assert status["projects"] == [str(project)] and len(status["next_runs"]) == 3
    text = cli("schedule", "status", env=fake_cron.env).out
    assert text.splitlines()[0].startswith("scheduled: crontab, every day at 03:17")
    assert "last run: none yet" in text
    fake_cron.write("")  # the user emptied the crontab by hand
    status = cli("schedule", "status", "--json", env=fake_cron.env).json()
    assert status["present"] is False and "is gone" in status["problem"]
    assert cli("unschedule", env=fake_cron.env).code == 0
    assert cli("unschedule", env=fake_cron.env).out == "nothing was scheduled\n"
