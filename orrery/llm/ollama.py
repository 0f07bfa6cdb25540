"""Ollama's native /api/chat over httpx, with retries on 429/5xx/timeouts."""

from __future__ import annotations

import json
import math
import os
import random
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx

from orrery.errors import ModelError, ModelTimeout, RateLimited
from orrery.llm.base import Delta, ModelProfile
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage


def backoff_delay(attempt: int, retry_after: str | None, base: float = 0.5, cap: float = 30.0) -> float:
    """Seconds to wait before retry `attempt` (0-based): Retry-After when given, else exponential with full jitter."""
    if retry_after:
        try:
            seconds = float(retry_after)
        except ValueError:
            seconds = -1.0
        if math.isfinite(seconds) and seconds >= 0:  # "-5", "nan", "inf": fall back to the backoff
            return min(seconds, cap)
    return random.uniform(0, min(cap, base * 2**attempt))


class OllamaModel:
    def __init__(
        self,
        model: str = "llama3.1",
        *,
        host: str | None = None,
        max_retries: int = 3,
        timeout: float = 120.0,
        temperature: float = 0.0,
        preferred_format: str = "native",
        profile: ModelProfile | None = None,
    ):
        self.name = model
        # format="react" for models without native tool calls; `profile=` declares anything else
        self.profile = profile or ModelProfile(format=preferred_format, streams=True)  # type: ignore[arg-type]
        self.host = (host or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434").rstrip("/")
        self.max_retries = max_retries
        self.temperature = temperature
        self.http = httpx.Client(timeout=timeout)

    def _message(self, m: Message) -> dict[str, Any]:
        out: dict[str, Any] = {"role": m.role, "content": m.content}
        if m.tool_calls:
            out["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}} for c in m.tool_calls]
        if m.role == "tool" and m.name:
            out["tool_name"] = m.name
        return out

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ModelResponse:
        data = self._post(self._body(messages, tools, tool_choice, schema, max_tokens, stream=False))
        msg = data.get("message", {})
        return ModelResponse(
            msg.get("content", ""), self._calls(msg), Usage(data.get("prompt_eval_count", 0), data.get("eval_count", 0))
        )

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Iterator[Delta]:
        """/api/chat with `stream: true`: one JSON object per line; text pieces as they come, tool calls whole
        (Ollama sends each call complete), then the whole reply. Retries happen before the first byte only."""
        body = self._body(messages, tools, tool_choice, schema, max_tokens, stream=True)
        text: list[str] = []
        calls: list[ToolCall] = []
        usage = Usage()
        with self._open_stream(body) as r:
            for line in r.iter_lines():
                if not line.strip():
                    continue
                data = json.loads(line)
                if "error" in data:
                    raise ModelError(f"{self.host}/api/chat: {data['error']}")
                msg = data.get("message", {})
                if piece := msg.get("content"):
                    text.append(piece)
                    yield Delta(text=piece)
                for c in self._calls(msg):
                    yield Delta(index=len(calls), id=c.id, name=c.name, arguments=json.dumps(c.arguments))
                    calls.append(c)
                if data.get("done"):
                    usage = Usage(data.get("prompt_eval_count", 0), data.get("eval_count", 0))
        yield Delta(response=ModelResponse("".join(text), calls, usage))

    def _body(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        tool_choice: str,
        schema: dict[str, Any] | None,
        max_tokens: int | None,
        *,
        stream: bool,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.name,
            "stream": stream,
            "messages": [self._message(m) for m in messages],
            "options": {"temperature": self.temperature},
        }
        if tools and tool_choice != "none":
            body["tools"] = [t.to_openai() for t in tools]
        if schema is not None:
            body["format"] = schema
        if max_tokens:
            body["options"]["num_predict"] = max_tokens
        return body

    @staticmethod
    def _calls(msg: dict[str, Any]) -> list[ToolCall]:
        return [
            ToolCall.from_json(f"call_{uuid.uuid4().hex[:8]}", c["function"]["name"], c["function"].get("arguments"))
            for c in msg.get("tool_calls") or []
        ]

    @contextmanager
    def _open_stream(self, body: dict[str, Any]) -> Iterator[httpx.Response]:
        url = f"{self.host}/api/chat"
        for attempt in range(self.max_retries + 1):
            try:
                with self.http.stream("POST", url, json=body) as r:
                    if (r.status_code == 429 or r.status_code >= 500) and attempt < self.max_retries:
                        delay = backoff_delay(attempt, r.headers.get("retry-after"))
                    elif r.status_code >= 400:
                        raise ModelError(
                            f"{url} answered HTTP {r.status_code}: {r.read().decode()[:300]}",
                            status=r.status_code,
                            retryable=r.status_code == 429 or r.status_code >= 500,
                        )
                    else:
                        yield r
                        return
            except httpx.TransportError as exc:
                if attempt == self.max_retries:
                    raise ModelError(f"cannot reach {url}: is `ollama serve` running? ({exc})", retryable=True) from exc
                delay = backoff_delay(attempt, None)
            time.sleep(delay)

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.host}/api/chat"
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                r = self.http.post(url, json=body)
            except httpx.TimeoutException as exc:
                if last:
                    raise ModelTimeout(
                        f"{url} did not answer in time after {self.max_retries} retries; "
                        "raise timeout= or check the server",
                        retryable=True,
                    ) from exc
                time.sleep(backoff_delay(attempt, None))
                continue
            except httpx.TransportError as exc:
                if last:
                    raise ModelError(f"cannot reach {url}: is `ollama serve` running? ({exc})", retryable=True) from exc
                time.sleep(backoff_delay(attempt, None))
                continue
            if r.status_code == 429 or r.status_code >= 500:
                if last:
                    cls = RateLimited if r.status_code == 429 else ModelError
                    raise cls(
                        f"{url} answered HTTP {r.status_code} after {self.max_retries} retries: {r.text[:200]}",
                        status=r.status_code,
                        retryable=True,
                    )
                time.sleep(backoff_delay(attempt, r.headers.get("retry-after")))
                continue
            if r.status_code >= 400:
                raise ModelError(f"{url} answered HTTP {r.status_code}: {r.text[:300]}", status=r.status_code)
            return r.json()
        raise AssertionError("unreachable")
