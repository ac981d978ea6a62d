"""The optimizer's prompts by name, and a directory of the user's own prompt files read against
them (``[night] prompts``, ``train --prompts``).

It sits with the settings so a bad ``[night] prompts`` is refused when the settings load, before
a command writes anything or calls a model; :mod:`skillopt_sleep.optimize.prompts` reads the
same files the same way.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from ..errors import InputError

PROMPT_NAMES = (
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


def prompt_files(directory: Path) -> dict[str, tuple[Path, str]]:
    """Each ``NAME.txt`` of ``directory`` by name: its path and text. A missing directory, a file
    that names no prompt (a misspelt name would otherwise be ignored) or an empty one is refused."""
    if not directory.is_dir():
        raise InputError(
            f"no such prompts directory: {directory}",
            hint="make it, or set [night] prompts or --prompts to a directory of NAME.txt files",
        )
    found = {}
    for path in sorted(directory.iterdir()):
        if path.suffix != ".txt":
            continue
        if path.stem not in PROMPT_NAMES:
            close = difflib.get_close_matches(path.stem, PROMPT_NAMES, n=1)
            hint = f"did you mean {close[0]}.txt? " if close else ""
            raise InputError(
                f"{path.name} in {directory} names no prompt",
                hint=f"{hint}prompts: {', '.join(PROMPT_NAMES)}",
            )
        text = path.read_text(encoding="utf-8")
        if not text.strip():
            raise InputError(
                f"{path} is empty",
                hint="write the prompt, or remove the file to use the shipped one",
            )
        found[path.stem] = (path, text)
    return found
