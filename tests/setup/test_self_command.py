"""A command line we print for the user runs as printed: the bare name only when PATH finds it."""

from __future__ import annotations

from skillopt_sleep.cli.night_cmds import self_command


def test_the_bare_name_when_path_finds_it(tmp_path):
    (tmp_path / "skillopt-sleep").write_text("#!/bin/sh\n")
    (tmp_path / "skillopt-sleep").chmod(0o755)
    assert self_command({"PATH": str(tmp_path)}) == "skillopt-sleep"


def test_the_path_it_was_started_by_when_path_does_not(tmp_path):
    started = tmp_path / "my bin" / "skillopt-sleep"
    started.parent.mkdir()
    started.write_text("#!/bin/sh\n")
    assert self_command({"PATH": "/nowhere"}, str(started)) == f"'{started}'"
    assert (
        self_command({"PATH": "/nowhere"}, "-c", "/usr/bin/python3")
        == "/usr/bin/python3 -m skillopt_sleep"
    )
