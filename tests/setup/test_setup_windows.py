"""The Windows route of `setup`, on this machine: the layout (LOCALAPPDATA, Scripts\\, .exe), the
command as a .cmd shim, PATH as one line to add, and install.ps1 handing over every switch."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from skillopt_sleep.setup.layout import layout_for
from skillopt_sleep.setup.options import parse

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def win(machine, tmp_path):
    machine.windows = True
    machine.env["LOCALAPPDATA"] = str(machine.home / "AppData" / "Local")
    machine.env["PATH"] = r"C:\Windows\system32"
    return machine


def test_the_windows_layout(tmp_path):
    lay = layout_for({"HOME": "/u", "LOCALAPPDATA": "/u/AppData/Local"}, windows=True)
    assert lay.manifest == Path("/u/AppData/Local/skillopt-sleep/install-manifest.txt")
    assert lay.engine_record == Path("/u/AppData/Local/skillopt-sleep/engine-command")
    assert lay.venv_bin(lay.engine_venv) == Path("/u/AppData/Local/skillopt-sleep/engine/Scripts")
    assert lay.exe("skillopt-sleep") == "skillopt-sleep.exe"
    assert lay.command_link == Path("/u/.local/bin/skillopt-sleep.cmd")


def test_the_private_environment_route_and_exact_uninstall(win, tree):
    before = tree(win.home)
    out = win.install(claude="no", codex="no", schedule="yes")
    lay = win.layout
    engine = lay.engine_venv / "Scripts" / "skillopt-sleep.exe"
    assert win.calls("-m venv") == [
        (win.calls("-m venv")[0][0], "-m", "venv", str(lay.engine_venv))
    ]
    assert lay.command_link.read_bytes() == f'@"{engine}" %*\r\n'.encode()
    assert lay.engine_record.read_text() == f"{engine}\n"
    # The schedule is the engine's own command (it picks the Task Scheduler on Windows).
    assert win.calls(" schedule") == [(str(engine), "schedule")]
    assert (
        f"note: add {win.home}/.local/bin to your PATH (Settings > Environment Variables) "
        "to run skillopt-sleep\n" in out
    )
    assert not (win.home / ".profile").exists()
    win.install(uninstall=True)
    assert win.calls("unschedule") == [(str(engine), "unschedule")]
    assert tree(win.home) == before


def test_no_path_note_when_local_bin_is_on_path(win):
    win.env["PATH"] = os.pathsep.join(["C:\\Windows", f"{win.home}/.local/bin"])
    out = win.install(claude="no", codex="no", schedule="no")
    assert "PATH" not in out


def test_install_ps1_hands_every_switch_to_setup():
    text = (REPO / "install" / "install.ps1").read_text(encoding="utf-8")
    switches = re.findall(r"\[switch\]\$(\w+)", text)
    mapped = dict(re.findall(r'if \(\$(\w+)\) \{ \$SetupArgs \+= (?:@\()?"(--[a-z-]+)"', text))
    assert sorted(mapped) == sorted([*switches, "With", "Package"])
    for name, flag in mapped.items():
        parse(
            [flag, "pipx"] if name in ("With", "Package") else [flag], "install.ps1"
        )  # setup accepts it
    choices = re.search(r'ValidateSet\("", ([^)]*)\)\]\[string\]\$With', text).group(1)
    for tool in re.findall(r'"(\w+)"', choices):
        assert parse(["--with", tool], "install.ps1").tool == tool
    assert "-m skillopt_sleep.setup --source $Src @SetupArgs" in text
