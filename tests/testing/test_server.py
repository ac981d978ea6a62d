"""Server behaviour seen through plain HTTP and the SDKs: probes, records, faults, concurrency."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import anthropic
import openai
import pytest

from skillopt_sleep.testing import Delay, Error, ModelServer, Text


def http(
    method: str, url: str, body: dict | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_connectivity_probe_and_models(srv: ModelServer) -> None:
    assert http("HEAD", srv.url + "/")[0] == 200
    assert http("GET", srv.url)[0] == 200
    status, _, body = http("GET", srv.v1 + "/models")
    assert status == 200 and [m["id"] for m in json.loads(body)["data"]] == [
        "claude-test",
        "gpt-test",
    ]
    models = srv.own(anthropic.Anthropic(base_url=srv.url, api_key="x")).models.list()
    assert [m.id for m in models.data] == ["claude-test", "gpt-test"]
    assert srv.model_requests() == [] and [r.method for r in srv.requests] == [
        "HEAD",
        "GET",
        "GET",
        "GET",
    ]


def test_unknown_route_and_bad_body_get_provider_errors(srv: ModelServer) -> None:
    status, _, body = http("POST", srv.v1 + "/embeddings", {"input": "x"})
    assert status == 404 and "no route" in json.loads(body)["error"]["message"]
    req = urllib.request.Request(srv.v1 + "/messages", data=b"not json", method="POST")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=10)
    assert info.value.code == 400
    assert json.loads(info.value.read())["error"]["type"] == "invalid_request_error"


def test_requests_are_recorded_with_headers_and_bodies(srv: ModelServer) -> None:
    client = openai.OpenAI(base_url=srv.v1, api_key="sk-test", max_retries=0)
    client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "a"}])
    (rec,) = srv.model_requests("chat")
    assert (rec.method, rec.path, rec.status, rec.api) == (
        "POST",
        "/v1/chat/completions",
        200,
        "chat",
    )
    assert rec.headers["authorization"] == "Bearer sk-test"
    assert rec.body["messages"] == [{"role": "user", "content": "a"}]
    assert rec.reply == Text("ok") and rec.finished is not None
    assert srv.model_requests("anthropic") == []


def test_queue_then_responder(srv: ModelServer) -> None:
    srv.enqueue(Text("first"))
    srv.responder = lambda call: Text("echo " + call.prompt)
    client = openai.OpenAI(base_url=srv.v1, api_key="x", max_retries=0)

    def ask(text: str) -> str | None:
        r = client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
        return r.choices[0].message.content

    assert [ask("a"), ask("b")] == ["first", "echo b"]
    assert srv.pending == 0


def test_broken_responder_is_a_500_and_recorded(srv: ModelServer) -> None:
    def broken(call):
        raise KeyError("nope")

    srv.responder = broken
    with pytest.raises(anthropic.InternalServerError, match="responder raised KeyError"):
        anthropic.Anthropic(base_url=srv.url, api_key="x", max_retries=0).messages.create(
            model="m", max_tokens=5, messages=[{"role": "user", "content": "a"}]
        )
    assert [type(e) for e in srv.responder_errors] == [KeyError]


def test_permanent_errors_tell_clients_not_to_retry(srv: ModelServer) -> None:
    srv.enqueue(Error(401), Error(429), Error(400, headers={"X-Should-Retry": "true"}))
    codes = []
    for _ in range(3):
        status, headers, _ = http("POST", srv.v1 + "/messages", {"model": "m", "messages": []})
        codes.append((status, headers.get("x-should-retry")))
    assert codes == [(401, "false"), (429, None), (400, "true")]


def test_fail_rate_alternates_transient_errors_and_is_seeded() -> None:
    def statuses(seed: int) -> list[int]:
        with ModelServer(fail_rate=0.5, seed=seed) as server:
            for _ in range(12):
                http("POST", server.v1 + "/messages", {"model": "m", "messages": []})
            faults = server.faults
            assert all(r.fault for r in faults)
            assert [r.status for r in faults][:2] == [429, 529]
            return [r.status for r in server.model_requests()]

    first = statuses(7)
    assert first == statuses(7) and first != statuses(8)
    assert 0 < first.count(200) < 12


def test_fail_rate_errors_are_recoverable_by_sdk_retries() -> None:
    with ModelServer([Text("made it")], fail_rate=1.0) as server:
        client = openai.OpenAI(base_url=server.v1, api_key="x", max_retries=0)
        with pytest.raises(openai.RateLimitError) as info:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
        assert info.value.response.headers["retry-after"] == "0"
        with pytest.raises(openai.InternalServerError):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
        server.fail_rate = 0.0
        r = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
        assert r.choices[0].message.content == "made it"  # faults never eat a scripted reply
        assert [r.status for r in server.model_requests()] == [429, 500, 200]


def test_many_slow_calls_are_served_concurrently() -> None:
    with ModelServer(delay=1.0) as server:
        client = openai.OpenAI(base_url=server.v1, api_key="x", max_retries=0, timeout=30)

        def ask(i: int) -> str | None:
            r = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": str(i)}]
            )
            return r.choices[0].message.content

        with ThreadPoolExecutor(40) as pool:
            answers = list(pool.map(ask, range(40)))
    assert answers == ["ok"] * 40
    assert server.peak_concurrency == 40


def test_stop_wakes_pending_delays() -> None:
    server = ModelServer([Delay(60, Text("never"))]).start()
    client = anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0, timeout=30)
    errors: list[Exception] = []

    def ask() -> None:
        try:
            client.messages.create(
                model="m", max_tokens=5, messages=[{"role": "user", "content": "a"}]
            )
        except Exception as exc:
            errors.append(exc)

    worker = threading.Thread(target=ask)
    worker.start()
    for _ in range(100):
        if server.model_requests():
            break
        threading.Event().wait(0.05)
    server.stop()
    worker.join(timeout=10)
    assert not worker.is_alive()


def test_clear_forgets_queue_and_records(srv: ModelServer) -> None:
    srv.enqueue(Text("x"))
    http("HEAD", srv.url)
    srv.clear()
    assert srv.requests == [] and srv.pending == 0


def test_standalone_server_prints_its_url_and_answers(subprocess_env: dict[str, str]) -> None:
    import subprocess
    import sys

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "skillopt_sleep.testing.model_server",
            "--reply",
            "from the standalone server",
        ],
        env=subprocess_env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        with openai.OpenAI(base_url=url + "/v1", api_key="x", max_retries=0, timeout=10) as client:
            r = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "a"}]
            )
        assert r.choices[0].message.content == "from the standalone server"
    finally:
        proc.kill()
        proc.communicate(timeout=10)  # reaps it and closes its pipe
