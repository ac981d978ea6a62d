"""The night's side of the model-API tunnel: a unix socket whose every connection is forwarded
to the one host and port of the model API. The sandboxed agent has no network of its own; this
socket is the only way out, and it leads only to the model."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Endpoint:
    """Where the model API is: the agent's base URL, split."""

    url: str
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        return self.host in ("127.0.0.1", "localhost", "::1")


def endpoint(url: str) -> Endpoint:
    """The host and port of a base URL (``ValueError`` naming the fix when it has no host)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"model API URL {url!r} is not http(s)://host[:port]; set the agent's base URL"
        )
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return Endpoint(url, parts.hostname, port)


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy one direction of a connection until it ends, then close the writing side."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


@contextlib.asynccontextmanager
async def tunnel(path: Path, api: Endpoint) -> AsyncIterator[Path]:
    """Serve the unix socket ``path`` for as long as the block runs."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(api.host, api.port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_unix_server(handle, path=str(path))
    try:
        yield path
    finally:
        server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 2)
