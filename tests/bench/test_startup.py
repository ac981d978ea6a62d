"""bench.startup times each command against a baseline revision in the same run; here, one start
of the cheapest command on each side, so the bench keeps working (its numbers are not asserted:
they belong to the machine)."""

from __future__ import annotations

import json

from bench import startup


def test_the_bench_prints_wall_and_cpu_seconds_of_this_tree_and_of_the_baseline(capsys):
    assert startup.main(["--runs", "1", "--only=--version", "--baseline", "HEAD", "--json"]) == 0
    bare, version = json.loads(capsys.readouterr().out)
    assert bare["command"] == "python -c pass" and version["command"] == "--version"
    assert version["cpu_seconds"] > 0 and version["baseline_cpu_seconds"] > 0
    assert version["cpu_ratio_to_baseline"] is not None
    assert "baseline" in startup.line(version) and " cpu" in startup.line(version)


def test_every_command_the_hook_and_a_user_start_most_is_timed():
    assert {"--help", "log", "status", "review"} <= set(startup.COMMANDS)
    assert startup.COMMANDS["log"] == (["log"], startup.HOOK_PAYLOAD)
