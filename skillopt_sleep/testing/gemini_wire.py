"""The Gemini API wire format (``generateContent`` / ``streamGenerateContent``), and its error JSON.

Gemini CLI talks this, not Chat Completions: ``GOOGLE_GEMINI_BASE_URL`` points it here and its
SDK appends ``/v1beta/models/<model>:<method>``. Facts the real CLI (0.61) relies on:
- the main loop streams (``?alt=sse``); each SSE frame is one whole ``GenerateContentResponse``
  and there is no ``[DONE]``;
- the model router's classifier call is a tools-less ``generateContent`` asking for JSON by a
  ``responseJsonSchema`` whose types are upper-case (``OBJECT``, ``STRING``);
- its first user content opens with a ``<session_context>`` text part (the environment and the
  GEMINI.md text), the prompt being a later part of the same content, so each text part is a
  message of its own here and ``ModelCall.prompt`` is the typed request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .cache_wire import NO_CACHE, CacheUse
from .replies import CustomToolCall, Message, ModelCall, Text, ToolCall, usage_counts
from .wire import Answer, IdMaker, json_answer, sse, stream_answer

_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/([^/:]+):(generateContent|streamGenerateContent)$")
STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def handles(path: str) -> bool:
    """Whether ``path`` (its query string cut) is a Gemini model call."""
    return _PATH.match(path) is not None


def error_body(status: int, message: str) -> dict[str, Any]:
    """Google's error JSON for an HTTP status."""
    kind = STATUSES.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
    return {"error": {"code": status, "message": message, "status": kind}}


def default_error_message(status: int) -> str:
    return {
        429: "Resource has been exhausted (e.g. check quota).",
        401: "API key not valid. Please pass a valid API key.",
        500: "An internal error has occurred.",
    }.get(status, f"scripted error {status}")


def parse(path: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> ModelCall:
    """The normalised view of a ``generateContent`` body (the model is in the path)."""
    match = _PATH.match(path.split("?", 1)[0].rstrip("/"))
    messages: list[Message] = []
    for content in body.get("contents") or []:
        if isinstance(content, Mapping):
            messages.extend(_messages(content))
    system = body.get("systemInstruction") or {}
    tools = tuple(
        str(decl.get("name", ""))
        for tool in body.get("tools") or []
        for decl in (tool.get("functionDeclarations") or [])
    )
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    return ModelCall(
        api="gemini",
        model=match.group(1) if match else "",
        system="\n".join(_texts(system.get("parts") if isinstance(system, Mapping) else None)),
        messages=tuple(messages),
        tools=tools,
        stream=bool(match and match.group(2) == "streamGenerateContent"),
        json_schema=_lower_types(schema) if isinstance(schema, Mapping) else None,
        body=body,
        headers=headers,
        path=path,
    )


def _texts(parts: Any) -> list[str]:
    return [
        p["text"] for p in parts or [] if isinstance(p, Mapping) and isinstance(p.get("text"), str)
    ]


def _messages(content: Mapping[str, Any]) -> list[Message]:
    """One content as messages: each text part, each function call, each function response."""
    role = "assistant" if content.get("role") == "model" else "user"
    out: list[Message] = []
    for part in content.get("parts") or []:
        if not isinstance(part, Mapping) or part.get("thought"):
            continue
        if isinstance(part.get("text"), str):
            out.append(Message(role, part["text"]))
        elif isinstance(part.get("functionCall"), Mapping):
            fc = part["functionCall"]
            call = ToolCall(str(fc.get("name", "")), dict(fc.get("args") or {}), id=fc.get("id"))
            out.append(Message(role, "", tool_call=call, tool_call_id=fc.get("id")))
        elif isinstance(part.get("functionResponse"), Mapping):
            fr = part["functionResponse"]
            response = fr.get("response") or {}
            text = response.get("output", response.get("error", ""))
            out.append(Message("tool", str(text), tool_call_id=fr.get("id")))
    return out


def _lower_types(schema: Any) -> Any:
    """A schema with OpenAPI's upper-case ``type`` names in JSON Schema's lower case."""
    if isinstance(schema, Mapping):
        return {
            k: (v.lower() if k == "type" and isinstance(v, str) else _lower_types(v))
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_lower_types(v) for v in schema]
    return schema


def render(
    call: ModelCall,
    reply: Text | ToolCall | CustomToolCall,
    new_id: IdMaker,
    cache: CacheUse = NO_CACHE,
) -> Answer:
    """The 200 answer: one ``GenerateContentResponse``, as one SSE frame when streaming."""
    parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    if isinstance(reply, CustomToolCall):
        parts.append({"functionCall": {"name": reply.name, "args": {"input": reply.input}}})
    elif isinstance(reply, ToolCall):
        parts.append({"functionCall": {"name": reply.name, "args": dict(reply.input)}})
    elif not parts:
        parts.append({"text": ""})
    prompt, completion = usage_counts(call, reply)
    finish = "MAX_TOKENS" if isinstance(reply, Text) and reply.truncated else "STOP"
    payload = {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": prompt,
            "candidatesTokenCount": completion,
            "totalTokenCount": prompt + completion,
            "cachedContentTokenCount": cache.read,
        },
        "modelVersion": call.model,
        "responseId": new_id("resp_"),
    }
    return stream_answer([sse(payload)]) if call.stream else json_answer(payload)
