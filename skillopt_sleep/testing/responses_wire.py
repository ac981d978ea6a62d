"""The OpenAI Responses API wire format (what codex speaks): parse a request, render a reply."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from .cache_wire import NO_CACHE, CacheUse
from .openai_wire import schema_of
from .replies import CustomToolCall, Message, ModelCall, Text, ToolCall, usage_counts
from .wire import Answer, IdMaker, chunks, content_text, json_answer, sse, stream_answer


def parse(path: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> ModelCall:
    """The normalised view of a ``POST /v1/responses`` body."""
    raw = body.get("input")
    items = [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw or [])
    messages = [m for m in (_message(item) for item in items) if m is not None]
    system_parts = [str(body["instructions"])] if body.get("instructions") else []
    system_parts += [m.text for m in messages if m.role in ("system", "developer")]
    tools = tuple(str(t.get("name") or t.get("type", "")) for t in body.get("tools") or [])
    return ModelCall(
        api="responses",
        model=str(body.get("model", "")),
        system="\n".join(system_parts),
        messages=tuple(messages),
        tools=tools,
        stream=bool(body.get("stream")),
        json_schema=schema_of((body.get("text") or {}).get("format")),
        body=body,
        headers=headers,
        path=path,
    )


def _message(item: Mapping[str, Any]) -> Message | None:
    kind = item.get("type", "message")
    if kind == "message":
        return Message(str(item.get("role", "user")), content_text(item.get("content")))
    if kind == "function_call":
        try:
            args = json.loads(item.get("arguments") or "{}")
        except json.JSONDecodeError:
            args = {"_raw": item.get("arguments")}
        call = ToolCall(str(item.get("name", "")), args, id=item.get("call_id"))
        return Message("assistant", "", tool_call=call, tool_call_id=item.get("call_id"))
    if kind == "custom_tool_call":
        custom = CustomToolCall(
            str(item.get("name", "")), str(item.get("input", "")), id=item.get("call_id")
        )
        return Message("assistant", "", tool_call=custom, tool_call_id=item.get("call_id"))
    if kind in ("function_call_output", "custom_tool_call_output"):
        return Message("tool", content_text(item.get("output")), tool_call_id=item.get("call_id"))
    return None  # reasoning and other bookkeeping items carry no conversation text


def _items(reply: Text | ToolCall | CustomToolCall, new_id: IdMaker) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.text or isinstance(reply, Text):
        items.append(
            {
                "id": new_id("msg_"),
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}
                ],
            }
        )
    call_id = None if isinstance(reply, Text) else reply.id or new_id("call_")
    if isinstance(reply, ToolCall):
        items.append(
            {
                "id": new_id("fc_"),
                "type": "function_call",
                "status": "completed",
                "name": reply.name,
                "arguments": json.dumps(dict(reply.input)),
                "call_id": call_id,
            }
        )
    elif isinstance(reply, CustomToolCall):
        items.append(
            {
                "id": new_id("ctc_"),
                "type": "custom_tool_call",
                "status": "completed",
                "name": reply.name,
                "input": reply.input,
                "call_id": call_id,
            }
        )
    return items


def render(
    call: ModelCall,
    reply: Text | ToolCall | CustomToolCall,
    new_id: IdMaker,
    cache: CacheUse = NO_CACHE,
) -> Answer:
    """The 200 answer for a text or tool reply, streamed when the request asked for it."""
    items = _items(reply, new_id)
    prompt, completion = usage_counts(call, reply)
    response = {
        "id": new_id("resp_"),
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "instructions": call.body.get("instructions"),
        "model": call.model,
        "output": items,
        "parallel_tool_calls": bool(call.body.get("parallel_tool_calls", True)),
        "tool_choice": call.body.get("tool_choice", "auto"),
        "tools": [],
        "temperature": 1.0,
        "top_p": 1.0,
        "metadata": {},
        "text": {"format": {"type": "text"}},
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": cache.read},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion,
        },
    }
    if isinstance(reply, Text) and reply.truncated:
        response.update(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    if not call.stream:
        return json_answer(response)
    return stream_answer(_events(response))


class _Seq:
    """Numbers the events of one stream, as the real API does."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def emit(self, kind: str, **fields: Any) -> None:
        self.frames.append(sse(dict(type=kind, sequence_number=len(self.frames), **fields), kind))


def _events(response: dict[str, Any]) -> list[bytes]:
    seq = _Seq()
    pending = dict(response, status="in_progress", output=[], usage=None)
    seq.emit("response.created", response=pending)
    seq.emit("response.in_progress", response=pending)
    for index, item in enumerate(response["output"]):
        _item_events(seq, index, item)
    final = "response.completed" if response["status"] == "completed" else "response.incomplete"
    seq.emit(final, response=response)
    return seq.frames


def _item_events(seq: _Seq, index: int, item: dict[str, Any]) -> None:
    ids = {"item_id": item["id"], "output_index": index}
    kind = item["type"]
    if kind == "message":
        seq.emit(
            "response.output_item.added",
            output_index=index,
            item=dict(item, status="in_progress", content=[]),
        )
        part = item["content"][0]
        seq.emit("response.content_part.added", **ids, content_index=0, part=dict(part, text=""))
        for piece in chunks(part["text"]):
            seq.emit("response.output_text.delta", **ids, content_index=0, delta=piece, logprobs=[])
        seq.emit(
            "response.output_text.done", **ids, content_index=0, text=part["text"], logprobs=[]
        )
        seq.emit("response.content_part.done", **ids, content_index=0, part=part)
    elif kind == "function_call":
        seq.emit(
            "response.output_item.added",
            output_index=index,
            item=dict(item, status="in_progress", arguments=""),
        )
        for piece in chunks(item["arguments"]):
            seq.emit("response.function_call_arguments.delta", **ids, delta=piece)
        seq.emit("response.function_call_arguments.done", **ids, arguments=item["arguments"])
    else:
        seq.emit(
            "response.output_item.added",
            output_index=index,
            item=dict(item, status="in_progress", input=""),
        )
        for piece in chunks(item["input"]):
            seq.emit("response.custom_tool_call_input.delta", **ids, delta=piece)
        seq.emit("response.custom_tool_call_input.done", **ids, input=item["input"])
    seq.emit("response.output_item.done", output_index=index, item=item)
