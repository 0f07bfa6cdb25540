"""The optional online provider against a fake HTTP server on 127.0.0.1: off unless asked, retried, checked
row by row, all or nothing."""

from __future__ import annotations

import json
import shutil
import socket
import sys
import threading
import time
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import fake_http
import pytest
from typer.testing import CliRunner

from orrery.cli import main
from orrery.errors import DataError
from orrery.llm.scripted import ScriptedModel
from orrery.markets import tools as T
from orrery.markets.cli import app
from orrery.markets.provider import (
    ENV,
    FMP_ENV,
    FMP_URL_ENV,
    Cached,
    Chain,
    FmpProvider,
    HttpProvider,
    ProviderError,
    StoreSource,
    fetch,
)
from orrery.markets.store import Store
from orrery.tools import RunContext


def rows(n: int = 30, start: float = 10.0) -> list[dict]:
    return [
        {
            "date": f"2024-01-{d:02d}",
            "open": start + d,
            "high": start + d + 1,
            "low": start + d - 1,
            "close": start + d + 0.5,
            "volume": 1000 * d,
        }
        for d in range(1, n + 1)
    ]


def fake_server(script):
    """`script`: (status, headers, body) answered in order, the last repeating; body None hangs, a str is sent as is.
    Each hit keeps the request's path."""
    return fake_http.fake_server(
        script,
        lambda body: ("application/json", (body if isinstance(body, str) else json.dumps(body)).encode()),
        lambda req: req.path,
    )


@pytest.fixture()
def mine(store, tmp_path) -> Store:
    """A store of its own (the session store's shipped files copied): the session store stays as shipped."""
    shutil.copytree(store.root, tmp_path / "s")
    return Store(tmp_path / "s")


def batches(s: Store) -> list[str]:
    return sorted(p.name for sub in ("prices", "symbols") for p in (s.root / sub).iterdir())


def run_cli(monkeypatch, capsys, *args) -> tuple[int, str, str]:
    """`orrery ARGS` through the real entry point, its one-line error handler included."""
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["orrery", *map(str, args)])
    with pytest.raises(SystemExit) as exc:
        main()
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def fetch_fresh(monkeypatch, capsys, url: str, store) -> tuple[int, str, str]:
    """`orrery markets fetch ACME` from the provider at `url`, never from the cache."""
    return run_cli(
        monkeypatch, capsys, "markets", "fetch", "ACME", "--provider-url", url, "--store", store, "--cache-hours", "0"
    )


def test_fetch_lands_in_the_store_and_the_tools_use_it(mine):
    with fake_server([(200, {}, rows())]) as (url, hits):
        assert fetch(mine, ["acme"], HttpProvider(url + "/")) == ["ACME"]
    path = urlsplit(hits[0][1])
    assert path.path == "/daily" and parse_qs(path.query) == {"symbol": ["ACME"]}
    again = Store(mine.root)  # persisted, and read back like any other symbol
    assert again.symbols["ACME"].first == "2024-01-01" and again.symbols["ACME"].rows == 30
    q = T.quote.fn(RunContext(T.MarketsDeps(again)), "ACME")
    assert q["as_of"] == "2024-01-30" and q["close"] == 40.5 and q["adj_close"] == 40.5 and q["volume"] == 30000
    assert q["change"] == 1.0


def test_500_then_200_is_retried_and_429_waits_as_told(mine):
    with fake_server([(500, {}, "boom"), (429, {"Retry-After": "0.3"}, "slow down"), (200, {}, rows())]) as (url, hits):
        assert fetch(mine, ["ACME"], HttpProvider(url, max_retries=2, backoff=0.01)) == ["ACME"]
    assert len(hits) == 3 and hits[2][0] - hits[1][0] >= 0.25


def test_retries_run_out_and_client_errors_are_not_retried(mine):
    before = batches(mine)
    with fake_server([(503, {}, "down")]) as (url, hits), pytest.raises(ProviderError, match="HTTP 503 down.*tries: 2"):
        fetch(mine, ["ACME"], HttpProvider(url, max_retries=1, backoff=0.01))
    assert len(hits) == 2
    with (
        fake_server([(404, {}, '{"error": "unknown symbol"}')]) as (url, hits),
        pytest.raises(ProviderError, match="HTTP 404 .*unknown symbol.*tries: 1"),
    ):
        fetch(mine, ["NOPE"], HttpProvider(url, max_retries=3))
    assert len(hits) == 1 and batches(mine) == before


def test_a_symbol_already_in_the_store_is_refused_before_any_request(mine):
    with fake_server([(200, {}, rows())]) as (url, hits), pytest.raises(DataError, match="AAPL already in the store"):
        fetch(mine, ["ACME", "aapl"], HttpProvider(url))
    assert hits == [] and "ACME" not in Store(mine.root).symbols


def test_a_malformed_row_is_refused_with_its_row_number_and_nothing_is_written(mine):
    before = batches(mine)
    bad = rows(5)
    bad[1]["high"] = 1.0  # below its low
    bad[3]["close"] = "n/a"
    with fake_server([(200, {}, rows()), (200, {}, bad)]) as (url, hits), pytest.raises(DataError) as err:
        fetch(mine, ["GOOD", "BAD"], HttpProvider(url))  # GOOD was fine, but one fetch is one batch
    msg = str(err.value)
    assert len(hits) == 2 and "BAD: 2 bad row(s), nothing was imported" in msg
    assert "row 2: high must be the highest" in msg and "row 4: a price or the volume is not a number" in msg
    assert batches(mine) == before and not {"GOOD", "BAD"} & set(Store(mine.root).symbols)


@pytest.mark.parametrize(
    "body,why",
    [
        ({"rows": []}, "not a JSON list of daily rows"),
        ([], "no rows for ACME"),
        (
            [{"date": 20240102, **{k: 1 for k in ("open", "high", "low", "close", "volume")}}],
            "row 1: date is not a date",
        ),
    ],
)
def test_answers_off_the_documented_shape_are_refused(mine, body, why):
    with fake_server([(200, {}, body)]) as (url, _), pytest.raises((ProviderError, DataError), match=why):
        fetch(mine, ["ACME"], HttpProvider(url))


def test_a_hanging_provider_times_out(mine):
    with fake_server([(200, {}, None)]) as (url, hits), pytest.raises(ProviderError, match="ReadTimeout"):
        fetch(mine, ["ACME"], HttpProvider(url, timeout=0.3, max_retries=0))
    assert len(hits) == 1


def test_unreachable_url_is_one_line_and_exit_1(mine, monkeypatch, capsys):  # a failed run, not bad input
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = run_cli(
        monkeypatch,
        capsys,
        "markets",
        "fetch",
        "ACME",
        "--provider-url",
        f"http://127.0.0.1:{port}",
        "--retries",
        "1",
        "--store",
        mine.root,
    )
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and "Traceback" not in out + err, err
    assert lines[0].startswith("error: price provider") and "could not be reached (ConnectError" in lines[0]
    assert "tries: 2" in lines[0] and "Nothing was imported" in lines[0]


def test_the_cli_fetches_with_the_env_var(mine, monkeypatch, capsys):
    with fake_server([(200, {}, rows(3))]) as (url, hits):
        monkeypatch.setenv(ENV, url)
        code, out, err = run_cli(monkeypatch, capsys, "markets", "fetch", "acme", "--store", mine.root)
    assert code == 0 and len(hits) == 1, err
    assert "imported ACME (2024-01-01 to 2024-01-03)" in out


def test_off_by_default_no_request_without_the_flag_or_env_var(mine, monkeypatch, capsys):
    monkeypatch.delenv(ENV, raising=False)
    code, _, err = run_cli(monkeypatch, capsys, "markets", "fetch", "ACME", "--store", mine.root)
    assert code == 2 and err.startswith("error: online prices are off by default: pass --provider-url URL")
    # `ask` never fetches, even with the variable set: an unknown symbol is "not in the data"
    model = ScriptedModel([{"type": "stock_specific", "entities": ["ACME"], "categories": ["price"]}])
    monkeypatch.setattr("orrery.markets.agent.resolve_model", lambda llm: model)
    with fake_server([(200, {}, rows())]) as (url, hits):
        monkeypatch.setenv(ENV, url)
        out = CliRunner().invoke(app, ["ask", "How is ACME doing?", "--store", str(mine.root)])
    assert out.exit_code == 0 and "ACME is not in the data" in out.output
    assert hits == [] and "ACME" not in Store(mine.root).symbols


# -- issue 19: bounded replies; issue 21: FMP adapter, fallback chain, cache ------------------------------------
@contextmanager
def raw_server(answer):
    """A server whose handler is `answer(handler)`: for replies fake_http cannot send (dripped, huge)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            with suppress(BrokenPipeError, ConnectionResetError):  # the client hung up: what a bounded client does
                answer(self)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def _drip(h):
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.end_headers()
    for _ in range(60):  # one byte a second for a minute: every read is quick, the whole is not
        h.wfile.write(b" ")
        h.wfile.flush()
        time.sleep(1)


def test_a_dripping_body_is_cut_at_the_whole_request_timeout(mine):
    with raw_server(_drip) as url, pytest.raises(ProviderError, match="whole reply took over 2 s"):
        t0 = time.monotonic()
        fetch(mine, ["ACME"], HttpProvider(url, timeout=2, max_retries=0))
    assert time.monotonic() - t0 < 10  # the server would drip for 60 s


def _huge(h, declare: bool):
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    if declare:
        h.send_header("Content-Length", str(100 * 2**20))
    h.end_headers()
    chunk = b"[" + b" " * (2**20 - 1)
    for _ in range(100):
        h.wfile.write(chunk)


@pytest.mark.parametrize(
    "declare,why",
    [(True, "sent a 104,857,600-byte reply, over the 1,048,576-byte limit"), (False, "sent more than 1,048,576 bytes")],
)
def test_a_100_mb_reply_is_refused_without_reading_it_all(mine, declare, why):
    seen = []
    with raw_server(lambda h: _huge(h, declare)) as url, pytest.raises(ProviderError, match=why):
        provider = HttpProvider(url, max_retries=0, max_bytes=2**20)
        original = provider._json
        provider._json = lambda body, symbol: seen.append(len(body)) or original(body, symbol)
        fetch(mine, ["ACME"], provider)
    assert seen == []  # never parsed, and at most the cap plus one chunk was held


@pytest.mark.parametrize(
    "body,why",
    [
        ("<html>maintenance</html>", "the answer is not JSON"),
        ("[" * 10_000 + "]" * 10_000, "the answer is nested too deep"),
    ],
)
def test_replies_that_are_not_usable_json_are_one_line(mine, monkeypatch, capsys, body, why):
    with fake_server([(200, {}, body)]) as (url, _):
        code, out, err = fetch_fresh(monkeypatch, capsys, url, mine.root)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and why in lines[0] and "Traceback" not in out + err, err


@pytest.mark.parametrize("retry_after", ["-5", "nan", "inf", "soon"])
def test_a_bad_retry_after_falls_back_to_the_backoff(mine, monkeypatch, capsys, retry_after):
    with fake_server([(429, {"Retry-After": retry_after}, "slow down"), (200, {}, rows(3))]) as (url, hits):
        code, out, err = fetch_fresh(monkeypatch, capsys, url, mine.root)
    assert code == 0 and len(hits) == 2 and "imported ACME" in out, err


def fmp_history(symbol: str, n: int = 5) -> dict:
    """A reply in the shape FMP documents for /api/v3/historical-price-full/{symbol} (newest first)."""
    days = [
        {
            "date": f"2024-01-{d:02d}",
            "open": 100.0 + d,
            "high": 102.0 + d,
            "low": 99.0 + d,
            "close": 101.0 + d,
            "adjClose": 100.5 + d,
            "volume": 1_000_000 + d,
            "unadjustedVolume": 1_000_000 + d,
            "change": 1.0,
            "changePercent": 0.99,
            "vwap": 100.7 + d,
            "label": f"January {d:02d}, 24",
            "changeOverTime": 0.0099,
        }
        for d in range(2, 2 + n)
    ]
    return {"symbol": symbol, "historical": days[::-1]}


def test_fmp_replies_land_in_the_store_and_the_key_is_never_printed(mine, monkeypatch, capsys):
    monkeypatch.setenv(FMP_ENV, "s3cret-key")
    with fake_server([(200, {}, fmp_history("NVDA"))]) as (url, hits):
        assert fetch(mine, ["nvda"], FmpProvider(base_url=url)) == ["NVDA"]
    path = urlsplit(hits[0][1])
    assert path.path == "/api/v3/historical-price-full/NVDA" and parse_qs(path.query) == {"apikey": ["s3cret-key"]}
    got = Store(mine.root).prices("NVDA")
    assert list(got.index.strftime("%Y-%m-%d")) == [f"2024-01-{d:02d}" for d in range(2, 7)]  # oldest first
    assert got["adj_close"].iloc[0] == 102.5 and got["close"].iloc[0] == 103.0 and got["volume"].iloc[-1] == 1_000_006
    answer = {"Error Message": "Invalid API KEY. Feel free to create a Free API Key."}
    with fake_server([(401, {}, answer)]) as (url, _):
        monkeypatch.setenv(FMP_URL_ENV, url)
        code, out, err = run_cli(
            monkeypatch, capsys, "markets", "fetch", "AMD", "--provider", "fmp", "--store", mine.root
        )
    assert code == 1 and "HTTP 401" in err and "Invalid API KEY" in err and "s3cret-key" not in out + err, err
    with fake_server([(200, {}, answer)]) as (url, _), pytest.raises(ProviderError, match="Invalid API KEY"):
        FmpProvider(base_url=url).daily("AMD")
    with fake_server([(401, {}, answer)]) as (url, _), pytest.raises(ProviderError) as err:
        FmpProvider(base_url=url, max_retries=0).daily("AMD")
    assert "s3cret-key" not in str(err.value) and "HTTP 401" in str(err.value)


def test_fmp_answers_in_the_list_shape_of_its_stable_endpoints_are_read_too(monkeypatch):
    monkeypatch.setenv(FMP_ENV, "k")
    days = [
        {
            "symbol": "AMD",
            "date": "2024-01-03",
            "open": 2.0,
            "high": 3.0,
            "low": 1.5,
            "close": 2.5,
            "volume": 7,
            "change": 0.5,
            "changePercent": 25.0,
            "vwap": 2.2,
        },
        {"symbol": "AMD", "date": "2024-01-02", "open": 1.0, "high": 2.0, "low": 0.5, "close": 2.0, "volume": 5},
    ]
    with fake_server([(200, {}, days)]) as (url, _):
        got = FmpProvider(base_url=url).daily("AMD")
    assert got["close"].tolist() == [2.5, 2.0] and got["adj_close"].tolist() == [2.5, 2.0]


def test_fmp_without_a_key_is_a_one_line_config_error(mine, monkeypatch, capsys):
    monkeypatch.delenv(FMP_ENV, raising=False)
    code, _, err = run_cli(monkeypatch, capsys, "markets", "fetch", "AMD", "--provider", "fmp", "--store", mine.root)
    assert code == 2 and err.startswith("error: --provider fmp needs an API key: set FMP_API_KEY")


def test_the_chain_falls_back_in_order_and_ends_at_the_local_store(mine, monkeypatch):
    monkeypatch.setenv(FMP_ENV, "k")
    with fake_server([(503, {}, "down")]) as (down, _), fake_server([(200, {}, rows(4))]) as (up, hits):
        chain = Chain([FmpProvider(base_url=down, max_retries=0), HttpProvider(up), StoreSource(mine)])
        assert len(chain.daily("ACME")) == 4 and chain.last == up and len(hits) == 1
    with fake_server([(503, {}, "down")]) as (down, _):
        chain = Chain([HttpProvider(down, max_retries=0), StoreSource(mine)])
        ibm = chain.daily("ibm")
        assert chain.last.startswith("the local store") and ibm["close"].iloc[-1] == pytest.approx(202.91)
        with pytest.raises(ProviderError, match=r"no source answered for NOPE: .*HTTP 503.*'NOPE' is not in the data"):
            chain.daily("NOPE")


def test_the_cache_answers_a_second_ask_without_the_network(tmp_path):
    with fake_server([(200, {}, rows(3))]) as (url, hits):
        cached = Cached(HttpProvider(url), ttl=3600, folder=tmp_path / "cache")
        first, again = cached.daily("ACME"), cached.daily("acme")
        assert len(hits) == 1 and first.equals(again)
        Cached(HttpProvider(url), ttl=0, folder=tmp_path / "cache").daily("ACME")  # ttl 0: always ask
        assert len(hits) == 2
        with pytest.raises(DataError, match="is not a symbol"):
            cached.daily("../../etc/passwd")
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["ACME.parquet"]


def test_the_cli_caches_fetches_under_the_store(mine, monkeypatch, capsys):
    with fake_server([(200, {}, rows(3))]) as (url, hits):
        assert (
            run_cli(monkeypatch, capsys, "markets", "fetch", "ACME", "--provider-url", url, "--store", mine.root)[0]
            == 0
        )
        assert run_cli(monkeypatch, capsys, "markets", "remove", "ACME", "--store", mine.root)[0] == 0
        code, out, _ = run_cli(
            monkeypatch, capsys, "markets", "fetch", "ACME", "--provider-url", url, "--store", mine.root
        )
    assert code == 0 and len(hits) == 1 and "imported ACME" in out


@pytest.mark.parametrize("symbol", ["../../etc", "A/B", "AAPL?x=1", ""])
def test_a_symbol_that_is_not_one_is_refused_before_any_request(mine, symbol):
    with fake_server([(200, {}, rows())]) as (url, hits), pytest.raises(DataError, match="is not a symbol"):
        fetch(mine, [symbol], HttpProvider(url))
    assert hits == []


@pytest.mark.parametrize("url", ["not a url", "ftp://host", "http://", "file:///etc"])
def test_a_provider_url_that_is_not_http_is_bad_input(mine, monkeypatch, capsys, url):
    code, _, err = run_cli(monkeypatch, capsys, "markets", "fetch", "ACME", "--provider-url", url, "--store", mine.root)
    assert code == 2 and err.startswith("error: provider URL") and "is not an http(s) URL" in err, err
