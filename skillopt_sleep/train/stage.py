"""``train stage``: a run's best skill as an ordinary staged proposal for a project.

The proposal is a night's in every way that matters to ``review``, ``adopt`` and ``rollback``:
the candidate ``SKILL.md``, its diff against the project's live skill, ``report.md``, and the
live file's hash, so adopting refuses a file changed since. Its summary carries the test report.
It is staged through a night's :class:`~..night.recorder.Recorder`, as a night stages its own.
The skill lands by its own ``name`` (:mod:`..rules.skill_home`): the project's skill of that name
is updated, or a new folder of that name is made; a skill of another name is left as it is.
"""

from __future__ import annotations

from pathlib import Path

from ..clock import Clock
from ..errors import UsageError
from ..models import NightSummary, Proposal
from ..night.pipeline import new_night_id
from ..night.recorder import NightResult, Recorder
from ..paths import Paths
from ..rules.managed_block import skill_name
from ..rules.skill_home import skill_home
from ..rules.workspace import Workspace, agents_in_use, load_workspace, project_sources
from ..settings import Settings
from ..store import Store
from .config import TrainConfig
from .loop import units
from .rundir import RunDir


def stage_run(
    run_dir: Path, project: Path, *, settings: Settings, store: Store, paths: Paths, clock: Clock
) -> Proposal | None:
    """Stage the best skill of the finished run in ``run_dir`` for ``project``; None when the run
    accepted no edit (nothing to stage)."""
    run = RunDir(run_dir)
    state, summary = run.state(), run.summary()
    if not run.has_run() or state is None:
        raise UsageError(
            f"no training run in {run_dir}",
            hint="give the --out directory of `skillopt-sleep train`",
        )
    if summary is None:
        raise UsageError(
            f"the run in {run_dir} has not finished",
            hint="run `skillopt-sleep train` again to finish it",
        )
    if not summary.accepted_edits or state.best == (run.path / "initial.md").read_text(
        encoding="utf-8"
    ):
        return None
    if summary.best_step and not summary.best_unit:  # a summary written before it was kept
        index = summary.best_step - 1
        summary.best_unit = units(TrainConfig.model_validate(run.recorded()[0]))[index].name(index)
    workspace = _workspace(project, state.best, settings, store)
    night_id = new_night_id(store, paths, project, clock, prefix="train-")
    gain = summary.gain_hard
    reason = (
        f"trained over {summary.steps} step{'' if summary.steps == 1 else 's'} and "
        f"{summary.slow_updates} slow update{'' if summary.slow_updates == 1 else 's'}; "
        f"best: {summary.best_at()}; test pass rate "
        f"{_num(summary.baseline.test_hard)} -> {_num(summary.best.test_hard)}"
    )
    if gain is not None:
        reason += f" (gain {gain.mean:+.2f}, 95% CI {gain.ci_low:+.2f} to {gain.ci_high:+.2f}, p = {gain.p_value:.3g})"
    night = NightSummary(
        night_id=night_id,
        project=str(project),
        started_at=clock.now(),
        finished_at=clock.now(),
        decision="accept",
        reason=reason,
        n_train=summary.n_train,
        n_holdout=summary.n_test,
        errored_rollouts=summary.errored_rollouts,
        edits=summary.accepted_edits,
        evidence=state.evidence,
        calls=summary.usage.calls,
        tokens=summary.usage.tokens,
        cost_usd=round(summary.usage.cost_usd, 6),
    )
    record = Recorder(NightResult(night, workspace, {"SKILL.md": state.best}), None, clock)
    return record.stage(store, paths.night_dir(night_id))


def _workspace(project: Path, skill: str, settings: Settings, store: Store) -> Workspace:
    """The project's files, its ``SKILL.md`` the skill of the trained skill's name (a skill of
    another name is never written over; a new name gets a folder of its own)."""
    name = skill_name(skill)
    if name is None:
        raise UsageError(
            "the run's skill has no frontmatter name: it cannot say which of the project's "
            "skills it is",
            hint="train a SKILL.md that starts with ---, name: and description: lines",
        )
    agents = agents_in_use(settings.files, project_sources(store, project))
    home = skill_home(project, name, agents)
    files = settings.files.model_copy(update={"skill": str(home.relative_to(project))})
    return load_workspace(project, files, agents)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
