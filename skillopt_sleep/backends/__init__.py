"""Model backends: one protocol (``base.Backend``), a registry, retries and the budget."""

from .base import Backend, Completion, Health, Message, Request, Role
from .registry import create_backend, known_backends

__all__ = [
    "Backend",
    "Completion",
    "Health",
    "Message",
    "Request",
    "Role",
    "create_backend",
    "known_backends",
]
