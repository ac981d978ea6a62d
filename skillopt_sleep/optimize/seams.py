"""What a night's rounds work through, each a small protocol: something that proposes edits, something
that guards them, something that draws fresh rollouts, something that decides which edits pass.

:class:`~.rounds.Rounds` knows only these, so a test (or a training loop) drives the rounds with its
own: a scripted proposer, the real guards over its own files, a drawer that answers from a table.
The night's own are :class:`~.proposer.OptimizerProposer`, :class:`~.edit_guard.EditGuard`,
:meth:`~.replay.Replayer.draw` and :class:`~.evidence.gate.EvidenceGate`. The gate is chosen once,
where a night or a training run is composed; a benchmark passes its own (a judge that knows the truth).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..evidence import Candidate, Trials
from ..evidence.allocation import Allocation
from ..evidence.pool import Want
from ..evidence.together import Joint
from ..models import Edit, EditEvidence
from ..rollouts.replay import Rollout
from ..rules.guards import EditOutcome
from .reflect import Case


class Proposer(Protocol):
    """Proposes edits for a round's cases.

    ``accepted`` are the rules already accepted tonight (not to be proposed again), ``refused`` the
    edits refused conclusively tonight, ``step`` the round (from 1). Every edit cites the cases it
    addresses. Returns None when the proposer could not answer usably: the rounds stop there."""

    async def propose(
        self, cases: Sequence[Case], accepted: Sequence[str], refused: Sequence[Edit], step: int
    ) -> list[Edit] | None: ...


class Guard(Protocol):
    """Applies edits to tonight's files under the guards (size caps, the managed block, harmful text).

    ``guard`` applies at most ``budget`` of ``edits`` and records the ones it refused; ``combine``
    applies accepted edits together under the same caps and records nothing (the rounds' joint
    checks and the adopted files)."""

    def guard(self, edits: Sequence[Edit], *, budget: int) -> EditOutcome: ...

    def combine(self, edits: Sequence[Edit], *, budget: int) -> EditOutcome: ...


class Drawer(Protocol):
    """Draws fresh rollouts: for each ``(task, first, count)``, samples ``first`` to ``first + count - 1``
    of the stream ``nonce`` under ``files``; an errored rollout is a score of None, never a 0."""

    async def draw(
        self, wants: list[Want], files: dict[str, str], nonce: str
    ) -> dict[str, list[Rollout]]: ...


class Gate(Protocol):
    """Decides which of a round's edits pass, and settles the accepted ones together.

    ``judge`` gives each of a round's candidates its verdict before the edit budget (``trials``
    draws the fresh rollouts a statistical gate needs); ``confirm`` checks one edit the budget has
    room for alone (a gate that checks harm together returns ``ev`` as it is); ``settle`` gives the
    final verdict of every accepted edit with all of them applied together (``joint`` makes their
    files). ``evidential`` is False for a gate whose verdicts are not evidence (a benchmark's
    oracle): then nothing is carried to later nights and no accepted edit waits for a retest.
    ``allocation`` is how the tests of ``trials`` spend their rollouts. An outage is no evidence:
    a rollout that errored is excluded, never scored 0."""

    @property
    def evidential(self) -> bool: ...

    @property
    def allocation(self) -> Allocation: ...

    async def judge(
        self, trials: Trials, cands: Sequence[Candidate]
    ) -> dict[str, EditEvidence]: ...

    async def confirm(self, trials: Trials, cand: Candidate, ev: EditEvidence) -> EditEvidence: ...

    async def settle(
        self,
        trials: Trials,
        accepted: Sequence[Candidate],
        verdicts: dict[str, EditEvidence],
        joint: Joint,
    ) -> dict[str, EditEvidence]: ...
