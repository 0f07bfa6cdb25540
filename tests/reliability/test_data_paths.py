"""Issue 19, CLI data paths: every bad file a user hands `orrery bi`, `orrery markets` or `orrery forecast` is one
line and a non-zero exit (2: bad input, 1: a failed run), never a traceback; a plot draws any series id and value."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from orrery.errors import DataError
from orrery.markets.store import Store

NOT_A_DATABASE = b"this is a text file, not a database\n" * 20


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Store(tmp_path_factory.mktemp("markets")).root


@pytest.fixture
def store(shipped: Path, tmp_path: Path) -> Path:
    shutil.copytree(shipped, tmp_path / "store")
    return tmp_path / "store"


@pytest.mark.parametrize("command", ["connect", "describe"])
@pytest.mark.parametrize(
    "name,content", [("notes.duckdb", NOT_A_DATABASE), ("broken.sqlite", b"SQLite format 3\x00" + b"\xff" * 4096)]
)
def test_bi_on_a_file_that_is_not_a_database_is_one_line(tmp_path, cli, monkeypatch, command, name, content):
    monkeypatch.setenv("ORRERY_BI_HOME", str(tmp_path / "home"))
    (tmp_path / name).write_bytes(content)
    cli("bi", command, tmp_path / name).one_line_error(name, "pass a DuckDB or SQLite database file")
    assert not (tmp_path / "home" / "connections.yaml").exists()


@pytest.mark.parametrize(
    "name,content,says",
    [
        ("prices.csv", os.urandom(4096).replace(b"\n", b"\x00"), "is not UTF-8 text"),
        ("prices.parquet", b"PAR1" + os.urandom(4096), "is not a readable Parquet file"),
        ("prices.csv", b"", "is empty"),
        ("header.csv", b"\n\n", "is not a readable CSV file"),
    ],
)
def test_markets_import_of_an_unreadable_file_is_one_line(tmp_path, cli, store, name, content, says):
    (tmp_path / name).write_bytes(content)
    before = sorted(p.name for p in (store / "prices").iterdir())
    cli("markets", "import", tmp_path / name, "--store", store).one_line_error(name, says)
    assert sorted(p.name for p in (store / "prices").iterdir()) == before


def test_markets_import_over_the_size_cap_is_refused_before_reading(tmp_path, cli, store, monkeypatch):
    path = tmp_path / "big.csv"
    path.write_text("symbol,date,open,high,low,close,volume\n" + "BIG,2020-01-02,10,11,9,10.5,1000\n" * 40_000)
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: pytest.fail("the file was read before its size was checked"))
    cli("markets", "import", path, "--store", store, "--max-mb", "1").one_line_error("over the 1,048,576-byte limit")


def test_markets_remove_undoes_an_import_and_keeps_the_shipped_data(tmp_path, cli, store):
    path = tmp_path / "acme.csv"
    path.write_text("symbol,date,open,high,low,close,volume\nACME,2021-01-04,1,2,0.5,1.5,100\n")
    assert cli("markets", "import", path, "--store", store).code == 0
    removed = cli("markets", "remove", "acme", "--store", store)
    assert removed.code == 0 and "removed ACME (1 rows, 2021-01-04 to 2021-01-04" in removed.out
    assert "ACME" not in Store(store).symbols
    cli("markets", "remove", "AAPL", "--store", store).one_line_error("AAPL is shipped with orrery")
    assert Store(store).symbols["AAPL"].rows > 3000


@pytest.mark.parametrize(
    "body,says",
    [
        (
            'date,value\n2020-01-01,"' + "x" * 200_000 + '"\n2020-02-01,3\n',
            "line 2 is not a CSV row (field larger than",
        ),
        ('date,value\n2020-01-01,"3\n2020-02-01,4\n', "is not a CSV row (unexpected end of data)"),
    ],
)
def test_forecast_on_a_malformed_csv_is_one_line(tmp_path, cli, body, says):
    (tmp_path / "data.csv").write_text(body)
    cli("forecast", tmp_path / "data.csv").one_line_error("data.csv", says)


def test_forecast_with_an_unreachable_model_exits_1_like_the_other_apps(cli, no_retry_wait):
    from orrery.forecast.cli import SAMPLE

    run = cli("forecast", SAMPLE, "--model", "http://127.0.0.1:9/v1")
    assert run.code == 1 and "Traceback" not in run.out + run.err
    assert run.err.strip().splitlines()[-1].startswith("error: the analysis stopped (error)")
    assert "cannot reach http://127.0.0.1:9/v1/" in run.err


@pytest.mark.parametrize(
    "uid,values",
    [
        ("$x^{$", np.arange(24.0)),  # an unclosed mathtext group
        ("cost in $ and $$", np.arange(24.0)),
        ("huge", np.linspace(1e307, 1.7e308, 24)),  # near the float maximum
        ("both ends", np.r_[np.full(12, -1.7e308), np.full(12, 1.7e308)]),
        ("with inf", np.r_[np.full(3, np.inf), np.arange(21.0)]),
    ],
)
def test_the_plot_draws_any_series_id_and_any_finite_value(tmp_path, uid, values):
    from orrery.forecast.result import ForecastResult

    ds = pd.date_range("2020-01-01", periods=24, freq="MS")
    result = ForecastResult(
        history=pd.DataFrame({"unique_id": uid, "ds": ds, "y": values}),
        forecasts=pd.DataFrame(
            {
                "unique_id": uid,
                "ds": ds[-3:] + pd.DateOffset(months=3),
                "model": "Naive",
                "mean": values[-3:],
                "lo_80": values[-3:],
                "hi_80": values[-3:],
            }
        ),
    )
    fig = result.plot(tmp_path / "plot.png")
    assert (tmp_path / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert fig.axes[0].get_title().replace("\\$", "$").startswith(f"{uid}: ")


def test_a_plot_that_cannot_be_drawn_is_a_data_error(tmp_path, monkeypatch):
    import matplotlib.figure

    from orrery.forecast.result import ForecastResult

    def fail(*_args, **_kw):
        raise ValueError("cannot compute length")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", fail)
    ds = pd.date_range("2020-01-01", periods=3, freq="MS")
    with pytest.raises(DataError, match="cannot draw the plot of series 'a': cannot compute length"):
        ForecastResult(history=pd.DataFrame({"unique_id": "a", "ds": ds, "y": [1.0, 2, 3]})).plot(tmp_path / "p.png")
