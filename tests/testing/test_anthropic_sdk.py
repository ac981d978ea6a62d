"""The real anthropic SDK gets scripted answers from the server, streamed and not."""

from __future__ import annotations

import asyncio

import anthropic

from skillopt_sleep.testing import ModelServer, Text, ToolCall

MESSAGES = [{"role": "user", "content": "Say hello"}]


def client(srv: ModelServer) -> anthropic.Anthropic:
    return srv.own(anthropic.Anthropic(base_url=srv.url, api_key="x", max_retries=0, timeout=10))


def test_create_returns_scripted_text_and_usage(srv: ModelServer) -> None:
    srv.enqueue(Text("Hello from the script"))
    msg = client(srv).messages.create(
        model="claude-test", max_tokens=50, messages=MESSAGES, system="Be brief."
    )
    assert [b.text for b in msg.content] == ["Hello from the script"]
    assert msg.stop_reason == "end_turn" and msg.model == "claude-test"
    assert msg.usage.output_tokens == 6 and msg.usage.input_tokens > 0
    call = srv.model_calls()[0]
    assert (call.api, call.system, call.prompt, call.stream) == (
        "anthropic",
        "Be brief.",
        "Say hello",
        False,
    )


def test_usage_is_deterministic(srv: ModelServer) -> None:
    srv.enqueue(Text("same"), Text("same"))
    first = client(srv).messages.create(model="m", max_tokens=5, messages=MESSAGES)
    second = client(srv).messages.create(model="m", max_tokens=5, messages=MESSAGES)
    assert first.usage.model_dump() == second.usage.model_dump()


def test_stream_delivers_text_and_tool_use(srv: ModelServer) -> None:
    srv.enqueue(ToolCall("Bash", {"command": "ls -la", "description": "List"}, text="Looking."))
    with client(srv).messages.stream(
        model="claude-test",
        max_tokens=50,
        messages=MESSAGES,
        tools=[{"name": "Bash", "input_schema": {"type": "object"}}],
    ) as stream:
        texts = list(stream.text_stream)
        final = stream.get_final_message()
    assert "".join(texts) == "Looking."
    assert final.stop_reason == "tool_use"
    tool = final.content[1]
    assert (tool.type, tool.name, tool.input) == (
        "tool_use",
        "Bash",
        {"command": "ls -la", "description": "List"},
    )
    assert tool.id.startswith("toolu_")
    assert final.usage.output_tokens > 1
    assert srv.model_calls()[0].tools == ("Bash",) and srv.model_calls()[0].stream


def test_tool_result_is_visible_to_the_responder(srv: ModelServer) -> None:
    srv.responder = lambda call: Text(f"saw {call.last_tool_result}")
    messages = [
        {"role": "user", "content": "run it"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Bash",
                    "input": {"command": "echo 42"},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "42\n"},
                {"type": "text", "text": "<system-reminder>x</system-reminder>"},
            ],
        },
    ]
    msg = client(srv).messages.create(model="m", max_tokens=5, messages=messages)
    assert msg.content[0].text == "saw 42\n"
    call = srv.model_calls()[0]
    assert call.tool_results == ("42\n",)
    assert call.messages[1].tool_call is not None and call.messages[1].tool_call.name == "Bash"


def test_async_create_and_stream(srv: ModelServer) -> None:
    srv.enqueue(Text("async one"), Text("async two"))

    async def go() -> tuple[str, str]:
        aclient = anthropic.AsyncAnthropic(base_url=srv.url, api_key="x", max_retries=0)
        first = await aclient.messages.create(model="m", max_tokens=5, messages=MESSAGES)
        async with aclient.messages.stream(model="m", max_tokens=5, messages=MESSAGES) as s:
            second = await s.get_final_message()
        await aclient.close()
        return first.content[0].text, second.content[0].text

    assert asyncio.run(go()) == ("async one", "async two")


def test_json_schema_request_gets_schema_shaped_json(srv: ModelServer) -> None:
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["title"],
    }
    msg = client(srv).messages.create(
        model="m",
        max_tokens=50,
        messages=MESSAGES,
        extra_body={"output_config": {"format": {"type": "json_schema", "schema": schema}}},
    )
    assert msg.content[0].text == '{"title": "Scripted title", "tags": ["Scripted tags"]}'


def test_truncated_text_stops_at_max_tokens(srv: ModelServer) -> None:
    srv.enqueue(Text("cut sh", truncated=True))
    with client(srv).messages.stream(model="m", max_tokens=2, messages=MESSAGES) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "max_tokens" and final.content[0].text == "cut sh"
