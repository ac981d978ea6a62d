"""The commented starter config written by ``config init``, generated from the settings model.

Every setting appears as a commented ``# key = value`` line holding its default (or, for a
setting that is unset by default, an example), under its description from the model (the
``Field(description=...)`` in :mod:`.settings`) ending in ``:``, so uncommenting any setting line
gives a valid config. A section of a kind already described (the optimizer's and the judge's roles,
like the target's) shows its values only. The gate's expert keys, which its ``rigor`` preset sets,
are named in one comment line instead (the README's Gate settings documents each).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from . import ENV_PREFIX, PROJECT_FILE, Settings
from .gate import GateSettings, expert_keys

HEADER = f"""\
# skillopt-sleep user configuration.
#
# Every setting shows its default; uncomment a line to change it. Layers, lowest first:
# defaults < this file < <project>/{PROJECT_FILE} < environment < command-line flags.
# The environment form is {ENV_PREFIX}<SECTION>__<KEY>, e.g. {ENV_PREFIX}NIGHT__K=2.
# `skillopt-sleep config show` prints every effective value and where it came from.
"""

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
    "prompts": "~/my-prompts",
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
    if isinstance(value, dict):  # TOML has no null: an unset key of a table is left out
        items = [
            f"{k if _BARE_KEY.match(k) else json.dumps(k)} = {toml_value(v)}"
            for k, v in value.items()
            if v is not None
        ]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _section_lines(model: BaseModel, path: str, described: set[type[BaseModel]]) -> list[str]:
    lines = [f"[{path}]"]
    nested = []
    fields = type(model).model_fields
    explain = type(model) not in described
    described.add(type(model))
    hidden = expert_keys() if isinstance(model, GateSettings) else frozenset()
    for name, value in model:
        if name in hidden:
            continue
        if isinstance(value, BaseModel):
            nested.append((value, f"{path}.{name}"))
            continue
        description = fields[name].description
        notes = [description] if explain and description else []
        if value is None or value == {}:
            if name not in EXAMPLES:
                continue
            value = EXAMPLES[name]
            notes.append(
                "for example" if "default" in " ".join(notes) else "unset by default, for example"
            )
        if notes:
            lines.append(f"# {'; '.join(notes)}:")
        lines.append(f"# {name} = {toml_value(value)}")
    if hidden:
        names = ", ".join(n for n in fields if n in hidden)
        lines += [f"# expert (each overrides rigor's value; see the README): {names}"]
    out = lines if len(lines) > 1 else []
    for sub, dotted in nested:
        out += ["", *_section_lines(sub, dotted, described)]
    return out


def starter_config() -> str:
    """The text ``config init`` writes."""
    lines = [HEADER.rstrip("\n")]
    described: set[type[BaseModel]] = set()
    for name, section in Settings():
        lines += ["", *_section_lines(section, name, described)]
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"
