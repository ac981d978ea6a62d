"""A skill copied by the shell installer is recognised by its checksum, so uninstall removes it
when unchanged, and leaves it when the user edited it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from skillopt_sleep.setup.codex import remove_codex
from skillopt_sleep.setup.commands import FakeCommands
from skillopt_sleep.setup.context import Ctx
from skillopt_sleep.setup.layout import layout_for
from skillopt_sleep.setup.manifest import Manifest
from skillopt_sleep.setup.tree import shell_tree_sum

REPO = Path(__file__).resolve().parents[2]
SHELL_SUM = (
    "cd \"$1\" && find . -type f | LC_ALL=C sort | while read -r f; do printf '%s\\n' "
    '"$f"; cat "$f"; done | cksum | cut -d\' \' -f1'
)


def _shell_sum(root: Path) -> str:
    return subprocess.run(
        ["sh", "-c", SHELL_SUM, "sh", str(root)], check=True, capture_output=True, text=True
    ).stdout.strip()


def test_the_checksum_is_the_shell_installers(tmp_path):
    skill = REPO / "plugins" / "codex" / "skills" / "skillopt-sleep"
    assert shell_tree_sum(skill) == _shell_sum(skill)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.md").write_text("é\n")
    (tmp_path / "a-b").write_bytes(b"")
    assert shell_tree_sum(tmp_path) == _shell_sum(tmp_path)


def test_a_skill_the_shell_installer_copied_is_removed_unless_changed(tmp_path):
    ctx = Ctx(
        layout_for({"HOME": str(tmp_path)}), {}, FakeCommands(), Manifest(tmp_path / "manifest")
    )
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    for d in (kept, gone):
        d.mkdir()
        (d / "SKILL.md").write_text("---\nname: skillopt-sleep\n---\n")
    recorded = _shell_sum(gone)
    (kept / "SKILL.md").write_text("my own note\n")
    remove_codex(ctx, gone, recorded)
    remove_codex(ctx, kept, recorded)
    assert not gone.exists() and (kept / "SKILL.md").read_text() == "my own note\n"
