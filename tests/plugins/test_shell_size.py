"""The shells stay thin: every behaviour lives in Python (skillopt_sleep/setup/), so no shell
file in install/ or plugins/ grows past 150 lines."""

from __future__ import annotations

from pathlib import Path

LIMIT = 150


def _shell_files(root: Path) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        if (
            path.suffix in (".sh", ".ps1", ".bash", ".cmd", ".bat")
            or path.read_bytes()[:2] == b"#!"
        ):
            found.append(path)
    return found


def test_no_shell_file_over_150_lines(kit):
    files = _shell_files(kit.repo / "install") + _shell_files(kit.repo / "plugins")
    names = {f.relative_to(kit.repo).as_posix() for f in files}
    # The check sees the files it must: both installers and the one launcher.
    assert {
        "install/install.sh",
        "install/install.ps1",
        "plugins/codex/skills/skillopt-sleep/scripts/skillopt-sleep",
    } <= names
    lines = {
        f.relative_to(kit.repo).as_posix(): len(f.read_text("utf-8").splitlines()) for f in files
    }
    assert {name: n for name, n in lines.items() if n > LIMIT} == {}
