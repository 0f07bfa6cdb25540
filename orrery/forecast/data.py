"""Load user data into statsforecast's long format (unique_id, ds, y) and check it.

Every failure raises `DataError` with a message that says what to change.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from orrery.errors import DataError

SINGLE_ID = "series"

# pandas offset prefix -> seasonal period (observations per natural cycle)
_PERIODS: dict[str, int] = {"Y": 1, "A": 1, "Q": 4, "M": 12, "W": 52, "D": 7, "B": 5, "h": 24, "min": 60, "s": 60}

MissingPolicy = Literal["impute", "refuse"]


@dataclass
class SeriesData:
    """A validated panel in long format plus what we inferred about it."""

    df: pd.DataFrame  # columns unique_id, ds, y; sorted; no gaps
    freq: str | int  # pandas offset alias, or 1 for integer time steps
    m: int  # seasonal period
    h: int  # forecast horizon
    imputed: dict[str, int] = field(default_factory=dict)  # series id -> number of imputed values
    warnings: list[str] = field(default_factory=list)
    flags: dict[str, str] = field(default_factory=dict)  # id -> "constant", "mostly zero", "too short (n ...)"...

    @property
    def ids(self) -> list[str]:
        return list(self.df["unique_id"].unique())

    @property
    def is_panel(self) -> bool:
        return self.df["unique_id"].nunique() > 1

    def series(self, uid: str | None = None) -> pd.DataFrame:
        """One series' rows (the only series when `uid` is None)."""
        uid = self.ids[0] if uid is None else uid
        return self.df[self.df["unique_id"] == uid]

    def values(self, uid: str | None = None) -> np.ndarray:
        return self.series(uid)["y"].to_numpy(dtype=float)


def to_frame(data: Any, target: str | None = None) -> pd.DataFrame:
    """Turn a list/array, dict, pandas/polars frame or CSV/Parquet path into a pandas frame."""
    if isinstance(data, str | Path):
        return _read_path(Path(data))
    if isinstance(data, pd.DataFrame):
        return data.copy()
    if type(data).__module__.startswith("polars"):
        return data.to_pandas()
    if isinstance(data, pd.Series):
        return pd.DataFrame({target or "value": data.to_numpy()})
    if isinstance(data, Mapping):
        return pd.DataFrame({str(k): list(v) for k, v in data.items()})
    if isinstance(data, np.ndarray | Sequence):
        values = np.asarray(data, dtype=object)
        if values.ndim != 1:
            raise DataError(f"an array must be one-dimensional (got shape {values.shape}); pass a DataFrame for panels")
        return pd.DataFrame({target or "value": values})
    raise DataError(
        f"cannot read data of type {type(data).__name__}: pass a list, array, dict, pandas or polars DataFrame, "
        "or a .csv/.parquet path"
    )


MAX_BYTES = 1 << 30  # larger inputs are refused rather than read into memory


def _read_path(path: Path) -> pd.DataFrame:
    """Read a CSV or Parquet file; anything else, or a broken file, is a one-line DataError."""
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a folder; pass a .csv or .parquet file")
    if not path.is_file():
        raise DataError(f"{path} is not a regular file (a pipe or a device); pass a .csv or .parquet file")
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise DataError(f"unsupported file type {suffix!r} for {path}: use .csv or .parquet")
    size = path.stat().st_size
    if size == 0:
        raise DataError(f"{path} is empty; pass a file with a header row and data rows")
    if size > MAX_BYTES:
        raise DataError(f"{path} is {size / 2**30:.1f} GiB, over the 1 GiB limit; aggregate or split it first")
    return _read_csv(path) if suffix == ".csv" else _read_parquet(path)


def _read_csv(path: Path) -> pd.DataFrame:
    raw = path.read_bytes()
    if b"\x00" in raw[:65536]:
        raise DataError(f"{path} holds binary data, not CSV text; export it as a UTF-8 CSV")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path} is not UTF-8 text (bad byte at offset {exc.start}); save it as a UTF-8 CSV") from None
    _check_ragged(text, path)
    try:
        frame = pd.read_csv(io.StringIO(text))
    except (pd.errors.ParserError, ValueError) as exc:
        reason = " ".join(str(exc).split())[:200]
        raise DataError(f"{path} is not a well-formed CSV ({reason}); close every quote and re-export it") from None
    if frame.empty:
        raise DataError(f"{path} has a header but no data rows")
    return frame


def _check_ragged(text: str, path: Path) -> None:
    """pandas pads short rows with NaN and only rejects long ones; a row of the wrong width is an error here."""
    reader = csv.reader(io.StringIO(text), strict=True)
    width = None
    while True:
        try:
            row = next(reader, None)
        except csv.Error as exc:  # a field over csv's 128 KB limit, an unterminated quote
            raise DataError(
                f"{path}: line {reader.line_num} is not a CSV row ({exc}); a value is too long or a "
                "quote is not closed: fix that row"
            ) from None
        if row is None:
            break
        if not row:
            continue
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise DataError(
                f"{path}: line {reader.line_num} has {len(row)} fields but the header has {width}; "
                "fix that row (quote values that contain commas)"
            )


def _read_parquet(path: Path) -> pd.DataFrame:
    import pyarrow as pa

    try:
        frame = pd.read_parquet(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"{path} is not a readable Parquet file ({reason}); re-export it") from None
    if frame.empty:
        raise DataError(f"{path} has no rows")
    return frame


def load(
    data: Any,
    *,
    date: str | None = None,
    target: str | None = None,
    groupby: str | Sequence[str] | None = None,
    m: int | None = None,
    h: int | None = None,
    missing: MissingPolicy = "impute",
    min_length: int | None = None,
) -> SeriesData:
    """Load, validate and describe the data. Raises DataError on anything unusable."""
    frame = to_frame(data, target)
    if frame.empty:
        raise DataError("the data has no rows")
    target_col = target or "value"
    if target_col not in frame.columns:
        raise DataError(f"no target column {target_col!r} (columns: {list(frame.columns)}); pass target='<column>'")
    groups = [groupby] if isinstance(groupby, str) else list(groupby or [])
    for col in groups:
        if col not in frame.columns:
            raise DataError(f"no groupby column {col!r} (columns: {list(frame.columns)})")
    long = pd.DataFrame({"unique_id": _ids(frame, groups), "y": _numeric(frame[target_col], target_col)})
    notes: list[str] = []
    long["ds"] = _time_index(frame, date, notes, long["unique_id"])
    long = long[["unique_id", "ds", "y"]].sort_values(["unique_id", "ds"], kind="stable").reset_index(drop=True)
    _check_duplicates(long)
    freq = infer_freq(long)
    season, horizon = _season_and_horizon(freq, m, h)
    imputed, warnings = _handle_missing(long, missing)
    warnings = notes + warnings
    if min_length is not None:
        _check_lengths(long, min_length)
    flags = profile(long, imputed)
    if not long["unique_id"].nunique() > 1 and flags.get(long["unique_id"].iloc[0]) == "constant":
        raise DataError("the series is constant; there is nothing to model, its forecast is its value")
    warnings += [f"series {uid!r} is {flag}: no anomaly detection there" for uid, flag in flags.items()]
    return SeriesData(df=long, freq=freq, m=season, h=horizon, imputed=imputed, warnings=warnings, flags=flags)


def _time_index(frame: pd.DataFrame, date: str | None, notes: list[str], ids: pd.Series) -> pd.Series:
    """The date column parsed (default "date"), or 1, 2, ... per series when there is none and none was named."""
    date_col = date or "date"
    if date_col in frame.columns:
        return _dates(frame[date_col], date_col, notes, ids)
    if date is not None:
        raise DataError(f"no date column {date!r} (columns: {list(frame.columns)})")
    return ids.groupby(ids).cumcount() + 1


def _season_and_horizon(freq: str | int, m: int | None, h: int | None) -> tuple[int, int]:
    season = m if m is not None else period_of(freq)
    if season < 1:
        raise DataError(f"m must be a positive integer (got {season})")
    horizon = h if h is not None else 2 * season
    if horizon < 1:
        raise DataError(f"h must be a positive integer (got {horizon})")
    return season, horizon


def _ids(frame: pd.DataFrame, groups: list[str]) -> pd.Series:
    if not groups:
        return pd.Series(SINGLE_ID, index=frame.index)
    if frame[groups].isna().any().any():
        col = next(c for c in groups if frame[c].isna().any())
        raise DataError(f"groupby column {col!r} has missing values; fill them or drop those rows")
    joined = frame[groups].astype(str).agg("/".join, axis=1)
    if joined.nunique() == len(frame[groups].drop_duplicates()):
        return joined
    # "a/b"+"c" and "a"+"b/c" (or 1 and "1") would join to one id and merge two series: keep them apart
    return frame[groups].apply(
        lambda r: json.dumps([v.item() if isinstance(v, np.generic) else v for v in r], default=str), axis=1
    )


def _numeric(column: pd.Series, name: str) -> pd.Series:
    converted = pd.to_numeric(column, errors="coerce")
    bad = column[converted.isna() & column.notna()]
    if len(bad):
        raise DataError(
            f"column {name!r} has {len(bad)} non-numeric value(s), e.g. {bad.iloc[0]!r} at row {bad.index[0]}; "
            "clean or drop them before forecasting"
        )
    values = converted.astype(float)
    if np.isinf(values).any():
        raise DataError(f"column {name!r} contains infinite values; replace them with numbers or NaN")
    return values


def _dates(column: pd.Series, name: str, notes: list[str], ids: pd.Series) -> pd.Series:
    """Datetimes, or integer periods. Numbers are periods (never nanoseconds since 1970); time zones are dropped
    in the way that keeps the spacing regular (local wall-clock time for daily data across DST, UTC for hourly)."""
    if pd.api.types.is_bool_dtype(column):
        raise DataError(f"date column {name!r} holds true/false values, not dates")
    if pd.api.types.is_numeric_dtype(column) or _all_numbers(column):
        return _periods(pd.to_numeric(column), name)
    parsed = column if pd.api.types.is_datetime64_any_dtype(column) else _parse_dates(column)
    bad = column[pd.isna(parsed)]
    if len(bad):
        raise DataError(
            f"date column {name!r} has {len(bad)} value(s) that are not dates, e.g. {bad.iloc[0]!r} at row "
            f"{bad.index[0]}; use ISO dates like 2024-01-31 or pass date=<column> naming the right column"
        )
    return pd.Series(_naive(parsed, name, notes, ids), index=column.index)


def _all_numbers(column: pd.Series) -> bool:
    return (
        column.dtype == object
        and column.map(lambda v: isinstance(v, int | float | np.number) and not isinstance(v, bool)).all()
    )


def _periods(values: pd.Series, name: str) -> pd.Series:
    if values.isna().any() or not np.isfinite(values.to_numpy(dtype=float)).all():
        raise DataError(f"date column {name!r} has missing or infinite numbers; every row needs a period number")
    if not (values == np.round(values)).all():
        frac = values[values != np.round(values)].iloc[0]
        raise DataError(
            f"date column {name!r} holds fractional numbers (e.g. {frac}), not dates or whole periods; "
            "use ISO dates like 2024-01-31 or integer period numbers 1, 2, 3, ..."
        )
    return values.astype("int64")


def _parse_dates(column: pd.Series) -> pd.Series:
    text = column.astype(str)
    if not text.str.contains(r"(?:[+-]\d\d:?\d\d|Z)$", regex=True).any():
        return pd.to_datetime(column, errors="coerce", format="mixed")
    stamps = [pd.Timestamp(v) if isinstance(v, str) and v.strip() else pd.NaT for v in column]
    return pd.Series(stamps, index=column.index, dtype=object)  # each with its own offset; see _naive


def _naive(parsed: pd.Series, name: str, notes: list[str], ids: pd.Series) -> pd.Series:
    """Timezone-free timestamps: local wall-clock time if that is regularly spaced, else UTC."""
    if isinstance(parsed.dtype, pd.DatetimeTZDtype):
        local, utc = parsed.dt.tz_localize(None), parsed.dt.tz_convert("UTC").dt.tz_localize(None)
    elif parsed.dtype == object:  # per-value offsets (strings with +01:00 / +02:00 across DST)
        local = pd.to_datetime([t.tz_localize(None) if t.tzinfo else t for t in parsed])
        utc = pd.to_datetime([t.tz_convert("UTC").tz_localize(None) if t.tzinfo else t for t in parsed])
    else:
        return parsed
    regular = [_regular(x, ids) for x in (local, utc)]
    pick, how = (local, "local wall-clock time") if regular[0] or not regular[1] else (utc, "UTC")
    notes.append(f"date column {name!r} has time zones: read as {how}")
    return pd.Series(np.asarray(pick, dtype="datetime64[ns]"), index=parsed.index)


def _regular(ds: Any, ids: pd.Series) -> bool:
    """Every series' timestamps distinct and evenly spaced."""
    frame = pd.DataFrame({"id": ids.to_numpy(), "ds": np.asarray(ds, dtype="datetime64[ns]")})
    for _, g in frame.groupby("id", sort=False):
        values = np.sort(g["ds"].to_numpy())
        if len(np.unique(values)) < len(values) or len(np.unique(np.diff(values))) > 1:
            return False
    return True


def _check_duplicates(long: pd.DataFrame) -> None:
    dup = long.duplicated(["unique_id", "ds"], keep=False)
    if dup.any():
        row = long[dup].iloc[0]
        where = "" if row["unique_id"] == SINGLE_ID else f" in series {row['unique_id']!r}"
        raise DataError(
            f"{int(dup.sum())} rows share a timestamp, e.g. {row['ds']}{where}; aggregate them (sum or mean) "
            "first, or pass groupby=<column> if the data holds several series"
        )


def infer_freq(long: pd.DataFrame) -> str | int:
    """The common spacing of all series: a pandas alias, or 1 for integer steps. Irregular spacing is an error."""
    freqs: set[str | int] = set()
    groups = list(long.groupby("unique_id", sort=False))
    long_enough = [(u, g) for u, g in groups if len(g) >= 3] or groups  # 1-2 points cannot show a spacing
    for uid, group in long_enough:
        freqs.add(_series_freq(group["ds"], str(uid)))
    if len(freqs) > 1:
        raise DataError(f"series have different frequencies {sorted(map(str, freqs))}; forecast them separately")
    return freqs.pop()


def _series_freq(ds: pd.Series, uid: str) -> str | int:
    if len(ds) < 3:
        raise DataError(f"series {uid!r} has {len(ds)} observation(s); at least 3 are needed to infer spacing")
    if pd.api.types.is_integer_dtype(ds):
        steps = np.unique(np.diff(ds.to_numpy()))
        if len(steps) != 1 or steps[0] != 1:
            raise DataError(f"series {uid!r}: integer time index must step by 1 (found steps {steps[:5].tolist()})")
        return 1
    freq = pd.infer_freq(pd.DatetimeIndex(ds))
    if freq is None:
        deltas = pd.Series(np.diff(ds.to_numpy())).value_counts()
        raise DataError(
            f"series {uid!r} has irregular spacing ({len(deltas)} different gaps between timestamps, most common "
            f"{deltas.index[0]}); resample it to a regular frequency, e.g. df.resample('MS').sum(), and mark "
            "missing periods as NaN"
        )
    return freq


def period_of(freq: str | int) -> int:
    """Seasonal period implied by a frequency alias (1 when there is no natural cycle)."""
    if isinstance(freq, int):
        return 1
    name = pd.tseries.frequencies.to_offset(freq).name.split("-")[0]
    if name in _PERIODS:
        return _PERIODS[name]
    core = name.removeprefix("B").removeprefix("C").rstrip("SE") or name
    return _PERIODS.get(core, 1)


def _handle_missing(long: pd.DataFrame, policy: MissingPolicy) -> tuple[dict[str, int], list[str]]:
    missing = long["y"].isna()
    if not missing.any():
        return {}, []
    counts = long[missing].groupby("unique_id").size().to_dict()
    if policy == "refuse":
        first = long[missing].iloc[0]
        raise DataError(
            f"{int(missing.sum())} missing value(s), first in series {first['unique_id']!r} at {first['ds']}; "
            "fill them, or call with missing='impute' to interpolate linearly"
        )
    long["y"] = long.groupby("unique_id")["y"].transform(lambda s: s.interpolate(limit_direction="both"))
    if long["y"].isna().any():
        raise DataError("a series has no observed values at all; drop it")
    notes = [f"imputed {n} missing value(s) in series {uid!r} by linear interpolation" for uid, n in counts.items()]
    return {str(k): int(v) for k, v in counts.items()}, notes


def _check_lengths(long: pd.DataFrame, min_length: int) -> None:
    sizes = long.groupby("unique_id").size()
    short = sizes[sizes < min_length]
    if len(short):
        uid, n = short.index[0], int(short.iloc[0])
        raise DataError(
            f"series {uid!r} has {n} observations but needs at least {min_length}; "
            "pass more history or a smaller min_length"
        )


MOSTLY = 0.8  # share of points above which a series is "mostly zero" / "mostly imputed"


def profile(long: pd.DataFrame, imputed: Mapping[str, int]) -> dict[str, str]:
    """Series that are constant, mostly zero or mostly imputed: forecast, but never scanned for anomalies."""
    flags: dict[str, str] = {}
    for uid, y in long.groupby("unique_id", sort=False)["y"]:
        if len(y) < 3:
            flags[str(uid)] = f"too short ({len(y)} observations)"
        elif float(y.max() - y.min()) == 0:
            flags[str(uid)] = "constant"
        elif (y == 0).mean() >= MOSTLY:
            flags[str(uid)] = "mostly zero"
        elif imputed.get(str(uid), 0) >= MOSTLY * len(y):
            flags[str(uid)] = "mostly imputed"
    return flags
