"""Which agents each file of a proposal reaches, in the words ``review`` shows.

A night records, per changed file, the agents in use that load it (directly or through a managed
``@path`` import they follow; see :mod:`..rules.placement`), so the user sees before adopting
that a rule reaches every agent, and each once."""

from __future__ import annotations

from collections.abc import Sequence

from ..proposal_models import ProposalFile


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
