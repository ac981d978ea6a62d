"""The Anthropic Messages API wire format: parse a request, render a reply (JSON or SSE)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .cache_wire import NO_CACHE, CacheUse
from .replies import CustomToolCall, Message, ModelCall, Text, ToolCall, usage_counts
from .wire import Answer, IdMaker, chunks, content_text, json_answer, sse, stream_answer

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def parse(path: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> ModelCall:
    """The normalised view of a ``POST /v1/messages`` body."""
    messages: list[Message] = []
    for msg in body.get("messages") or []:
        messages.extend(_messages(msg))
    fmt = (body.get("output_config") or {}).get("format") or body.get("output_format") or {}
    schema = (
        fmt.get("schema") if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema" else None
    )
    return ModelCall(
        api="anthropic",
        model=str(body.get("model", "")),
        system=content_text(body.get("system")),
        messages=tuple(messages),
        tools=tuple(str(t.get("name", "")) for t in body.get("tools") or []),
        stream=bool(body.get("stream")),
        json_schema=schema,
        body=body,
        headers=headers,
        path=path,
    )


def _messages(msg: Mapping[str, Any]) -> list[Message]:
    """One API message as normalised messages; tool results come after the message's text
    (Claude Code appends reminder text to tool results, and a script asks "was a tool just run?")."""
    role = str(msg.get("role", "user"))
    content = msg.get("content")
    if isinstance(content, str):
        return [Message(role, content)]
    texts: list[str] = []
    calls: list[Message] = []
    results: list[Message] = []
    for block in content or []:
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            call = ToolCall(
                str(block.get("name")), dict(block.get("input") or {}), id=block.get("id")
            )
            calls.append(Message(role, "", tool_call=call, tool_call_id=block.get("id")))
        elif kind == "tool_result":
            results.append(
                Message(
                    "tool",
                    content_text(block.get("content")),
                    tool_call_id=block.get("tool_use_id"),
                )
            )
    head = [Message(role, "\n".join(texts))] if texts else []
    return head + calls + results


def _blocks(reply: Text | ToolCall | CustomToolCall, new_id: IdMaker) -> list[dict[str, Any]]:
    """The content blocks of a reply."""
    if isinstance(reply, Text):
        return [{"type": "text", "text": reply.text}]
    blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    args = dict(reply.input) if isinstance(reply, ToolCall) else {"input": reply.input}
    blocks.append(
        {"type": "tool_use", "id": reply.id or new_id("toolu_"), "name": reply.name, "input": args}
    )
    return blocks


def render(
    call: ModelCall,
    reply: Text | ToolCall | CustomToolCall,
    new_id: IdMaker,
    cache: CacheUse = NO_CACHE,
) -> Answer:
    """The 200 answer for a text or tool reply, streamed when the request asked for it."""
    blocks = _blocks(reply, new_id)
    stop = (
        "tool_use"
        if not isinstance(reply, Text)
        else ("max_tokens" if reply.truncated else "end_turn")
    )
    prompt, completion = usage_counts(call, reply)
    usage = {
        "input_tokens": max(0, prompt - cache.write - cache.read),
        "output_tokens": completion,
        "cache_creation_input_tokens": cache.write,
        "cache_read_input_tokens": cache.read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": cache.write - cache.write_1h,
            "ephemeral_1h_input_tokens": cache.write_1h,
        },
    }
    message = {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": call.model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not call.stream:
        return json_answer(message, headers={"request-id": new_id("req_")})
    return stream_answer(_events(message))


def _events(message: dict[str, Any]) -> list[bytes]:
    """The SSE event sequence of a complete message."""
    usage = message["usage"]
    start = dict(message, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
    frames = [sse({"type": "message_start", "message": start}, "message_start")]
    for index, block in enumerate(message["content"]):
        frames.extend(_block_events(index, block))
    frames.append(
        sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
            "message_delta",
        )
    )
    frames.append(sse({"type": "message_stop"}, "message_stop"))
    return frames


def _block_events(index: int, block: dict[str, Any]) -> list[bytes]:
    first: dict[str, Any]
    if block["type"] == "text":
        first = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": piece} for piece in chunks(block["text"])]
    else:
        first = {**block, "input": {}}
        deltas = [
            {"type": "input_json_delta", "partial_json": piece}
            for piece in chunks(json.dumps(block["input"]))
        ]
    frames = [
        sse(
            {"type": "content_block_start", "index": index, "content_block": first},
            "content_block_start",
        )
    ]
    frames.extend(
        sse({"type": "content_block_delta", "index": index, "delta": d}, "content_block_delta")
        for d in deltas
    )
    frames.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    return frames


def error_body(status: int, message: str) -> dict[str, Any]:
    """Anthropic's error JSON for an HTTP status."""
    kind = ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def default_error_message(status: int) -> str:
    return {
        429: "Number of request tokens has exceeded your per-minute rate limit",
        401: "invalid x-api-key",
        529: "Overloaded",
        500: "Internal server error",
    }.get(status, f"scripted error {status}")
