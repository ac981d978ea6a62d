"""What a scripted model server answers, and the parsed view of the call it answers.

A *reply* is one of the small frozen dataclasses below; a script is a queue of replies plus a
``responder`` function ``(ModelCall) -> Reply`` used when the queue is empty.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union

Api = Literal["anthropic", "chat", "responses", "gemini"]


@dataclass(frozen=True)
class Text:
    """A plain assistant text answer (stop reason ``end_turn`` / ``stop``).

    ``truncated=True`` reports the output cut at the token limit instead: Anthropic
    ``max_tokens``, Chat ``length``, Responses ``incomplete`` (``max_output_tokens``).
    """

    text: str
    truncated: bool = False


@dataclass(frozen=True)
class ToolCall:
    """One tool invocation: Anthropic ``tool_use``, OpenAI ``function_call`` / ``tool_calls``.

    ``text`` is an optional preamble sent before the call in the same answer.
    """

    name: str
    input: Mapping[str, Any]
    text: str = ""
    id: str | None = None


@dataclass(frozen=True)
class CustomToolCall:
    """A freeform tool call (Responses ``custom_tool_call``), e.g. codex's ``apply_patch``."""

    name: str
    input: str
    text: str = ""
    id: str | None = None


@dataclass(frozen=True)
class Error:
    """An HTTP error answer; ``body=None`` gives the provider's real error JSON for ``status``."""

    status: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    message: str | None = None


@dataclass(frozen=True)
class Malformed:
    """A 200 answer whose body is not valid JSON (nor valid SSE JSON when streaming)."""

    body: str = '{"id": "broken", "content": [ this is not json'


@dataclass(frozen=True)
class Disconnect:
    """Close the connection without an answer (the SDKs raise ``APIConnectionError``)."""


@dataclass(frozen=True)
class Delay:
    """Wait ``seconds`` before sending ``then`` (to simulate slowness and client timeouts)."""

    seconds: float
    then: Reply = field(default_factory=lambda: Text("ok"))


Reply = Union[Text, ToolCall, CustomToolCall, Error, Malformed, Disconnect, Delay]  # noqa: UP007 - runtime alias on 3.10
Responder = Callable[["ModelCall"], Reply]


@dataclass(frozen=True)
class Message:
    """One conversation entry normalised across APIs.

    ``role`` is ``user``, ``assistant``, ``system``, ``developer`` or ``tool`` (a tool result,
    whose ``text`` is the tool output). An assistant tool invocation has ``tool_call`` set.
    """

    role: str
    text: str
    tool_call: ToolCall | CustomToolCall | None = None
    tool_call_id: str | None = None


@dataclass(frozen=True)
class ModelCall:
    """The parsed view of one model request, as a responder sees it."""

    api: Api
    model: str
    system: str
    messages: tuple[Message, ...]
    tools: tuple[str, ...]
    stream: bool
    json_schema: Mapping[str, Any] | None
    body: Mapping[str, Any]
    headers: Mapping[str, str]
    path: str

    @property
    def conversation(self) -> tuple[Message, ...]:
        """The messages without system/developer entries (Claude sends ``role: system`` inline)."""
        return tuple(m for m in self.messages if m.role not in ("system", "developer"))

    @property
    def last(self) -> Message | None:
        """The last non-system message."""
        conv = self.conversation
        return conv[-1] if conv else None

    @property
    def tool_results(self) -> tuple[str, ...]:
        """Every tool output in the conversation, oldest first."""
        return tuple(m.text for m in self.messages if m.role == "tool")

    @property
    def last_tool_result(self) -> str | None:
        """The tool output if the conversation currently ends with one, else ``None``."""
        last = self.last
        return last.text if last is not None and last.role == "tool" else None

    @property
    def prompt(self) -> str:
        """The text of the last user message (``""`` when there is none)."""
        for m in reversed(self.conversation):
            if m.role == "user":
                return m.text
        return ""

    @property
    def user_texts(self) -> tuple[str, ...]:
        """The text of every user message, oldest first."""
        return tuple(m.text for m in self.conversation if m.role == "user")


def count_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: one token per four characters, at least one."""
    return max(1, math.ceil(len(text) / 4))


def input_tokens(body: Mapping[str, Any]) -> int:
    """Fake input token count of a request body (deterministic; from its JSON length)."""
    parts = {k: body.get(k) for k in ("system", "messages", "input", "instructions", "tools")}
    return count_tokens(json.dumps(parts, sort_keys=True, default=str))


def reply_output_text(reply: Reply) -> str:
    """All text a reply produces, for output token counts."""
    if isinstance(reply, Text):
        return reply.text
    if isinstance(reply, ToolCall):
        return reply.text + json.dumps(dict(reply.input))
    if isinstance(reply, CustomToolCall):
        return reply.text + reply.input
    return ""


def usage_counts(call: ModelCall, reply: Reply) -> tuple[int, int]:
    """(input, output) fake token counts of answering ``call`` with ``reply``."""
    return input_tokens(call.body), count_tokens(reply_output_text(reply))


def example_for_schema(schema: Mapping[str, Any], name: str = "value") -> Any:
    """A small value that satisfies a JSON schema (objects, arrays, scalars, enums, consts)."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return example_for_schema(schema[key][0], name)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: example_for_schema(v, k) for k, v in props.items()}
    if kind == "array":
        return [example_for_schema(schema.get("items", {}), name)]
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return f"Scripted {name}"
