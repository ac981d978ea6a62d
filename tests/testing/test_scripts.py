"""Ready-made scripts and the parsed call view, on calls built through the wire parsers."""

from __future__ import annotations

from skillopt_sleep.testing import (
    ModelCall,
    Text,
    ToolCall,
    anthropic_wire,
    example_for_schema,
    responses_wire,
)
from skillopt_sleep.testing.scripts import (
    CustomToolCall,
    add_file_patch,
    shell_then_reply,
    tool_output,
)

CODEX_RESULT = (
    "Chunk ID: f70428\nWall time: 0.0000 seconds\nProcess exited with code 0\n"
    "Original token count: 4\nOutput:\nhello-from-tool\n"
)


def claude_call(messages: list[dict]) -> ModelCall:
    body = {"model": "m", "messages": messages, "tools": [{"name": "Bash"}, {"name": "Write"}]}
    return anthropic_wire.parse("/v1/messages?beta=true", body, {})


def codex_call(items: list[dict]) -> ModelCall:
    body = {
        "model": "gpt-5.5",
        "input": items,
        "tools": [
            {"type": "function", "name": "exec_command"},
            {"type": "custom", "name": "apply_patch"},
            {"type": "web_search"},
        ],
    }
    return responses_wire.parse("/v1/responses", body, {})


def test_shell_then_reply_for_claude() -> None:
    script = shell_then_reply("ls", "Saw: {output}")
    first = claude_call(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "<system-reminder>date</system-reminder>"},
                    {"type": "text", "text": "list files"},
                ],
            },
            {"role": "system", "content": "agent listing"},
        ]
    )
    assert first.last is not None and first.last.role == "user"
    assert script(first) == ToolCall(
        "Bash", {"command": "ls", "description": "Run a shell command"}
    )
    second = claude_call(
        [
            {"role": "user", "content": "list files"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "a.txt\n"}],
                    }
                ],
            },
        ]
    )
    assert script(second) == Text("Saw: a.txt")


def test_shell_then_reply_for_codex_unwraps_the_output_header() -> None:
    script = shell_then_reply("echo hi", "Saw: {output}")
    first = codex_call(
        [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "You are Codex"}],
            },
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        ]
    )
    assert first.system == "You are Codex" and first.prompt == "go"
    assert first.tools == ("exec_command", "apply_patch", "web_search")
    assert script(first) == ToolCall("exec_command", {"cmd": "echo hi"})
    second = codex_call(
        [
            {"role": "user", "content": "go"},
            {"type": "reasoning", "summary": []},
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": '{"cmd": "echo hi"}',
                "call_id": "c1",
            },
            {"type": "function_call_output", "call_id": "c1", "output": CODEX_RESULT},
        ]
    )
    assert second.messages[1].tool_call == ToolCall("exec_command", {"cmd": "echo hi"}, id="c1")
    assert script(second) == Text("Saw: hello-from-tool")


def test_tool_output_leaves_plain_text_alone() -> None:
    assert tool_output("  plain\n") == "plain"
    assert tool_output(CODEX_RESULT) == "hello-from-tool"


def test_add_file_patch_envelope() -> None:
    assert add_file_patch("notes.md", "a\nb") == (
        "*** Begin Patch\n*** Add File: notes.md\n+a\n+b\n*** End Patch\n"
    )
    assert CustomToolCall("apply_patch", "x").input == "x"


def test_example_for_schema_covers_common_shapes() -> None:
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "n": {"type": "integer", "minimum": 3},
            "ok": {"type": "boolean"},
            "kind": {"enum": ["a", "b"]},
            "maybe": {"type": ["null", "number"]},
            "opt": {"anyOf": [{"const": 5}]},
            "list": {
                "type": "array",
                "items": {"type": "object", "properties": {"x": {"type": "string"}}},
            },
        },
    }
    assert example_for_schema(schema) == {
        "title": "Scripted title",
        "n": 3,
        "ok": True,
        "kind": "a",
        "maybe": 1,
        "opt": 5,
        "list": [{"x": "Scripted x"}],
    }
