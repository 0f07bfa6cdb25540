"""`orrery serve-model`: an OpenAI-compatible HTTP server around a `Model` (by default the
embedded LocalModel), so any OpenAI client, including `orrery.llm.openai.OpenAIModel`, can use it.

Streams real tokens (`Model.stream`), stops generating when the client goes away, answers malformed
requests with 400 (an overflowing prompt too, with its token counts), and off loopback serves only
callers presenting its bearer token."""

from __future__ import annotations

import json
import secrets
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import uvicorn
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from orrery.errors import ModelError
from orrery.events import aiterate
from orrery.exposure import check_exposure
from orrery.llm.base import Delta, Model, stream
from orrery.llm.local import LocalModel
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec

# Bodies past this size are refused before parsing (413); prompts past the model's context get 400.
MAX_BODY_BYTES = 4 * 1024 * 1024
# How often a waiting non-streamed request checks whether its client is still there.


JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


def check_schema(schema: Any) -> Any:
    """Refuse a schema whose `type` is not a JSON type, anywhere in it (llama.cpp would build a grammar that
    admits nothing sensible). Only this check, by hand: the `jsonschema` package is not a dependency."""
    if isinstance(schema, dict):
        kind = schema.get("type")
        kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
        if bad := [k for k in kinds if k not in JSON_TYPES]:
            raise ValueError(f"schema type {bad[0]!r} is not one of {sorted(JSON_TYPES)}")
        for key, value in schema.items():
            if key not in ("const", "enum", "default", "examples"):
                check_schema(value)
    elif isinstance(schema, list):
        for item in schema:
            check_schema(item)
    return schema


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")  # OpenAI fields we accept and ignore (temperature, top_p, ...)


class FunctionCallIn(_Open):
    name: str
    arguments: str | dict[str, Any] | None = None


class ToolCallIn(_Open):
    id: str = ""
    type: Literal["function"] = "function"
    function: FunctionCallIn


class ContentPart(_Open):
    type: str
    text: str = ""


class MessageIn(_Open):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None
    tool_calls: list[ToolCallIn] | None = None
    tool_call_id: str | None = None
    name: str | None = None


class FunctionIn(_Open):
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)

    _checked = field_validator("parameters")(check_schema)


class ToolIn(_Open):
    type: Literal["function"] = "function"
    function: FunctionIn


class NamedFunction(_Open):
    name: str


class NamedToolChoice(_Open):
    type: Literal["function"]
    function: NamedFunction


class JsonSchemaIn(_Open):
    name: str = "reply"
    schema_: dict[str, Any] = Field(default_factory=lambda: {"type": "object"}, alias="schema")

    _checked = field_validator("schema_")(check_schema)


class ResponseFormat(_Open):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaIn | None = None

    @model_validator(mode="after")
    def _schema_given(self) -> ResponseFormat:
        if self.type == "json_schema" and self.json_schema is None:
            raise ValueError("response_format of type json_schema needs a json_schema object")
        return self


class ChatRequest(_Open):
    model: str = "local"
    messages: list[MessageIn] = Field(min_length=1)
    tools: list[ToolIn] | None = None
    tool_choice: Literal["auto", "none", "required"] | NamedToolChoice | None = None
    response_format: ResponseFormat | None = None
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    stream: bool = False
    stream_options: dict[str, Any] | None = None


def _text(content: str | list[ContentPart] | None) -> str:
    """OpenAI content is a string, null, or a list of parts; keep the text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(p.text for p in content)


def to_message(d: MessageIn | dict[str, Any]) -> Message:
    m = d if isinstance(d, MessageIn) else MessageIn.model_validate(d)
    calls = [ToolCall.from_json(c.id, c.function.name, c.function.arguments) for c in m.tool_calls or []]
    role = "system" if m.role == "developer" else m.role
    return Message(role, _text(m.content), calls, m.tool_call_id, m.name)


def to_tool_spec(t: ToolIn) -> ToolSpec:
    return ToolSpec(t.function.name, t.function.description, t.function.parameters)


def request_args(req: ChatRequest) -> dict[str, Any]:
    """`Model.complete` keyword arguments from an OpenAI chat request."""
    tools = [to_tool_spec(t) for t in req.tools or []]
    choice = req.tool_choice or "auto"
    if isinstance(choice, NamedToolChoice):  # force that one tool
        tools = [t for t in tools if t.name == choice.function.name]
        choice = "required"
    schema = None
    fmt = req.response_format
    if fmt is not None and fmt.type == "json_schema":
        assert fmt.json_schema is not None
        schema = fmt.json_schema.schema_
    elif fmt is not None and fmt.type == "json_object":
        schema = {"type": "object"}
    return {
        "messages": [to_message(m) for m in req.messages],
        "tools": tools,
        "tool_choice": choice,
        "schema": schema,
        "max_tokens": req.max_completion_tokens or req.max_tokens,
    }


def completion_json(resp: ModelResponse, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": resp.content if not resp.tool_calls else None}
    if resp.tool_calls:
        message["tool_calls"] = [c.to_openai() for c in resp.tool_calls]
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if resp.tool_calls else "stop",
            }
        ],
        "usage": _usage(resp),
    }


def _usage(resp: ModelResponse) -> dict[str, int]:
    return {
        "prompt_tokens": resp.usage.prompt_tokens,
        "completion_tokens": resp.usage.completion_tokens,
        "total_tokens": resp.usage.total,
    }


async def sse_events(deltas: AsyncIterator[Delta], model: str, include_usage: bool) -> AsyncIterator[str]:
    """`Delta`s as OpenAI `chat.completion.chunk` server-sent events, each sent as it comes."""
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def event(delta: dict[str, Any], finish: str | None = None) -> str:
        chunk = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        return f"data: {json.dumps(chunk)}\n\n"

    yield event({"role": "assistant", "content": ""})
    streamed: set[int] = set()
    final = ModelResponse()
    try:
        async for d in deltas:
            if d.text:
                yield event({"content": d.text})
            if d.index is not None and (d.name or d.arguments):
                streamed.add(d.index)
                function = {k: v for k, v in (("name", d.name), ("arguments", d.arguments)) if v}
                head = {"id": d.id, "type": "function"} if d.id else {}
                yield event({"tool_calls": [{"index": d.index, **head, "function": function}]})
            final = d.response or final
    except ModelError as exc:  # headers are sent: the error goes in the stream, as OpenAI does
        yield f"data: {json.dumps({'error': {'message': str(exc), 'type': 'model_error', 'code': exc.status}})}\n\n"
        return
    for i, call in enumerate(final.tool_calls):  # a model that does not stream gives its calls whole
        if i not in streamed:
            yield event({"tool_calls": [{"index": i, **call.to_openai()}]})
    yield event({}, "tool_calls" if final.tool_calls else "stop")
    if include_usage:
        yield f"data: {json.dumps({**base, 'choices': [], 'usage': _usage(final)})}\n\n"
    yield "data: [DONE]\n\n"


def _error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status)


def _validation_message(exc: RequestValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    return f"invalid request: {where or 'body'}: {first.get('msg', 'invalid')}"


class Guard:
    """ASGI middleware: the bearer token (every route but /health) and the body size, checked before the
    body is read. Plain ASGI, not `@app.middleware`: that wrapper hides a client's disconnect from the route."""

    def __init__(self, app: Any, token: str | None, max_body_bytes: int):
        self.app, self.max_body_bytes = app, max_body_bytes
        self.expected = f"Bearer {token}".encode() if token is not None else None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            given = headers.get(b"authorization", b"")
            size = headers.get(b"content-length", b"0")
            refusal = None
            if (
                self.expected is not None
                and scope["path"] != "/health"
                and not secrets.compare_digest(given, self.expected)
            ):
                refusal = _error(
                    401, "missing or wrong bearer token: send Authorization: Bearer <token>", "authentication_error"
                )
            elif size.isdigit() and int(size) > self.max_body_bytes:
                refusal = _error(
                    413,
                    f"the request body has {int(size)} bytes; this server accepts at most {self.max_body_bytes}",
                    "invalid_request_error",
                )
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
    return _error(400, _validation_message(exc), "invalid_request_error")


class _Completions:
    """POST /v1/chat/completions for one model: a whole reply, or server-sent deltas."""

    def __init__(self, model: Model):
        self.model = model

    async def handle(self, req: ChatRequest, request: Request) -> JSONResponse | StreamingResponse:
        if req.model != self.model.name:
            return _error(
                404, f"unknown model {req.model!r}: this server serves {self.model.name!r}", "not_found_error"
            )
        args = request_args(req)
        if req.tools and not args["tools"]:
            return _error(400, "tool_choice names a function that is not in tools", "invalid_request_error")
        deltas = stream(
            self.model,
            args["messages"],
            args["tools"],
            tool_choice=args["tool_choice"],
            schema=args["schema"],
            max_tokens=args["max_tokens"],
        )
        if not req.stream:
            return await self._whole(deltas, request)
        return await self._streamed(deltas, bool((req.stream_options or {}).get("include_usage")))

    async def _whole(self, deltas: Iterator[Delta], request: Request) -> JSONResponse:
        final = None
        try:
            async for d in aiterate(deltas, request.is_disconnected):
                final = d.response or final
        except ModelError as exc:
            return _error(exc.status or 500, str(exc), "model_error")
        if final is None:  # the client went away; nobody reads this
            return _error(499, "the client closed the request", "cancelled")
        return JSONResponse(completion_json(final, self.model.name))

    async def _streamed(self, deltas: Iterator[Delta], include_usage: bool) -> JSONResponse | StreamingResponse:
        # The first delta comes after the prompt is processed: an error there still gets its HTTP status.
        it = aiterate(deltas)
        try:
            first = await it.__anext__()
        except ModelError as exc:
            return _error(exc.status or 500, str(exc), "model_error")
        except StopAsyncIteration:
            first = None

        async def rest() -> AsyncIterator[Delta]:
            try:
                if first is not None:
                    yield first
                    async for d in it:
                        yield d
            finally:  # also when the client went away: stops the generation
                await it.aclose()

        return StreamingResponse(sse_events(rest(), self.model.name, include_usage), media_type="text/event-stream")


def create_app(model: Model, token: str | None = None, max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """The FastAPI app. With `token`, every route but /health wants `Authorization: Bearer <token>`."""
    app = FastAPI(title="orrery serve-model")
    app.add_middleware(Guard, token=token, max_body_bytes=max_body_bytes)
    app.add_exception_handler(RequestValidationError, _bad_request)
    app.get("/health")(lambda: {"status": "ok"})
    app.get("/v1/models")(
        lambda: {"object": "list", "data": [{"id": model.name, "object": "model", "created": 0, "owned_by": "orrery"}]}
    )
    app.post("/v1/chat/completions", response_model=None)(_Completions(model).handle)
    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 8080,
    model_path: str | Path | None = None,
    *,
    token: str | None = None,
    n_ctx: int = 8192,
    timeout_s: float | None = 300.0,
) -> None:
    """Load the embedded (or `model_path`) model, then serve it until interrupted. `n_ctx` bounds a prompt
    (longer ones get 400 with their token count); `timeout_s` bounds one generation (504 past it)."""
    token = check_exposure(host, token, "the model")
    model = LocalModel(path=model_path, n_ctx=n_ctx, timeout_s=timeout_s)
    model.load()
    uvicorn.run(create_app(model, token), host=host, port=port, log_level="info")


@contextmanager
def running_server(
    model: Model | None = None, port: int = 0, host: str = "127.0.0.1", token: str | None = None
) -> Iterator[str]:
    """Serve `model` (default: a new LocalModel) from a background thread; yields the base URL
    ending in /v1. `port=0` picks a free port."""
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(model or LocalModel(), check_exposure(host, token)), host=host, port=port, log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, name="orrery-serve-model", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the model server did not start on {host}:{port}")
        time.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
