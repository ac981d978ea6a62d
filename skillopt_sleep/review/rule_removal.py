"""Take one adopted rule out of every file it was written to, exactly, with a backup.

Only the rule's own line leaves the managed block: every other byte of each file stays as it is
(the user's text, line endings, the other rules). A file whose block no longer holds the rule as
adopted (removed or reworded by hand) is refused, and nothing is written anywhere. Before
writing, each file's bytes are kept under ``<backups>/rule-<id>-<time>/``; the writes are atomic,
and if one fails the files already written are put back. A symbolic link stays a link. The
removed rule is remembered as refused, so later nights do not propose it again.

When the last rule leaves a block that its night created, the block goes too (markers, heading
and the blank line before it): the file is as it was before that night. A night whose file held
what the night wrote is told of the new bytes, so ``rollback`` of it still puts the file back as
it was before the night (a file the user changed since is refused there, as ever).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import ProposalError, StoreError
from ..models import Edit
from ..paths import Paths
from ..rules.managed_block import (
    BlockError,
    block_lines,
    drop_empty_block,
    find_block,
    replace_rule,
)
from ..store import Store
from .backup import BackupManifest, adoption_lock, backup_dir, load_manifest, real_path
from .fileops import FileOps, keep
from .ledger import AdoptedRule, save

REMOVED_REASON = "removed by the user (`rules remove`)"


@dataclass(frozen=True)
class Removal:
    """What ``rules remove`` did: the files it changed and where their old bytes are kept."""

    rule: AdoptedRule
    files: list[str]
    backup_dir: str


def _manifest(paths: Paths, night_id: str) -> BackupManifest | None:
    """The backup of the night that adopted a rule; None when there is none (or it is damaged)."""
    try:
        return load_manifest(paths, night_id)
    except ProposalError:
        return None


def _without_empty_block(
    text: str, target: Path, manifest: BackupManifest | None, paths: Paths
) -> str:
    """``text`` without its block once it holds no rule, if the rule's night created the block."""
    if manifest is None or block_lines(text):
        return text
    entry = next((e for e in manifest.files if e.target == target), None)
    if entry is None:
        return text
    before = b""
    if entry.existed:
        try:
            before = (backup_dir(paths, manifest.night_id) / "files" / entry.name).read_bytes()
            created = find_block(before.decode("utf-8")) is None
        except (OSError, UnicodeDecodeError, BlockError):
            return text
        if not created:
            return text
    dropped = drop_empty_block(text, ended_with_newline=before.endswith(b"\n") or not before)
    return text if dropped is None else dropped


def _planned(
    rule: AdoptedRule, manifest: BackupManifest | None, paths: Paths
) -> list[tuple[str, Path, bytes, bytes]]:
    """(live path, file to write, old bytes, new bytes) for each distinct file; refuses first."""
    plan: list[tuple[str, Path, bytes, bytes]] = []
    seen: set[Path] = set()
    for live in rule.files:
        target = real_path(Path(live))
        if target in seen:
            continue
        seen.add(target)
        try:
            old = target.read_bytes()
            text = old.decode("utf-8")
        except FileNotFoundError:
            raise ProposalError(
                f"{live} no longer exists; nothing was removed",
                hint="the rule is already gone from it",
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ProposalError(
                f"cannot read {live}: {exc}; nothing was removed", hint="check its permissions"
            ) from exc
        try:
            new = replace_rule(text, rule.text, None)
        except BlockError as exc:
            raise ProposalError(
                f"{live}: {exc}; nothing was removed",
                hint="repair the skillopt-sleep markers by hand",
            ) from exc
        if new is None:
            raise ProposalError(
                f"rule {rule.id} is no longer in {live} as it was adopted (changed by hand); nothing was removed",
                hint=f"edit {live} yourself, or put the line back as adopted and run this again",
            )
        new = _without_empty_block(new, target, manifest, paths)
        plan.append((live, target, old, new.encode("utf-8")))
    return plan


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _follow(
    ops: FileOps,
    paths: Paths,
    store: Store,
    project: str,
    plan: list[tuple[str, Path, bytes, bytes]],
) -> None:
    """Tell each adopted night whose file held the bytes it wrote that the file now holds the
    removal's (its ``rollback`` compares the file with them)."""
    for night in store.nights(project=project, limit=100_000, state="adopted"):
        manifest = _manifest(paths, night.id)
        if manifest is None:
            continue
        moved = False
        for entry in manifest.files:
            for _, target, old, new in plan:
                if entry.target == target and entry.adopted_sha256 == _sha(old):
                    entry.adopted_sha256, moved = _sha(new), True
        if moved:
            data = manifest.model_dump_json(indent=2).encode("utf-8")
            keep(ops, backup_dir(paths, night.id) / "backup.json", data)


def remove_rule(
    store: Store, paths: Paths, rule: AdoptedRule, now: datetime, *, ops: FileOps | None = None
) -> Removal:
    """Remove ``rule`` from its files (see the module docstring)."""
    ops = ops or FileOps()
    with adoption_lock(paths):
        plan = _planned(rule, _manifest(paths, rule.night_id), paths)
        backups = paths.backups_dir / f"rule-{rule.id}-{now:%Y%m%dT%H%M%S}"
        for i, (_, _, old, _) in enumerate(plan):
            keep(ops, backups / "files" / f"{i}-{Path(plan[i][0]).name}", old)
        keep(ops, backups / "rule.json", rule.model_dump_json(indent=2).encode("utf-8"))
        written: list[tuple[Path, bytes]] = []
        try:
            for _, target, old, new in plan:
                written.append((target, old))
                ops.write(target, new)
        except (StoreError, KeyboardInterrupt):
            for target, old in reversed(written):
                ops.write(target, old)
            raise
        _follow(ops, paths, store, rule.project, plan)
    save(store, rule.model_copy(update={"state": "removed", "state_at": now}))
    refused = Edit.model_validate(
        rule.edit.model_dump() | {"status": "rejected", "reason": REMOVED_REASON}
    )
    store.add_rejected_edits(rule.project, rule.night_id, [refused])
    return Removal(rule, [live for live, *_ in plan], str(backups))
