"""Staged proposals: find a night, load what it staged, reject it.

A staged night lives in ``<nights_dir>/<night_id>/`` (``proposal.json``, ``candidate/<name>``,
``diffs/<name>.diff``, ``report.md``, ``report.html``) and in the store with state ``staged``.
States: ``staged`` -> ``adopted`` -> ``rolled_back``; ``staged`` -> ``rejected``; a newer staged
night of the same project makes an older pending one ``superseded``.

A night also records, per changed file, the agents in use that load it (directly or through a
managed ``@path`` import they follow; see :mod:`..rules.placement`): :func:`reach_lines` shows
it, so the user sees before adopting that a rule reaches every agent, and each once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ..errors import ProposalError
from ..models import Edit, Proposal, ProposalFile
from ..store import NightRow, Store
from .edit_choice import load_decisions, pending, save_decisions

REJECTED_REASON = "rejected at review"


@dataclass(frozen=True)
class Staged:
    """A night's proposal as loaded from its directory."""

    row: NightRow
    directory: Path
    proposal: Proposal

    @property
    def night_id(self) -> str:
        return self.row.id

    def read(self, relative: str) -> bytes:
        """A file of the proposal (a candidate or a diff), as bytes."""
        path = self.directory / relative
        try:
            return path.read_bytes()
        except OSError as exc:
            raise ProposalError(
                f"the proposal of night {self.night_id} is incomplete: cannot read {path}",
                hint="run the night again to stage a fresh proposal",
            ) from exc

    def base(self, name: str) -> bytes | None:
        """The text the night built ``name``'s candidate from; None for a file that did not exist
        then, or a proposal staged before the base text was kept."""
        try:
            return (self.directory / "base" / name).read_bytes()
        except OSError:
            return None

    def diffs(self) -> dict[str, str]:
        """File name -> unified diff text."""
        return {f.name: self.read(f.diff).decode("utf-8") for f in self.proposal.files}


def find_night(
    store: Store, night: str | None, *, project: str | None, states: Iterable[str], verb: str
) -> NightRow:
    """The night a command is about, always one of ``project``'s (or of a project that holds
    it: a command run in a sub-directory is about the project around it).

    ``night`` is an id or a unique prefix of one. Without it: the newest night in ``states`` of
    the project. A night of another project is never taken: it is named and refused (``review``
    of a named night, which changes nothing, may show any project's).
    """
    wanted = tuple(states)
    rows = store.nights(limit=100_000)
    if night:
        matches = [r for r in rows if r.id == night] or [r for r in rows if r.id.startswith(night)]
        if not matches:
            raise ProposalError(
                f"no night {night!r}", hint="see `skillopt-sleep status` for the nights"
            )
        if len(matches) > 1:
            raise ProposalError(
                f"{night!r} matches {len(matches)} nights ({', '.join(r.id for r in matches[:4])})",
                hint="give more of the night id",
            )
        row = matches[0]
        if verb != "review" and project is not None and _owner(project, [row.project]) is None:
            raise ProposalError(
                f"night {row.id} is of {row.project}, not of {project}; nothing was done",
                hint=f"run it there, or pass --project {row.project}",
            )
        return _check_state(row, wanted, verb, rows)
    candidates = [r for r in rows if r.state in wanted]
    owner = _owner(project, [r.project for r in candidates]) if project is not None else None
    mine = [r for r in candidates if r.project == owner]
    if mine:
        return mine[0]
    what = "pending proposal" if "staged" in wanted else f"{' or '.join(wanted)} night"
    where = f" for {project}" if project else ""
    if not candidates:
        hint = (
            "run `skillopt-sleep run` to stage one"
            if "staged" in wanted
            else "see `skillopt-sleep status`"
        )
        raise ProposalError(f"no {what}{where}", hint=hint)
    listing = ", ".join(f"{r.id} ({r.project})" for r in candidates[:4])
    raise ProposalError(
        f"no {what}{where}; nothing was done ({len(candidates)} in other projects: {listing})",
        hint=f"run it in that project, or pass --project: `skillopt-sleep {verb} --project {candidates[0].project}`",
    )


def _owner(project: str, projects: Iterable[str]) -> str | None:
    """The one of ``projects`` that is ``project`` or holds it (the deepest), or None."""
    here = Path(project)
    holding = [p for p in set(projects) if here == Path(p) or Path(p) in here.parents]
    return max(holding, key=lambda p: len(Path(p).parts)) if holding else None


def _check_state(
    row: NightRow, wanted: tuple[str, ...], verb: str, rows: list[NightRow]
) -> NightRow:
    if row.state in wanted:
        return row
    if row.state == "superseded":
        newer = next((r.id for r in rows if r.project == row.project and r.state == "staged"), None)
        hint = f"review night {newer} instead" if newer else "run the night again"
        raise ProposalError(f"night {row.id} was superseded by a newer proposal", hint=hint)
    if row.proposal_dir is None and "staged" in wanted:
        raise ProposalError(
            f"night {row.id} staged nothing ({row.decision}: {row.summary.reason or 'no proposal'})",
            hint="see `skillopt-sleep status`",
        )
    state = {"none": "not staged", "dry-run": "a dry run"}.get(row.state, row.state)
    raise ProposalError(
        f"cannot {verb} night {row.id}: it is {state}", hint="see `skillopt-sleep status`"
    )


def load_staged(row: NightRow) -> Staged:
    """The proposal a night staged; :class:`ProposalError` if it is missing or damaged."""
    if row.proposal_dir is None:
        raise ProposalError(f"night {row.id} staged nothing", hint="see `skillopt-sleep status`")
    directory = Path(row.proposal_dir)
    path = directory / "proposal.json"
    try:
        proposal = Proposal.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise ProposalError(
            f"the proposal of night {row.id} is missing ({path})", hint="run the night again"
        ) from exc
    except ValidationError as exc:
        raise ProposalError(
            f"the proposal of night {row.id} is damaged ({path}: {exc.errors()[0]['msg']})",
            hint="run the night again",
        ) from exc
    if proposal.night_id != row.id:
        raise ProposalError(f"{path} belongs to night {proposal.night_id}, not {row.id}")
    return Staged(row, directory, proposal)


def reject(store: Store, row: NightRow, numbers: Sequence[int] | None = None) -> list[Edit]:
    """Discard a staged night's edits (``numbers``, else every one still staged); they are
    recorded so later nights show them as tried and never propose them again. The night is
    rejected once none of its edits is left staged; until then the others wait for ``adopt``."""
    if row.state != "staged":
        raise ProposalError(f"cannot reject night {row.id}: it is {row.state}")
    decisions = load_decisions(store, row.id)
    staged = pending(row, decisions)
    chosen = staged if numbers is None else [n for n in staged if n in numbers]
    edits = [
        row.summary.edits[n - 1].model_copy(
            update={"status": "rejected", "reason": REJECTED_REASON}
        )
        for n in chosen
    ]
    store.add_rejected_edits(row.project, row.id, edits)
    decisions.rejected = sorted({*decisions.rejected, *chosen})
    save_decisions(store, decisions)
    if set(staged) <= set(chosen):
        store.set_night_state(row.id, "rejected")
    return edits


def reach_lines(files: Sequence[ProposalFile]) -> list[str]:
    """One line per changed file that some agent in use reads: ``AGENTS.md: Codex, Copilot CLI``
    (an import file says what it imports); [] when the night knew no agents."""
    lines = []
    for f in files:
        if not f.reaches:
            continue
        through = f" (imports {', '.join(f.imports)})" if f.imports else ""
        lines.append(f"  {f.name}: {', '.join(f.reaches)}{through}")
    if not lines:
        return []
    return ["reaches (each agent reads a learned rule once):", *lines]


def reach_payload(files: Sequence[ProposalFile]) -> dict[str, list[str]]:
    """``{file: [agents]}`` for ``--json``."""
    return {f.name: list(f.reaches) for f in files if f.reaches}
