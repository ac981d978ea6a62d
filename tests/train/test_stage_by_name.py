"""``train stage`` lands the trained skill by its own name: the project's skill of that name, or a
new folder of that name; a skill of another name is never written over."""

from __future__ import annotations

from pathlib import Path

import pytest

DEPLOY = "---\nname: deploy\ndescription: Deploying.\n---\n\nRun `make deploy` from main only.\n"
RELEASE = "---\nname: release\ndescription: Releasing.\n---\n\nTag from main.\n"


@pytest.fixture
def run(cli, planted: Path, skill: Path, tmp_path: Path) -> Path:
    """A finished run whose best skill (named ``project``, as the sample's) accepted edits."""
    out = tmp_path / "run"
    r = cli(
        "train", str(planted), "--skill", str(skill), "--out", str(out), "--backend",
        "simulated", "--epochs", "1", "--steps-per-epoch", "2", "--seed", "1",
    )  # fmt: skip
    assert r.code == 0, r.err
    assert (out / "best.md").read_text() != skill.read_text()
    return out


def _skill(project: Path, folder: str, name: str, text: str) -> Path:
    path = project / folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _stage_and_adopt(cli, run: Path, project: Path) -> str:
    staged = cli("train", "stage", str(run), "--project", str(project))
    assert staged.code == 0 and staged.out.startswith("staged train-"), staged.err
    review = cli("review", "--project", str(project))
    assert review.code == 0, review.err
    adopted = cli("adopt", "--project", str(project))
    assert adopted.code == 0, adopted.err
    return review.out


@pytest.mark.parametrize("others", [(DEPLOY,), (DEPLOY, RELEASE)], ids=["one", "two"])
def test_a_skill_of_another_name_stays_and_the_trained_one_gets_its_own_folder(
    cli, run: Path, tmp_path: Path, others: tuple[str, ...]
) -> None:
    project = tmp_path / "project"
    kept = [_skill(project, ".claude/skills", t.split()[2], t) for t in others]
    review = _stage_and_adopt(cli, run, project)
    assert "--- a/.claude/skills/project/SKILL.md" in review
    assert "-name: deploy" not in review and "make deploy" not in review
    for path, text in zip(kept, others, strict=True):
        assert path.read_text() == text
    new = project / ".claude/skills/project/SKILL.md"
    assert new.read_text() == (run / "best.md").read_text()
    assert not (project / ".claude/skills/project-conventions").exists()


def test_the_skill_of_its_name_is_updated_wherever_it_lives(
    cli, run: Path, skill: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    deploy = _skill(project, ".claude/skills", "deploy", DEPLOY)
    mine = _skill(project, ".agents/skills", "conventions", skill.read_text())  # name: project
    _stage_and_adopt(cli, run, project)
    assert mine.read_text() == (run / "best.md").read_text()
    assert deploy.read_text() == DEPLOY
    assert not (project / ".claude/skills/project").exists()


def test_a_new_skill_goes_where_the_agents_in_use_load_skills(
    cli, run: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".skillopt-sleep.toml").write_text('[files]\nagents = ["codex"]\n')
    _stage_and_adopt(cli, run, project)
    assert (project / ".agents/skills/project/SKILL.md").read_text() == (
        run / "best.md"
    ).read_text()
    assert not (project / ".claude/skills").exists()


def test_a_folder_of_its_name_holding_another_skill_is_refused(
    cli, run: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    other = _skill(project, ".claude/skills", "project", DEPLOY)
    staged = cli("train", "stage", str(run), "--project", str(project))
    assert staged.code == 2 and staged.out == ""
    assert staged.err.startswith(
        f"skillopt-sleep: error: {other} holds the skill 'deploy', not 'project'"
    )
    assert other.read_text() == DEPLOY
