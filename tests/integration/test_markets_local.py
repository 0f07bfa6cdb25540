"""The seed's discovery query with the embedded model, end to end on the shipped data."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from orrery.grounding import ungrounded  # noqa: E402
from orrery.llm.local import LocalModel  # noqa: E402
from orrery.markets.agent import STANDARD_NUMBERS, MarketsAgent, percents  # noqa: E402
from orrery.markets.store import Store  # noqa: E402

pytestmark = pytest.mark.integration
SEED = "Find stocks with RSI < 30 on US exchanges. For found stocks, analyze patterns and fibonacci."


@pytest.mark.timeout(1800)  # about six model calls of a 0.5B model on 2 shared cores
def test_seed_discovery_query_with_the_embedded_model(tmp_path: Path) -> None:
    store = Store(tmp_path / "markets")
    events: list = []
    result = MarketsAgent(LocalModel(), store, on_event=[events.append]).run(SEED)

    assert result.status == "completed", result.errors
    assert result.classification is not None and result.classification.type == "screener"
    assert result.route is not None and "stock_screener" in result.route.selected_tools
    called = [t.call.name for t in result.tool_calls if t.ok]
    assert called[0] == "stock_screener"
    screen = result.tool_calls[0].value
    assert screen["matches"] == [] and screen["closest"][0]["symbol"] == "AAPL"  # no stock under 30 on 2013-03-01
    # only symbols in the store are named, and the answer says the data's date and price basis
    named = set(re.findall(r"\b[A-Z]{2,5}\b", result.output)) - {"RSI", "US", "NASDAQ", "NYSE", "SMA", "EMA", "MACD"}
    assert named <= set(store.symbols), named
    assert "Data as of 2013-03-01; prices: close (unadjusted)" in result.output
    done = [t for t in result.tool_calls if t.ok]
    allowed = [*STANDARD_NUMBERS, *(v for t in done for v in percents(t.value))]
    assert ungrounded(result.answer, [t.content for t in done] + [SEED], allowed) == []
    kinds = [e.kind for e in events]
    assert kinds[0] == "run_start" and kinds[-1] == "final" and "routed" in kinds and "tool_call" in kinds


@pytest.mark.timeout(600)
def test_four_symbol_comparison_with_the_embedded_model_is_computed_and_makes_one_model_call(tmp_path: Path) -> None:
    from orrery.events import ModelCall, Token

    store = Store(tmp_path / "markets")
    events: list = []
    result = MarketsAgent(LocalModel(), store, on_event=[events.append]).run(
        "Which had the worst return in 2007: AAPL, GOOG, IBM or MSFT?"
    )

    assert result.status == "completed", result.errors
    assert result.route_source == "rules" and sum(isinstance(e, ModelCall) for e in events) == 1
    (run,) = result.tool_calls
    assert run.call.name == "compare_symbols" and run.value["winner"] == ["IBM"]
    for sym in ("AAPL", "GOOG", "IBM", "MSFT"):
        adj = store.prices(sym)["adj_close"].loc["2007"]
        assert f"{sym} {round(100 * (adj.iloc[-1] / adj.iloc[0] - 1), 2)}%" in result.output
    first = next(i for i, e in enumerate(events) if isinstance(e, Token))
    assert first < next(i for i, e in enumerate(events) if isinstance(e, ModelCall))  # figures before prose
