"""The optimizer's prompts: template files shipped in the package, overridable by name.

``--prompts DIR`` replaces any of them: ``DIR/reflect_failure.txt`` replaces the failure
analyst's prompt, and so on. A file in DIR that names no prompt is an error (a misspelt name
would otherwise be silently ignored). The run directory records which prompt came from where.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import InputError

NAMES = (
    "reflect_contrast",
    "reflect_failure",
    "reflect_success",
    "slow_update",
    "meta_skill",
    "document_mode",
    "merge_failure",
    "merge_success",
    "merge_final",
    "ranking",
)


@dataclass(frozen=True)
class Prompts:
    """The text of every prompt, and where each came from (``package`` or a file path)."""

    texts: dict[str, str]
    sources: dict[str, str]

    def __getitem__(self, name: str) -> str:
        return self.texts[name]

    def record(self) -> dict[str, dict[str, str]]:
        """What the run directory keeps: each prompt's source and the hash of its text."""
        return {
            n: {
                "source": self.sources[n],
                "sha256": hashlib.sha256(self.texts[n].encode()).hexdigest()[:16],
            }
            for n in NAMES
        }


def shipped(name: str) -> str:
    return (resources.files(__package__) / "prompts" / f"{name}.txt").read_text(encoding="utf-8")


def load_prompts(override: Path | None = None) -> Prompts:
    """The shipped prompts, with those of ``override`` (a directory of ``NAME.txt``) in their place."""
    texts = {n: shipped(n) for n in NAMES}
    sources = dict.fromkeys(NAMES, "package")
    if override is None:
        return Prompts(texts, sources)
    if not Path(override).is_dir():
        raise InputError(
            f"no such prompts directory: {override}", hint="give a directory of NAME.txt files"
        )
    for path in sorted(Path(override).iterdir()):
        if path.suffix != ".txt":
            continue
        if path.stem not in NAMES:
            close = difflib.get_close_matches(path.stem, NAMES, n=1)
            hint = f"did you mean {close[0]}.txt? " if close else ""
            raise InputError(
                f"{path.name} in {override} names no prompt",
                hint=f"{hint}prompts: {', '.join(NAMES)}",
            )
        text = path.read_text(encoding="utf-8")
        if not text.strip():
            raise InputError(
                f"{path} is empty",
                hint="write the prompt, or remove the file to use the shipped one",
            )
        texts[path.stem], sources[path.stem] = text, str(path.resolve())
    return Prompts(texts, sources)
