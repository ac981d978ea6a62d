"""A loopback-server responder that answers a night's prompts the way the simulated backend does.

With it, a whole night runs through a real backend (the openai or anthropic SDK, over HTTP) and
gets answers the pipeline can use: replays that follow the rules in the skill under test, an
optimizer reply in the JSON shape the reflection asks for, rubric verdicts. The role is read
from the system prompt the pipeline sends; the sample seed from the request body (the openai
backend sends ``seed`` to compatible servers), so K samples differ and a retried call gets the
same answer as the first attempt would have. With ``count_samples``, a replay without a seed (the
Anthropic API and the public OpenAI API take none) is the n-th sample of its prompt, n counted
per system and prompt: the K identical requests of one task get K different samples whatever
order they arrive in (without it, they all get the same answer). Reflection and rubric calls,
one draw each, are answered from their prompt alone.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import threading
from collections import defaultdict
from collections.abc import Iterator, Mapping

from ..backends.base import Message, Request, Role
from ..backends.simulated import SimulatedBackend
from ..checks.judge import RUBRIC_SYSTEM
from ..optimize.prompts import shipped
from ..rollouts.replay import REPLAY_SYSTEM
from .replies import ModelCall, Reply, Responder, Text


def role_of(system: str) -> Role:
    """Which role a call serves, from the system prompt the pipeline gave it."""
    if system.startswith(shipped("reflect_contrast")[:60]):
        return "optimizer"
    if system.startswith(RUBRIC_SYSTEM[:60]):
        return "judge"
    if system.startswith(REPLAY_SYSTEM[:60]):
        return "target"
    return "judge"  # a probe or anything else: a short JSON verdict is a harmless answer


def simulated_night_responder(
    backend: SimulatedBackend | None = None, *, count_samples: bool = False
) -> Responder:
    """``ModelServer(responder=simulated_night_responder())``: the simulated world, over HTTP."""
    sim = backend or SimulatedBackend()
    seen: defaultdict[str, Iterator[int]] = defaultdict(itertools.count)
    lock = threading.Lock()

    def respond(call: ModelCall) -> Reply:
        body = call.body if isinstance(call.body, Mapping) else {}
        seed = body.get("seed")
        last = call.last.text if call.last is not None else ""
        role = role_of(call.system)
        if not isinstance(seed, int) and count_samples and role == "target":
            with lock:
                n = next(seen[hashlib.sha256(f"{call.system}\x00{last}".encode()).hexdigest()])
            seed = int(hashlib.sha256(f"{last}\x00{n}".encode()).hexdigest()[:12], 16)
        request = Request(
            role,
            call.system,
            (Message("user", last),),
            seed=seed if isinstance(seed, int) else None,
        )
        return Text(asyncio.run(sim.complete(request)).text)

    return respond
