"""Held-out bad-file classes: each refused with a one-line DataError (exit 2 from the CLI), or handled."""

import sys

import numpy as np
import pandas as pd
import pytest

from orrery import cli
from orrery.errors import DataError
from orrery.forecast.data import load

GOOD = "date,value\n" + "".join(f"2020-{m:02d}-01,{100 + m}\n" for m in range(1, 13))


def _write(tmp_path, name, content):
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return path


BAD = {
    "empty.csv": ("", "is empty"),
    "header.csv": ("date,value\n", "header but no data rows"),
    "binary.csv": (b"PK\x03\x04\x00\x00\x08\x00" * 20, "binary data"),
    "latin1.csv": ("date,value\n2020-01-01,1\n2020-02-01,2\n2020-03-01,3\nCaf\xe9,4\n".encode("latin-1"), "not UTF-8"),
    "ragged.csv": ("date,value\n2020-01-01,1\n2020-02-01,2,7\n2020-03-01,3\n", "line 3 has 3 fields"),
    "short_row.csv": ("date,value,store\n2020-01-01,1,a\n2020-02-01\n2020-03-01,3,a\n", "line 3 has 1 fields"),
    "corrupt.parquet": (b"PAR1" + b"\x13\x37" * 40 + b"PAR1", "not a readable Parquet file"),
    "fractional.csv": ("date,value\n2020.0,1\n2020.25,2\n2020.5,3\n2020.75,4\n", "fractional numbers"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_files_are_refused_in_one_line(tmp_path, name):
    content, message = BAD[name]
    path = _write(tmp_path, name, content)
    with pytest.raises(DataError, match=message) as err:
        load(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value) or name == "fractional.csv"


def test_a_folder_and_a_pipe_are_refused(tmp_path):
    folder = tmp_path / "data.csv"
    folder.mkdir()
    with pytest.raises(DataError, match="is a folder"):
        load(folder)
    import os

    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="not a regular file"):
        load(fifo)


def test_the_cli_exits_2_with_one_line_before_any_model_is_loaded(tmp_path, monkeypatch, capsys):
    path = _write(tmp_path, "header.csv", "date,value\n")
    monkeypatch.setattr(sys, "argv", ["orrery", "forecast", str(path), "--model", "no-such-provider:x"])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "header but no data rows" in err and "Traceback" not in err


def test_numeric_dates_are_periods_never_nanoseconds(tmp_path):
    years = _write(tmp_path, "years.csv", "date,value\n" + "".join(f"{y},{y - 1990}\n" for y in range(1990, 2010)))
    sd = load(years)
    assert sd.freq == 1 and sd.df["ds"].tolist() == list(range(1990, 2010))
    floats = pd.DataFrame({"date": np.arange(1.0, 21.0), "value": np.arange(20.0)})
    assert load(floats).df["ds"].dtype == "int64"
    objects = pd.DataFrame({"date": pd.Series(list(range(1, 21)), dtype=object), "value": np.arange(20.0)})
    assert load(objects).df["ds"].tolist() == list(range(1, 21))
    with pytest.raises(DataError, match="step by 1"):
        load(pd.DataFrame({"date": [20240101, 20240102, 20240103, 20240201], "value": [1.0, 2, 3, 4]}))


def test_daily_data_across_dst_with_offsets_reads_as_local_days(tmp_path):
    days = pd.date_range("2024-03-25", "2024-04-05", freq="D", tz="Europe/Berlin")
    path = _write(tmp_path, "dst.csv", "date,value\n" + "".join(f"{d.isoformat()},{i}\n" for i, d in enumerate(days)))
    assert "+01:00" in path.read_text() and "+02:00" in path.read_text()
    sd = load(path)
    assert sd.freq == "D" and sd.df["ds"].iloc[0] == pd.Timestamp("2024-03-25")
    assert any("local wall-clock" in w for w in sd.warnings)
    panel = pd.concat([pd.read_csv(path).assign(id=k) for k in "ab"])
    assert load(panel, groupby="id").freq == "D"  # the same timestamps in two series are not duplicates


def test_hourly_data_across_dst_reads_as_utc():
    hours = pd.date_range("2024-10-26 22:00", periods=72, freq="h", tz="UTC").tz_convert("Europe/Berlin")
    sd = load(pd.DataFrame({"date": hours, "value": np.arange(72.0)}), m=24, h=24)
    assert sd.freq == "h" and len(sd.df) == 72 and sd.df["ds"].is_unique
    assert any("UTC" in w for w in sd.warnings)


def test_timezone_aware_column_with_one_offset():
    ds = pd.date_range("2024-01-01", periods=24, freq="MS", tz="America/New_York")
    sd = load(pd.DataFrame({"date": ds, "value": np.arange(24.0)}))
    assert sd.freq == "MS" and sd.df["ds"].dt.tz is None


def test_colliding_groupby_values_are_kept_apart():
    n = 24
    ds = pd.date_range("2020-01-01", periods=n, freq="MS")
    frame = pd.concat(
        [
            pd.DataFrame({"a": "x/y", "b": "z", "date": ds, "value": np.arange(n) * 1.0}),
            pd.DataFrame({"a": "x", "b": "y/z", "date": ds, "value": np.arange(n) * 2.0}),
        ]
    )
    sd = load(frame, groupby=["a", "b"], h=6)
    assert len(sd.ids) == 2 and len(sd.df) == 2 * n
    plain = load(frame.assign(b="z", a=np.repeat(["p", "q"], n)), groupby=["a", "b"], h=6)
    assert sorted(plain.ids) == ["p/z", "q/z"]  # no collision: the readable joined ids
    mixed = pd.concat(
        [
            pd.DataFrame({"k": 1, "date": ds, "value": 1.0 * np.arange(n)}),
            pd.DataFrame({"k": "1", "date": ds, "value": 3.0 * np.arange(n)}),
        ]
    )
    assert len(load(mixed, groupby="k", h=6).ids) == 2
