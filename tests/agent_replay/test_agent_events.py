"""Reading an agent's line-per-event output: every JSON event is read whole, whatever it says."""

from __future__ import annotations

import json

from skillopt_sleep.agent_replay.events import claude_output, json_objects, stopped_by_proxy


def test_an_event_whose_text_holds_a_line_separator_is_read_whole():
    # JSON.stringify leaves U+2028 raw in a string; it is no end of line in JSON lines
    said = "first\u2028second"
    stdout = "\n".join(
        [
            json.dumps({"type": "result", "result": said}, ensure_ascii=False),
            "not json",
            json.dumps({"type": "turn_limit", "limit": 3}),
            "",
        ]
    )
    assert [o["type"] for o in json_objects(stdout)] == ["result", "turn_limit"]
    assert json_objects(stdout)[0]["result"] == said
    assert stopped_by_proxy(stdout)
    assert not stopped_by_proxy(stdout.replace("turn_limit", "result"))


def test_claude_s_last_reply_with_a_line_separator_is_what_it_said():
    said = "Done.\u2028All tests pass."
    stdout = json.dumps(
        {"type": "result", "subtype": "success", "result": said, "num_turns": 1},
        ensure_ascii=False,
    )
    assert claude_output(stdout, "/copy").text == said
