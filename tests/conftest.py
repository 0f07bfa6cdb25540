"""Shared test helpers live beside this file (fake_http.py); pytest puts this folder on sys.path for them."""

import pytest


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
