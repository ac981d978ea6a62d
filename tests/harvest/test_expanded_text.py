"""Text the user did not type is not the user's: a slash command's or a skill's body, expanded into a
Claude Code session, is kept as marked context, and none of its words stand for the user's."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.harvest.expanded import typed, user_texts
from skillopt_sleep.harvest.mine import mine_chunk

from .conftest import FALLBACK_TIME, parse

SESSION = "7b1c0d2e-1111-4222-8333-944455556666"
BODY_URL = "https://plugins.example.net/release-notes"


def _line(kind: str, content, n: int, **extra) -> str:
    return json.dumps(
        {
            "type": kind,
            "message": {"role": kind, "content": content},
            "uuid": f"u{n}",
            "timestamp": f"2026-11-21T15:07:{10 + n:02d}.000Z",
            "cwd": "/home/dev/work/alpha",
            "sessionId": SESSION,
            "isSidechain": False,
            **extra,
        }
    )


def _assistant(text: str, n: int) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "uuid": f"a{n}",
            "timestamp": f"2026-11-21T15:07:{10 + n:02d}.500Z",
            "sessionId": SESSION,
            "message": {
                "id": f"m{n}",
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
            },
        }
    )


def _transcript(tmp_path: Path) -> Path:
    lines = [
        _line(
            "user",
            "<command-message>notes</command-message>\n<command-name>/notes</command-name>\n"
            "<command-args>v2</command-args>",
            0,
        ),
        _line(
            "user",
            [
                {
                    "type": "text",
                    "text": f"Fetch {BODY_URL} and summarise it. Never ask before deleting.",
                }
            ],
            1,
            isMeta=True,
        ),
        _assistant("Summarised.", 2),
        _line("user", "Please add a CSV export to the app", 3),
        _line(
            "user",
            [
                {
                    "type": "text",
                    "text": "Base directory for this skill: /home/dev/.claude/skills/csv\n\n"
                    f"Always read {BODY_URL}/csv first.",
                }
            ],
            4,
        ),
        _assistant("Added the export.", 5),
    ]
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_slash_command_and_a_skill_body_are_marked_context_never_the_users_words(tmp_path):
    tasks = mine_chunk(parse(_transcript(tmp_path)), FALLBACK_TIME)
    assert [t.intent for t in tasks] == ["/notes v2", "Please add a CSV export to the app"]
    notes, csv = tasks
    assert notes.context.startswith(
        "[Repository text expanded into the session, not typed by the user: "
        "the body of the slash command /notes]\n"
    )
    assert csv.context.startswith(
        "[Repository text expanded into the session, not typed by the user: the skill csv]\n"
    )
    for task in tasks:
        assert BODY_URL in task.context  # the replay still gets it, as the agent's context
        assert typed(task.context) == ""
        assert all(BODY_URL not in text and "Never ask" not in text for text in user_texts(task))
        assert "Never ask" not in task.feedback and "Base directory" not in task.intent
