"""Corrections in sessions recorded with the real claude and codex: how many land on the request
they correct (feedback, never a task of their own), and how many yield a check -- a rule or an
action check, not a rubric -- that fails on the attempt the user corrected; on the labelled sets,
how many yield the right check and how many a check that contradicts the correction it came from.

    python -m bench.corrections                  # this tree against the baseline revision
    python -m bench.corrections --baseline 4b6d96e --after HEAD --json
    python -m bench.corrections --sets checks5,checks6   # only those sets

Sixteen sets of recorded sessions, each harvested through the CLI into a fresh store by the code of
``--baseline`` (a git revision, extracted to a temporary directory) and by this tree (or the
revision ``--after``), in the same run:
- tests/harvest/conversations.py, the miner's tuning set, 20 checkable corrections;
- tests/harvest/fresh_conversations.py, written afterwards, 20 corrections, 14 of them about what
  the agent did, measured before it led to the changes of revision cd56655;
- tests/harvest/unseen_conversations.py, written after those changes and never tuned on, 12
  corrections, 10 about what the agent did;
- tests/harvest/check_conversations.py, written and recorded before any miner change made with
  it in view (against the miner of 4b6d96e): 36 corrections labelled by hand, 18 about what the
  answer or a file should say and 18 about what the agent did, each with the checks that would be
  right and, for 34, the user's own example as a synthetic attempt; the miner changes 362744b,
  9a68a9d and b4238af were then made with it in view, so its after figures are tuned ones;
- tests/harvest/check_conversations_unseen.py, written while those changes were made and kept
  out of the checkout until they had landed, never tuned on: 14 labelled corrections (7 about
  text, 7 about actions), the held-out estimate for the labelled columns;
- tests/harvest/check_conversations_third.py, written and recorded before the miner was changed
  for it and never tuned on: 18 labelled corrections (9 about text, 9 about actions), worded
  unlike the other sets (reasons first, "we never", questions, corrections split over two
  messages, flags with a value);
- tests/harvest/check_conversations_fourth.py, written and recorded before the miner was changed
  for the scope shape ("never X inside Y", "only in Y") and kept untouched while it was changed:
  18 labelled corrections (9 about text, 9 about actions);
- tests/harvest/check_conversations_fifth.py, written and recorded before the miner change that
  follows a2a942b (checks held against the user's own example, plain-word text corrections,
  slash-command and listing corrections), and kept untouched while it was made: 21 labelled
  corrections (10 about text, 11 about actions), the held-out measure of that change;
- tests/harvest/check_conversations_sixth.py, written and recorded before the miner change of
  e1658f0 (checks that agree with the user's own example, text corrections in plain words,
  slash-command and listing corrections), and kept untouched while it was made: 31 labelled
  corrections (16 about text, 15 about actions, in eight languages), the held-out measure of it;
- tests/harvest/check_conversations_seventh.py, written and recorded while the miner change after
  7eecce5 was made, and kept from it: 22 labelled corrections (11 about text, 11 about actions, in
  nine languages), the held-out measure of that change.
- tests/harvest/check_conversations_eighth.py, written and recorded while the miner change after
  942032c was made, and kept from it: 16 labelled corrections (8 about text, 8 about actions, in
  eight languages), the held-out measure of that change.
- tests/harvest/check_conversations_ninth.py, written and recorded while the miner change after
  ba9759c was made, and kept from it: 20 labelled corrections (10 about text, 10 about actions, in
  ten languages), the held-out measure of that change.
- tests/harvest/check_conversations_tenth.py, written and recorded after the miner change of
  ba9759c..f4fdf2d, never tuned on: 16 labelled corrections (8 about text, 8 about actions).
- tests/harvest/check_conversations_eleventh.py, written and recorded while the miner change after
  4425286 was made, and kept from it: 20 labelled corrections (10 about text, 10 about actions).
- tests/harvest/check_conversations_twelfth.py, written and recorded while the miner change after
  c053156 was made, and kept from it: 22 labelled corrections (11 about text, 11 about actions).
- tests/harvest/check_conversations_thirteenth.py, written and recorded while the miner change after
  c8c0ebc was made, and kept from it: 22 labelled corrections (11 about text, 11 about actions).

Columns: attached (on their request), became tasks, with a mined rule check, with a mined action
check, with a check that fails on the corrected attempt (goal: at least 8 of 20), and on labelled
sets: with a correct check (the labelled kind, catching the labelled value, and passing on the
user's example) and with a contradicting check: one that fails on the user's own example when the
package judges it there (a rule check needs the example's answer, an action check its actions).
Goal for contradictions: 0. ``--json`` adds each labelled correction's mined checks.
A ``never_ran`` check that forbids a command the label says the user asked to run is a
contradiction, never the correct check, even where the example does not spell that command out
(scoring changed after 188095b; no count of any set moved: every such command is in its example).

Measured (``python -m bench.corrections``, baseline fff2e10): the tuning set 20/20 attached and
20/20 with a check, before and after; the fresh set 13/20 attached (7 became tasks) and 10/20 with
a check before, 17/20 attached and 14/20 with a check after (see fresh_conversations.py for why
the after figure is no longer a held-out one); the unseen set 10/12 attached and 10/12 with a
check before, 11/12 and 11/12 after (its one miss: "Start it with 'fix:' like every commit here."
is read as a new request).

Measured (``python -m bench.corrections --baseline 4b6d96e --after b4238af``): before, the
labelled set 19/36 attached (17 became tasks: 15 of the 18 about text, 2 of the 4 after a slash
command, all 3 scope corrections after a listing), 5 with a rule check, 16 with an action check,
17 with a failing check, 16 with a correct check (1 of 18 about
text, 15 of 18 about actions), and 9 with a contradicting check (12 checks: ``never_ran python3``
beside ``python3 -m pytest -q``, ``untouched build`` where the user allowed wiping build/,
``never_read logs/worker.log`` beside the user's own ``tail -n 50 logs/worker.log``, ...).
After (``--after b4238af``, tuned on it): 36/36 attached, 22 with a rule check, 19 with an action
check, 36 with a failing check, 34 correct, 0 contradicting. The held-out labelled set, before and
after: 8/14 and 10/14 attached (text 1/7 and 3/7), 8 and 10 with a failing check, 8 and 9 with a
correct check, 5 and 1 with a contradicting check. The tuning, fresh and unseen sets did not move
(fresh: 15/20 with a failing check after, 14 before).

Measured (``python -m bench.corrections --baseline c8c4633 --after af4aac6``: a correction that
states a rule the previous attempt breaks lands on its request; a flag named with a value is
never forbidden), before and after: the 36-set unchanged (36/36 attached, 34 correct, 0
contradicting); the held-out 14-set 10 -> 14 attached, 10 -> 14 with a failing check, 9 -> 12
correct, 1 -> 0 contradicting; the third set (check_conversations_third.py, not tuned on, but
three of its shapes were known to the change's author) 8 -> 14 attached, 6 -> 14 with a failing
check, 3 -> 9 correct, 2 -> 1 contradicting (without those three shapes: 11, 10, 6, 1); the
unseen set 11 -> 12 attached; tuning and fresh unchanged.

Measured (``python -m bench.corrections --baseline f4b38d2 --after 32fb774``: a scope correction's
example is the corrected command kept to the scope; a path the user keeps the work in is never a
command never to run; a check is limited to the path put out of bounds), made on the third set's
one contradiction with the fourth set untouched: the fourth set 2 -> 1 contradicting (its
``never_ran lib/`` from "only `lib/` counts" gone), 8 -> 8 correct; the third set 1 -> 0
contradicting, 9 -> 10 correct; every other set unchanged. Then 7664851 (a command the correction
quotes back as the attempt ran it is what the user objects to), made with the fourth set's last
contradiction in view (``never_ran git commit`` from "`git add -A` mete también los logs"), so no
longer an untouched figure: fourth set 1 -> 0 contradicting, 8 -> 9 correct; the others unchanged.

Measured on the fifth set before the change it measures (``python -m bench.corrections
--baseline a2a942b --after a2a942b --json``): 16 of 21 attached, 5 became tasks (the line limit,
the character limit split over two messages, the French and Spanish command corrections, the
action after a slash command), 3 with a rule check, 6 with an action check, 8 with a failing
check, 8 correct (3 of 10 about text, 5 of 11 about actions), 1 contradicting (``never_ran
license`` from "Never rewrite anything inside `fixtures/` ... LICENSE alone was right.").
After the miner changes 2cf848a, a062b05 and ad3da84, made while this set stayed untouched
(``python -m bench.corrections --baseline a2a942b --after 93e17f8 --json``): 16 of 21 attached,
5 became tasks, 3 with a rule check, 6 with an action check, 8 with a failing check, 8 correct, 0
contradicting (the ``never_ran`` is narrowed to ``LICENSE ... fixtures``). The fourth set, used
while making them, went 9 -> 16 with a failing check and 9 -> 16 correct in the same run.

Measured on the sixth set before the change it measures (``python -m bench.corrections
--baseline e1658f0 --after e1658f0 --json``): 21 of 31 attached, 10 became tasks (7 of the 16
about text: the relative link and the push length in Portuguese, the word limit in Italian, the
closing line in Spanish, no emoji in French, the vendor's casing, the closing line after a slash
command; 3 of the 15 about actions: "only in `tmp/logs/`" in Japanese, "nothing in `generated/`"
in Italian, the log to tail in Portuguese), 3 with a rule check, 10 with an action check, 11 with
a failing check, 11 correct (1 of 16 about text, 10 of 15 about actions), 2 contradicting
(``starts_with 'Oops'`` from "... none of them starts with 'Oops'."; ``untouched
'package-lock.json'`` beside the user's own ``npm install --package-lock-only``, which rewrites
it). The praise "Obrigado, assim já abre no preview." became a task there (it follows the
relative-link correction, itself a task); the praise after the two uncorrected requests did not.
After the miner work made while this set stayed untouched (``python -m bench.corrections
--baseline e1658f0 --after a6ea199 --json``): 28 of 31 attached, 3 became tasks (the word limit
in Italian, the push length in Portuguese, "only in `tmp/logs/`" in Japanese), 12 with a rule
check, 13 with an action check, 23 with a failing check, 20 correct (8 of 16 text, 12 of 15
actions), 3 contradicting with 5 checks (``starts_with 'Oops'`` and ``contains 'Oops'``;
``never_ran ruff`` and ``ran make codegen`` beside the user's own ``ruff check --fix app/``;
``untouched 'package-lock.json'``). The praise "Obrigado, assim já abre no preview." is still a
task of its own, though the correction before it now attaches.

Measured on the seventh set before the change it measures (``python -m bench.corrections
--baseline 7eecce5 --after 7eecce5 --sets checks7 --json``): 20 of 22 attached, 2 became tasks
(the relative link in Korean, "no bullet ends with a full stop" in German), 8 with a rule check,
11 with an action check, 18 with a failing check, 14 correct (6 of 11 text, 8 of 11 actions), 5
contradicting with 6 checks (``starts_with 'Don'`` and ``starts_with 'Image of'`` from "may not
begin with" rules; ``never_ran gofmt`` beside the user's own ``gofmt -l .``; ``untouched
logs/app.log`` and ``never_ran logs/app.log`` beside ``truncate -s 0 logs/app.log``; ``ran make
apidocs``, named as where files come from). The praise "¡Genial, ya arranca desde cron!" became a
task of its own; the praise after two uncorrected requests did not.

After the miner change made while this set was kept from it, its held-out figure
(``python -m bench.corrections --baseline 7eecce5 --after 942032c --sets checks7``): 20 of 22
attached, 2 became tasks, 8 with a rule check, 12 with an action check, 20 with a failing check,
17 correct, 4 contradicting (``starts_with 'Don'``, ``never_ran logs/app.log`` beside the user's
``truncate``, ``ran make apidocs``, and a listing left out in Italian held as the whole command).
The next miner change (942032c to 9daf906) was then made with this set as its development data,
so these are tuned figures, not held-out ones (``--after 9daf906``): 22 of 22 attached, 0 became tasks,
10 with a rule check, 12 with an action check, 22 with a failing check, 22 correct (11 of 11
text, 11 of 11 actions), 0 contradicting. Gained: the Korean relative link and the German full
stops now attach with a right check; the shebang, "may not begin with" (twice), ``truncate``
beside "never delete", ``make apidocs`` and the Italian listing now carry the right check and
no contradicting one. None lost. The praise "¡Genial, ya arranca desde cron!" is still a task of
its own.

Measured on the eighth set before the change it measures (``python -m bench.corrections
--baseline 942032c --after 942032c --sets checks8 --json``): 12 of 16 attached, 4 became tasks (all
about text), 3 with a rule check, 7 with an action check, 10 with a failing check, 9 correct (3 of
8 text, 6 of 8 actions), 3 contradicting with 4 checks (all about actions).

After the miner work made while this set was kept from it (``python -m bench.corrections
--baseline 942032c --after 9daf906 --sets checks8 --json``): 12 of 16 attached, 4 became tasks, 3
with a rule check, 7 with an action check, 10 with a failing check, 9 correct (3 of 8 text, 6 of 8
actions), 1 contradicting with 2 checks (``never_ran pytest`` and ``never_ran -n`` beside the
user's own ``pytest -n 2``, from "`-n auto` はやめて"). Before it the contradictions were those two
and ``never_ran var/sessions.db`` beside the user's own ``sqlite3 var/sessions.db 'DELETE FROM
sessions;'`` (now ``ran`` of that command), and ``never_ran -f`` beside the user's own ``helm
upgrade ... -f values/staging.yaml`` (now ``never_ran apply -f``, plus ``ran helm upgrade ...``).
The 4 that became tasks, before and after: the relative link in Turkish, the apology phrase in
quotes with an apostrophe, the SMS limit in Swedish, the text correction after the slash command
``/announce``; the 2 with no check: the command named as what CI runs (``npm run lint:strict``)
and the leave-out in Czech after a listing. The praise in Polish after a corrected request and
the praise after two uncorrected requests (Swedish, Turkish) never became tasks.

Measured on the ninth set before the change it measures (``python -m bench.corrections
--baseline ba9759c --after ba9759c --sets checks9 --json``): 15 of 20 attached, 5 became tasks, 7
with a rule check, 7 with an action check, 14 with a failing check, 12 correct (5 of 10 text, 7 of
10 actions), 3 contradicting with 3 checks (2 text, 1 action).

After the miner work kept from it (``python -m bench.corrections --baseline ba9759c --after 800ae7b
--sets checks9 --json``): 15 of 20 attached, 5 became tasks, 7 with a rule check, 8 with an action
check, 15 with a failing check, 12 correct, 4 contradicting with 4 checks: ``not_contains
'docs/install.md'`` (a relative link asked for in Vietnamese), ``contains 'терміново'`` (a word to
leave out, in Ukrainian after a slash command), ``never_ran logs/worker.log`` (beside the user's
own ``: > logs/worker.log``), and, new, ``ran find .venv build -name '*.py'`` (a leave-out in Danish
after a listing). See check_conversations_ninth.py for the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TypedDict

from bench.revision import REPO, extract

# name: (module, its scenarios, their recorded fixtures, the module's labels or "" for none)
SETS = {
    "tuning": ("tests.harvest.conversations", "SESSIONS", "tests/fixtures/conversations", ""),
    "fresh": (
        "tests.harvest.fresh_conversations",
        "FRESH_SESSIONS",
        "tests/fixtures/conversations_fresh",
        "",
    ),
    "unseen": (
        "tests.harvest.unseen_conversations",
        "UNSEEN_SESSIONS",
        "tests/fixtures/conversations_unseen",
        "",
    ),
    "checks": (
        "tests.harvest.check_conversations",
        "CHECK_SESSIONS",
        "tests/fixtures/conversations_checks",
        "CHECK_LABELS",
    ),
    "checks2": (
        "tests.harvest.check_conversations_unseen",
        "CHECK_UNSEEN_SESSIONS",
        "tests/fixtures/conversations_checks_unseen",
        "CHECK_UNSEEN_LABELS",
    ),
    "checks3": (
        "tests.harvest.check_conversations_third",
        "CHECK_THIRD_SESSIONS",
        "tests/fixtures/conversations_checks_third",
        "CHECK_THIRD_LABELS",
    ),
    "checks4": (
        "tests.harvest.check_conversations_fourth",
        "CHECK_FOURTH_SESSIONS",
        "tests/fixtures/conversations_checks_fourth",
        "CHECK_FOURTH_LABELS",
    ),
    "checks5": (
        "tests.harvest.check_conversations_fifth",
        "CHECK_FIFTH_SESSIONS",
        "tests/fixtures/conversations_checks_fifth",
        "CHECK_FIFTH_LABELS",
    ),
    "checks6": (
        "tests.harvest.check_conversations_sixth",
        "CHECK_SIXTH_SESSIONS",
        "tests/fixtures/conversations_checks_sixth",
        "CHECK_SIXTH_LABELS",
    ),
    "checks7": (
        "tests.harvest.check_conversations_seventh",
        "CHECK_SEVENTH_SESSIONS",
        "tests/fixtures/conversations_checks_seventh",
        "CHECK_SEVENTH_LABELS",
    ),
    "checks8": (
        "tests.harvest.check_conversations_eighth",
        "CHECK_EIGHTH_SESSIONS",
        "tests/fixtures/conversations_checks_eighth",
        "CHECK_EIGHTH_LABELS",
    ),
    "checks9": (
        "tests.harvest.check_conversations_ninth",
        "CHECK_NINTH_SESSIONS",
        "tests/fixtures/conversations_checks_ninth",
        "CHECK_NINTH_LABELS",
    ),
    "checks10": (
        "tests.harvest.check_conversations_tenth",
        "CHECK_TENTH_SESSIONS",
        "tests/fixtures/conversations_checks_tenth",
        "CHECK_TENTH_LABELS",
    ),
    "checks11": (
        "tests.harvest.check_conversations_eleventh",
        "CHECK_ELEVENTH_SESSIONS",
        "tests/fixtures/conversations_checks_eleventh",
        "CHECK_ELEVENTH_LABELS",
    ),
    "checks12": (
        "tests.harvest.check_conversations_twelfth",
        "CHECK_TWELFTH_SESSIONS",
        "tests/fixtures/conversations_checks_twelfth",
        "CHECK_TWELFTH_LABELS",
    ),
    "checks13": (
        "tests.harvest.check_conversations_thirteenth",
        "CHECK_THIRTEENTH_SESSIONS",
        "tests/fixtures/conversations_checks_thirteenth",
        "CHECK_THIRTEENTH_LABELS",
    ),
}
_TEXT_KINDS = frozenset({"contains", "not_contains", "starts_with", "equals", "heading"})


class Counted(TypedDict):
    """One set's corrections: how many attached to their request or became tasks; how many got a
    rule check, an action check, a check that fails on the corrected attempt; and, where the set
    is labelled, how many got a correct check and how many a check that fails on the user's own
    example (a contradiction), with a line for each miss and each contradiction."""

    corrections: int
    attached: int
    became_tasks: int
    with_rule_check: int
    with_action_check: int
    with_check: int
    labelled: int
    correct: int | None
    with_example: int
    contradicting: int | None
    contradicting_checks: int | None
    by_about: dict[str, dict[str, int]]
    missed: list[str]
    wrong: list[str]
    cases: list[dict[str, Any]]


def _example_actions(example: Any) -> list[Any]:
    """The labelled example's actions, as the package of this run models them."""
    from skillopt_sleep.models import Action

    return [
        *(Action(kind="command", command=c, exit_code=0) for c in example.commands),
        *(Action(kind="read", path=p) for p in example.reads),
        *(Action(kind="write", path=p, content=t) for p, t in example.writes),
        *(Action(kind="delete", path=p) for p in example.deletes),
    ]


def _judged(check: Any, answer: str, actions: list[Any]) -> bool | None:
    """Whether ``check`` passes on an attempt, by the package's own judging; None when it cannot
    be judged there (a rubric, a rule check without an answer, an action check without actions)."""
    from skillopt_sleep.checks.judge import rule_check

    try:
        from skillopt_sleep.action_models import ACTION_KINDS
        from skillopt_sleep.checks.action_judge import action_check, recorded
    except ImportError:  # a revision before action checks
        ACTION_KINDS = frozenset()
    if check.kind == "rubric":
        return None
    if check.kind in ACTION_KINDS:
        if not actions:
            return None
        result = action_check(check, recorded(actions), answer)
        return None if result is None else result[0]
    return rule_check(check, answer)[0] if answer else None


def _plain(text: object) -> str:
    return str(text).strip().strip("`'\"").lstrip("#").strip().rstrip("/").lower()


def _agrees(check: Any, want: Any) -> bool:
    """Whether a mined check is the labelled one: the same kind, catching the labelled value."""
    from skillopt_sleep.checks.action_judge import glob_match

    if check.kind != want.kind:
        return False
    kind, value, key = check.kind, check.value, want.value
    if kind in ("ran", "never_ran", "regex"):
        flags = 0 if check.case_sensitive else re.IGNORECASE
        return re.search(str(value), str(key), flags) is not None
    if kind in ("changed", "untouched", "never_read"):
        return glob_match(str(value), str(key)) or glob_match(str(key), str(value))
    if kind in ("file_contains", "file_not_contains"):
        where = glob_match(str(check.path), str(want.path)) or glob_match(
            str(want.path), str(check.path)
        )
        return where and (key is None or re.search(str(value), str(key)) is not None)
    if kind in _TEXT_KINDS:
        a, b = _plain(value), _plain(key)
        return a == b or (min(len(a), len(b)) >= 4 and (a in b or b in a))
    return kind == "json_valid" or bool(value == key)


def _forbids_asked(check: Any, label: Any) -> bool:
    """Whether ``check`` fails on an attempt that runs a command the label says the user asked
    for: the user's own command, even where the labelled example does not spell it out."""
    asked = [str(w.value) for w in label.checks if w.kind == "ran"]
    if check.kind != "never_ran" or not asked:
        return False
    from skillopt_sleep.models import Action

    attempts = ([Action(kind="command", command=c, exit_code=0)] for c in asked)
    return any(_judged(check, "", actions) is False for actions in attempts)


def _tally(task: Any, label: Any, row: dict[str, int], wrong: list[str]) -> dict[str, Any]:
    """Count a labelled correction's correct and contradicting checks into ``row``; the case as
    the JSON output shows it. A check that fails on the user's example, or forbids a command the
    user asked for, is a contradiction and never the correct check."""
    example = label.example
    answer, actions = (example.answer, _example_actions(example)) if example else ("", [])
    correct = False
    against: list[str] = []
    for check in task.checks:
        passes = _judged(check, answer, actions) if example else None
        if passes is not False and _forbids_asked(check, label):
            passes = False
        if passes is False:
            against.append(_said(check))
            wrong.append(f"{label.correction}  ->  {_said(check)}")
        if passes is not False and any(_agrees(check, w) for w in label.checks):
            correct = True
    row["correct"] += correct
    row["contradicting"] += bool(against)
    row["contradicting_checks"] += len(against)
    return {**_case(label, True), "checks": [_said(c) for c in task.checks], "correct": correct}


def _said(check: Any) -> str:
    where = f" in {check.path}" if check.path else ""
    return f"{check.kind} {check.value!r}{where}"


def _case(label: Any, attached: bool) -> dict[str, Any]:
    return {"correction": label.correction, "about": label.about, "attached": attached}


def _harvest(fixtures: Path) -> list[Any]:
    """The tasks a fresh store holds after harvesting ``fixtures`` through the CLI."""
    import io
    import shutil

    from skillopt_sleep.cli import main
    from skillopt_sleep.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "agents"
        shutil.copytree(fixtures, home)
        env = {
            "HOME": str(home),
            "CODEX_HOME": str(home / ".codex"),
            "SKILLOPT_SLEEP_HOME": str(Path(tmp) / "sleep"),
        }
        out = io.StringIO()
        argv = ["harvest", "--all-projects", "--since", "2020-01-01", "--json"]
        code = main(argv, env=env, stdout=out, stderr=io.StringIO(), cwd=Path(tmp))
        if code != 0:
            raise SystemExit(f"harvest failed with exit {code}")
        tasks: list[Any] = Store.open(
            Path(tmp) / "sleep" / "data" / "skillopt-sleep.db"
        ).list_tasks()
    return tasks


def count(module: str, name: str, fixtures: Path, labels: str = "") -> Counted:
    """Harvest ``fixtures`` into a fresh store; count what became of the corrections of the
    scenarios in ``module.name``, judged against ``module.labels`` when the set has labels."""
    import importlib

    loaded = importlib.import_module(module)
    by_text = {label.correction: label for label in getattr(loaded, labels)} if labels else {}
    tasks = _harvest(fixtures)
    intents = {t.intent for t in tasks}
    keys = ("corrections", "attached", "correct", "contradicting", "contradicting_checks")
    rows = {about: dict.fromkeys(keys, 0) for about in ("all", "text", "action")}
    became_task = rule = action = failing = with_example = 0
    missed: list[str] = []
    wrong: list[str] = []
    cases: list[dict[str, Any]] = []
    for scenario in getattr(loaded, name):
        for step in scenario.steps:
            if step.kind != "correction" or not step.checkable:
                continue
            label = by_text.get(step.prompt)
            row = rows[label.about] if label else rows["all"]  # "all" is summed below
            row["corrections"] += 1
            with_example += label is not None and label.example is not None
            home_task = next(
                (t for t in tasks if any(n.text == step.prompt for n in t.turns)), None
            )
            became_task += step.prompt in intents
            if home_task is None or step.prompt in intents:
                missed.append(f"not attached: {step.prompt}")
                cases.extend([_case(label, False)] if label else [])
                continue
            row["attached"] += 1
            mined = [c for c in home_task.checks if c.kind != "rubric"]
            rule += any(not _is_action(c) for c in mined)
            action += any(_is_action(c) for c in mined)
            fails = [_judged(c, home_task.attempt, _recorded(home_task)) is False for c in mined]
            if any(fails):
                failing += 1
            else:
                missed.append(f"no check: {step.prompt}")
            if label is not None:
                cases.append(_tally(home_task, label, row, wrong))
    for about in ("text", "action"):
        for key in keys:
            rows["all"][key] += rows[about][key]
    return {
        "corrections": rows["all"]["corrections"],
        "attached": rows["all"]["attached"],
        "became_tasks": became_task,
        "with_rule_check": rule,
        "with_action_check": action,
        "with_check": failing,
        "labelled": len(by_text),
        "correct": rows["all"]["correct"] if by_text else None,
        "with_example": with_example,
        "contradicting": rows["all"]["contradicting"] if by_text else None,
        "contradicting_checks": rows["all"]["contradicting_checks"] if by_text else None,
        "by_about": {a: rows[a] for a in ("text", "action")} if by_text else {},
        "missed": missed,
        "wrong": wrong,
        "cases": cases,
    }


def _is_action(check: Any) -> bool:
    try:
        from skillopt_sleep.action_models import ACTION_KINDS
    except ImportError:  # a revision before action checks
        return False
    return check.kind in ACTION_KINDS


def _recorded(task: Any) -> list[Any]:
    """The recorded attempt's actions (a revision before actions has none)."""
    return list(getattr(task, "actions", []))


def measure(code_root: Path, names: tuple[str, ...] = tuple(SETS)) -> dict[str, Counted]:
    """The sets ``names`` counted by the package under ``code_root``, in a child process."""
    script = (
        "import json, sys\n"
        "from bench.corrections import SETS, count\n"
        "from pathlib import Path\n"
        f"print(json.dumps({{k: count(m, n, Path({str(REPO)!r}) / f, lab) "
        f"for k, (m, n, f, lab) in SETS.items() if k in {names!r}}}))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": f"{code_root}{os.pathsep}{REPO}",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-P", "-c", script],  # -P: not the working directory's package
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"measuring with {code_root} failed:\n{done.stderr[-2000:]}")
    counted: dict[str, Counted] = json.loads(done.stdout.strip().splitlines()[-1])
    return counted


_COLUMNS = (
    ("attached", "attached"),
    ("tasks", "became_tasks"),
    ("rule", "with_rule_check"),
    ("action", "with_action_check"),
    ("failing", "with_check"),
    ("correct", "correct"),
    ("contra", "contradicting"),
)


def table(result: dict[str, dict[str, Counted]]) -> list[str]:
    """The readable table: a row per set and code, a column per count (of the corrections)."""
    head = f"{'set':<8} {'code':<9} {'of':>3}" + "".join(f" {h:>8}" for h, _ in _COLUMNS)
    lines = [head, "-" * len(head)]
    for name in next(iter(result.values())):
        for code in result:
            r = result[code][name]
            cells = "".join(
                f" {'-' if r[key] is None else r[key]:>8}"  # type: ignore[literal-required]
                for _, key in _COLUMNS
            )
            lines.append(f"{name:<8} {code:<9} {r['corrections']:>3}{cells}")
    lines.append(
        "attached: on their request; tasks: became tasks of their own; rule / action: with a "
        "mined rule / action check; failing: with a check that fails on the corrected attempt; "
        "correct: with the labelled check; contra: with a check that fails on the user's own "
        "example (goal 0)"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="fff2e10", help="git revision to compare against")
    parser.add_argument(
        "--after", default="", help="a git revision to measure instead of the working tree"
    )
    parser.add_argument(
        "--sets",
        default=",".join(SETS),
        help=f"the sets to measure, comma-separated (default all: {','.join(SETS)})",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    names = tuple(n.strip() for n in args.sets.split(",") if n.strip())
    unknown = [n for n in names if n not in SETS]
    if unknown or not names:
        parser.error(f"--sets: unknown set {', '.join(unknown)}; choose from {', '.join(SETS)}")
    after = args.after or "this tree"
    with tempfile.TemporaryDirectory() as tmp:
        result = {"baseline": measure(extract(args.baseline, Path(tmp) / "before"), names)}
        result[after] = measure(
            extract(args.after, Path(tmp) / "after") if args.after else REPO, names
        )
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    print(f"baseline: {args.baseline}")
    print("\n".join(table(result)))
    for name in names:
        counted = result[after][name]
        if counted["missed"] or counted["wrong"]:
            print(f"\n{name}, {after}:")
        for line in counted["missed"]:
            print(f"    {line}")
        for line in counted["wrong"]:
            print(f"    contradicts: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
