"""An https face for the loopback model server: a test CA, a certificate for ``localhost`` signed
by it, and a TLS front that terminates https and passes the plain bytes to the server.

The certificates are made with the ``openssl`` command (:func:`make_certs` raises
``FileNotFoundError`` where it is missing). Point an agent at ``https://localhost:PORT`` and tell
it to trust ``Certs.ca`` (``NODE_EXTRA_CA_CERTS`` for Claude Code, ``CODEX_CA_CERTIFICATE`` or
``SSL_CERT_FILE`` for codex, ``ssl.create_default_context(cafile=...)`` for Python).
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..agent_replay.forward import pipe

if TYPE_CHECKING:  # typing_extensions is not installed alongside every Python 3.10
    from typing_extensions import Self


@dataclass(frozen=True)
class Certs:
    ca: Path  # the test CA's certificate: what a client is told to trust
    cert: Path  # localhost's certificate, signed by the CA
    key: Path


def _openssl(*args: str) -> None:
    binary = shutil.which("openssl")
    if binary is None:
        raise FileNotFoundError("openssl is not installed")
    subprocess.run([binary, *args], check=True, capture_output=True, timeout=60)


def make_certs(root: Path) -> Certs:
    """A CA and a ``localhost`` / ``127.0.0.1`` certificate signed by it, under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    ca, ca_key = root / "ca.pem", root / "ca.key"
    cert, key, csr = root / "localhost.pem", root / "localhost.key", root / "localhost.csr"
    ext = root / "san.ext"
    ext.write_text(
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n",
        encoding="utf-8",
    )
    new_key = ("-newkey", "rsa:2048", "-nodes")
    _openssl("req", "-x509", *new_key, "-keyout", str(ca_key), "-out", str(ca), "-days", "2",
             "-subj", "/CN=skillopt test CA", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign")  # fmt: skip
    _openssl("req", *new_key, "-keyout", str(key), "-out", str(csr), "-subj", "/CN=localhost")
    _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key),
             "-CAcreateserial", "-out", str(cert), "-days", "2", "-extfile", str(ext))  # fmt: skip
    return Certs(ca, cert, key)


class TlsFront:
    """``https://localhost:PORT`` in front of ``http://127.0.0.1:UPSTREAM``, served by an event
    loop of its own thread; counts completed handshakes."""

    def __init__(self, upstream: int, certs: Certs) -> None:
        self.upstream = upstream
        self._ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._ctx.load_cert_chain(str(certs.cert), str(certs.key))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self.handshakes = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._serve(),))
        self._thread.daemon = True

    @property
    def url(self) -> str:
        return f"https://localhost:{self.port}"

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.handshakes += 1
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._one, sock=self._listener, ssl=self._ctx)
        self._ready.set()
        async with server:
            await self._stop.wait()

    def __enter__(self) -> Self:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        stop = self._stop
        if stop is not None:
            self._loop.call_soon_threadsafe(stop.set)
        self._thread.join(10)
        self._loop.close()
