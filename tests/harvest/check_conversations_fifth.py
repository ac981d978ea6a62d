"""A fifth labelled set of corrections recorded with the real ``claude`` and ``codex``, written and
recorded before the miner change that follows a2a942b (checks that agree with the user's own
example, text corrections in plain words, slash-command and listing corrections) and kept
untouched while it was made: 21 corrections (10 of what the answer or a file should say, 11 of
what the agent did), in English, German, French, Spanish and Japanese, new wordings: a heading
entries go under, a page every new variable must be listed on, repository paths instead of full
links, a limit in lines and one in characters, a merge-request reference format, a required last
line and first line, no emoji, a product name spelled one way; the command to use instead (where
a forbidden command is a prefix or a part of the right one: ``--force`` beside
``--force-with-lease``, ``pip`` inside ``uv pip compile``, ``FLUSHALL`` beside ``redis-cli``),
"never inside", "only under", "nothing in", a bare folder, a listing, a slash-command request done
with a command, corrections split over two messages, and praise that is not a correction.

Labelled like ``check_conversations.py``: where it lands, the right checks, the user's own
example as a synthetic attempt (a check failing on it contradicts the correction).

Measured before the change it measures (``python -m bench.corrections --baseline a2a942b --after
a2a942b --json``): 16 of 21 attached (5 became tasks), 3 with a rule check, 6 with an action check,
8 with a failing check, 8 correct (3 of 10 text, 5 of 11 actions), 1 contradicting
(``never_ran license`` from "... LICENSE alone was right."). The praise "Good, five lines reads
much better." became a task of its own there (it follows the line-limit correction, itself a task).

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_fifth tests/fixtures/conversations_checks_fifth
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from skillopt_sleep.testing.replies import Text

from .check_conversations import Example, Label, Want, _patched, _slash, record_with_files
from .check_conversations_third import _labelled, _split_acted
from .conversations import Scenario, Step
from .fresh_conversations import _acted, _praise, _run, _said

CHECKS_FIFTH = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_fifth"

FIFTH_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash5": {
        ".claude/commands/relnotes.md": "---\ndescription: Release notes\n---\n"
        "Add release notes for these changes: $ARGUMENTS\n",
        ".claude/commands/tidy.md": "---\ndescription: Tidy up\n---\n"
        "Remove the build leftovers from this project.\n",
        "out/app.bin": "binary\n",
        "scratch.md": "my notes\n",
    },
    "cobalt": {
        "LICENSE": "Copyright (c) 2025 Acme\n",
        "fixtures/expected_report.txt": "Report generated 2025\n",
        "crates/core/src/lib.rs": "pub fn core() {}\n",
        "external/zlib/src/lib.rs": "pub fn z() {}\n",
        "target/debug/build/out.rs": "fn main() {}\n",
    },
    "nickel": {
        "assets/old/banner.png": "png\n",
        "brand/logo.png": "png\n",
        "data/events.ndjson": '{"e": 1}\n{"e": 2}\n{"e": 3}\n',
        "services/billing/charge.py": "card_number = mask(card_number)\n",
        "services/search/index.py": "card_number = None\n",
    },
}

_WHATS_NEW = (
    "What's new in 3.4:\n- Faster sync\n- Dark mode on iPad\n- Offline search\n"
    "- New share sheet\n- Fixed the login loop\n- Fixed crashes on iOS 17\n- Smaller download"
)
_FIVE_LINES = (
    "What's new in 3.4:\n- Faster sync\n- Dark mode on iPad\n- Offline search\n- Many fixes"
)
_SUBJECT = (
    "Add exponential backoff with jitter to the HTTP client retry loop and make the maximum "
    "number of attempts configurable"
)
_SED_BOTH = "sed -i 's/2025/2026/' LICENSE fixtures/expected_report.txt"
_RM_BOTH = "rm -f assets/old/*.png brand/*.png"


def _slash_acted(
    project: str, request: str, bad: tuple[str, str], correction: str, good: tuple[str, str]
) -> Scenario:
    """A claude slash-command request (the project's ``.claude/commands``) done with a command."""
    steps = (
        Step(request, _run("claude", *bad), "new"),
        Step(correction, _run("claude", *good), "resume", "correction", checkable=True),
    )
    return Scenario(request[:28], "claude", project, steps)


def _split_said(
    agent: str, project: str, request: str, bad: str, first: str, second: str, good: str
) -> Scenario:
    """A request answered in words, corrected in two messages (``first`` only says it is wrong)."""
    steps = (
        Step(request, (Text(bad),), "new"),
        Step(first, (Text("Sorry, what would you like instead?"),), "resume", "correction"),
        Step(second, (Text(good),), "resume", "correction", checkable=True),
    )
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


_TEXT_CASES = (
    _labelled(
        _slash(
            "slash5",
            "/relnotes dark mode, faster search",
            "## v5.1.0\n- Added dark mode\n- Faster search",
            "Wrong spot: those lines belong in the `## Upcoming` block, we never open a heading "
            "per version ourselves.",
            "## Upcoming\n- Added dark mode\n- Faster search",
        ),
        "text",
        Want("heading", "Upcoming"),
        Want("not_contains", "## v5.1.0"),
        example=Example(answer="## Upcoming\n- Added dark mode\n- Faster search"),
    ),
    _labelled(
        _patched(
            "zinc",
            "Support a `TIMEOUT_SECONDS` environment variable in the client.",
            (
                "src/client.py",
                'TIMEOUT = int(os.environ.get("TIMEOUT_SECONDS", "30"))\n',
                "The client reads TIMEOUT_SECONDS now.",
            ),
            "Whenever you read a new env var, list it in `docs/environment.md`; ops build their "
            "deploy manifests from that page.",
            (
                "docs/environment.md",
                "TIMEOUT_SECONDS: seconds before a request gives up (default 30)\n",
                "Listed in docs/environment.md.",
            ),
        ),
        "text",
        Want("changed", "docs/environment.md"),
        Want("file_contains", "TIMEOUT_SECONDS", "docs/environment.md"),
        example=Example(
            writes=(
                ("src/client.py", 'TIMEOUT = int(os.environ.get("TIMEOUT_SECONDS", "30"))\n'),
                ("docs/environment.md", "TIMEOUT_SECONDS: seconds before a request gives up\n"),
            )
        ),
    ),
    _labelled(
        _said(
            "claude",
            "zinc",
            "Point the FAQ at the troubleshooting page.",
            "See [Troubleshooting](https://github.com/acme/widget/blob/main/docs/"
            "troubleshooting.md).",
            "Please don't hardcode github.com in our markdown; a path like "
            "`../troubleshooting.md` keeps working in the offline docs build.",
            "See [Troubleshooting](../troubleshooting.md).",
            _praise("claude", "Nice, that one renders in the offline build too."),
        ),
        "text",
        Want("not_contains", "https://github.com"),
        Want("contains", "../troubleshooting.md"),
        example=Example(answer="See [Troubleshooting](../troubleshooting.md)."),
    ),
    _labelled(
        _said(
            "codex",
            "tin",
            "Write the App Store 'What's New' text for 3.4.",
            _WHATS_NEW,
            "The store shows five lines before it folds the rest under 'more', so five lines "
            "at most.",
            _FIVE_LINES,
            _praise("codex", "Good, five lines reads much better."),
        ),
        "text",
        Want("regex", _FIVE_LINES),
        example=Example(answer=_FIVE_LINES),
    ),
    _labelled(
        _said(
            "claude",
            "tin",
            "Summarise what I merged this week.",
            "- MR 412: faster search\n- MR 415: dark mode",
            "GitLab only turns `!412` into a link; 'MR 412' stays plain text, so write them "
            "that way.",
            "- !412: faster search\n- !415: dark mode",
        ),
        "text",
        Want("contains", "!412"),
        Want("not_contains", "MR 412"),
        example=Example(answer="- !412: faster search\n- !415: dark mode"),
    ),
    _labelled(
        _said(
            "codex",
            "iron",
            "Write the summary for the docs change.",
            "Reworded the quickstart and fixed two broken links.",
            "The docs bot rejects any summary that doesn't have `Reviewed-by: docs-team` as its "
            "final line.",
            "Reworded the quickstart and fixed two broken links.\nReviewed-by: docs-team",
        ),
        "text",
        Want("contains", "Reviewed-by: docs-team"),
        Want("regex", "Reviewed-by: docs-team"),
        example=Example(
            answer="Reworded the quickstart and fixed two broken links.\nReviewed-by: docs-team"
        ),
    ),
    _labelled(
        _said(
            "claude",
            "iron",
            "新機能のお知らせ文を書いてください。",
            "🚀 新しい検索機能をリリースしました！🎉 ぜひお試しください。",
            "絵文字は入れないでください。社内のチャットツールでは文字化けします。",
            "新しい検索機能をリリースしました。ぜひお試しください。",
        ),
        "text",
        Want("not_contains", "🚀"),
        Want("not_contains", "🎉"),
        example=Example(answer="新しい検索機能をリリースしました。ぜひお試しください。"),
    ),
    _labelled(
        _said(
            "codex",
            "copper",
            "Write the onboarding blurb for the data team.",
            "Welcome! Data Hub is where every dashboard lives.",
            "It's `DataHub`, one word with a capital H; 'Data Hub' is the competitor's product.",
            "Welcome! DataHub is where every dashboard lives.",
        ),
        "text",
        Want("contains", "DataHub"),
        Want("not_contains", "Data Hub"),
        example=Example(answer="Welcome! DataHub is where every dashboard lives."),
    ),
    _labelled(
        _split_said(
            "claude",
            "copper",
            "Give me a commit subject for the retry change.",
            _SUBJECT,
            "Way too long.",
            "Fifty characters is the cap for a subject line in this repo.",
            "Add jittered backoff to HTTP retries",
        ),
        "text",
        Want("max_chars", 50),
        example=Example(answer="Add jittered backoff to HTTP retries"),
    ),
    _labelled(
        _said(
            "codex",
            "argon",
            "Schreib ein Status-Update zur Datenbankmigration.",
            "Die Migration läuft, etwa die Hälfte der Tabellen ist umgezogen.",
            "Jedes Update muss mit `Stand:` anfangen, gefolgt vom Datum, danach sortiert unser "
            "Wiki.",
            "Stand: 26.11.2026 – Die Migration läuft, etwa die Hälfte der Tabellen ist umgezogen.",
        ),
        "text",
        Want("starts_with", "Stand:"),
        example=Example(
            answer="Stand: 26.11.2026 – Die Migration läuft, etwa die Hälfte der Tabellen ist "
            "umgezogen."
        ),
    ),
)

_ACTION_CASES = (
    _labelled(
        _acted(
            "claude",
            "argon",
            "Refresh the pinned requirements.",
            ("pip freeze > requirements.txt", "Pinned the venv into requirements."),
            "We don't freeze the venv; the pins come from "
            "`uv pip compile requirements.in -o requirements.txt`.",
            ("echo 'Resolved 14 packages'", "Pinned with uv pip compile."),
        ),
        "action",
        Want("ran", "uv pip compile requirements.in -o requirements.txt"),
        Want("never_ran", "pip freeze"),
        example=Example(commands=("uv pip compile requirements.in -o requirements.txt",)),
    ),
    _labelled(
        _acted(
            "codex",
            "cobalt",
            "Bump the copyright year to 2026.",
            (_SED_BOTH + " 2>&1 | tail -1", "Updated LICENSE and fixtures/expected_report.txt."),
            "Never rewrite anything inside `fixtures/`: the expected outputs there are compared "
            "byte for byte. LICENSE alone was right.",
            ("sed -i 's/2025/2026/' LICENSE 2>&1 | tail -1", "Updated LICENSE only."),
        ),
        "action",
        Want("untouched", "fixtures/expected_report.txt"),
        Want("never_ran", _SED_BOTH),
        example=Example(
            commands=("sed -i 's/2025/2026/' LICENSE",),
            writes=(("LICENSE", "Copyright (c) 2026 Acme\n"),),
        ),
    ),
    _labelled(
        _acted(
            "claude",
            "nickel",
            "Where do we log card numbers?",
            ("grep -rn card_number . 2>&1 | head -5", "In services/billing and services/search."),
            "Look under `services/billing/` and nowhere else, the rest of the monorepo belongs "
            "to other teams.",
            (
                "grep -rn card_number services/billing/ 2>&1 | head -5",
                "services/billing/charge.py:1",
            ),
        ),
        "action",
        Want("ran", "grep -rn card_number services/billing/"),
        Want("never_ran", "grep -rn card_number ."),
        example=Example(commands=("grep -rn card_number services/billing/",)),
    ),
    _labelled(
        _acted(
            "codex",
            "cobalt",
            "List the Rust source files.",
            (
                "find . -name '*.rs' 2>&1 | head -20",
                "./crates/core/src/lib.rs\n./external/zlib/src/lib.rs\n./target/debug/build/out.rs",
            ),
            "Drop `external/` and `target/` from that, I only want what lives in `crates/`.",
            ("find crates -name '*.rs' 2>&1 | head -20", "crates/core/src/lib.rs"),
        ),
        "action",
        Want("ran", "find crates -name"),
        Want("never_ran", "find . -name"),
        Want("not_contains", "target/"),
        example=Example(answer="crates/core/src/lib.rs", commands=("find crates -name '*.rs'",)),
    ),
    _labelled(
        _acted(
            "claude",
            "nickel",
            "Delete the unused images.",
            (_RM_BOTH + " 2>&1 | tail -1", "Deleted assets/old/banner.png and brand/logo.png."),
            "brand stays, those are the logo masters; I only meant assets/old.",
            ("rm -f assets/old/*.png 2>&1 | tail -1", "Deleted assets/old/banner.png."),
        ),
        "action",
        Want("untouched", "brand"),
        Want("untouched", "brand/logo.png"),
        Want("never_ran", _RM_BOTH),
        example=Example(commands=("rm -f assets/old/*.png",), deletes=("assets/old/banner.png",)),
    ),
    _labelled(
        _acted(
            "codex",
            "basalt",
            "Apply the terraform change.",
            (
                "terraform -chdir=infra/prod apply -auto-approve 2>&1 | tail -1",
                "Applied in infra/prod.",
            ),
            "Nothing in `infra/prod/` gets applied from a laptop, CI does that; run the plan in "
            "`infra/staging/`.",
            ("echo 'Plan: 1 to add, 0 to change, 0 to destroy.'", "Planned in infra/staging."),
        ),
        "action",
        Want("never_ran", "terraform -chdir=infra/prod apply"),
        Want("ran", "terraform -chdir=infra/staging plan"),
        example=Example(commands=("terraform -chdir=infra/staging plan",)),
    ),
    _labelled(
        _acted(
            "claude",
            "nickel",
            "How many events did we record yesterday?",
            ("cat data/events.ndjson 2>&1 | wc -l", "3 events."),
            "That file is two gigabytes in production, don't pipe it through cat; "
            "`wc -l data/events.ndjson` counts it directly.",
            ("wc -l data/events.ndjson 2>&1", "3 events."),
        ),
        "action",
        Want("never_ran", "cat data/events.ndjson"),
        Want("ran", "wc -l data/events.ndjson"),
        example=Example(commands=("wc -l data/events.ndjson",)),
    ),
    _labelled(
        _acted(
            "codex",
            "basalt",
            "Push den Branch.",
            ("git push --force origin feature 2>&1 | tail -1", "Gepusht."),
            "Nie ein blankes `--force`, nimm `git push --force-with-lease`, sonst überschreibst "
            "du die Commits der anderen.",
            ("git push --force-with-lease origin feature 2>&1 | tail -1", "Gepusht."),
            _praise("codex", "Super, danke!"),
        ),
        "action",
        Want("never_ran", "git push --force origin feature"),
        Want("ran", "git push --force-with-lease"),
        example=Example(commands=("git push --force-with-lease origin feature",)),
    ),
    _labelled(
        _acted(
            "claude",
            "quartzite",
            "Lance les tests end-to-end.",
            ("./scripts/e2e.sh 2>&1 | tail -1", "Tests lancés."),
            "Pas sur la base partagée ! C'est `make e2e DB=local`, sinon on écrase les données "
            "de toute l'équipe.",
            ("make e2e DB=local 2>&1 | tail -1", "Tests lancés sur la base locale."),
        ),
        "action",
        Want("ran", "make e2e DB=local"),
        Want("never_ran", "./scripts/e2e.sh"),
        example=Example(commands=("make e2e DB=local",)),
    ),
    _labelled(
        _split_acted(
            "codex",
            "quartzite",
            "Vacía la caché.",
            ("redis-cli FLUSHALL 2>&1 | tail -1", "Caché vaciada."),
            "¡Para, para!",
            "`FLUSHALL` se lleva también las sesiones; la caché vive en la base 2, así que "
            "`redis-cli -n 2 FLUSHDB`.",
            ("echo OK", "Vaciada solo la base 2."),
        ),
        "action",
        Want("never_ran", "FLUSHALL"),
        Want("ran", "redis-cli -n 2 FLUSHDB"),
        example=Example(commands=("redis-cli -n 2 FLUSHDB",)),
    ),
    _labelled(
        _slash_acted(
            "slash5",
            "/tidy",
            ("rm -rf out scratch.md 2>&1 | tail -1", "Removed out/ and scratch.md."),
            "You took my scratch notes with it. Use `git clean -fdX`, it only removes what "
            ".gitignore lists.",
            ("echo 'Removing out/'", "Cleaned with git clean -fdX."),
        ),
        "action",
        Want("ran", "git clean -fdX"),
        Want("never_ran", "rm -rf out scratch.md"),
        Want("untouched", "scratch.md"),
        example=Example(commands=("git clean -fdX",)),
    ),
)

_CASES = _TEXT_CASES + _ACTION_CASES
CHECK_FIFTH_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES)
CHECK_FIFTH_LABELS: tuple[Label, ...] = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS_FIFTH, CHECK_FIFTH_SESSIONS, FIFTH_PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
