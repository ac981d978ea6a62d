"""The commented starter config written by ``config init``, generated from the settings model.

Every setting appears as a commented ``# key = value`` line holding its default (or, for a
setting that is unset by default, an example), with a short explanation above the important
ones ending in ``:``, so uncommenting any setting line gives a valid config.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from .settings import ENV_PREFIX, PROJECT_FILE, Settings

HEADER = f"""\
# skillopt-sleep user configuration.
#
# Every setting shows its default; uncomment a line to change it. Layers, lowest first:
# defaults < this file < <project>/{PROJECT_FILE} < environment < command-line flags.
# The environment form is {ENV_PREFIX}<SECTION>__<KEY>, e.g. {ENV_PREFIX}NIGHT__K=2.
# `skillopt-sleep config show` prints every effective value and where it came from.
"""

HELP = {
    "night.k": "rollouts per task, before and after an edit",
    "night.concurrency": "model calls in flight at once",
    "night.edit_budget": "at most this many edits a night, see edit_schedule",
    "night.edit_schedule": "constant | linear | cosine: decay from edit_budget to edit_budget_min",
    "night.schedule_horizon": "nights over which the edit budget decays",
    "night.alpha": "family-wise error of tonight's efficacy tests, split over the edits (Holm)",
    "night.steps": "rounds of reflect -> test a night",
    "night.efficacy_rollouts": "fresh rollouts per side where an edit should act, over all looks",
    "night.efficacy_looks": "looks at the efficacy evidence; a decided comparison stops early",
    "night.harm_rollouts": "fresh rollouts per side and look on every other task",
    "night.harm_looks": "looks at most while the pass rate there fell and harm is not yet conclusive",
    "night.harm_alpha": "an edit with fewer passes elsewhere at this level is refused tonight",
    "night.harm_conclusive": "and at this level it is remembered as harmful, never proposed again",
    "night.unseen_alpha": "unseen tasks of the edit's kind must show a gain at this level",
    "night.unseen_rollouts": "fresh rollouts per side on those unseen tasks, at least",
    "night.evidence_alpha": "evidence carried across nights (e-values) accepts at 1/this",
    "night.min_effect": "a refused edit that rules out this gain is not proposed again",
    "night.max_error_rate": "more errored rollouts than this: no evidence",
    "night.auto_adopt": "adopt accepted proposals without review; rollback still works",
    "night.batch": ("the night's calls through the provider's batch API: half price, results within "
                    "24 hours (usually minutes); off, scheduled nights too, so the proposal is ready by morning"),
    "night.batch_poll_s": "seconds between two looks at a running batch",
    "roles.target.prompt_cache": "cache the skill and memory every replay shares (a read costs 0.1x input)",
    "roles.target.backend": "simulated | anthropic | openai | claude-code | codex; default: the first usable",
    "roles.target.base_url": "an OpenAI-compatible server such as vLLM or Ollama, or a proxy",
    "roles.target.api_key_env": "the environment variable that holds the key",
    "budget.max_cost_usd": "a night stops cleanly before it would spend more",
    "budget.prices": "USD per million tokens, by model (cache_write / cache_read: cached input)",
    "files.skill": "the skill file, relative to the project; default: its single skill",
    "files.max_bytes": "size caps; Codex cuts AGENTS.md at 32 KiB",
    "schedule.cron": "when the nightly run starts (cron syntax, local time)",
}

# Values shown for settings that are unset by default (uncommented, each is valid).
EXAMPLES: dict[str, Any] = {
    "backend": "anthropic",
    "model": "claude-sonnet-4-6",
    "base_url": "http://127.0.0.1:8000/v1",
    "api_key_env": "ANTHROPIC_API_KEY",
    "temperature": 0.7,
    "skill": ".claude/skills/project-conventions/SKILL.md",
    "claude_config_dir": "~/.claude",
    "codex_home": "~/.codex",
    "prices": {"claude-sonnet-4-6": {"input": 3.0, "output": 15.0}},
}

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_value(value: Any) -> str:
    """One TOML value on one line (inline tables and arrays)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = [f"{k if _BARE_KEY.match(k) else json.dumps(k)} = {toml_value(v)}" for k, v in value.items()]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _section_lines(model: BaseModel, path: str) -> list[str]:
    lines = [f"[{path}]"]
    nested = []
    for name, value in model:
        dotted = f"{path}.{name}"
        if isinstance(value, BaseModel):
            nested.append((value, dotted))
            continue
        notes = [HELP[dotted]] if dotted in HELP else []
        if value is None or value == {}:
            if name not in EXAMPLES:
                continue
            value = EXAMPLES[name]
            notes.append("for example" if "default" in " ".join(notes) else "unset by default, for example")
        if notes:
            lines.append(f"# {'; '.join(notes)}:")
        lines.append(f"# {name} = {toml_value(value)}")
    out = lines if len(lines) > 1 else []
    for sub, dotted in nested:
        out += ["", *_section_lines(sub, dotted)]
    return out


def starter_config() -> str:
    """The text ``config init`` writes."""
    lines = [HEADER.rstrip("\n")]
    for name, section in Settings():
        lines += ["", *_section_lines(section, name)]
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"
