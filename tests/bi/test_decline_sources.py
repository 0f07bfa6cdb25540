"""What the decline checks read: the typo dictionary is the tokenizer's vocabulary file alone (MiniLM's weights are
not loaded for it), and a value is looked up in one index per connection, with the same answers as a scan."""

from __future__ import annotations

import pytest

from orrery.bi import decline
from orrery.bi.context import ValueLookup
from orrery.bi.decline import value_held
from orrery.recall import embed


@pytest.fixture
def bands(sqlite_bi):
    return sqlite_bi(
        "CREATE TABLE artists (name TEXT, region TEXT);",
        {"artists": [("Led Zeppelin", "Europe"), ("Queen", "Europe"), ("Nirvana", "North America")]},
    )


def test_the_typo_dictionary_reads_the_vocabulary_without_the_model(monkeypatch):
    decline._dictionary.cache_clear()

    def no_model(*_args, **_kwargs):
        raise AssertionError("the model's weights were loaded for its vocabulary")

    monkeypatch.setattr(embed, "_SHARED", {})  # no model loaded by an earlier test either
    monkeypatch.setattr(embed.MiniLM, "__init__", no_model)
    try:
        words = decline._dictionary()
        assert {"length", "older", "species"} <= words and "##s" not in words
    finally:
        decline._dictionary.cache_clear()


def test_a_value_is_held_by_the_index_as_by_a_scan(bands):
    assert value_held(bands, "Zeppelin")  # a whole word of a value
    assert value_held(bands, "led zepelin")  # near enough (ratio >= 90)
    assert value_held(bands, "European")  # another form of a one-word value
    assert value_held(bands, "Queen Nirvana")  # each word a value
    assert not value_held(bands, "Ferrari") and not value_held(bands, "Zeppelin Ferrari")


def test_the_lookup_holds_every_word_in_one_value_only():
    lookup = ValueLookup(["led zeppelin", "north america", "queen"])
    assert lookup.holding_all({"led", "zeppelin"}) and not lookup.holding_all({"zeppelin", "queen"})
    assert not lookup.holding_all(set()) and lookup.near("north americas") and not lookup.near("america")


def test_a_layers_embeddings_are_kept_and_read_back_by_a_new_process(bands, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    decline._layer_vectors.cache_clear()  # what a new process starts with
    first = decline.closest_meaning(bands, "musicians")
    assert len(list((tmp_path / "cache" / "orrery" / "bi" / "meaning").glob("*.npy"))) == 1

    class Counting:
        name, dim = embed.MiniLM.name, embed.MiniLM.dim
        texts: list[str] = []

        def embed(self, texts):
            self.texts += list(texts)
            return embed.default_embedder().embed(texts)

    counting = Counting()
    monkeypatch.setattr(decline, "_embedder", lambda: counting)
    decline._layer_vectors.cache_clear()
    again = decline.closest_meaning(bands, "musicians")
    assert again[1:] == first[1:] and again[0] == pytest.approx(first[0], abs=1e-6)
    assert counting.texts == ["musicians"]  # the term alone: the layer's texts were read back, not embedded
