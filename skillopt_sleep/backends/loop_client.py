"""One SDK client per event loop, closed when that loop shuts down.

An async HTTP client keeps pooled connections bound to the event loop it first ran in. A
backend outlives one ``asyncio.run`` (``doctor`` probes, then a night; a benchmark runs several
nights), so reusing the client in the next loop would hand it dead connections, and dropping it
would leave sockets for the garbage collector to close after their loop is gone. Here each loop
gets its own client, and an async generator parked in the loop closes it: ``asyncio.run`` closes
every live async generator before it closes the loop (``loop.shutdown_asyncgens``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Generic, TypeVar

C = TypeVar("C")


class LoopClient(Generic[C]):
    """``await clients.get()``: this loop's client, made by ``factory`` on first use in a loop.

    Without a factory, one given client is used everywhere and never closed here: whoever made
    it owns it (a test passing a client aimed at its server, say).
    """

    def __init__(
        self,
        factory: Callable[[], C] | None,
        close: Callable[[C], Awaitable[object]],
        fixed: C | None = None,
    ) -> None:
        if factory is None and fixed is None:
            raise ValueError("LoopClient needs a factory or a client")
        self._factory = factory
        self._close = close
        self.current: C = fixed if factory is None else factory()  # type: ignore[assignment]
        self._loop: asyncio.AbstractEventLoop | None = None
        self._keeper: AsyncIterator[None] | None = None

    @classmethod
    def of(
        cls, client: C | Callable[[], C], kind: type, close: Callable[[C], Awaitable[object]]
    ) -> LoopClient[C]:
        """A fixed client if ``client`` is a ``kind``, else ``client`` is the factory."""
        if isinstance(client, kind):
            return cls(None, close, fixed=client)  # type: ignore[arg-type]
        return cls(client, close)  # type: ignore[arg-type]

    async def get(self) -> C:
        loop = asyncio.get_running_loop()
        if self._loop is loop or self._factory is None:
            return self.current
        if self._loop is not None:
            self.current = self._factory()
        self._loop = loop
        keeper = self._closer(self.current)
        await keeper.__anext__()
        self._keeper = keeper  # kept alive until the loop's shutdown closes it
        return self.current

    async def _closer(self, client: C) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await self._close(client)
