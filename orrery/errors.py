"""One small error hierarchy. Every message says what to do next."""


class OrreryError(Exception):
    """Base class: the CLI prints these in one line and exits with `exit_code` (2: bad input; 1: a failed run)."""

    exit_code = 2


class ModelError(OrreryError):
    """The model provider failed after its retries (HTTP status, timeout, bad reply)."""

    exit_code = 1

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False):
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class ModelTimeout(ModelError):
    """The provider did not answer in time."""


class RateLimited(ModelError):
    """The provider answered 429 on every try."""


class ConfigError(OrreryError):
    """A setting or model spec is wrong."""


class DataError(OrreryError):
    """User data cannot be used as given (the message says how to fix it)."""


class ToolError(OrreryError):
    """Raised by a tool to report a failure the model should see and correct."""


class Cancelled(BaseException):  # noqa: N818 - control flow, as asyncio.CancelledError
    """The run was stopped by its consumer (a closed stream, a client gone, Ctrl-C): raised in a tool still running
    at its next `ctx.progress`, so it stops there. A BaseException, as asyncio.CancelledError: a tool's own
    `except Exception` (which keeps one failed series or model from ending its work) must not swallow it."""
