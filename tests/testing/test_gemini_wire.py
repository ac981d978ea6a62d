"""The loopback server speaks Gemini's generateContent as Gemini CLI sends it (plain HTTP)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from skillopt_sleep.testing import Error, ModelServer, ToolCall

STREAM = "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse"
ROUTER = "/v1beta/models/gemini-3.5-flash-lite:generateContent"
# What the CLI sends: its session context and the typed prompt as parts of one user content.
TURN = {
    "contents": [
        {
            "role": "user",
            "parts": [
                {"text": "<session_context>\nMy operating system is: linux\n</session_context>"},
                {"text": "run the tests please"},
            ],
        },
        {
            "role": "model",
            "parts": [{"functionCall": {"name": "run_shell_command", "args": {"command": "ls"}}}],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "run_shell_command", "response": {"output": "a"}}}
            ],
        },
    ],
    "systemInstruction": {"parts": [{"text": "You are Gemini CLI."}]},
    "tools": [{"functionDeclarations": [{"name": "run_shell_command"}, {"name": "write_file"}]}],
}


def post(url: str, body: dict) -> tuple[int, str, bytes]:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"x-goog-api-key": "dummy"}, method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers["content-type"], resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["content-type"], exc.read()


def test_a_streamed_turn_is_one_sse_frame_holding_the_whole_answer():
    with ModelServer(
        [ToolCall("write_file", {"file_path": "N.md", "content": "x"}, text="ok")]
    ) as srv:
        status, kind, body = post(srv.url + STREAM, TURN)
        [call] = srv.model_calls("gemini")
    assert (status, kind) == (200, "text/event-stream")
    [frame] = [line for line in body.decode().splitlines() if line.startswith("data: ")]
    candidate = json.loads(frame.removeprefix("data: "))["candidates"][0]
    assert candidate["content"]["parts"] == [
        {"text": "ok"},
        {"functionCall": {"name": "write_file", "args": {"file_path": "N.md", "content": "x"}}},
    ]
    assert (call.model, call.stream, call.prompt) == (
        "gemini-3.8-flash",
        True,
        "run the tests please",
    )
    assert (call.system, call.tools) == ("You are Gemini CLI.", ("run_shell_command", "write_file"))
    assert call.last_tool_result == "a"


def test_the_routers_json_call_gets_json_of_its_upper_case_schema():
    schema = {
        "type": "OBJECT",
        "properties": {
            "complexity_reasoning": {"type": "STRING"},
            "complexity_score": {"type": "INTEGER"},
        },
    }
    body = {
        "contents": [{"role": "user", "parts": [{"text": "classify"}]}],
        "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": schema},
    }
    with ModelServer() as srv:
        status, _, raw = post(srv.url + ROUTER, body)
    text = json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"]
    assert status == 200 and json.loads(text) == {
        "complexity_reasoning": "Scripted complexity_reasoning",
        "complexity_score": 1,
    }


def test_an_error_has_googles_shape_and_another_method_is_404():
    with ModelServer([Error(429)]) as srv:
        status, _, raw = post(srv.url + STREAM, TURN)
        missing = post(srv.url + "/v1beta/models/x:embedContent", TURN)[0]
    assert status == 429 and json.loads(raw)["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert missing == 404
