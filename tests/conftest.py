"""Shared test helpers live beside this file (fake_http.py); pytest puts this folder on sys.path for them."""

import os

import pytest
from threadpoolctl import threadpool_limits

# One BLAS thread: tests run one at a time, and on 2 shared cores OpenBLAS's thread pool made small repeated fits
# (the L-BFGS of research's calibration) up to 15x slower than one thread. The variables reach BLAS libraries
# loaded later and subprocesses; threadpool_limits the ones a plugin already loaded.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
threadpool_limits(1)


@pytest.fixture
def traced():
    """Every run's spans (through the global hooks, as `orrery --otel` records them) into an in-memory exporter."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from orrery.otel import instrument, uninstrument

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    recorder = instrument(provider)
    yield exporter
    uninstrument(recorder)


@pytest.fixture
def no_retry_wait(monkeypatch):
    """The OpenAI SDK retries as many times as configured, without its backoff waits between tries (0.5, 1, 2 s):
    for tests of what happens once the tries run out, not of how long they wait."""
    from openai._base_client import BaseClient

    monkeypatch.setattr(BaseClient, "_calculate_retry_timeout", lambda *_args, **_kwargs: 0.0)


# Fixtures that start a real PostgreSQL server (tests/bi/conftest.py, tests/memory/conftest.py), and the parameter
# value that picks one through `request.getfixturevalue`: the tests using them are integration tests.
POSTGRES_FIXTURES = {"postgres", "pg_tpch", "pg_chinook", "target_pg"}


@pytest.hookimpl(tryfirst=True)  # before `-m` selects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())) or any(
            isinstance(v, str) and v == "postgres" for v in params.values()
        ):
            item.add_marker(pytest.mark.integration)
