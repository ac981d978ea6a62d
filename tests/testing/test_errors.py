"""Scripted errors surface as the SDKs' real exception types."""

from __future__ import annotations

import json

import anthropic
import openai
import pytest

from skillopt_sleep.testing import Delay, Disconnect, Error, Malformed, ModelServer, Text

MESSAGES = [{"role": "user", "content": "hi"}]


def claude(srv: ModelServer, timeout: float = 10) -> anthropic.Anthropic:
    return srv.own(
        anthropic.Anthropic(base_url=srv.url, api_key="x", max_retries=0, timeout=timeout)
    )


def gpt(srv: ModelServer, timeout: float = 10) -> openai.OpenAI:
    return srv.own(openai.OpenAI(base_url=srv.v1, api_key="x", max_retries=0, timeout=timeout))


def ask_claude(srv: ModelServer, timeout: float = 10, stream: bool = False):
    return claude(srv, timeout).messages.create(
        model="m", max_tokens=5, messages=MESSAGES, stream=stream
    )


def ask_gpt(srv: ModelServer, timeout: float = 10):
    return gpt(srv, timeout).chat.completions.create(model="m", messages=MESSAGES)


def test_anthropic_rate_limit_carries_retry_after_and_error_shape(srv: ModelServer) -> None:
    srv.enqueue(Error(429, headers={"retry-after": "7"}))
    with pytest.raises(anthropic.RateLimitError) as info:
        ask_claude(srv)
    assert info.value.response.headers["retry-after"] == "7"
    assert info.value.body == {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "Number of request tokens has exceeded your per-minute rate limit",
        },
    }


@pytest.mark.parametrize(
    ("status", "exc"),
    [
        (500, anthropic.InternalServerError),
        (529, anthropic.InternalServerError),
        (401, anthropic.AuthenticationError),
        (400, anthropic.BadRequestError),
        (404, anthropic.NotFoundError),
    ],
)
def test_anthropic_status_to_exception(srv: ModelServer, status: int, exc: type) -> None:
    srv.enqueue(Error(status, message="scripted"))
    with pytest.raises(exc) as info:
        ask_claude(srv)
    assert info.value.status_code == status
    assert info.value.body["error"]["message"] == "scripted"


@pytest.mark.parametrize(
    ("status", "exc", "code"),
    [
        (429, openai.RateLimitError, "rate_limit_exceeded"),
        (500, openai.InternalServerError, None),
        (401, openai.AuthenticationError, "invalid_api_key"),
    ],
)
def test_openai_status_to_exception(
    srv: ModelServer, status: int, exc: type, code: str | None
) -> None:
    srv.enqueue(Error(status, headers={"retry-after": "0"}))
    with pytest.raises(exc) as info:
        ask_gpt(srv)
    assert info.value.code == code
    assert info.value.response.headers["retry-after"] == "0"


def test_malformed_body_is_a_decode_error(srv: ModelServer) -> None:
    # Both SDKs let the JSON decoder's error through for a 200 with a broken body.
    srv.enqueue(Malformed(), Malformed())
    with pytest.raises(json.JSONDecodeError):
        ask_claude(srv)
    with pytest.raises(json.JSONDecodeError):
        ask_gpt(srv)


def test_malformed_stream_fails_the_stream(srv: ModelServer) -> None:
    srv.enqueue(Malformed(), Malformed())
    with pytest.raises(json.JSONDecodeError):
        list(ask_claude(srv, stream=True))
    with pytest.raises(json.JSONDecodeError):
        list(gpt(srv).chat.completions.create(model="m", messages=MESSAGES, stream=True))


def test_delay_beyond_client_timeout_is_api_timeout(srv: ModelServer) -> None:
    srv.enqueue(Delay(2.0, Text("too late")), Delay(2.0, Text("too late")))
    with pytest.raises(anthropic.APITimeoutError):
        ask_claude(srv, timeout=0.3)
    with pytest.raises(openai.APITimeoutError):
        ask_gpt(srv, timeout=0.3)


def test_delay_within_timeout_still_answers(srv: ModelServer) -> None:
    srv.enqueue(Delay(0.2, Text("on time")))
    assert ask_gpt(srv, timeout=5).choices[0].message.content == "on time"


def test_raw_error_body_is_sent_verbatim(srv: ModelServer) -> None:
    srv.enqueue(Error(503, body="<html>upstream down</html>"))
    with pytest.raises(openai.InternalServerError) as info:
        ask_gpt(srv)
    assert info.value.response.text == "<html>upstream down</html>"


def test_disconnect_is_a_connection_error(srv: ModelServer) -> None:
    srv.enqueue(Disconnect(), Disconnect(), Text("back"))
    with pytest.raises(anthropic.APIConnectionError):
        ask_claude(srv)
    with pytest.raises(openai.APIConnectionError):
        ask_gpt(srv)
    assert ask_gpt(srv).choices[0].message.content == "back"
    assert [r.status for r in srv.model_requests()] == [-1, -1, 200]
