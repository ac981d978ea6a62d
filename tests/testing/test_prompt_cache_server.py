"""The loopback server's prompt cache: what a provider reports, from the prefixes it has seen."""

from __future__ import annotations

from skillopt_sleep.testing.cache_wire import PromptCache

SYSTEM = "Keep the public names stable. " * 200  # ~1,500 tokens


def anthropic_body(user: str, system: str = SYSTEM, mark: bool = True) -> dict:
    block = {"type": "text", "text": system}
    if mark:
        block["cache_control"] = {"type": "ephemeral"}
    return {"model": "claude-x", "system": [block], "messages": [{"role": "user", "content": user}]}


def chat_body(user: str, system: str = SYSTEM) -> dict:
    return {
        "model": "gpt-x",
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
    }


def answered(cache: PromptCache, api: str, body: dict):
    use = cache.lookup(api, body)
    cache.commit(use)
    return use


def test_an_anthropic_prefix_is_read_after_it_was_written_until_it_expires():
    now = [0.0]
    cache = PromptCache(clock=lambda: now[0])
    first = answered(cache, "anthropic", anthropic_body("a"))
    assert first.write > 1024 and first.read == 0
    now[0] = 299.0
    assert (
        answered(cache, "anthropic", anthropic_body("b")).read == first.write
    )  # a read refreshes it
    now[0] = 598.0
    assert answered(cache, "anthropic", anthropic_body("c")).read == first.write
    now[0] = 900.0
    assert (
        answered(cache, "anthropic", anthropic_body("d")).write == first.write
    )  # expired: written again


def test_no_breakpoint_or_a_short_prefix_caches_nothing_and_calls_in_flight_all_miss():
    cache = PromptCache()
    assert answered(cache, "anthropic", anthropic_body("a", mark=False)) == answered(
        cache, "anthropic", anthropic_body("b", mark=False)
    )
    assert answered(cache, "anthropic", anthropic_body("a", system="short")).write == 0
    together = [cache.lookup("anthropic", anthropic_body(q)) for q in "xy"]
    assert [u.write > 0 for u in together] == [
        True,
        True,
    ]  # neither was answered when the other asked


def test_openai_caches_the_longest_seen_prefix_in_steps_of_128_tokens():
    cache = PromptCache()
    assert answered(cache, "chat", chat_body("first")).read == 0
    read = answered(cache, "chat", chat_body("second")).read
    assert read >= 1024 and (read - 1024) % 128 == 0
    assert answered(cache, "chat", chat_body("x", system="other " * 800)).read == 0


def test_a_one_hour_breakpoint_outlives_five_minutes_and_is_reported_apart():
    now = [0.0]
    cache = PromptCache(clock=lambda: now[0])
    body = anthropic_body("a")
    body["system"][0]["cache_control"]["ttl"] = "1h"
    first = answered(cache, "anthropic", body)
    assert first.write == first.write_1h > 1024
    now[0] = 3000.0
    assert answered(cache, "anthropic", anthropic_body("b")).read == first.write
