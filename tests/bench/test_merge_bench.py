"""bench/train.py's merge part: the model stage against the word overlap on paraphrased patches."""

from __future__ import annotations

from bench.worlds.paraphrases import compare


def test_the_model_merge_finds_paraphrases_the_word_overlap_misses_and_loses_nothing() -> None:
    out = compare()
    words, model, broken = out["lexical"], out["model"], out["unusable_model"]
    assert model["merges_found"] > 2 * max(1, words["merges_found"])
    assert model["wrong_merges"] <= words["wrong_merges"]
    assert {r["wordings_kept"] for r in (words, model, broken)} == {out["wordings"]}
    assert {r["cases_cited"] for r in (words, model, broken)} == {out["wordings"]}
    assert model["calls"] >= 2  # more than one level of merge calls
    # a model that never answers usably leaves exactly the word-overlap merge
    assert {k: broken[k] for k in words} == words and broken["unusable_replies"] > 0
