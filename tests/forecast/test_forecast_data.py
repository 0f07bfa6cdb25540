import numpy as np
import pandas as pd
import polars as pl
import pytest

from orrery.errors import DataError
from orrery.forecast.data import load, period_of, to_frame


def test_list_gets_integer_steps_and_default_h():
    sd = load(list(np.sin(np.arange(30)) + 5.0))
    assert sd.freq == 1 and sd.m == 1 and sd.h == 2
    assert list(sd.df.columns) == ["unique_id", "ds", "y"]
    assert sd.df["ds"].tolist() == list(range(1, 31))


def test_monthly_frame_infers_m_and_h(make_monthly):
    sd = load(make_monthly(n=72))
    assert (sd.freq, sd.m, sd.h) == ("MS", 12, 24)
    assert not sd.is_panel


def test_explicit_m_h_and_column_names(frame):
    sd = load(frame.rename(columns={"date": "when", "value": "sales"}), date="when", target="sales", m=6, h=3)
    assert (sd.m, sd.h) == (6, 3)


@pytest.mark.parametrize("kind", ["dict", "polars", "csv", "parquet"])
def test_other_inputs_match_pandas(frame, tmp_path, kind):
    if kind == "dict":
        data = {"date": list(frame["date"]), "value": list(frame["value"])}
    elif kind == "polars":
        data = pl.from_pandas(frame)
    elif kind == "csv":
        data = tmp_path / "x.csv"
        frame.to_csv(data, index=False)
    else:
        data = tmp_path / "x.parquet"
        frame.to_parquet(data)
    got = load(data, h=6)
    pd.testing.assert_frame_equal(got.df, load(frame, h=6).df, check_dtype=False)
    assert got.m == 12


def test_panel_groupby(panel):
    sd = load(panel, groupby="store", h=6)
    assert sd.ids == ["s0", "s1", "s2"] and sd.is_panel
    assert len(sd.series("s1")) == 48


@pytest.mark.parametrize(
    ("freq", "m"),
    [("MS", 12), ("ME", 12), ("QS", 4), ("QE-DEC", 4), ("YS", 1), ("W-SUN", 52), ("D", 7), ("h", 24), ("B", 5)],
)
def test_period_of(freq, m):
    assert period_of(freq) == m


def test_bad_dates(frame):
    frame["date"] = frame["date"].astype(str)
    frame.loc[3, "date"] = "not a date"
    with pytest.raises(DataError, match="not dates.*ISO"):
        load(frame, h=6)


def test_duplicate_timestamps(frame):
    frame.loc[5, "date"] = frame.loc[4, "date"]
    with pytest.raises(DataError, match="share a timestamp.*aggregate"):
        load(frame, h=6)


def test_irregular_spacing(frame):
    frame = frame.drop(index=[10, 20])
    with pytest.raises(DataError, match="irregular spacing.*resample"):
        load(frame, h=6)


def test_non_numeric(frame):
    frame["value"] = frame["value"].astype(object)
    frame.loc[7, "value"] = "n/a?"
    with pytest.raises(DataError, match="non-numeric.*'n/a\\?'"):
        load(frame, h=6)


def test_missing_values_imputed_and_reported(frame):
    frame.loc[[5, 6], "value"] = np.nan
    sd = load(frame, h=6)
    assert sd.imputed == {"series": 2}
    assert "imputed 2" in sd.warnings[0]
    y = sd.values()
    assert not np.isnan(y).any()
    assert y[5] == pytest.approx(frame["value"][4] + (frame["value"][7] - frame["value"][4]) / 3)


def test_missing_values_refused(frame):
    frame.loc[5, "value"] = np.nan
    with pytest.raises(DataError, match="missing value.*missing='impute'"):
        load(frame, missing="refuse")


def test_short_series_load_and_min_length_is_enforced_only_when_asked(frame):
    assert len(load(frame.head(5), h=6).df) == 5  # too short for CV or seasons: loaded, fitted with what fits
    with pytest.raises(DataError, match="needs at least 24"):
        load(frame.head(20), h=6, min_length=24)


def test_constant_series(frame):
    frame["value"] = 3.0
    with pytest.raises(DataError, match="constant"):
        load(frame, h=6)


def test_constant_and_mostly_zero_series_in_a_panel_are_flagged_not_refused(frame):
    flat = frame.assign(value=3.0, id="flat")
    zeros = frame.assign(value=0.0, id="zeros")
    zeros.loc[zeros.index[::10], "value"] = 5.0
    sd = load(pd.concat([frame.assign(id="ok"), flat, zeros]), groupby="id", h=6)
    assert sd.flags == {"flat": "constant", "zeros": "mostly zero"}
    assert any("'flat' is constant" in w for w in sd.warnings)


def test_missing_columns_and_types(frame, tmp_path):
    with pytest.raises(DataError, match="no target column 'sales'"):
        load(frame, target="sales")
    with pytest.raises(DataError, match="no groupby column"):
        load(frame, groupby="store")
    with pytest.raises(DataError, match="unsupported file type"):
        (tmp_path / "x.xlsx").touch()
        to_frame(tmp_path / "x.xlsx")
    with pytest.raises(DataError, match="file not found"):
        load(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="one-dimensional"):
        load(np.ones((3, 3)))


@pytest.mark.parametrize(
    "body,says",
    [
        (
            'date,value\n2020-01-01,"' + "x" * 200_000 + '"\n',
            r"line 2 is not a CSV row \(field larger than field limit",
        ),
        ('date,value\n2020-01-01,"3\n2020-02-01,4\n', r"line 3 is not a CSV row \(unexpected end of data\)"),
    ],
)
def test_a_csv_the_csv_module_cannot_read_is_a_data_error_naming_the_line(tmp_path, body, says):
    (tmp_path / "d.csv").write_text(body)
    with pytest.raises(DataError, match=says):
        load(tmp_path / "d.csv")


def test_quoted_commas_and_newlines_still_load(tmp_path):
    rows = "".join(f'2020-{m:02d}-01,{m},"note, with comma"\n' for m in range(1, 13))
    (tmp_path / "d.csv").write_text("date,value,note\n" + rows + '2021-01-01,13,"two\nlines"\n')
    assert len(load(tmp_path / "d.csv", h=2).df) == 13
