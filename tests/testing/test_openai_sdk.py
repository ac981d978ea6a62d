"""The real openai SDK gets scripted answers: Chat Completions and Responses."""

from __future__ import annotations

import json

import openai

from skillopt_sleep.testing import CustomToolCall, ModelServer, Text, ToolCall

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi"}]


def client(srv: ModelServer) -> openai.OpenAI:
    return srv.own(openai.OpenAI(base_url=srv.v1, api_key="x", max_retries=0, timeout=10))


def test_chat_create_returns_text_and_usage(srv: ModelServer) -> None:
    srv.enqueue(Text("Hi from the script"))
    r = client(srv).chat.completions.create(model="gpt-test", messages=MESSAGES)
    assert r.choices[0].message.content == "Hi from the script"
    assert r.choices[0].finish_reason == "stop"
    assert r.usage is not None and r.usage.completion_tokens == 5
    assert r.usage.total_tokens == r.usage.prompt_tokens + 5
    call = srv.model_calls("chat")[0]
    assert (call.system, call.prompt, call.model) == ("Be brief.", "Say hi", "gpt-test")


def test_chat_stream_with_usage_and_tool_call(srv: ModelServer) -> None:
    srv.enqueue(
        Text("streamed words that are long enough to be split in several chunks"),
        ToolCall("lookup", {"q": "weather"}),
    )
    c = client(srv)
    stream = c.chat.completions.create(
        model="gpt-test", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    text = "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices)
    assert text == "streamed words that are long enough to be split in several chunks"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 17
    with c.chat.completions.stream(model="gpt-test", messages=MESSAGES) as s:
        final = s.get_final_completion()
    tool = final.choices[0].message.tool_calls[0]
    assert (tool.function.name, json.loads(tool.function.arguments)) == ("lookup", {"q": "weather"})
    assert final.choices[0].finish_reason == "tool_calls"


def test_chat_tool_result_reaches_the_responder(srv: ModelServer) -> None:
    srv.responder = lambda call: Text("result was " + (call.last_tool_result or "none"))
    messages = [
        *MESSAGES,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ]
    r = client(srv).chat.completions.create(model="gpt-test", messages=messages)
    assert r.choices[0].message.content == "result was sunny"


def test_responses_stream_text_function_and_custom_calls(srv: ModelServer) -> None:
    srv.enqueue(
        Text("Responses hello"),
        ToolCall("exec_command", {"cmd": "ls"}),
        CustomToolCall("apply_patch", "*** Begin Patch\n*** End Patch\n"),
    )
    c = client(srv)
    with c.responses.stream(model="gpt-5.5", input="hi", instructions="Be brief.") as s:
        deltas = [e.delta for e in s if e.type == "response.output_text.delta"]
        final = s.get_final_response()
    assert "".join(deltas) == "Responses hello" == final.output_text
    assert final.id.startswith("resp_") and final.usage is not None
    assert final.usage.output_tokens == 4
    events = list(c.responses.create(model="gpt-5.5", input="hi", stream=True))
    kinds = [e.type for e in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.function_call_arguments.done" in kinds
    done = events[-1].response.output[0]
    assert (done.type, done.name, json.loads(done.arguments)) == (
        "function_call",
        "exec_command",
        {"cmd": "ls"},
    )
    custom = c.responses.create(model="gpt-5.5", input="patch", stream=True)
    last = list(custom)[-1].response.output[0]
    assert (last.type, last.name, last.input) == (
        "custom_tool_call",
        "apply_patch",
        "*** Begin Patch\n*** End Patch\n",
    )
    assert srv.model_calls("responses")[0].system == "Be brief."


def test_responses_non_stream(srv: ModelServer) -> None:
    srv.enqueue(Text("plain"))
    r = client(srv).responses.create(
        model="gpt-5.5",
        input=[{"role": "user", "content": [{"type": "input_text", "text": "hello"}]}],
    )
    assert r.output_text == "plain" and r.status == "completed"
    assert srv.model_calls()[0].prompt == "hello"


def test_responses_function_output_is_a_tool_result(srv: ModelServer) -> None:
    srv.responder = lambda call: Text("got " + (call.last_tool_result or "nothing"))
    r = client(srv).responses.create(
        model="gpt-5.5",
        input=[
            {"role": "user", "content": "run"},
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": '{"cmd": "ls"}',
                "call_id": "call_9",
            },
            {"type": "function_call_output", "call_id": "call_9", "output": "a.txt"},
        ],
    )
    assert r.output_text == "got a.txt"


def test_truncated_text_reports_the_token_limit(srv: ModelServer) -> None:
    srv.enqueue(
        Text("cut", truncated=True), Text("cut", truncated=True), Text("cut", truncated=True)
    )
    c = client(srv)
    chat = c.chat.completions.create(model="m", messages=MESSAGES)
    assert chat.choices[0].finish_reason == "length"
    with c.responses.stream(model="m", input="x") as s:
        kinds = [e.type for e in s]
    assert kinds[-1] == "response.incomplete"
    resp = c.responses.create(model="m", input="x")
    assert resp.status == "incomplete" and resp.incomplete_details.reason == "max_output_tokens"
