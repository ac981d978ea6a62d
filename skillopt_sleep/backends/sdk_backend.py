"""What the two SDK backends share: one client per event loop, the SDK's errors translated into
the error tree, the model list, and the ``check`` probe.

Both official SDKs raise the same family of exceptions (``APITimeoutError``,
``APIConnectionError``, ``APIStatusError``, ``APIResponseValidationError``), so one translation
serves both; a subclass names its SDK module and base error class.

One client per event loop (:class:`LoopClient`), closed when that loop shuts down: an async
HTTP client keeps pooled connections bound to the event loop it first ran in. A backend outlives
one ``asyncio.run`` (``doctor`` probes, then a night; a benchmark runs several nights), so
reusing the client in the next loop would hand it dead connections, and dropping it would leave
sockets for the garbage collector to close after their loop is gone. Here each loop gets its own
client, and an async generator parked in the loop closes it: ``asyncio.run`` closes every live
async generator before it closes the loop (``loop.shutdown_asyncgens``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from functools import partial
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar

from ..errors import BackendError, TransientError
from ..settings import RoleSettings
from .base import Health, Message, Request
from .http_errors import status_error

C = TypeVar("C")
T = TypeVar("T")
B = TypeVar("B", bound="SdkBackend")
PING = Request("judge", "", (Message("user", "Reply OK."),), max_tokens=16, tag="probe")


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


class SdkBackend:
    """Base of :class:`AnthropicBackend` and :class:`OpenAIBackend`.

    ``client`` is an SDK client (used as is) or a function making one (one client per event
    loop, closed with it).
    """

    name: ClassVar[str]
    sdk: ClassVar[ModuleType]
    sdk_error: ClassVar[type[Exception]]
    client_type: ClassVar[type]
    default_model: ClassVar[str]
    default_key_env: ClassVar[str]
    list_args: ClassVar[dict[str, Any]] = {}

    def __init__(
        self,
        client: Any,
        *,
        model: str,
        key_env: str,
        temperature: float | None = None,
        timeout_s: float = 120.0,
        prompt_cache: bool = True,
    ) -> None:
        self.clients: LoopClient[Any] = LoopClient.of(client, self.client_type, _close)
        self.client = self.clients.current
        self.model = model
        self.key_env = key_env
        self.temperature = temperature
        self.timeout_s = timeout_s
        self.prompt_cache = prompt_cache
        self.base_url = str(self.client.base_url).rstrip("/")
        self._warming: dict[str, asyncio.Event] = {}
        self._warming_loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def _from_role(cls: type[B], role: RoleSettings, *, key: str, base_url: str) -> B:
        """The backend for ``role``: one SDK client per event loop, the SDK's retries off."""
        factory = partial(
            cls.client_type, api_key=key, base_url=base_url, timeout=role.timeout_s, max_retries=0
        )
        return cls(
            factory,
            model=role.model or cls.default_model,
            key_env=role.api_key_env or cls.default_key_env,
            temperature=role.temperature,
            timeout_s=role.timeout_s,
            prompt_cache=role.prompt_cache,
        )

    @classmethod
    def usable(cls, env: Mapping[str, str], which: Any = None) -> bool:
        """Usable when the provider's standard key variable is set (auto-detection looks at
        nothing else)."""
        return bool(env.get(cls.default_key_env, "").strip())

    def _temperature(self, request: Request) -> float | None:
        return request.temperature if request.temperature is not None else self.temperature

    async def _warm_first(self, request: Request, send: Callable[[], Awaitable[T]]) -> T:
        """``send()``, but the first call with a new system prefix goes alone: a provider can
        read a cached prefix only once a call has written it, so the K rollouts and the other
        tasks of a phase, sent concurrently, would each pay to write the same prefix."""
        if not (self.prompt_cache and request.system):
            return await send()
        loop = asyncio.get_running_loop()
        if self._warming_loop is not loop:
            self._warming, self._warming_loop = {}, loop
        key = prefix_key(request.system)
        written = self._warming.get(key)
        if written is not None:
            await written.wait()
            return await send()
        self._warming[key] = written = asyncio.Event()
        try:
            return await send()
        finally:
            written.set()

    async def call(self, send: Callable[[Any], Awaitable[T]]) -> T:
        """``send(client)``, with the SDK's errors translated."""
        try:
            return await send(await self.clients.get())
        except self.sdk_error as exc:
            raise await self._translate(exc) from exc
        except ValueError as exc:  # a 200 whose JSON body does not parse
            raise self.malformed(str(exc)) from exc

    def malformed(self, why: str) -> TransientError:
        # A garbled body is a proxy or server hiccup more often than a model's doing: retry it.
        return TransientError(
            f"{self.name} sent a malformed response from {self.base_url}: {why[:120]}"
        )

    def status_error(self, status: int, message: str) -> BackendError:
        """The error a provider's ``status`` maps to, naming this backend's model, key and server."""
        return status_error(
            self.name,
            status,
            message,
            model=self.model,
            key_env=self.key_env,
            base_url=self.base_url,
        )

    async def _translate(self, exc: Exception) -> BackendError:
        sdk = self.sdk
        if isinstance(exc, sdk.APITimeoutError):
            return TransientError(
                f"{self.base_url} did not answer within {self.timeout_s:g}s",
                hint="raise roles.<role>.timeout_s if this keeps happening",
            )
        if isinstance(exc, sdk.APIConnectionError):
            return TransientError(
                f"cannot reach {self.base_url}: {exc}",
                hint="check the network, that the server runs, or base_url",
            )
        if isinstance(exc, sdk.APIStatusError):
            known = None
            if exc.status_code == 404:
                try:
                    known = await self.list_models() or None
                except BackendError:
                    known = None
            return status_error(
                self.name,
                exc.status_code,
                _detail(exc.body) or str(exc),
                model=self.model,
                key_env=self.key_env,
                base_url=self.base_url,
                headers=exc.response.headers,
                known_models=known,
            )
        if isinstance(exc, sdk.APIResponseValidationError):
            return self.malformed(str(exc))
        return TransientError(f"{self.name} failed: {exc}")

    async def list_models(self) -> list[str]:
        """The model ids the server lists; [] when it keeps no list. Raises for a rejected key or
        an unreachable server."""
        sdk = self.sdk
        try:
            page = await (await self.clients.get()).models.list(**self.list_args)
        except sdk.APIStatusError as exc:
            if exc.status_code in (401, 403):
                raise await self._translate(exc) from exc
            return []
        except sdk.APIConnectionError as exc:
            raise await self._translate(exc) from exc
        except (self.sdk_error, ValueError):
            return []
        return [m.id for m in getattr(page, "data", []) or []]

    async def complete(self, request: Request) -> Any:  # pragma: no cover - subclasses
        raise NotImplementedError

    async def check(self) -> Health:
        """One tiny completion on the role's model: it proves the key, the model and the account
        (a model list answers even where billing or model access would refuse the night).
        Costs a few tokens; never raises."""
        extra = {"base_url": self.base_url, "key_env": self.key_env}
        try:
            await self.complete(PING)
        except BackendError as exc:
            return Health(False, exc.message, fix=exc.hint or "", extra=extra)
        return Health(True, f"{self.base_url} answered with model {self.model}", extra=extra)


def prefix_key(system: str) -> str:
    """A short stable name of a system prompt (a cache key, a batch's request id part)."""
    return hashlib.sha256(system.encode()).hexdigest()[:24]


def _detail(body: object) -> str:
    """The ``error.message`` of an error body (both SDKs pass the body or its ``error``)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
        return json.dumps(body)[:300]
    return str(body or "")[:300]


async def _close(client: Any) -> None:
    await client.close()
