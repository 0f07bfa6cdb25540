"""LLM providers behind one `Model` protocol, chosen by one string (see `resolve_model`)."""

from __future__ import annotations

import os
import warnings
from typing import Any

from orrery.errors import ConfigError
from orrery.llm.base import Model, ModelProfile, profile_of
from orrery.llm.scripted import ScriptedModel

__all__ = ["Model", "ModelProfile", "ScriptedModel", "model_argument", "profile_of", "resolve_model"]


def model_argument(model: Any, llm: Any = None) -> Any:
    """`model`, or `llm` (the app factories' old name for it, deprecated): what a factory gives `resolve_model`."""
    if llm is None:
        return model
    warnings.warn(
        "llm= is deprecated: pass model= (a Model or a spec such as 'local')", DeprecationWarning, stacklevel=3
    )
    if model is not None:
        raise ConfigError("pass model= only (llm= is its deprecated name)")
    return llm


def resolve_model(spec: str | Model | None = None) -> Model:
    """`local` | `openai:gpt-4o` | `ollama:llama3.1` | `http://127.0.0.1:8080/v1` (model name after `#`).

    With no spec: `ORRERY_LLM`, else `OPENAI_BASE_URL` (model from `ORRERY_MODEL`), else the
    embedded local model."""
    if spec is not None and not isinstance(spec, str):
        return spec
    spec = spec or os.environ.get("ORRERY_LLM") or ""
    if not spec and os.environ.get("OPENAI_BASE_URL"):
        spec = os.environ["OPENAI_BASE_URL"]
    if not spec or spec == "local":
        from orrery.llm.local import LocalModel

        return LocalModel()
    if spec.startswith(("http://", "https://")):
        from orrery.llm.openai import OpenAIModel

        url, _, name = spec.partition("#")
        return OpenAIModel(name or os.environ.get("ORRERY_MODEL", "local"), base_url=url)
    provider, _, name = spec.partition(":")
    if provider == "openai" and name:
        from orrery.llm.openai import OpenAIModel

        return OpenAIModel(name)
    if provider == "ollama" and name:
        from orrery.llm.ollama import OllamaModel

        return OllamaModel(name)
    raise ConfigError(
        f"unknown model spec {spec!r}; use 'local', 'openai:MODEL', 'ollama:MODEL' "
        "or an OpenAI-compatible base URL such as http://127.0.0.1:8080/v1"
    )
