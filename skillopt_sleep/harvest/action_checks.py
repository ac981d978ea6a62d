"""Action checks an action correction states, kept only where they discriminate.

From what the correcting turn names of the corrected attempt (:mod:`.action_refs`): another tool
of the same job becomes "ran the other tool" and "never ran this one"; a flag or argument of a
command "never ran a command with it"; a file or directory the attempt read "never read it"; one
it wrote, edited or deleted "left it alone". Each candidate is kept only when it fails on the
attempt the user corrected and passes on the retry the user let stand, where the session has one
(the same rule as for text checks). Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import ValidationError

from ..action_models import is_change
from ..checks.action_judge import action_check, glob_match, recorded
from ..models import Action, Check
from .action_refs import FAMILIES, reference, vocabulary
from .clauses import _QUOTED, _clauses


def _word(value: str) -> str:
    return rf"(?<![\w-]){re.escape(value)}(?![\w-])"


def _command_checks(named: Sequence[str], actions: Sequence[Action]) -> list[Check]:
    found: list[Check] = []
    for action in actions:
        if action.kind != "command":
            continue
        words = [n for n in named if re.search(_word(n), action.command, re.IGNORECASE)]
        for name in words:
            found.append(Check(kind="never_ran", value=_word(name), case_sensitive=False))
    return found


def _path_checks(named: Sequence[str], actions: Sequence[Action]) -> list[Check]:
    found: list[Check] = []
    for name in named:
        touched = [a for a in actions if a.path and glob_match(name.strip("/"), a.path.lower())]
        if not touched:
            continue
        glob = _as_written(name.strip("/"), touched[0].path)
        if any(a.kind == "read" for a in touched):
            found.append(Check(kind="never_read", value=glob))
        if any(is_change(a) for a in touched):
            found.append(Check(kind="untouched", value=glob))
    return found


def _as_written(name: str, path: str) -> str:
    """``name`` (lower-cased from the turn) spelt as the attempt's path spells it."""
    if path.lower().strip("./") == name:
        return path.strip("./") if path.startswith("./") else path
    for part in path.split("/"):
        if part.lower() == name:
            return part
    return name


def _stems_against(feedback: str, actions: Sequence[Action]) -> list[str]:
    """The attempt's files a clause said against something names by their stem alone ("not the
    dev one" after ``cat config/dev.yaml``), as paths; a stem the correction also names as a
    file of its own is not one (`config/dev.local.yaml`)."""
    paths = {a.path.strip("./"): a.path for a in actions if a.path and "." in a.path}
    stems = {re.sub(r"\.[^./]+$", "", p.rsplit("/", 1)[-1]).lower(): p for p in paths}
    out: list[str] = []
    for clause, negative in _clauses(feedback):
        if not negative:
            continue
        words = re.findall(r"(?<![\w./-])[\w-]{3,}(?![\w./-])", _QUOTED.sub(" ", clause).lower())
        out += [stems[w].lower() for w in words if w in stems]
    return out


def candidate_action_checks(feedback: str, actions: Sequence[Action]) -> list[Check]:
    """Action checks ``feedback`` states about ``actions`` (the attempt it corrects), unvalidated."""
    ref = reference(feedback, actions)
    if ref is None:
        return _path_checks(_stems_against(feedback, actions), actions)
    found: list[Check] = []
    vocab = vocabulary(actions)
    for other in ref.others:
        found.append(Check(kind="ran", value=_word(other), case_sensitive=False))
        found += [
            Check(kind="never_ran", value=_word(p), case_sensitive=False)
            for p in sorted(vocab.programs)
            if any(p in f and other in f for f in FAMILIES)
        ]
    found += _path_checks([*ref.named, *_stems_against(feedback, actions)], actions)
    found += _command_checks([n for n in ref.named if n in vocab.words], actions)
    out: list[Check] = []
    for check in found:
        if all((c.kind, c.value) != (check.kind, check.value) for c in out):
            out.append(check)
    return out


def validated_actions(
    checks: Sequence[Check], corrected: Sequence[Action], accepted: Sequence[Action] | None = None
) -> list[Check]:
    """The checks that fail on the corrected attempt's actions and pass on the accepted retry's."""
    kept: list[Check] = []
    before = recorded(corrected)
    after = recorded(accepted) if accepted is not None else None
    for check in checks:
        if "[REDACTED" in str(check.value):
            continue
        result = action_check(check, before)
        if result is None or result[0]:
            continue
        if after is not None:
            retry = action_check(check, after)
            if retry is None or not retry[0]:
                continue
        kept.append(check)
    return kept


def mined_action_checks(
    feedback: str, corrected: Sequence[Action], accepted: Sequence[Action] | None = None
) -> list[Check]:
    """Candidates of ``feedback`` about ``corrected``, validated; never raises on odd input."""
    try:
        return validated_actions(candidate_action_checks(feedback, corrected), corrected, accepted)
    except (ValidationError, re.error):
        return []


_WORD = re.compile(r"^\(\?<!\[\\w-\]\)(.+)\(\?!\[\\w-\]\)$")
# A word beside a path in one command (:func:`.scope.scoped_phrase`): "grep ... node_modules".
_SCOPED = re.compile(
    r"^\(\?<!\[\\w-\]\)([^()]+)\(\?!\[\\w-\]\)\[\^\|;&\\n\]\*"
    r"\(\?<!\[\\w-\]\)([^()]+)\(\?!\[\\w-\]\)$"
)
_PLAIN = {
    "ran": "runs {}",
    "never_ran": "never runs {}",
    "changed": "changes {}",
    "untouched": "leaves {} alone",
    "never_read": "never reads {}",
    "passes_after": "`{}` passes afterwards",
}


def plain_action(check: Check) -> str:
    """An action check as people read it (``never runs unittest``, ``leaves dist alone``)."""
    value = str(check.value).replace("['\"]?", "")  # a glob matched quoted or not
    word = _WORD.match(value)
    scoped = _SCOPED.match(value)
    if scoped and check.kind in ("ran", "never_ran"):
        first, second = (re.sub(r"\\(.)", r"\1", g) for g in scoped.groups())
        return f"{_PLAIN[check.kind].format(first)} ... {second}"
    if word and check.kind in ("ran", "never_ran"):
        value = re.sub(r"\\(.)", r"\1", word.group(1).replace(r"\s+", " "))
    elif check.kind in ("ran", "never_ran"):
        value = f"a command matching {value!r}"
    if check.kind == "file_contains":
        return f"{check.path} contains {value!r} afterwards"
    if check.kind == "file_not_contains":
        return f"{check.path} never contains {value!r} afterwards"
    return _PLAIN[check.kind].format(value)
