"""The OpenAI Chat Completions wire format, and OpenAI's error JSON."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from .cache_wire import NO_CACHE, CacheUse
from .replies import CustomToolCall, Message, ModelCall, Text, ToolCall, usage_counts
from .wire import Answer, IdMaker, chunks, content_text, json_answer, sse, stream_answer

ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}


def error_body(status: int, message: str) -> dict[str, Any]:
    """OpenAI's error JSON for an HTTP status."""
    kind, code = ERRORS.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", None)
    )
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def default_error_message(status: int) -> str:
    return {
        429: "Rate limit reached for requests",
        401: "Incorrect API key provided: x.",
        500: "The server had an error while processing your request. Sorry about that!",
    }.get(status, f"scripted error {status}")


def schema_of(fmt: Any) -> Mapping[str, Any] | None:
    """The JSON schema of a ``response_format`` / ``text.format`` value, if it asks for one."""
    if not isinstance(fmt, Mapping) or fmt.get("type") != "json_schema":
        return None
    inner = fmt.get("json_schema", fmt)
    return inner.get("schema") if isinstance(inner, Mapping) else None


def parse(path: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> ModelCall:
    """The normalised view of a ``POST /v1/chat/completions`` body."""
    messages: list[Message] = []
    for msg in body.get("messages") or []:
        messages.extend(_messages(msg))
    system = "\n".join(m.text for m in messages if m.role in ("system", "developer"))
    tools = tuple(
        str((t.get("function") or t.get("custom") or t).get("name", ""))
        for t in body.get("tools") or []
    )
    return ModelCall(
        api="chat",
        model=str(body.get("model", "")),
        system=system,
        messages=tuple(messages),
        tools=tools,
        stream=bool(body.get("stream")),
        json_schema=schema_of(body.get("response_format")),
        body=body,
        headers=headers,
        path=path,
    )


def _messages(msg: Mapping[str, Any]) -> list[Message]:
    role = str(msg.get("role", "user"))
    if role == "tool":
        return [
            Message("tool", content_text(msg.get("content")), tool_call_id=msg.get("tool_call_id"))
        ]
    out = [Message(role, content_text(msg.get("content")))] if msg.get("content") else []
    for tc in msg.get("tool_calls") or []:
        fn = tc.get("function") or {}
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except json.JSONDecodeError:
            args = {"_raw": fn.get("arguments")}
        call = ToolCall(str(fn.get("name", "")), args, id=tc.get("id"))
        out.append(Message(role, "", tool_call=call, tool_call_id=tc.get("id")))
    return out


def _tool_call(reply: ToolCall | CustomToolCall, new_id: IdMaker) -> dict[str, Any]:
    call_id = reply.id or new_id("call_")
    if isinstance(reply, CustomToolCall):
        return {
            "id": call_id,
            "type": "custom",
            "custom": {"name": reply.name, "input": reply.input},
        }
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": reply.name, "arguments": json.dumps(dict(reply.input))},
    }


def render(
    call: ModelCall,
    reply: Text | ToolCall | CustomToolCall,
    new_id: IdMaker,
    cache: CacheUse = NO_CACHE,
) -> Answer:
    """The 200 answer for a text or tool reply, streamed when the request asked for it."""
    text = reply.text
    tool_calls = [] if isinstance(reply, Text) else [_tool_call(reply, new_id)]
    finish = (
        "tool_calls"
        if tool_calls
        else ("length" if isinstance(reply, Text) and reply.truncated else "stop")
    )
    prompt, completion = usage_counts(call, reply)
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cache.read},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }
    head = {
        "id": new_id("chatcmpl-"),
        "created": int(time.time()),
        "model": call.model,
        "system_fingerprint": "fp_loopback",
    }
    if not call.stream:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": text if text or not tool_calls else None,
            "refusal": None,
        }
        if tool_calls:
            message["tool_calls"] = tool_calls
        return json_answer(
            dict(
                head,
                object="chat.completion",
                usage=usage,
                choices=[
                    {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
                ],
            )
        )
    include_usage = bool((call.body.get("stream_options") or {}).get("include_usage"))
    return stream_answer(_chunks(head, text, tool_calls, finish, usage if include_usage else None))


def _chunks(
    head: dict[str, Any],
    text: str,
    tool_calls: list[dict[str, Any]],
    finish: str,
    usage: dict[str, Any] | None,
) -> list[bytes]:
    head = dict(head, object="chat.completion.chunk")

    def frame(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        return sse(
            dict(
                head,
                choices=[
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
                ],
            )
        )

    frames = [frame({"role": "assistant", "content": "", "refusal": None})]
    if text or not tool_calls:
        frames.extend(frame({"content": piece}) for piece in chunks(text))
    for index, tc in enumerate(tool_calls):
        if tc["type"] == "custom":
            frames.append(frame({"tool_calls": [dict(tc, index=index)]}))
            continue
        first = dict(tc, index=index, function={"name": tc["function"]["name"], "arguments": ""})
        frames.append(frame({"tool_calls": [first]}))
        frames.extend(
            frame({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in chunks(tc["function"]["arguments"])
        )
    frames.append(frame({}, finish))
    if usage is not None:
        frames.append(sse(dict(head, choices=[], usage=usage)))
    frames.append(sse("[DONE]"))
    return frames
