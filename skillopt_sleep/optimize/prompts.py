"""The optimizer's prompts: template files shipped in the package, overridable by name.

``--prompts DIR`` replaces any of them: ``DIR/reflect_failure.txt`` replaces the failure
analyst's prompt, and so on. A file in DIR that names no prompt is an error (a misspelt name
would otherwise be silently ignored). The run directory records which prompt came from where.

A template may name the run's ``extras`` (``--extras '{"domain": "tax law"}'``) as
``{extras.domain}``: the value is written in before the run starts, and a name the extras do not
hold is an error then, not a literal placeholder sent to the optimizer. Other braces (the JSON the
prompts show) are left as they are.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..settings.prompts import PROMPT_NAMES, prompt_files

PLACEHOLDER = re.compile(r"\{extras\.([A-Za-z_][A-Za-z0-9_]*)\}")
NAMES = PROMPT_NAMES


@dataclass(frozen=True)
class Prompts:
    """The text of every prompt, and where each came from (``package`` or a file path)."""

    texts: dict[str, str]
    sources: dict[str, str]

    def __getitem__(self, name: str) -> str:
        return self.texts[name]

    def with_extras(self, extras: Mapping[str, Any]) -> Prompts:
        """Every ``{extras.NAME}`` of the templates replaced by the run's value of NAME."""
        texts = {}
        for name, text in self.texts.items():
            for wanted in PLACEHOLDER.findall(text):
                if wanted not in extras:
                    held = ", ".join(sorted(extras)) or "none"
                    raise InputError(
                        f"the {name} prompt ({self.sources[name]}) uses {{extras.{wanted}}}, "
                        f"which the run's extras do not hold (they hold: {held})",
                        hint=f'give it a value: --extras \'{{"{wanted}": "..."}}\'',
                    )
            texts[name] = PLACEHOLDER.sub(lambda m: _value(extras[m.group(1)]), text)
        return Prompts(texts, dict(self.sources))

    def record(self) -> dict[str, dict[str, str]]:
        """What the run directory keeps: each prompt's source and the hash of its text."""
        return {
            n: {
                "source": self.sources[n],
                "sha256": hashlib.sha256(self.texts[n].encode()).hexdigest()[:16],
            }
            for n in NAMES
        }


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def shipped(name: str) -> str:
    return (resources.files(__package__) / "prompts" / f"{name}.txt").read_text(encoding="utf-8")


def user_prompts(setting: str | None) -> Path | None:
    """The directory ``[night] prompts`` names (``~`` is the user's home), or None: the shipped ones."""
    return Path(setting).expanduser() if setting else None


def load_prompts(override: Path | None = None) -> Prompts:
    """The shipped prompts, with those of ``override`` (a directory of ``NAME.txt``) in their place."""
    texts = {n: shipped(n) for n in NAMES}
    sources = dict.fromkeys(NAMES, "package")
    if override is None:
        return Prompts(texts, sources)
    for name, (path, text) in prompt_files(Path(override)).items():
        texts[name], sources[name] = text, str(path.resolve())
    return Prompts(texts, sources)
