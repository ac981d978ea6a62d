"""The seeds' environments run unchanged: a skillrl ``SkillEnv`` and a SkillOpt ``EnvAdapter``
as an :class:`~.base.Environment`.

Both are synchronous: a rollout runs in a worker thread (the run's concurrency limit is the
replayer's, so at most that many threads work at once) with a :class:`~.seed_client.BackendClient`
that sends its model calls back to the run's loop, through the run's budget, retries and
redaction. The skill the environment receives is the skill text itself (its own framing, if any,
is its business). The items are the environment's (``get_items(split)``; an adapter's
dataloader or ``build_eval_env``), kept as they are and scored by the environment: they need no
check. The run's ``extras`` reach a ``configure(extras)`` of either, and an adapter's ``setup``
among its settings. An adapter whose class defines its own ``reflect`` is also an analyst
(:meth:`AdapterEnv.analyse`): its patches become edits that go through the same guards and gate.

Failure policy, as for every environment: an exception of the environment's own code on one
item is an errored rollout (no evidence, counted), never a 0; a systemic backend failure (budget,
a refused key, an outage) stops the run even when the environment's code caught it.
"""

from __future__ import annotations

import asyncio
import contextvars
import tempfile
from collections import defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from ..backends.base import Backend
from ..errors import BackendError, ConfigError
from ..models import Edit, TaskRecord
from .base import EnvResult, files_of
from .extras import configure
from .seed_batches import Batch, Batcher
from .seed_client import BackendClient
from .seed_items import as_row, edits_of, env_result, intent_of, item_of, record_of
from .task_record import item_failed

SPLITS = ("train", "val", "test")
MAX_ITEMS = 100_000  # what an adapter's build_eval_env is asked for: every item of the split
TARGET: contextvars.ContextVar[BackendClient | None] = contextvars.ContextVar(
    "target", default=None
)
OPTIMIZER: contextvars.ContextVar[BackendClient | None] = contextvars.ContextVar(
    "optimizer", default=None
)
# The client of the adapter code running now, for the threads it starts itself (a new thread
# starts with an empty context): an adapter's batches run one at a time, its reflect once a step.
_SHARED: dict[str, BackendClient] = {}


def client_of(var: contextvars.ContextVar[BackendClient | None]) -> BackendClient | None:
    """The run's model client in this thread: its context's, else the running adapter code's."""
    return var.get() or _SHARED.get(var.name)


class Case(Protocol):
    """A reflection case, as an analyst needs it here: the item it is about."""

    @property
    def task(self) -> TaskRecord: ...


def is_skill_env(obj: object) -> bool:
    return callable(getattr(obj, "rollout_one", None)) and callable(getattr(obj, "get_items", None))


def is_env_adapter(obj: object) -> bool:
    return all(
        callable(getattr(obj, n, None)) for n in ("build_eval_env", "rollout", "get_task_types")
    )


def wrap(obj: object, project: str = "") -> SeedEnv | None:
    """``obj`` as an environment when it is a seed's (None when it is not)."""
    if is_skill_env(obj):
        return SkillEnvEnv(obj, project)
    if is_env_adapter(obj):
        return AdapterEnv(obj, project)
    return None


class SeedEnv:
    """What both seeds' environments share: items by split, the thread pool, the client."""

    def __init__(self, env: Any, project: str) -> None:
        self.env, self.project = env, project or "/"
        self.name = str(getattr(env, "name", "") or type(env).__name__)
        self._items: dict[str, dict[str, Any]] = {}
        self._rows: dict[str, deque[dict[str, Any]]] = defaultdict(lambda: deque(maxlen=8))
        self._pool: ThreadPoolExecutor | None = None
        self.notes: list[str] = []
        self._extras: dict[str, Any] | None = None

    def configure(self, extras: Mapping[str, Any]) -> None:
        """The run's extras to the environment's own ``configure``, when it has one and was not
        given them already (in its constructor, or by a compat trainer before the run)."""
        self._extras = dict(extras)
        configure(self.env, extras)

    def initial_skill(self) -> str | None:
        """The environment's own seed skill, when it has one."""
        get = getattr(self.env, "get_initial_skill", None)
        text = get() if callable(get) else None
        return text if isinstance(text, str) else None

    def task_types(self) -> list[str]:
        get = getattr(self.env, "get_task_types", None)
        return [str(t) for t in (get() if callable(get) else None) or []]

    def splits(self, seed: int = 0) -> tuple[list[TaskRecord], ...]:
        """The train, val and test items as task records (the items kept for the rollouts)."""
        out = []
        for split in SPLITS:
            items = self._split_items(split, seed)
            records = []
            for index, item in enumerate(items):
                if not isinstance(item, Mapping):
                    raise ConfigError(
                        f"{self.name}: a {split} item is a {type(item).__name__}, not a dict",
                        hint="return the items of each split as a list of dicts",
                    )
                record = record_of(item, split, index, self.project)
                self._items[record.id] = dict(item)
                records.append(record)
            out.append(records)
        if not out[0] or not out[1]:
            raise ConfigError(
                f"{self.name} has no {'train' if not out[0] else 'val'} items",
                hint="give the environment train and val items (and test items to report on)",
            )
        return tuple(out)

    def _split_items(self, split: str, seed: int) -> Sequence[Any]:
        raise NotImplementedError

    def item(self, record: TaskRecord) -> dict[str, Any]:
        return self._items.get(record.id) or item_of(record)

    async def in_thread(
        self,
        client: BackendClient,
        var: contextvars.ContextVar[BackendClient | None],
        fn: Callable[[], Any],
        *,
        shared: bool = False,
    ) -> Any:
        """``fn()`` in a worker thread, ``client`` the seed code's model there (``shared``: in
        the threads it starts too); the client's systemic failure raised even when ``fn``
        caught it."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=256, thread_name_prefix=f"env-{self.name}")

        def run() -> Any:
            var.set(client)
            return fn()

        ctx = contextvars.copy_context()
        if shared:
            _SHARED[var.name] = client
        try:
            done = await asyncio.get_running_loop().run_in_executor(self._pool, ctx.run, run)
        except Exception:
            if client.fatal is not None:
                raise client.fatal from None
            raise
        finally:
            if shared and _SHARED.get(var.name) is client:
                del _SHARED[var.name]
        if client.fatal is not None:
            raise client.fatal
        return done

    async def rollout(
        self,
        item: TaskRecord,
        instructions: str,
        backend: Backend,
        *,
        seed: int,
        max_tokens: int = 1024,
    ) -> EnvResult:
        seed_item = self.item(item)
        skill = files_of(instructions).get("SKILL.md", str(instructions))
        try:
            row = await self.row(item.id, seed_item, skill, backend, seed, max_tokens)
        except BackendError as exc:
            if not item_failed(exc):
                raise
            return EnvResult.errored(exc.one_line())
        except Exception as exc:  # the environment's own code failed on this item: no evidence
            return EnvResult.errored(
                f"{self.name} failed on item {item.id}: {type(exc).__name__}: {exc}"
            )
        if row is None:
            return EnvResult.errored(f"{self.name}.rollout returned no result for item {item.id}")
        self._rows[item.id].append(row)
        return env_result(row, intent_of(seed_item))

    async def row(
        self,
        record_id: str,
        item: dict[str, Any],
        skill: str,
        backend: Backend,
        seed: int,
        max_tokens: int,
    ) -> dict[str, Any] | None:
        """The environment's scored row of one rollout of ``item`` (None: it gave none)."""
        raise NotImplementedError


class SkillEnvEnv(SeedEnv):
    """A skillrl ``SkillEnv``: ``rollout_one(item=, skill=, target_client=)`` per rollout."""

    def _split_items(self, split: str, seed: int) -> Sequence[Any]:
        return list(self.env.get_items(split) or [])

    async def row(
        self,
        record_id: str,
        item: dict[str, Any],
        skill: str,
        backend: Backend,
        seed: int,
        max_tokens: int,
    ) -> dict[str, Any] | None:
        client = BackendClient(
            backend, loop=asyncio.get_running_loop(), seed=seed, max_tokens=max_tokens
        )

        def one() -> dict[str, Any]:
            return as_row(self.env.rollout_one(item=item, skill=skill, target_client=client))

        return dict(await self.in_thread(client, TARGET, one))


class AdapterEnv(SeedEnv):
    """A SkillOpt ``EnvAdapter``: its batch ``rollout`` once per batch of the rollouts the run
    starts together (:mod:`.seed_batches`; its model calls through the compat module's
    ``chat_target``), and its own ``reflect``, where its class has one, as an analyst."""

    rolls_out_batches = True  # the replayer holds its limit on the model calls, not the rollouts

    def __init__(self, env: Any, project: str) -> None:
        super().__init__(env, project)
        self._set_up = False
        self.batches = Batcher(self._roll_out, as_row)

    def _setup(self, seed: int) -> None:
        setup = getattr(self.env, "setup", None)
        if callable(setup) and not self._set_up:  # the run's extras among its settings, as
            extras = self._extras or {}  # SkillOpt's trainer hands an adapter its whole config
            setup({**extras, "extras": extras, "seed": seed, "out_root": tempfile.gettempdir()})
        self._set_up = True

    def _split_items(self, split: str, seed: int) -> Sequence[Any]:
        self._setup(seed)
        loader = (
            self.env.get_dataloader()
            if callable(getattr(self.env, "get_dataloader", None))
            else None
        )
        held = getattr(loader, f"{split}_items", None)
        if isinstance(held, list):
            return held
        made = self.env.build_eval_env(env_num=MAX_ITEMS, split=split, seed=seed)
        if not isinstance(made, list):
            raise ConfigError(
                f"{self.name}.build_eval_env returned a {type(made).__name__}, not a list of items",
                hint="train runs adapters whose environment manager is the list of items "
                "(dataset-backed); give its dataloader train_items, val_items and test_items",
            )
        return made

    async def row(
        self,
        record_id: str,
        item: dict[str, Any],
        skill: str,
        backend: Backend,
        seed: int,
        max_tokens: int,
    ) -> dict[str, Any] | None:
        return await self.batches.submit(
            record_id, item, skill, backend, seed=seed, max_tokens=max_tokens
        )

    async def _roll_out(self, batch: Batch) -> Sequence[Any]:
        """One call of the adapter's ``rollout`` over the batch's items; what its own threads
        ask ``chat_target`` goes to the batch's client, each item's sample seeded by its prompt."""
        client = BackendClient(
            batch.backend,
            loop=asyncio.get_running_loop(),
            seed=batch.seed,
            max_tokens=batch.max_tokens,
            per_prompt=True,
        )
        items = list(batch.items)

        def run() -> Any:
            with tempfile.TemporaryDirectory(prefix="skillopt-env-") as out_dir:
                return self.env.rollout(items, batch.skill, out_dir)

        given = await self.in_thread(client, TARGET, run, shared=True)
        return list(given or [])

    def analyst_prompts(self) -> dict[str, tuple[str, str]]:
        """The adapter's own analyst prompts, by the run's names, each with where it came from:
        ``get_error_minibatch_prompt()`` for the failure and contrast analysts,
        ``get_success_minibatch_prompt()`` for the success analyst (SkillOpt's, in its reply
        format or ours). A run keeps those that are not its shipped ones."""
        out: dict[str, tuple[str, str]] = {}
        asks = {
            "get_error_minibatch_prompt": ("reflect_failure", "reflect_contrast"),
            "get_success_minibatch_prompt": ("reflect_success",),
        }
        for method, names in asks.items():
            get = getattr(self.env, method, None)
            try:
                text = get() if callable(get) else None
            except Exception as exc:
                raise ConfigError(
                    f"{self.name}.{method}() failed: {type(exc).__name__}: {exc}",
                    hint="return the analyst's prompt text, or None for the shipped one",
                ) from exc
            if isinstance(text, str) and text.strip():
                out.update(dict.fromkeys(names, (text, f"environment: {self.name}.{method}()")))
        return out

    @property
    def reflects(self) -> bool:
        """Whether the adapter's class defines its own ``reflect`` (the base's is not one)."""
        for cls in type(self.env).__mro__:
            if "reflect" in cls.__dict__:
                return cls.__name__ != "EnvAdapter"
        return False

    async def analyse(
        self, cases: Sequence[Case], skill: str, optimizer: Backend, notes: str = "", seed: int = 0
    ) -> list[Edit]:
        """The edits the adapter's own ``reflect`` proposes for the rollouts of ``cases``."""
        if not self.reflects or not cases:
            return []
        rows = [dict(r) for c in cases for r in self._rows.get(c.task.id, ())]
        if not rows:
            return []
        client = BackendClient(
            optimizer, role="optimizer", loop=asyncio.get_running_loop(), seed=seed
        )

        def run() -> Any:
            with tempfile.TemporaryDirectory(prefix="skillopt-reflect-") as out_dir:
                return self.env.reflect(
                    rows,
                    skill,
                    out_dir,
                    random_seed=seed,
                    step_buffer_context="",
                    meta_skill_context=notes,
                )

        try:
            patches = await self.in_thread(client, OPTIMIZER, run, shared=True)
        except BackendError as exc:
            if not item_failed(exc):
                raise
            return []  # no proposal, as an optimizer call that failed after its retries
        except Exception as exc:  # the adapter's own reflect failed: no proposal, said once
            self.notes.append(f"{self.name}.reflect failed: {type(exc).__name__}: {exc}")
            return []
        return edits_of(patches or [], [c.task.id for c in cases])
