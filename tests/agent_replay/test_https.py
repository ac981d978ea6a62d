"""The model-API tunnel carries https: the agent's TLS session runs end to end through the inner
proxy and the relay to an https server it was told to trust (a loopback server with a test CA)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import ssl
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import agent_rollout, prepare
from skillopt_sleep.agent_replay.forward import endpoint, tunnel
from skillopt_sleep.agent_replay.sandbox import probe
from skillopt_sleep.checks.judge import judge
from skillopt_sleep.models import Check, TaskRecord
from skillopt_sleep.testing import ModelServer, shell_then_reply
from skillopt_sleep.testing.agents import codex_home
from skillopt_sleep.testing.tls import Certs, TlsFront, make_certs

from .conftest import agent_path, need


@pytest.fixture
def certs(tmp_path: Path) -> Certs:
    try:
        return make_certs(tmp_path / "tls")
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


def _get(sock_path: Path, ca: Path) -> bytes:
    ctx = ssl.create_default_context(cafile=str(ca))
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.connect(str(sock_path))
    with ctx.wrap_socket(raw, server_hostname="localhost") as conn:
        conn.sendall(b"HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        return conn.recv(4096)


def test_the_relay_carries_a_verified_tls_session_to_an_https_model_api(certs, tmp_path):
    with ModelServer() as server, TlsFront(server.port, certs) as front:

        async def go() -> bytes:
            async with tunnel(tmp_path / "api", endpoint(front.url)) as path:
                return await asyncio.to_thread(_get, path, certs.ca)

        answer = asyncio.run(go())
        assert answer.startswith(b"HTTP/1.")
        assert front.handshakes == 1 and len(server.requests) == 1


def test_a_client_that_does_not_trust_the_api_certificate_gets_nothing_through(certs, tmp_path):
    other = make_certs(tmp_path / "other")
    with ModelServer() as server, TlsFront(server.port, certs) as front:

        async def go() -> None:
            async with tunnel(tmp_path / "api", endpoint(front.url)) as path:
                await asyncio.to_thread(_get, path, other.ca)

        with pytest.raises(ssl.SSLCertVerificationError):
            asyncio.run(go())
        assert server.requests == []  # the relay does not terminate TLS: it cannot be fooled


def _task(project: Path, agent: str) -> TaskRecord:
    return TaskRecord(
        source=agent,
        project=str(project),
        session_id="s",
        intent="Run the tests",
        created_at=datetime(2026, 11, 21, tzinfo=timezone.utc),
        checks=[Check(kind="never_ran", value="unittest")],
    )


@pytest.mark.realbin
@pytest.mark.slow
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_the_real_agent_replays_against_an_https_model_api_it_trusts(
    agent, certs, project, sandbox_home
):
    need(agent)
    with (
        ModelServer(responder=shell_then_reply("echo $((6*7))")) as server,
        TlsFront(server.port, certs) as front,
    ):
        env = {"PATH": agent_path(), "HOME": str(sandbox_home)}
        if agent == "claude-code":
            env |= {"ANTHROPIC_BASE_URL": front.url, "ANTHROPIC_API_KEY": "x"}
            env["NODE_EXTRA_CA_CERTS"] = str(certs.ca)
        else:
            env["LOCAL_API_KEY"] = codex_home(sandbox_home, front.url)["LOCAL_API_KEY"]
            env["CODEX_CA_CERTIFICATE"] = str(certs.ca)
        setup = prepare(agent, env)
        assert not isinstance(setup, str), setup
        task = _task(project, agent)
        result = asyncio.run(
            agent_rollout(task, {}, 0, setup=setup, score=lambda t, e: judge(task, t, None, e))
        )
        assert "42" in result.output.text
        assert front.handshakes >= 2 and len(server.model_requests()) >= 2


_BIND_443 = "import socket; socket.create_server(('127.0.0.1', 443)); print('listening')"


@pytest.mark.skipif(
    os.name != "posix" or os.getuid() != 0 or not shutil.which("setpriv"),
    reason="needs root to run the sandbox as another user (setpriv)",
)
def test_the_sandbox_of_a_user_who_is_not_root_can_listen_on_443_for_an_https_api():
    """An https API is on port 443: the inner proxy listens there, inside the sandbox, and only
    a namespace's root may, so the sandbox of an ordinary user maps it to one (``low_port``)."""
    sandbox = probe({"PATH": os.environ["PATH"], "HOME": "/nonexistent"})
    if isinstance(sandbox, str):
        pytest.skip(sandbox)
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    python = shutil.which("python3", path="/usr/bin:/bin") or "python3"

    def run(low_port: bool) -> subprocess.CompletedProcess[str]:
        argv = sandbox.wrap(
            [python, "-c", _BIND_443],
            writable=[],
            chdir=Path("/"),
            env={"PATH": "/usr/bin:/bin"},
            low_port=low_port,
        )
        return subprocess.run([*nobody, *argv], capture_output=True, text=True, timeout=30)

    assert "Permission denied" in run(low_port=False).stderr
    assert run(low_port=True).stdout.strip() == "listening"
