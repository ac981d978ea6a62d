"""The gate's settings as a user meets them: one ``rigor`` preset in ``[night]`` and ``[train]``,
expert keys that override it, and the names training used before, read or refused in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

from skillopt_sleep.evidence import EvidencePolicy
from skillopt_sleep.settings.gate import expert_keys

SAMPLE = Path(__file__).resolve().parents[2] / "skillopt_sleep" / "sample" / "train"

# The gate's levels before the preset existed: ``standard`` must keep every one of them.
BEFORE = {
    "alpha": 0.03,
    "efficacy_rollouts": 24,
    "efficacy_looks": 3,
    "harm_rollouts": 48,
    "harm_looks": 5,
    "harm_alpha": 0.1,
    "harm_odds": 4.0,
    "harm_beta": 0.05,
    "harm_conclusive": 0.01,
    "unseen_alpha": 0.2,
    "unseen_rollouts": 8,
    "evidence_alpha": 0.005,
    "evidence_odds": 4.0,
    "min_effect": 0.25,
    "harm_max_tasks": 64,
    "harm_kind_power": 0.99,
    "max_error_rate": 0.3,
}


def _show(cli, cwd: Path, **env: str) -> dict[str, dict[str, object]]:
    r = cli("config", "show", "--json", cwd=cwd, env=env)
    assert r.code == 0, r.err
    return r.json()["settings"]  # type: ignore[no-any-return]


def _project(tmp_path: Path, toml: str) -> Path:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    (project / ".skillopt-sleep.toml").write_text(toml)
    return project


def test_the_standard_preset_is_the_levels_of_before(cli, sandbox_home, tmp_path):
    shown = _show(cli, _project(tmp_path, ""))
    assert shown["night.rigor"] == {"value": "standard", "source": "default"}
    assert {k: shown[f"night.{k}"]["value"] for k in BEFORE} == BEFORE
    policy = EvidencePolicy.from_settings()
    assert {k: getattr(policy, k) for k in BEFORE} == BEFORE
    assert shown["train.run_alpha"]["value"] == 0.05 and shown["train.harm_rollouts"]["value"] == 32


def test_a_preset_sets_the_levels_and_an_expert_key_overrides_it(cli, sandbox_home, tmp_path):
    project = _project(tmp_path, '[night]\nrigor = "strict"\nharm_odds = 3.0\n')
    shown = _show(cli, project)
    where = f"project ({project}/.skillopt-sleep.toml)"
    assert shown["night.harm_odds"] == {"value": 3.0, "source": where}
    assert shown["night.alpha"] == {"value": 0.01, "source": "rigor strict"}
    assert shown["night.efficacy_rollouts"] == {"value": 48, "source": "rigor strict"}
    assert shown["night.k"] == {"value": 4, "source": "default"}
    light = _show(cli, project, SKILLOPT_SLEEP_NIGHT__RIGOR="light")
    assert light["night.efficacy_rollouts"] == {"value": 12, "source": "rigor light"}
    assert light["night.harm_odds"]["value"] == 3.0  # the expert key still wins


def test_a_wrong_rigor_is_one_line_naming_the_file(cli, sandbox_home, tmp_path):
    project = _project(tmp_path, '[night]\nrigor = "paranoid"\n')
    r = cli("config", "show", cwd=project)
    assert r.code == 3 and r.err.count("\n") == 1
    assert "night.rigor = 'paranoid'" in r.err and "'light', 'standard' or 'strict'" in r.err
    assert f"fix it in {project}/.skillopt-sleep.toml" in r.err


def test_config_init_shows_the_preset_and_names_the_expert_keys_once(cli, sandbox_home, tmp_path):
    r = cli("config", "init", cwd=tmp_path)
    assert r.code == 0, r.err
    text = (sandbox_home / "sleep-home" / "config" / "config.toml").read_text()
    shown = re.findall(r"(?m)^# (\w+) = ", text)
    assert shown.count("rigor") == 2  # [night] and [train]
    assert not set(shown) & expert_keys()
    assert len(shown) <= 70  # 82 before the gate's keys left the starter file
    expert = [ln for ln in text.splitlines() if ln.startswith("# expert")]
    assert len(expert) == 2 and all("harm_odds" in ln for ln in expert)
    assert "alpha," in expert[0] and expert[1].endswith("run_alpha")


def test_a_config_file_from_before_still_means_what_it_said(cli, sandbox_home, tmp_path):
    old = "[night]\nalpha = 0.02\nefficacy_rollouts = 30\nharm_odds = 8.0\nk = 2\n"
    project = _project(tmp_path, old)
    shown = _show(cli, project)
    got = {k: shown[f"night.{k}"]["value"] for k in ("alpha", "efficacy_rollouts", "harm_odds")}
    assert got == {"alpha": 0.02, "efficacy_rollouts": 30, "harm_odds": 8.0}
    assert shown["night.harm_rollouts"] == {"value": 48, "source": "default"}


def test_trains_old_names_in_a_file_are_refused_in_one_line_naming_the_new(
    cli, sandbox_home, tmp_path
):
    for old, new in (("alpha = 0.1", "run_alpha"), ("steps = 3", "steps_per_epoch")):
        project = _project(tmp_path, f"[train]\n{old}\n")
        r = cli("config", "show", cwd=project)
        key = old.split(" ")[0]
        assert r.code == 3 and r.err.count("\n") == 1, r.err
        assert r.err.startswith(
            f"skillopt-sleep: error: setting train.{key} from {project}/.skillopt-sleep.toml "
            f"is named train.{new} now"
        )
        assert f"write {new} instead; fix it in {project}/.skillopt-sleep.toml" in r.err


def _estimate(cli, tmp_path: Path, *more: str):
    return cli(
        "train",
        str(SAMPLE / "tasks.jsonl"),
        "--skill",
        str(SAMPLE / "SKILL.md"),
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "simulated",
        "--estimate",
        *more,
        cwd=tmp_path,
    )


def _calls(out: str) -> int:
    return int(re.search(r"about (\d+) calls", out).group(1))  # type: ignore[union-attr]


def test_train_rigor_trades_calls_and_its_flags_say_per_run(cli, sandbox_home, tmp_path):
    standard = _estimate(cli, tmp_path, "--steps-per-epoch", "2")
    assert standard.code == 0 and standard.err == "", standard.err
    strict = _estimate(cli, tmp_path, "--steps-per-epoch", "2", "--rigor", "strict")
    (tmp_path / ".skillopt-sleep.toml").write_text('[train]\nrigor = "light"\n')
    light = _estimate(cli, tmp_path, "--steps-per-epoch", "2")
    assert _calls(light.out) < _calls(standard.out) < _calls(strict.out)
    old_steps = _estimate(cli, tmp_path, "--steps", "2")
    assert old_steps.code == 0 and _calls(old_steps.out) == _calls(light.out)
    assert old_steps.err == "skillopt-sleep: warning: --steps is named --steps-per-epoch now\n"
    old_alpha = _estimate(cli, tmp_path, "--alpha", "0.1")
    assert old_alpha.code == 2 and old_alpha.err.count("\n") == 1
    assert old_alpha.err.startswith(
        "skillopt-sleep: error: --alpha is named --run-alpha now (the error rate of the whole run)"
    )


def test_a_run_directory_from_before_the_rename_resumes(cli, sandbox_home, tmp_path):
    args = [
        "train",
        str(SAMPLE / "tasks.jsonl"),
        "--skill",
        str(SAMPLE / "SKILL.md"),
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "simulated",
        "--epochs",
        "1",
        "--steps-per-epoch",
        "1",
        "--seed",
        "1",
        "--json",
    ]
    first = cli(*args, cwd=tmp_path)
    assert first.code == 0, first.err
    path = tmp_path / "run" / "config.json"
    config = json.loads(path.read_text())
    config["alpha"], config["steps"] = config.pop("run_alpha"), config.pop("steps_per_epoch")
    for key in ("rigor", "harm_looks", "harm_odds", "min_effect", "unseen_rollouts"):
        del config[key]  # not recorded before the gate's settings were the run's
    path.write_text(json.dumps(config))
    again = cli(*args, cwd=tmp_path)
    assert again.code == 0 and "other settings" not in again.err, again.err
    assert again.json()["accepted_edits"] == first.json()["accepted_edits"]
