"""Doctor checks for the model backends: for each role, which backend serves it, whether its
binary or key is there, and whether a cheap authenticated probe answers. Roles that share a
backend and model are probed once."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from ..backends.agent_cli import find_binary
from ..backends.base import ROLES, Backend, Health
from ..backends.registry import backend_class, resolve_name
from ..errors import SleepError
from ..settings import RoleSettings
from . import DoctorInput, Finding

OFFLINE = ("simulated", "scripted")
BINARIES = {"claude-code": "claude", "codex": "codex"}
KEY_ENVS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def checks(inp: DoctorInput) -> list[Finding]:
    seen: dict[str, Finding] = {}
    out = []
    for role in ROLES:
        settings: RoleSettings = getattr(inp.settings.roles, role)
        key = settings.model_dump_json()
        if key not in seen:
            seen[key] = role_finding(role, settings, inp)
            out.append(seen[key])
        else:
            first = seen[key]
            out.append(
                Finding(
                    f"{role} backend",
                    first.status,
                    f"same as {first.data['role']}: " + first.detail,
                    first.fix,
                    {**first.data, "role": role},
                )
            )
    return out


def role_finding(role: str, settings: RoleSettings, inp: DoctorInput) -> Finding:
    """One role: backend resolved, binary/key present, and the probe's verdict."""
    label = f"{role} backend"
    try:
        name = resolve_name(settings, inp.env, which=inp.which)
    except SleepError as exc:
        return Finding(label, "fail", exc.message, exc.hint or "", {"role": role})
    data = {"role": role, "backend": name, **_prerequisites(name, settings, inp)}
    if name in OFFLINE:
        return Finding(label, "ok", f"{name}: offline, no real model is called", data=data)
    try:
        backend = backend_class(name).from_settings(settings, inp.env)
    except SleepError as exc:
        return Finding(label, "fail", f"{name}: {exc.message}", exc.hint or "", data)
    data["model"] = backend.model
    health = _probe(backend)
    data.update({"version": health.version, **health.extra})
    data = {k: v for k, v in data.items() if v}
    detail = f"{name} ({backend.model}): {health.detail}"
    return Finding(label, "ok" if health.ok else "fail", detail, health.fix, data)


def _prerequisites(name: str, settings: RoleSettings, inp: DoctorInput) -> dict[str, str]:
    """Where the binary is, or whether the key is set (no secret values, only names)."""
    if name in BINARIES:
        path = find_binary(BINARIES[name], inp.env, inp.which)
        return {"binary": path or "not found"}
    if name in KEY_ENVS:
        key_env = settings.api_key_env or KEY_ENVS[name]
        return {"key_env": key_env, "key_present": "yes" if _present(inp.env, key_env) else "no"}
    return {}


def _present(env: Mapping[str, str], name: str) -> bool:
    return bool(env.get(name, "").strip())


def _probe(backend: Backend) -> Health:
    try:
        return asyncio.run(backend.check())
    except SleepError as exc:  # check() should not raise; a broken one still gets a clear line
        return Health(False, exc.message, fix=exc.hint or "")
