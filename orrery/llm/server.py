"""`orrery serve-model`: an OpenAI-compatible HTTP server around a `Model` (by default the
embedded LocalModel), so any OpenAI client, including `orrery.llm.openai.OpenAIModel`, can use it."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict

from orrery.errors import ModelError
from orrery.llm.base import Model
from orrery.llm.local import LocalModel
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, top_p, ... are accepted and ignored

    model: str = "local"
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    response_format: dict[str, Any] | None = None
    max_tokens: int | None = None
    max_completion_tokens: int | None = None
    stream: bool = False
    stream_options: dict[str, Any] | None = None


def _text(content: Any) -> str:
    """OpenAI content is a string, null, or a list of parts; keep the text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict))


def to_message(d: dict[str, Any]) -> Message:
    calls = [ToolCall.from_json(c.get("id") or "", c["function"]["name"], c["function"].get("arguments"))
             for c in d.get("tool_calls") or []]
    role = "system" if d["role"] == "developer" else d["role"]
    return Message(role, _text(d.get("content")), calls, d.get("tool_call_id"), d.get("name"))


def to_tool_spec(d: dict[str, Any]) -> ToolSpec:
    fn = d["function"]
    return ToolSpec(fn["name"], fn.get("description", ""), fn.get("parameters") or {})


def request_args(req: ChatRequest) -> dict[str, Any]:
    """`Model.complete` keyword arguments from an OpenAI chat request."""
    tools = [to_tool_spec(t) for t in req.tools or []]
    choice = req.tool_choice or "auto"
    if isinstance(choice, dict):  # {"type": "function", "function": {"name": ...}}: force that one tool
        name = choice["function"]["name"]
        tools = [t for t in tools if t.name == name]
        choice = "required"
    schema = None
    fmt = req.response_format or {}
    if fmt.get("type") == "json_schema":
        schema = fmt["json_schema"].get("schema") or {"type": "object"}
    elif fmt.get("type") == "json_object":
        schema = {"type": "object"}
    return {"messages": [to_message(m) for m in req.messages], "tools": tools, "tool_choice": choice,
            "schema": schema, "max_tokens": req.max_completion_tokens or req.max_tokens}


def completion_json(resp: ModelResponse, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": resp.content if not resp.tool_calls else None}
    if resp.tool_calls:
        message["tool_calls"] = [c.to_openai() for c in resp.tool_calls]
    return {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if resp.tool_calls else "stop"}],
            "usage": _usage(resp)}


def _usage(resp: ModelResponse) -> dict[str, int]:
    return {"prompt_tokens": resp.usage.prompt_tokens, "completion_tokens": resp.usage.completion_tokens,
            "total_tokens": resp.usage.total}


def stream_chunks(resp: ModelResponse, model: str, include_usage: bool) -> Iterator[str]:
    """The reply as OpenAI `chat.completion.chunk` SSE events (generated whole, sent in a few chunks)."""
    base = {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}

    def event(delta: dict[str, Any], finish: str | None = None) -> str:
        chunk = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        return f"data: {json.dumps(chunk)}\n\n"

    yield event({"role": "assistant", "content": ""})
    if resp.content:
        yield event({"content": resp.content})
    for i, call in enumerate(resp.tool_calls):
        yield event({"tool_calls": [{"index": i, **call.to_openai()}]})
    yield event({}, "tool_calls" if resp.tool_calls else "stop")
    if include_usage:
        yield f"data: {json.dumps({**base, 'choices': [], 'usage': _usage(resp)})}\n\n"
    yield "data: [DONE]\n\n"


def _error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status)


def create_app(model: Model) -> FastAPI:
    app = FastAPI(title="orrery serve-model")

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": model.name, "object": "model", "created": 0, "owned_by": "orrery"}]}

    # A plain `def`: FastAPI runs it in its thread pool, so the blocking model call does not stall the loop.
    @app.post("/v1/chat/completions", response_model=None)
    def chat_completions(req: ChatRequest) -> JSONResponse | StreamingResponse:
        args = request_args(req)
        if req.tools and not args["tools"]:
            return _error(400, "tool_choice names a function that is not in tools", "invalid_request_error")
        try:
            resp = model.complete(args.pop("messages"), args.pop("tools"), **args)
        except ModelError as exc:
            return _error(exc.status or 500, str(exc), "model_error")
        if req.stream:
            include_usage = bool((req.stream_options or {}).get("include_usage"))
            return StreamingResponse(stream_chunks(resp, model.name, include_usage), media_type="text/event-stream")
        return JSONResponse(completion_json(resp, model.name))

    return app


def serve(host: str = "127.0.0.1", port: int = 8080, model_path: str | Path | None = None) -> None:
    """Load the embedded (or `model_path`) model, then serve it until interrupted."""
    model = LocalModel(path=model_path)
    model.load()
    uvicorn.run(create_app(model), host=host, port=port, log_level="info")


@contextmanager
def running_server(model: Model | None = None, port: int = 0, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve `model` (default: a new LocalModel) from a background thread; yields the base URL
    ending in /v1. `port=0` picks a free port."""
    server = uvicorn.Server(uvicorn.Config(create_app(model or LocalModel()), host=host, port=port,
                                           log_level="warning"))
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
