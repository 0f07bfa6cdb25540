"""OpenAI-compatible provider on the official SDK: OpenAI, Groq, vLLM, Ollama /v1, llama.cpp,
and `orrery serve-model`. Retries (backoff with jitter, Retry-After honoured) are the SDK's own."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import openai

from orrery.errors import ModelError, ModelTimeout, RateLimited
from orrery.llm.base import Delta, ModelProfile
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage


class OpenAIModel:
    def __init__(
        self,
        model: str = "gpt-4o",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_retries: int = 3,
        timeout: float = 120.0,
        temperature: float = 0.0,
        preferred_format: str = "native",
        profile: ModelProfile | None = None,
    ):
        self.name = model
        # format="react" for servers without native tool calls; `profile=` declares anything else
        self.profile = profile or ModelProfile(format=preferred_format, streams=True)  # type: ignore[arg-type]
        self.temperature = temperature
        self.client = openai.OpenAI(
            base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
            max_retries=max_retries,
            timeout=timeout,
        )

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ModelResponse:
        with self._errors():
            resp = self.client.chat.completions.create(
                **self._request(messages, tools, tool_choice, schema, max_tokens)
            )
        choice = resp.choices[0].message
        calls = [ToolCall.from_json(c.id, c.function.name, c.function.arguments) for c in choice.tool_calls or []]
        usage = Usage(resp.usage.prompt_tokens, resp.usage.completion_tokens) if resp.usage else Usage()
        return ModelResponse(choice.content or "", calls, usage)

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Iterator[Delta]:
        """The reply as the server streams it: text pieces, tool-call argument pieces, then the whole reply.
        Closing the iterator closes the HTTP stream, so the server can stop generating."""
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        usage = Usage()
        with self._errors():
            chunks = self.client.chat.completions.create(
                **self._request(messages, tools, tool_choice, schema, max_tokens), stream=True
            )
            with chunks:
                for chunk in chunks:
                    if chunk.usage:
                        usage = Usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
                    delta = chunk.choices[0].delta if chunk.choices else None
                    if delta is None:
                        continue
                    if delta.content:
                        text.append(delta.content)
                        yield Delta(text=delta.content)
                    for tc in delta.tool_calls or []:
                        c = calls.setdefault(tc.index, {"id": tc.id, "name": None, "arguments": ""})
                        fn = tc.function
                        c["name"] = c["name"] or (fn.name if fn else None)
                        c["arguments"] += (fn.arguments or "") if fn else ""
                        yield Delta(
                            index=tc.index,
                            id=tc.id,
                            name=fn.name if fn else None,
                            arguments=(fn.arguments or "") if fn else "",
                        )
        tool_calls = [
            ToolCall.from_json(c["id"] or f"call_{i}", c["name"] or "", c["arguments"])
            for i, c in sorted(calls.items())
        ]
        yield Delta(response=ModelResponse("".join(text), tool_calls, usage))

    def _request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        tool_choice: str,
        schema: dict[str, Any] | None,
        max_tokens: int | None,
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.name,
            "messages": [m.to_openai() for m in messages],
            "temperature": self.temperature,
        }
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        if tools:
            kwargs["tools"] = [t.to_openai() for t in tools]
            kwargs["tool_choice"] = tool_choice
        if schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema, "strict": False},
            }
        return kwargs

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """The SDK's exceptions, after its own retries, as orrery's typed errors."""
        try:
            yield
        except openai.APITimeoutError as exc:
            raise ModelTimeout(
                f"{self.client.base_url} did not answer within {self.client.timeout}s "
                f"after {self.client.max_retries} retries; raise timeout= or check the server",
                retryable=True,
            ) from exc
        except openai.RateLimitError as exc:
            raise RateLimited(
                f"{self.client.base_url} kept answering 429 (rate limited) after "
                f"{self.client.max_retries} retries; lower the request rate or wait",
                status=429,
                retryable=True,
            ) from exc
        except openai.APIStatusError as exc:
            raise ModelError(
                f"{self.client.base_url} answered HTTP {exc.status_code}: {exc.message}",
                status=exc.status_code,
                retryable=exc.status_code >= 500,
            ) from exc
        except openai.APIConnectionError as exc:
            raise ModelError(
                f"cannot reach {self.client.base_url}: is the server running? ({exc})", retryable=True
            ) from exc
