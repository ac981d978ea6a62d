"""The anthropic and openai backends through the real SDKs against a loopback server speaking
each provider's wire format: success, Retry-After, 5xx, overload, timeout, malformed JSON, auth,
unknown model, and a keyless local server."""

from __future__ import annotations

import asyncio
import random

import pytest

from skillopt_sleep.backends.anthropic_api import AnthropicBackend
from skillopt_sleep.backends.base import Message, Request
from skillopt_sleep.backends.budget import Budget
from skillopt_sleep.backends.openai_api import OpenAIBackend
from skillopt_sleep.backends.retry import RetryPolicy, call_with_retry
from skillopt_sleep.errors import AuthError, BadRequestError, TransientError
from skillopt_sleep.settings import BudgetSettings, RoleSettings
from skillopt_sleep.testing import Delay, Error, Malformed, ModelServer, Text

REQUEST = Request(
    "target", "Always answer in French.", (Message("user", "Say hello"),), max_tokens=50
)
PROVIDERS = ("anthropic", "openai")


@pytest.fixture
def server():
    with ModelServer(models=("claude-test", "gpt-test")) as srv:
        yield srv


def make(provider: str, srv: ModelServer, **role):
    """A backend from settings aimed at the loopback server, as a user would configure it."""
    if provider == "anthropic":
        settings = RoleSettings(
            backend="anthropic", model=role.pop("model", "claude-test"), base_url=srv.url, **role
        )
        return AnthropicBackend.from_settings(settings, {"ANTHROPIC_API_KEY": "sk-ant-test"})
    settings = RoleSettings(
        backend="openai",
        model=role.pop("model", "gpt-test"),
        base_url=srv.v1,
        api_key_env="LOCAL_KEY",
        **role,
    )
    return OpenAIBackend.from_settings(settings, {"LOCAL_KEY": "sk-local-test"})


def complete(backend, request=REQUEST):
    return asyncio.run(backend.complete(request))


def error_of(backend, request=REQUEST):
    with pytest.raises(Exception) as info:
        complete(backend, request)
    return info.value


@pytest.mark.parametrize("provider", PROVIDERS)
def test_success_returns_text_usage_and_sends_the_system_prompt(provider, server):
    server.enqueue(Text("Bonjour !"))
    done = complete(make(provider, server))
    assert done.text == "Bonjour !"
    assert done.input_tokens > 0 and done.output_tokens > 0
    assert done.model in ("claude-test", "gpt-test")
    call = server.model_calls()[0]
    assert call.system == "Always answer in French."
    assert call.last is not None and call.last.text == "Say hello"
    body = server.model_requests()[0].body
    assert body.get("max_tokens") == 50  # a compatible server gets max_tokens
    headers = server.model_requests()[0].headers
    if provider == "anthropic":  # the SDK sends the key one way or the other, by version
        assert "sk-ant-test" in (headers.get("x-api-key"), headers.get("authorization", "")[7:])
    else:
        assert headers["authorization"] == "Bearer sk-local-test"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_429_carries_retry_after_and_the_retry_waits_it_out(provider, server):
    server.enqueue(Error(429, headers={"retry-after": "3"}))
    err = error_of(make(provider, server))
    assert isinstance(err, TransientError) and err.retry_after == 3.0
    assert f"{provider} is rate limiting (429)" in err.one_line()

    server.enqueue(Error(429, headers={"retry-after": "2"}), Text("enfin"))
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    budget = Budget(BudgetSettings())
    done = asyncio.run(
        call_with_retry(
            make(provider, server),
            REQUEST,
            budget=budget,
            policy=RetryPolicy(),
            rng=random.Random(0),
            sleep=sleep,
        )
    )
    assert done.text == "enfin"
    assert len(waits) == 1 and 2.0 <= waits[0] <= 2.5
    assert budget.total.calls == 2 and budget.failed_calls == {"target": 1}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("status", "words"),
    [
        (500, "had a server error (500)"),
        (503, "had a server error (503)"),
        (529, "is overloaded (529)"),
    ],
)
def test_server_errors_and_overload_are_transient(provider, server, status, words):
    server.enqueue(Error(status))
    err = error_of(make(provider, server))
    assert type(err) is TransientError and f"{provider} {words}" in err.one_line()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_timeout_is_transient_and_names_the_setting(provider, server):
    server.enqueue(Delay(3.0, Text("too late")))
    err = error_of(make(provider, server, timeout_s=0.3))
    assert type(err) is TransientError
    assert "did not answer within 0.3s" in err.one_line() and "timeout_s" in err.one_line()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_malformed_json_is_transient(provider, server):
    server.enqueue(Malformed())
    err = error_of(make(provider, server))
    assert type(err) is TransientError and "malformed response" in err.one_line()


def test_401_is_an_auth_error_naming_the_key_variable(server):
    server.enqueue(Error(401), Error(401))
    err = error_of(make("anthropic", server))
    assert type(err) is AuthError
    assert (
        err.one_line()
        == f"anthropic rejected the API key (401 at {server.url}) (check ANTHROPIC_API_KEY)"
    )
    err = error_of(make("openai", server))
    assert err.one_line() == f"openai rejected the API key (401 at {server.v1}) (check LOCAL_KEY)"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_unknown_model_says_what_was_meant(provider, server):
    wrong = "claude-tset" if provider == "anthropic" else "gpt-tset"
    right = "claude-test" if provider == "anthropic" else "gpt-test"
    server.enqueue(Error(404, message=f"model: {wrong}"))
    err = error_of(make(provider, server, model=wrong))
    assert type(err) is BadRequestError
    assert err.one_line().startswith(f"unknown model {wrong}, did you mean {right}?")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_bad_request_stops_with_the_servers_reason(provider, server):
    server.enqueue(Error(400, message="max_tokens: must be at most 4096"))
    err = error_of(make(provider, server))
    assert type(err) is BadRequestError
    assert (
        f"{provider} refused the request (400): max_tokens: must be at most 4096" in err.one_line()
    )


def test_a_missing_key_is_an_auth_error_before_any_call():
    with pytest.raises(AuthError) as info:
        AnthropicBackend.from_settings(RoleSettings(backend="anthropic"), {})
    assert info.value.one_line().startswith("ANTHROPIC_API_KEY is not set")
    with pytest.raises(AuthError) as info:
        OpenAIBackend.from_settings(RoleSettings(backend="openai"), {})
    assert info.value.one_line().startswith("OPENAI_API_KEY is not set")


def test_a_local_openai_compatible_server_needs_no_key(server):
    server.enqueue(Text("local answer"))
    backend = OpenAIBackend.from_settings(RoleSettings(base_url=server.v1, model="gpt-test"), {})
    assert complete(backend).text == "local answer"
    assert server.model_requests()[0].headers["authorization"] == "Bearer not-needed"


def test_the_public_openai_api_gets_max_completion_tokens(server):
    server.enqueue(Text("ok"))
    backend = make("openai", server)
    backend.compatible = False  # as for https://api.openai.com/v1
    complete(backend)
    body = server.model_requests()[0].body
    assert body["max_completion_tokens"] == 50 and "max_tokens" not in body


@pytest.mark.parametrize("provider", PROVIDERS)
def test_check_is_one_tiny_authenticated_completion(provider, server):
    health = asyncio.run(make(provider, server).check())
    assert health.ok, health.detail
    (probe,) = server.model_requests()
    assert probe.body["max_tokens"] == 16
    wrong = "gpt-tset" if provider == "openai" else "claude-tset"
    server.enqueue(Error(404, message=f"model: {wrong}"))
    bad = asyncio.run(make(provider, server, model=wrong).check())
    assert not bad.ok and "did you mean" in bad.detail


def test_check_names_the_fix_for_a_rejected_key(server):
    server.enqueue(Error(401))
    health = asyncio.run(make("anthropic", server).check())
    assert not health.ok and health.fix == "check ANTHROPIC_API_KEY"
    assert health.detail.startswith("anthropic rejected the API key (401")


def test_check_names_the_fix_for_an_unreachable_server():
    backend = OpenAIBackend.from_settings(
        RoleSettings(base_url="http://127.0.0.1:9/v1", model="m", timeout_s=2), {}
    )
    health = asyncio.run(backend.check())
    assert not health.ok and "cannot reach http://127.0.0.1:9/v1" in health.detail
    assert health.fix == "check the network, that the server runs, or base_url"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_one_backend_serves_several_event_loops_and_closes_each_client(provider, server):
    backend = make(provider, server)
    server.enqueue(Text("one"), Text("two"))
    first = complete(backend)
    client = backend.clients.current
    second = complete(backend)  # a second asyncio.run: doctor, then the night
    assert (first.text, second.text) == ("one", "two")
    assert backend.clients.current is not client and client.is_closed()


def test_a_judge_request_at_temperature_zero_reaches_anthropic_without_a_temperature(server):
    """The Messages API of the SDK takes no temperature: sending one would fail every rubric."""
    server.enqueue(Text('{"score": 1, "reason": "fine"}'))
    judge = Request(
        "judge", "Score it.", (Message("user", "Answer: ok"),), max_tokens=50, temperature=0.0
    )
    done = complete(make("anthropic", server, temperature=0.7), judge)
    assert done.text == '{"score": 1, "reason": "fine"}'
    assert "temperature" not in server.model_calls()[0].body


def test_the_default_anthropic_model_is_not_one_the_sdk_warns_is_retiring(server):
    import warnings

    from skillopt_sleep.backends.anthropic_api import DEFAULT_MODEL

    backend = make("anthropic", server, model=None)  # as a user who names no model
    assert backend.model == DEFAULT_MODEL
    server.enqueue(Text("ok"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the SDK's end-of-life notice is a DeprecationWarning
        assert complete(backend).text == "ok"
