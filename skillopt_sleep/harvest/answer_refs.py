"""Whether a later turn corrects what the previous answer *said*: it quotes a piece of it, or it
states a rule about the answer's text that the answer breaks.

"Put every variable name in backticks, like `API_URL`" after an answer that wrote API_URL bare,
"Release 5.2 ships on 14 May." after "Release 5.2 ships soon." (three of its words in a row),
"Seulement dans `config/`, pas dans `node_modules/`" after a listing that went into
node_modules/: a turn no rule places, that quotes something the previous answer says, or
something the attempt wrote to a file ("`ubuntu-latest` moved under us" after a workflow that runs
on it), is about that answer, not a new request. "Put it under the `## Next release` heading" after an answer
under ``### v0.8.0``, "add `max_workers` to `CONFIG.md` as well" after an attempt that changed
only ``src/config.py``: a turn that states a rule (a heading, a prefix, a required or forbidden
text, a link shape, a construct it forbids, a file that must also change) which the previous attempt breaks is a
correction of it, however it is worded. The twin of :mod:`.action_refs` for words. Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..action_models import wrote
from ..checks.judge import rule_check
from .action_refs import ActionLike
from .check_miner import candidate_checks
from .clauses import OPEN_QUOTE, QUOTE_BODY, SPACED
from .held_text import held_text_checks
from .named_files import named_files
from .restated import restatements
from .spans import spans
from .text_checks import files_to_change
from .turns import TurnVerdict

_QUOTED = re.compile(
    rf"`([^`\n]{{3,80}})`|(?<!{SPACED}){OPEN_QUOTE}({QUOTE_BODY}{{3,80}})['\"\u201d\u2019]"
    rf"(?!{SPACED})"
)
# Words by which a turn speaks of the answer before it or of every answer of its kind ("begin
# *it* with", "start *every* summary with", "*toujours*", "*jede* Mail"): a sure request that
# carries one and states a rule the previous answer breaks is a correction of that answer.
_STANDING = re.compile(
    r"\b(?:it|them|this|that|these|those|every|each|all|always|any|whenever|as\s+well|too|also"
    r"|es|sie|jede[rsnm]?|alle|immer|auch|chaque|tou(?:te)?s?|toujours|aussi|cada|todos?|todas?"
    r"|siempre|tambi[eé]n)\b",
    re.IGNORECASE,
)


def quoted_in(text: str, answer: str) -> str | None:
    """The first literal ``text`` quotes that ``answer`` says too (a path with or without its
    trailing slash); None when it quotes none."""
    for match in _QUOTED.finditer(text):
        literal = (match.group(1) or match.group(2)).strip()
        if len(literal.strip("/")) >= 3 and literal.rstrip("/").casefold() in answer.casefold():
            return literal
    return None


def refused_in(text: str, answer: str) -> str | None:
    """The first span ``text`` quotes that the previous ``answer`` says (in any case) and that
    ``text`` names only against ("Please, no "we're sorry for any inconvenience""): a request,
    however it opens, does not refuse what the answer before it said. None when none."""
    said, named = answer.casefold(), spans(text)
    for span in named:
        key = span.text.casefold()
        refused = all(s.against for s in named if s.text.casefold() == key)
        if span.quoted and len(key) >= 3 and key in said and refused:
            return span.text
    return None


def broken_rule(
    text: str, answer: str, actions: Sequence[ActionLike] = (), *, held: bool = True
) -> str | None:
    """A rule ``text`` states that the previous attempt breaks (its answer ``answer``, its
    ``actions``), as people read it; None when it states none or the attempt keeps them all.
    ``held``: also a text check held against the user's example (for turns the rules cannot
    place: a request the rules are sure of keeps its own spans)."""
    if answer:
        for check in candidate_checks(text, (answer,)):
            if not rule_check(check, answer)[0]:
                return check.describe()
        kept = held_text_checks(text, answer, actions) if held else []
        if kept:
            return kept[0].describe()
    changed = [a.path.replace("\\", "/") for a in actions if wrote(a)]
    if changed:  # "document it in X too", or any file named for something, only speaks of an
        # attempt that changed files (and did not change that one)
        for path in [p for p, _ in files_to_change(text)] + named_files(text):
            if not any(p == path or p.endswith("/" + path) for p in changed):
                return f"changes {path}"
    return None


def _written(actions: Sequence[ActionLike]) -> str:
    """What the attempt put in files, where the transcript shows it: it speaks as its answer."""
    return "\n".join(getattr(a, "content", "") for a in actions if wrote(a))


def refine_by_answer(
    verdict: TurnVerdict, text: str, answer: str, actions: Sequence[ActionLike] = ()
) -> TurnVerdict:
    """``verdict``, made a correction when the turn quotes the previous answer (and the rules
    were unsure of it) or states a rule the previous attempt breaks (and the rules were unsure
    of it, or read it as a request that speaks of the answer or of every answer of its kind).
    Praise the rules are sure of by a word it opens with is a correction when it states a rule
    the previous attempt breaks: praise asks for nothing the answer lacks ("Prima linie trebuie
    să înceapă cu `fix(scheduler):`", where "prima" praises in German). A correction or
    follow-up the rules are sure of, and any other praise, stays as it is."""
    if verdict.sure and verdict.kind == "praise" and answer:
        rule = broken_rule(text, answer, actions)
        if rule is not None:
            return TurnVerdict("correction", f"states a rule the previous attempt breaks ({rule})")
    if verdict.sure and verdict.kind != "new_request":
        return verdict
    literal = None if verdict.sure or not answer else quoted_in(text, answer)
    if literal is not None:
        return TurnVerdict("correction", f"quotes the previous answer ({literal!r})")
    wrote = None if verdict.sure else quoted_in(text, _written(actions))
    if wrote is not None:
        return TurnVerdict("correction", f"quotes what the previous attempt wrote ({wrote!r})")
    again = None if verdict.sure or not answer else next(iter(restatements(text, answer)), None)
    if again is not None:
        return TurnVerdict("correction", f"says the previous answer again its own way ({again!r})")
    refused = refused_in(text, answer)
    if refused is not None:
        return TurnVerdict("correction", f"refuses words of the previous answer ({refused!r})")
    if verdict.sure and not _STANDING.search(text):
        return verdict
    rule = broken_rule(text, answer, actions, held=not verdict.sure)
    if rule is None:
        return verdict
    return TurnVerdict("correction", f"states a rule the previous attempt breaks ({rule})")
