"""The key variables of the pay-per-token backends, in a module of their own: choosing a backend
reads them without importing an SDK (the anthropic and openai SDKs take a second or more each to
import on a cold start, paid by every command that only asks which backend it would use)."""

from __future__ import annotations

ANTHROPIC_KEY_ENV = "ANTHROPIC_API_KEY"
OPENAI_KEY_ENV = "OPENAI_API_KEY"

# backend name -> the variable whose value makes it usable when no backend is configured
KEY_ENV: dict[str, str] = {"anthropic": ANTHROPIC_KEY_ENV, "openai": OPENAI_KEY_ENV}
