"""Staging: write a night's proposal to its own directory. Nothing live changes.

The files only: the night's :class:`~.recorder.Recorder` stages through :func:`write_proposal` and
writes the rows (the staged night, the proposals it supersedes), for a night and for
``train stage`` alike.

Layout of ``<nights_dir>/<night_id>/``: ``proposal.json``, ``candidate/<name>``,
``base/<name>``, ``diffs/<name>.diff``, ``report.md``, ``report.html`` (and ``artifacts/`` from
the pipeline).

Each candidate is bound to the text the night read when it *started* (``base/<name>``, its hash
in ``ProposalFile.base_sha256``), not to the live file when it ended: a line the user adds while
the night runs is then seen by ``adopt``, which keeps it or refuses (:mod:`review.rebase`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..models import NightSummary, Proposal, ProposalFile
from ..redact import redact
from ..review.diff import label, unified_diff
from ..review.report import render_markdown
from ..review.report_html import render_html
from ..review.rule_views import RuleView
from ..rules.placement import as_proposed, import_targets, reaches
from ..rules.readers import title
from ..rules.workspace import Workspace
from ..store import atomic_write_text, sha256_text


def candidate_diffs(workspace: Workspace, candidate: dict[str, str]) -> dict[str, str]:
    """Unified diff of every file the candidate changes, keyed by file name."""
    diffs = {}
    for name, new in candidate.items():
        old = workspace.live_text(name)
        if new != old:
            # Context lines are the user's own text, which may hold a secret: shown, never kept.
            where = label(workspace.project, workspace.paths[name])
            diffs[name] = redact(
                unified_diff(old if workspace.existed.get(name) else "", new, where)
            )
    return diffs


def proposed(workspace: Workspace, candidate: dict[str, str]) -> dict[str, str]:
    """``candidate`` with its memory files as a proposal holds them (:func:`as_proposed`): the
    placement's layout only with a memory edit, no import of a file that will not exist."""
    if workspace.placement.rules_in is None:
        return candidate
    names = [n for n in workspace.texts if n != "SKILL.md"]
    made = as_proposed(
        {n: workspace.live_text(n) for n in names},
        {n: workspace.texts[n] for n in names},
        {n: candidate.get(n, workspace.texts[n]) for n in names},
        lambda name: (workspace.project / name).exists(),
    )
    return {**candidate, **{n: made[n] for n in names if n in candidate}}


def _copy_diffs(workspace: Workspace, text: str) -> dict[str, str]:
    """The diff of each copy of the skill in another agent's skill folder that ``text`` changes."""
    out = {}
    for name, old in workspace.skill_copies.items():
        if text != old:
            where = label(workspace.project, workspace.project / name)
            out[name] = redact(unified_diff(old or "", text, where))
    return out


def _stage_copy(directory: Path, workspace: Workspace, name: str, text: str, diff: str) -> None:
    atomic_write_text(directory / "candidate" / name, text)
    atomic_write_text(directory / "diffs" / f"{name}.diff", diff)
    base = workspace.skill_copies[name]
    if base is not None:
        atomic_write_text(directory / "base" / name, base)


def _copy_file(workspace: Workspace, name: str, reached: list[str]) -> ProposalFile:
    base = workspace.skill_copies[name]
    return ProposalFile(
        name=name,
        live_path=str(workspace.project / name),
        base_sha256=sha256_text(base) if base is not None else None,
        candidate=f"candidate/{name}",
        diff=f"diffs/{name}.diff",
        reaches=reached,
        copy_of="SKILL.md",
    )


def _reached(workspace: Workspace, memory: dict[str, str]) -> dict[str, list[str]]:
    """The agents each file reaches: the memory files through the placement, the skill from
    where it lives and each copy from its own folder."""
    reached = reaches(workspace.placement, memory)
    skill = workspace.skill
    if skill is not None:
        names = ["SKILL.md", *workspace.skill_copies]
        for name, folder in zip(names, skill.folders, strict=False):  # none: laid out otherwise
            reached[name] = [title(a) for a in skill.loaders(folder)]
    return reached


def write_report(
    directory: Path, summary: NightSummary, diffs: dict[str, str], rules: Sequence[RuleView] = ()
) -> None:
    atomic_write_text(directory / "report.md", render_markdown(summary, diffs))
    atomic_write_text(directory / "report.html", render_html(summary, diffs, rules))


def write_proposal(
    directory: Path,
    summary: NightSummary,
    workspace: Workspace,
    candidate: dict[str, str],
    rules: Sequence[RuleView] = (),
) -> Proposal:
    """Write the proposal of ``candidate`` into ``directory``: the candidate files, their diffs and
    bases, the reports (``rules``: the project's adopted rules, shown in the HTML report) and
    ``proposal.json``."""
    candidate = proposed(workspace, candidate)
    diffs = candidate_diffs(workspace, candidate)
    memory = {n: candidate.get(n, t) for n, t in workspace.texts.items() if n != "SKILL.md"}
    reached = _reached(workspace, memory)
    imported = import_targets(memory)
    files = []
    if "SKILL.md" in diffs:
        diffs.update(_copy_diffs(workspace, candidate["SKILL.md"]))
    for name in diffs:
        copy_of = "SKILL.md" if name in workspace.skill_copies else None
        if copy_of is not None:
            _stage_copy(directory, workspace, name, candidate[copy_of], diffs[name])
            files.append(_copy_file(workspace, name, reached.get(name, [])))
            continue
        atomic_write_text(directory / "candidate" / name, candidate[name])
        atomic_write_text(directory / "diffs" / f"{name}.diff", diffs[name])
        base = workspace.live_text(name) if workspace.existed.get(name) else None
        if base is not None:  # the user's own text, as private as the candidate that holds it
            atomic_write_text(directory / "base" / name, base)
        placed = workspace.texts.get(name, "") != workspace.live_text(name)
        if placed:  # what the edits were made on, so some of them can be adopted alone
            atomic_write_text(directory / "placed" / name, workspace.texts[name])
        files.append(
            ProposalFile(
                name=name,
                live_path=str(workspace.paths[name]),
                base_sha256=sha256_text(base) if base is not None else None,
                candidate=f"candidate/{name}",
                diff=f"diffs/{name}.diff",
                reaches=reached.get(name, []),
                imports=imported.get(name, []),
                placed=f"placed/{name}" if placed else None,
            )
        )
    summary.proposal_dir = str(directory)
    write_report(directory, summary, diffs, rules)
    proposal = Proposal(
        night_id=summary.night_id,
        project=summary.project,
        created_at=summary.finished_at or summary.started_at,
        files=files,
        summary=summary,
        memory=list(rules_in) if (rules_in := workspace.placement.rules_in) else None,
    )
    atomic_write_text(directory / "proposal.json", proposal.model_dump_json(indent=2))
    return proposal
