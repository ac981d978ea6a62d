"""Fakes for tests, shipped with the package: a loopback model server that speaks the
Anthropic Messages, OpenAI Chat Completions and OpenAI Responses wire formats, and helpers to
run the real ``claude`` and ``codex`` CLIs against it in a sandboxed home."""

from .recorded import RecordedRequest
from .replies import (
    CustomToolCall,
    Delay,
    Disconnect,
    Error,
    Malformed,
    Message,
    ModelCall,
    Reply,
    Responder,
    Text,
    ToolCall,
    count_tokens,
    example_for_schema,
)
from .scripts import (
    add_file_patch,
    claude_bash,
    claude_write,
    codex_apply_patch,
    codex_exec,
    shell_call,
    shell_then_reply,
    tool_output,
)
from .server import ModelServer, default_responder, is_title_request

__all__ = [
    "CustomToolCall",
    "Delay",
    "Disconnect",
    "Error",
    "Malformed",
    "Message",
    "ModelCall",
    "ModelServer",
    "RecordedRequest",
    "Reply",
    "Responder",
    "Text",
    "ToolCall",
    "add_file_patch",
    "claude_bash",
    "claude_write",
    "codex_apply_patch",
    "codex_exec",
    "count_tokens",
    "default_responder",
    "example_for_schema",
    "is_title_request",
    "shell_call",
    "shell_then_reply",
    "tool_output",
]
