"""The markets agent with scripted models: the seed's discovery query, routing fallbacks, grounding, bad input."""

from __future__ import annotations

import re

import pytest

from orrery.agent.router import Classified, Routed
from orrery.events import Event, ToolCallEvent
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.markets.agent import MarketsAgent, rule_classification, rule_route
from orrery.tools import RunContext

SEED = "Find stocks with RSI < 30 on US exchanges. For found stocks, analyze patterns and fibonacci."


def classify(kind: str, entities=(), categories=()) -> dict:
    return {"type": kind, "entities": list(entities), "categories": list(categories)}


def route(*tools: str, strategy="DIRECT", complexity="SIMPLE", max_turns=2) -> dict:
    return {"selected_tools": list(tools), "complexity": complexity, "strategy": strategy, "max_turns": max_turns}


def agent(store, turns, events: list[Event] | None = None) -> tuple[MarketsAgent, ScriptedModel]:
    """The model-driven path (classify, route, tool loop): what runs when the rules cannot read a question."""
    model = ScriptedModel(turns)
    return MarketsAgent(
        model, store, on_event=[events.append] if events is not None else [], decide_by_rules=False
    ), model


def test_seed_discovery_query_in_four_turns(store):
    rsi = ["RSI"]
    final = (
        "No US stock in the data has an RSI below 30 as of 2013-03-01. AAPL is the closest at 32.78; "
        "its nearest resistance is 435.0 and the 61.8% retracement is 599.99."
    )
    events: list[Event] = []
    a, model = agent(
        store,
        [
            classify("screener", [], ["screening", "technical", "patterns", "fibonacci"]),
            route(
                "stock_screener",
                "technical_indicators",
                "chart_patterns",
                "support_resistance",
                "fibonacci_levels",
                strategy="ITERATIVE",
                complexity="COMPLEX",
                max_turns=6,
            ),
            turn(
                call("stock_screener", conditions=["RSI < 30"], exchange="NASDAQ", limit=10),
                call("stock_screener", conditions=["RSI < 30"], exchange="NYSE", limit=10),
            ),
            turn(
                *(call("technical_indicators", symbol=s, indicators=rsi) for s in ("AAPL", "MSFT", "GOOG", "FB", "IBM"))
            ),
            turn(
                call("chart_patterns", symbol="AAPL"),
                call("support_resistance", symbol="AAPL"),
                call("fibonacci_levels", symbol="AAPL"),
            ),
            final,
        ],
        events,
    )
    result = a.run(SEED)

    assert result.ok, result.errors
    assert model.index == len(model.turns)  # classify, route, three tool turns, the answer
    assert result.classification.type == "screener" and result.route_source == "model"
    assert result.route.strategy == "ITERATIVE" and result.route.max_turns == 6
    names = [r.call.name for r in result.tool_calls]
    assert names == ["stock_screener"] * 2 + ["technical_indicators"] * 5 + [
        "chart_patterns",
        "support_resistance",
        "fibonacci_levels",
    ]
    assert all(r.ok for r in result.tool_calls)
    screens = [r.value for r in result.tool_calls[:2]]
    assert [s["count"] for s in screens] == [0, 0] and screens[0]["closest"][0]["symbol"] == "AAPL"
    assert result.tool_calls[2].value["rsi_14"] == 32.78
    assert result.grounded and result.answer == final
    assert result.output.startswith(final) and "Data as of 2013-03-01; prices: close (unadjusted)." in result.output
    assert "Figures from the tools:" in result.output
    tickers = set(re.findall(r"\b[A-Z]{2,5}\b", result.output)) - {"RSI", "US", "NASDAQ", "NYSE"}
    assert tickers <= set(store.symbols)
    # each round offers the routed tools, with symbols narrowed to the store
    tool_rounds = [r for r in model.requests if r["tools"]]
    assert tool_rounds[0]["tools"] == [
        "stock_screener",
        "technical_indicators",
        "chart_patterns",
        "support_resistance",
        "fibonacci_levels",
    ]
    # follow-up calls are offered the screened symbols: NASDAQ's closest three, then NYSE's one
    assert a._screened == ["AAPL", "FB", "MSFT", "IBM"]
    props = a.tools.tools["chart_patterns"].spec(RunContext()).parameters["properties"]
    assert props["symbol"]["enum"] == ["AAPL", "FB", "MSFT", "IBM"] and "date" not in props
    # a call is required until every routed tool has run; then the model may answer
    assert [r["tool_choice"] for r in model.requests[2:]] == ["required"] * 3 + ["auto"]
    kinds = [e.kind for e in events]
    assert kinds[0] == "run_start" and kinds[-1] == "final" and kinds.count("routed") == 1
    assert next(e for e in events if isinstance(e, Classified)).type == "screener"
    assert sum(isinstance(e, ToolCallEvent) for e in events) == 10


def test_symbol_schema_is_narrowed_to_the_query(store):
    a, model = agent(
        store,
        [
            classify("stock_specific", ["Apple"], ["technical"]),
            route("technical_indicators"),
            turn(call("technical_indicators", symbol="AAPL", indicators=["RSI"])),
            "Apple's RSI is 32.78.",
        ],
    )
    result = a.run("What is Apple's RSI?")
    assert result.ok and result.grounded
    narrowed = a.tools.tools["technical_indicators"].spec(RunContext()).parameters["properties"]
    assert narrowed["symbol"]["enum"] == ["AAPL"] and "date" not in narrowed and "period" not in narrowed
    assert "date" in a.tools.tools["technical_indicators"].spec(None).parameters["properties"]  # unrefined
    act = model.requests[2]
    assert act["tools"] == ["technical_indicators"] and result.as_of == {"AAPL": "2013-03-01"}
    assert result.classification.symbols == ["AAPL"] and result.classification.skill == "stock"
    assert "Skill: single stocks." in act["messages"][0].content


def test_invalid_route_falls_back_to_rules(store):
    a, model = agent(
        store,
        [
            classify("stock_specific", ["GOOG"], ["fibonacci"]),
            route("quote"),  # misses the Fibonacci tool the query names
            turn(call("fibonacci_levels", symbol="GOOG")),
            "See the levels above.",
        ],
    )
    result = a.run("Fibonacci retracements for GOOG")
    assert result.route_source == "rules" and result.model_tools == ["quote"]
    assert result.route.selected_tools == ["fibonacci_levels"]
    assert result.ok and result.tool_calls[0].value["symbol"] == "GOOG"


def test_unparseable_router_and_classifier_replies_use_rules(store):
    events: list[Event] = []
    a, model = agent(
        store,
        [
            "not json",
            "nor this",
            turn(call("quote", symbol="IBM", date="2010-06-15")),
            "IBM closed at 129.79 on 2010-06-15.",
        ],
        events,
    )
    result = a.run("What did IBM close at on 2010-06-15?")
    assert result.ok and result.classification.source == "rules" and result.route_source == "rules"
    assert result.tool_calls[0].value["close"] == 129.79 and result.grounded
    assert any(isinstance(e, Routed) and e.selected_tools == ["quote"] for e in events)


def test_invented_number_is_rewritten_then_replaced_by_facts(store):
    a, model = agent(
        store,
        [
            classify("stock_specific", ["MSFT"], ["price"]),
            route("quote"),
            turn(call("quote", symbol="MSFT")),
            "MSFT closed at 31.5.",
            "Still 31.5, trust me.",
        ],
    )
    result = a.run("What is Microsoft's last close?")
    assert not result.grounded and result.ungrounded == ["31.5"]
    assert result.answer == result.facts[0] and "27.95" in result.output and "31.5" not in result.output
    assert "ungrounded" in result.errors[0]


def test_rewrite_that_fixes_the_number_is_kept(store):
    a, model = agent(
        store,
        [
            classify("stock_specific", ["MSFT"], ["price"]),
            route("quote"),
            turn(call("quote", symbol="MSFT")),
            "MSFT closed at 31.5.",
            "MSFT closed at 27.95.",
        ],
    )
    result = a.run("What is Microsoft's last close?")
    assert result.grounded and result.answer == "MSFT closed at 27.95."


def test_unknown_symbol_is_not_in_the_data(store):
    a, model = agent(store, [classify("stock_specific", ["TSLA"], ["price"])])
    result = a.run("What is TSLA trading at?")
    assert result.ok and result.tool_calls == []
    assert result.output.startswith("TSLA is not in the data. Symbols available: AAPL (to 2013-03-01)")
    assert model.index == 1  # no route, no tools, no synthesis


def test_unknown_company_name_from_the_model_entities(store):
    a, model = agent(
        store,
        [
            classify("comparison", ["Tesla", "Apple"], ["comparison"]),
            route("quote"),
            turn(call("quote", symbol="AAPL")),
            "AAPL closed at 430.47.",
        ],
    )
    result = a.run("Compare Tesla with Apple")
    assert result.classification.symbols == ["AAPL"] and result.classification.unknown == ["Tesla"]
    assert result.ok and result.output.startswith("Tesla is not in the data.") and "430.47" in result.output


def test_date_outside_the_data_is_reported_not_invented(store):
    a, model = agent(
        store,
        [
            classify("stock_specific", ["AAPL"], ["price"]),
            route("quote"),
            turn(call("quote", symbol="AAPL", date="2020-01-02")),
            "The data for AAPL ends on 2013-03-01, so there is no price for 2020-01-02.",
        ],
    )
    result = a.run("What did AAPL close at on 2020-01-02?")
    assert (
        not result.tool_calls[0].ok
        and "outside the data for AAPL (2000-03-01 to 2013-03-01)" in result.tool_calls[0].content
    )
    assert result.ok and result.grounded and result.facts == []


def test_empty_screen_names_the_closest(store):
    a, model = agent(
        store,
        [
            classify("screener", [], ["screening"]),
            route("stock_screener"),
            turn(call("stock_screener", conditions=["RSI > 90"])),
            "No stock has an RSI above 90.",
        ],
    )
    result = a.run("Which stocks have RSI above 90?")
    assert result.ok and result.tool_calls[0].value["matches"] == []
    assert "No symbol of 5 matches rsi_14 > 90; closest:" in result.output


def test_non_market_question_gets_no_tools(store):
    a, model = agent(store, [classify("general"), "I answer questions about the market data in the store."])
    result = a.run("What is the capital of France?")
    assert result.ok and result.tool_calls == [] and result.route.selected_tools == []
    assert len(model.requests) == 2  # classification and the answer: no router call
    assert model.requests[1]["tools"] == [] and "Skill: questions outside" in model.requests[1]["messages"][0].content


def test_non_market_answer_with_invented_numbers_becomes_a_refusal(store):
    a, model = agent(store, [classify("general"), "Paris has 2.1 million people.", "About 2.1 million."])
    result = a.run("How many people live in Paris?")
    assert "I answer questions about the market data" in result.output and "2.1" not in result.output


def test_local_model_one_call_per_turn_turns_direct_into_iterative(store):
    model = ScriptedModel(
        [
            classify("comparison", ["AAPL", "MSFT"], ["price"]),
            route("quote"),
            turn(call("quote", symbol="AAPL")),
            turn(call("quote", symbol="MSFT")),
            "AAPL 430.47, MSFT 27.95.",
        ]
    )
    a = MarketsAgent(model, store, one_call_per_turn=True, decide_by_rules=False)
    result = a.run("Price of AAPL and MSFT")
    assert result.route.strategy == "ITERATIVE" and result.route.max_turns >= 2
    assert [r.value["symbol"] for r in result.tool_calls] == ["AAPL", "MSFT"] and result.grounded


@pytest.mark.parametrize(
    "query,tools",
    [
        (SEED, ["stock_screener", "technical_indicators", "chart_patterns", "fibonacci_levels"]),
        ("What did Apple close at on 2010-06-15?", ["quote"]),
        ("Compare Apple and Microsoft returns in 2010", ["compare_symbols"]),
        ("Where will IBM be in a month?", ["price_forecast"]),
        ("Which stocks closed above their SMA200?", ["stock_screener"]),
        ("Show support and resistance levels for GOOG.", ["support_resistance"]),
        ("What is the capital of France?", []),
    ],
)
def test_rule_routes(store, query, tools):
    assert rule_classification(query, store).unknown == []
    assert rule_route(query, rule_classification(query, store)).selected_tools == tools


def test_rule_fallback_reads_the_query_not_the_model_categories(store):
    a, model = agent(
        store,
        [
            classify("stock_specific", ["AAPL"], ["price", "technical", "comparison"]),
            route(),  # no tools: invalid for a market question
            turn(call("technical_indicators", symbol="AAPL", indicators=["RSI"])),
            "RSI 32.78.",
        ],
    )
    result = a.run("What is Apple's RSI?")
    assert result.route_source == "rules" and result.route.selected_tools == ["technical_indicators"]
    assert result.classification.categories == ["technical", "price", "comparison"]


@pytest.mark.parametrize(
    "model_type,rules_type,symbols,ok",
    [
        ("comparison", "screener", [], False),  # the seed's screen, misread by a small model
        ("stock_specific", "general", [], False),  # "What is the capital of France?"
        ("general", "stock_specific", ["AAPL"], False),
        ("comparison", "stock_specific", ["AAPL"], False),
        ("market_overview", "stock_specific", ["AAPL"], True),
        ("comparison", "comparison", ["AAPL", "MSFT"], True),
    ],
)
def test_model_type_is_checked_against_the_query(model_type, rules_type, symbols, ok):
    from orrery.markets.agent import consistent

    assert consistent(model_type, rules_type, symbols) is ok


def test_seed_query_misread_as_comparison_is_a_screen(store):
    a, model = agent(
        store,
        [
            classify("comparison", ["RSI", "US Exchanges"], ["technical"]),
            "not a route",
            turn(call("stock_screener", conditions=["RSI < 30"])),
            "No match.",
        ],
    )
    result = a.run(SEED)
    assert result.classification.type == "screener" and result.classification.source == "rules"
    assert result.route.selected_tools[0] == "stock_screener" and result.route.strategy == "ITERATIVE"


def test_ungrounded_answer_after_a_tool_error_becomes_the_error(store):
    a, model = agent(
        store,
        [
            classify("stock_specific", ["AAPL"], ["price"]),
            route("quote"),
            turn(call("quote", symbol="AAPL", date="2020-01-02")),
            "AAPL closed at 75.09.",
            "It was 75.09.",
        ],
    )
    result = a.run("What did AAPL close at on 2020-01-02?")
    assert not result.grounded and "75.09" not in result.output
    assert result.answer.startswith("2020-01-02 is outside the data for AAPL (2000-03-01 to 2013-03-01)")


def test_each_domain_has_its_skill_file_and_crypto_gets_its_own():
    from types import SimpleNamespace

    from orrery.markets.agent import MarketClassification, skill_for, skill_prompt

    store = SimpleNamespace(
        symbols={
            "BTC": SimpleNamespace(symbol="BTC", name="Bitcoin", kind="crypto", first="2020-01-01", last="2020-12-31"),
            "AAPL": SimpleNamespace(symbol="AAPL", name="Apple", kind="stock", first="2000-01-03", last="2013-03-01"),
        }
    )
    pick = lambda *symbols: skill_for(MarketClassification(type="stock_specific", symbols=list(symbols)), store)  # noqa: E731
    assert (pick("BTC"), pick("AAPL"), pick("BTC", "AAPL")) == ("crypto", "stock", "mixed")
    assert "around the clock" in skill_prompt("crypto", store) and "BTC (Bitcoin, crypto" in skill_prompt(
        "crypto", store
    )


def test_a_markets_trace_replays_through_the_installed_app(store, tmp_path, monkeypatch):
    from orrery.replay import app_tools, replay
    from orrery.trace import TraceWriter, read_trace

    path = tmp_path / "markets.jsonl"
    script = [
        classify("stock", ["AAPL"], ["technical"]),
        route("technical_indicators"),
        turn(call("technical_indicators", symbol="AAPL", indicators=["RSI"])),
        "AAPL's RSI is 32.78.",
    ]
    MarketsAgent(ScriptedModel(script), store, on_event=[TraceWriter(path)]).run("What is Apple's RSI?")
    assert read_trace(path)[0]["agent"] == "markets"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the app's own store, filled from shipped data
    report = replay(path, app_tools("markets"))
    assert report.identical and report.tool_results == 1


# -- the rules decide: every symbol and date the question names, fanned out by the framework -------------------
def rules_agent(store, prose: list[str], events: list[Event] | None = None) -> tuple[MarketsAgent, ScriptedModel]:
    model = ScriptedModel(prose)
    return MarketsAgent(model, store, on_event=[events.append] if events is not None else []), model


def test_four_symbol_question_runs_four_tools_in_one_step_without_a_routing_call(store):
    from orrery.events import ModelCall, StepEnd, StepStart, Token

    events: list[Event] = []
    a, model = rules_agent(store, ["See the levels above."], events)
    result = a.run("Show support and resistance levels for Apple, IBM, Microsoft and Google on 2012-06-01.")
    assert result.ok and result.route_source == "rules" and model.index == 1  # the prose call only
    assert [(t.call.name, t.call.arguments) for t in result.tool_calls] == [
        ("support_resistance", {"date": "2012-06-01", "symbol": s}) for s in ("AAPL", "IBM", "MSFT", "GOOG")
    ]
    start = next(i for i, e in enumerate(events) if isinstance(e, StepStart) and e.step == 2)
    end = next(i for i, e in enumerate(events) if isinstance(e, StepEnd) and e.step == 2)
    assert sum(isinstance(e, ToolCallEvent) for e in events[start:end]) == 4
    assert next(e for e in events if isinstance(e, Routed)).source == "rules"
    # the figures are on screen before the model is called
    first_token = next(i for i, e in enumerate(events) if isinstance(e, Token))
    assert first_token < next(i for i, e in enumerate(events) if isinstance(e, ModelCall))
    assert all(f"{s} (close" in events[first_token].text for s in ("AAPL", "IBM", "MSFT", "GOOG"))


def test_comparison_of_four_gives_every_value_and_the_winner(store, raw):
    a, model = rules_agent(store, ["IBM did worst in 2007."])
    result = a.run("Which had the worst return in 2007: AAPL, GOOG, IBM or MSFT?")
    (run,) = result.tool_calls
    assert run.call.name == "compare_symbols" and run.call.arguments == {
        "symbols": ["AAPL", "GOOG", "IBM", "MSFT"],
        "metric": "return",
        "lowest": True,
        "start": "2007-01-01",
        "end": "2007-12-31",
    }
    for sym in ("AAPL", "GOOG", "IBM", "MSFT"):
        adj = raw[sym]["adj_close"].loc["2007"]
        assert f"{sym} {round(100 * (adj.iloc[-1] / adj.iloc[0] - 1), 2)}%" in result.output
    assert "IBM has the lowest" in result.output and run.value["winner"] == ["IBM"]
    assert "Window: 2007: from its first close to its last" in result.output
    assert result.output.index("IBM has the lowest") < result.output.index("IBM did worst in 2007.")


def test_prose_naming_another_winner_or_part_of_the_matches_is_dropped(store):
    a, _ = rules_agent(store, ["Apple had the highest return."])
    result = a.run("Which had the worst return in 2007: AAPL, GOOG, IBM or MSFT?")
    assert "Apple had the highest" not in result.output and "IBM has the lowest" in result.output
    a, _ = rules_agent(store, ["Apple had an RSI of 24.07."])  # grounded, but GOOG matched too
    result = a.run("Among Apple, IBM, Microsoft and Google, which had a 14-day RSI below 30 on 2008-01-30?")
    assert "Apple had an RSI" not in result.output
    assert any("part of the leaders or matches" in e for e in result.errors)


def test_screen_over_a_named_list_reports_every_symbols_value(store, raw):
    import talib

    a, model = rules_agent(store, ["AAPL and GOOG were below 30."])
    result = a.run("Among Apple, IBM, Microsoft and Google, which had a 14-day RSI below 30 on 2008-01-30?")
    (run,) = result.tool_calls
    assert run.call.arguments == {
        "conditions": ["rsi_14 < 30"],
        "symbols": ["AAPL", "IBM", "MSFT", "GOOG"],
        "date": "2008-01-30",
    }
    assert [m["symbol"] for m in run.value["matches"]] == ["AAPL", "GOOG"]
    for sym in ("AAPL", "IBM", "MSFT", "GOOG"):
        rsi = talib.RSI(raw[sym]["close"].loc[:"2008-01-30"].to_numpy(float), 14)[-1]
        assert f"{sym} (rsi_14 {round(rsi, 2)}, 2008-01-30)" in result.output
    assert "AAPL and GOOG were below 30." in result.output and model.index == 1


def test_screen_over_the_store_skips_symbols_without_data_on_the_date(store):
    a, _ = rules_agent(store, [""])
    result = a.run("Which stocks had an RSI above 70 on 2012-02-07?")
    value = result.tool_calls[0].value
    assert [m["symbol"] for m in value["matches"]] == ["MSFT", "AAPL"] and value["skipped"] == ["FB"]
    assert "No data on that date: FB." in result.output


def test_seed_discovery_query_by_the_rules(store):
    a, model = rules_agent(store, ["No stock is below 30; AAPL is closest at 32.78."])
    result = a.run(SEED)
    assert result.ok and result.route_source == "rules" and model.index == 1
    names = [t.call.name for t in result.tool_calls]
    assert names == ["stock_screener", "technical_indicators", "chart_patterns", "fibonacci_levels"]
    screen = result.tool_calls[0].value
    assert screen["count"] == 0 and screen["closest"][0]["symbol"] == "AAPL"
    assert all(t.call.arguments["symbol"] == "AAPL" for t in result.tool_calls[1:])
    assert result.tool_calls[1].value["rsi_14"] == 32.78 and "AAPL is closest at 32.78." in result.output


def test_ytd_and_52_week_windows_are_filled_from_the_question(store, raw):
    a, _ = rules_agent(store, ["", ""])
    ytd = a.run("What was Google's year-to-date return on June 29, 2012?")
    assert ytd.tool_calls[0].call.arguments == {"start": "2012-01-01", "end": "2012-06-29", "symbol": "GOOG"}
    assert "YTD = from January 1 of 2012 to 2012-06-29" in ytd.output
    high = a.run("What was the S&P 500's 52-week high as of March 9, 2009?")
    close = raw["SPX"]["close"].loc["2008-03-11":"2009-03-09"]
    assert high.tool_calls[0].value["high_52w"] == round(close.max(), 2)
    assert "52 weeks ending 2009-03-09 (2008-03-11 to 2009-03-09)" in high.output


def test_a_capitalised_name_the_rules_do_not_know_asks_the_model(store):
    a, model = rules_agent(store, [classify("comparison", ["Tesla", "Apple"], ["comparison"]), ""])
    result = a.run("Compare Tesla and Apple in 2012.")
    assert result.classification.unknown == ["Tesla"] and result.output.startswith("Tesla is not in the data")
    assert [t.call.arguments["symbol"] for t in result.tool_calls] == ["AAPL"]


def test_unknown_ticker_alone_needs_no_model_call(store):
    a, model = rules_agent(store, [])
    result = a.run("What is NVDA's 52-week high?")
    assert result.output.startswith("NVDA is not in the data") and model.index == 0


def test_a_question_the_rules_cannot_fill_goes_to_the_model(store):
    # a screen, by the rules' classification; but "cheap" is no condition they read: the model routes and calls
    a, model = rules_agent(
        store, [route("stock_screener"), turn(call("stock_screener", conditions=["close < 50"])), "MSFT and FB."]
    )
    result = a.run("Find cheap stocks.")
    assert result.route_source == "model" and model.index == 3 and result.classification.source == "rules"
    assert result.tool_calls[0].call.arguments == {"conditions": ["close < 50"]}


def test_a_written_date_that_is_no_date_is_reported(store):
    a, _ = rules_agent(store, [""])
    result = a.run("What did IBM close at on February 30, 2012?")
    assert result.tool_calls[0].call.arguments["date"] == "2012-02-30"
    assert "'2012-02-30' is not a date; use YYYY-MM-DD" in result.output


def test_non_market_question_is_declined_after_one_classification_call(store):
    a, model = rules_agent(store, [classify("general", [], [])])
    result = a.run("What is the capital of France?")
    assert model.index == 1 and result.tool_calls == [] and result.output.startswith("I answer questions about")


def test_which_stock_has_the_highest_field_ranks_every_stock(store):
    a, model = rules_agent(store, [""])
    result = a.run("Which stock has the highest RSI?")
    assert result.tool_calls[0].call.arguments == {"conditions": [], "sort_by": "rsi_14", "descending": True}
    assert "5 symbols by rsi_14, highest first: GOOG (rsi_14 67.53, 2013-03-01)" in result.output


def test_a_window_sets_the_highest_close_and_the_bars_a_pattern_tool_scans(store, raw):
    a, _ = rules_agent(store, ["", ""])
    month = a.run("What was Google's highest close in March 2012?")
    close = raw["GOOG"]["close"].loc["2012-03"]
    assert month.tool_calls[0].value["highest_close"] == round(close.max(), 2)
    assert f"highest close {round(close.max(), 2)} ({close.idxmax():%Y-%m-%d})" in month.output
    fib = a.run("Fibonacci levels for IBM in 2011")
    assert fib.tool_calls[0].call.arguments == {
        "date": "2011-12-31",
        "symbol": "IBM",
        "lookback": len(raw["IBM"].loc["2011"]),
    }


def test_a_tool_put_behind_approval_pauses_the_run_until_a_person_decides(store):
    from orrery.errors import ConfigError
    from orrery.markets.agent import markets_agent

    model = ScriptedModel([turn(call("quote", symbol="AAPL")), "Apple closed at 100."])
    a = markets_agent(model, store=store, approve=("quote",))
    r = a.run("What is Apple's price?")  # the rules plan the quote, which waits: the loop asks
    assert r.status == "paused" and [(p.tool, p.arguments) for p in r.approvals] == [("quote", {"symbol": "AAPL"})]
    assert not r.tool_calls
    r = a.resume({r.approvals[0].id: True})
    assert r.status == "completed" and [t.call.name for t in r.tool_calls] == ["quote"] and r.tool_calls[0].ok
    assert r.as_of and "Data as of" in r.output  # the answer is checked as an unpaused one is
    with pytest.raises(ConfigError, match="no markets tool: fetch"):
        markets_agent(model, store=store, approve=("fetch",))


def test_a_paused_markets_run_resumes_in_a_fresh_agent_and_is_checked_as_before(store):
    import json

    from orrery.markets.agent import MarketClassification, markets_agent

    first = markets_agent(ScriptedModel([turn(call("quote", symbol="AAPL"))]), store=store, approve_tools=True)
    paused = first.run("What is Apple's price?")
    assert paused.status == "paused" and paused.approvals[0].tool == "quote" and not paused.tool_calls
    snapshot = json.loads(json.dumps(first.snapshot()))
    fresh = markets_agent(ScriptedModel(["Apple closed at 100."]), store=store)  # no approval asked of it
    fresh.restore(snapshot)
    assert isinstance(fresh.paused.result.classification, MarketClassification)
    assert fresh.paused.result.classification.symbols == ["AAPL"]
    r = fresh.resume({paused.approvals[0].id: True})
    assert r.status == "completed" and [t.call.name for t in r.tool_calls] == ["quote"] and r.tool_calls[0].ok
    assert r.as_of == {"AAPL": r.tool_calls[0].value["as_of"]} and "Data as of" in r.output
