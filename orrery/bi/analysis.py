"""Analysis tools over the last result: summary statistics, group comparison, time breakdown, trend and
anomalies (orrery.timeseries' `features` and `detect_anomalies`), and a chart (PNG + a Vega-Lite spec the
web app renders). Pure pandas; the model only words the findings afterwards."""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orrery.bi.context import BIContext
from orrery.errors import ToolError
from orrery.files import write_atomic
from orrery.tools.core import RunContext, Tool, tool

if TYPE_CHECKING:
    import pandas as pd

MAX_GROUPS = 30
MIN_PERIODS = 8


def frame(bi: BIContext) -> pd.DataFrame:
    """The last result as a frame: decimals as floats, dates as datetimes, plus the semantic layer's
    day-difference terms (e.g. delay = l_receiptdate - l_commitdate) when both columns are present."""
    import pandas as pd

    if bi.last_result is None:
        raise ToolError("there is no result to analyse yet; run a query first")
    r = bi.last_result
    df = pd.DataFrame([list(row) for row in r.rows], columns=r.columns)
    for c in df.columns:
        sample = df[c].dropna()
        if sample.empty:
            continue
        first = sample.iloc[0]
        if isinstance(first, Decimal):
            df[c] = df[c].astype(float)
        elif isinstance(first, datetime | date) or (
            isinstance(first, str) and re.fullmatch(r"\d{4}-\d\d-\d\d.*", first)
        ):
            df[c] = pd.to_datetime(df[c], errors="coerce")
    lower = {c.lower(): c for c in df.columns}
    for name, info in bi.semantic.terms.items():
        m = re.fullmatch(r"\s*(\w+)\s*-\s*(\w+)\s*", info.get("sql", ""))
        if m and info.get("unit") == "days" and m.group(1).lower() in lower and m.group(2).lower() in lower:
            a, b = lower[m.group(1).lower()], lower[m.group(2).lower()]
            df[f"{name.replace(' ', '_')}_days"] = (df[a] - df[b]).dt.days
    return df


def _numeric(df: pd.DataFrame) -> list[str]:
    """Measures: numeric columns that are not ids or keys, derived ones first."""
    import pandas as pd

    cols = [
        c
        for c in df.columns
        if pd.api.types.is_numeric_dtype(df[c])
        and not pd.api.types.is_bool_dtype(df[c])
        and not re.search(r"(id|key|number)$", c, re.I)
    ]
    return sorted(cols, key=lambda c: not c.endswith("_days"))


def _categorical(df: pd.DataFrame) -> list[str]:
    import pandas as pd

    return [
        c
        for c in df.columns
        if (df[c].dtype == object or pd.api.types.is_string_dtype(df[c])) and 2 <= df[c].nunique() <= MAX_GROUPS
    ]


def _dates(df: pd.DataFrame) -> list[str]:
    import pandas as pd

    return [c for c in df.columns if pd.api.types.is_datetime64_any_dtype(df[c])]


def _pick(name: str, options: list[str], what: str, df: pd.DataFrame) -> str | None:
    if not name:
        return options[0] if options else None
    match = {c.lower(): c for c in df.columns}.get(name.lower())
    if match is None:
        raise ToolError(f"no column {name!r} in the result; {what} columns: {', '.join(options) or 'none'}")
    return match


def _series(df: pd.DataFrame, date_col: str, measure: str | None) -> pd.DataFrame:
    """Monthly count and mean of `measure` by `date_col`."""
    g = df.set_index(date_col).resample("MS")
    out = g.size().to_frame("count")
    if measure:
        out[f"mean_{measure}"] = g[measure].mean()
    return out


def _round(x: Any) -> Any:
    return round(float(x), 3) if isinstance(x, float | int) and not isinstance(x, bool) else x


@tool
def summary_stats(ctx: RunContext[BIContext]) -> dict[str, Any]:
    """Summary statistics of the last result: count, mean, spread and range of each measure, top values
    of each category."""
    df = frame(ctx.deps)
    stats = {c: {k: _round(v) for k, v in df[c].describe().items()} for c in _numeric(df)[:6]}
    top = {c: {str(k): int(v) for k, v in df[c].value_counts().head(5).items()} for c in _categorical(df)[:4]}
    return {"rows": len(df), "measures": stats, "categories": top}


@tool
def compare_groups(ctx: RunContext[BIContext], by: str = "", measure: str = "") -> dict[str, Any]:
    """Compare a measure across the groups of a category (count, mean, median per group).

    Args:
        by: the category column (default: the first with 2-30 values)
        measure: the numeric column (default: a derived delay/duration if present, else the first measure)
    """
    df = frame(ctx.deps)
    by_col = _pick(by, _categorical(df), "category", df)
    m = _pick(measure, _numeric(df), "numeric", df)
    if by_col is None or m is None:
        return {"skipped": "the result has no category with 2-30 values and a measure to compare"}
    g = df.groupby(by_col)[m].agg(["count", "mean", "median"]).sort_values("mean", ascending=False)
    groups = {str(k): {c: _round(v) for c, v in row.items()} for k, row in g.iterrows()}
    return {
        "by": by_col,
        "measure": m,
        "groups": groups,
        "highest": str(g.index[0]),
        "lowest": str(g.index[-1]),
        "spread_of_means": _round(g["mean"].max() - g["mean"].min()),
    }


@tool
def time_breakdown(ctx: RunContext[BIContext], date: str = "", measure: str = "") -> dict[str, Any]:
    """Count and mean of a measure per month of a date column.

    Args:
        date: the date column (default: the first)
        measure: the numeric column (default: a derived delay/duration if present, else the first measure)
    """
    df = frame(ctx.deps)
    d = _pick(date, _dates(df), "date", df)
    if d is None:
        return {"skipped": "the result has no date column"}
    m = _pick(measure, _numeric(df), "numeric", df)
    s = _series(df, d, m)
    by_year = s.groupby(s.index.year)["count"].sum()
    return {
        "date": d,
        "measure": m,
        "months": len(s),
        "busiest_month": s["count"].idxmax().strftime("%Y-%m"),
        "per_year": {int(y): int(n) for y, n in by_year.items()},
        "last_months": {k.strftime("%Y-%m"): {c: _round(v) for c, v in row.items()} for k, row in s.tail(6).iterrows()},
    }


@tool
def trend_anomaly(ctx: RunContext[BIContext], date: str = "", measure: str = "") -> dict[str, Any]:
    """Trend strength and anomalous months of a monthly series (orrery.timeseries' features and
    anomaly detection: ETS fitted values, robust 99% band).

    Args:
        date: the date column (default: the first)
        measure: the numeric column averaged per month (default: the row count per month)
    """
    from orrery.timeseries import detect_anomalies, features

    df = frame(ctx.deps)
    d = _pick(date, _dates(df), "date", df)
    if d is None:
        return {"skipped": "the result has no date column"}
    m = _pick(measure, _numeric(df), "numeric", df) if measure else None
    s = _series(df, d, m)
    col = f"mean_{m}" if m else "count"
    y = s[col].interpolate().bfill().ffill()
    if len(y) < MIN_PERIODS:
        return {"skipped": f"only {len(y)} months; trend and anomalies need at least {MIN_PERIODS}"}
    period = 12 if len(y) >= 24 else 1
    f = features(y.to_numpy(dtype=float), period)
    flagged = detect_anomalies(y, period)
    flagged = flagged[flagged["anomaly"]]
    return {
        "series": col,
        "months": len(y),
        "trend": f["trend"],
        "seasonality": f["seasonality"],
        "anomalies": {ds.strftime("%Y-%m"): _round(v) for ds, v in flagged["y"].items()},
    }


@tool
def chart(ctx: RunContext[BIContext], x: str = "", y: str = "") -> dict[str, Any]:
    """Draw the last result: a line over time, bars per category, or a histogram; a PNG file and a
    Vega-Lite spec for the web app.

    Args:
        x: the column on the x axis (default: a date, else a category)
        y: the numeric column (default: the first measure, or the row count)
    """
    bi = ctx.deps
    df = frame(bi)
    dates, cats, nums = _dates(df), _categorical(df), _numeric(df)
    x_col = _pick(x, dates + cats + list(df.columns), "any", df)
    y_col = _pick(y, nums, "numeric", df)
    if x_col in dates:
        s = _series(df, x_col, y_col)
        field = f"mean_{y_col}" if y_col else "count"
        points = [{x_col: k.strftime("%Y-%m"), field: _round(v)} for k, v in s[field].items()]
        mark, x_type = "line", "temporal"
    elif x_col is not None and y_col is not None and x_col != y_col:
        agg = df.groupby(x_col)[y_col].sum() if df[x_col].duplicated().any() else df.set_index(x_col)[y_col]
        field = y_col
        points = [{x_col: str(k), field: _round(v)} for k, v in agg.head(50).items()]
        mark, x_type = "bar", "nominal"
    else:
        raise ToolError("nothing to chart: the result needs a date or category column and a measure")
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "mark": mark,
        "data": {"values": points[:500]},
        "encoding": {"x": {"field": x_col, "type": x_type}, "y": {"field": field, "type": "quantitative"}},
    }
    return {"png": str(_draw(bi, points, x_col, field, mark)), "spec": spec}


TOOLS: list[Tool] = [summary_stats, compare_groups, time_breakdown, trend_anomaly, chart]


def _draw(bi: BIContext, points: list[dict[str, Any]], x: str, y: str, mark: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from orrery.bi.data import bi_home

    folder = bi.chart_dir or bi_home() / "charts"
    folder.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(8, 4))
    xs, ys = [p[x] for p in points], [p[y] for p in points]
    (ax.plot if mark == "line" else ax.bar)(xs, ys)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.tick_params(axis="x", rotation=60, labelsize=7)
    fig.tight_layout()
    target = folder / f"chart-{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}.png"
    try:
        return write_atomic(target, lambda tmp: fig.savefig(tmp, dpi=100))
    finally:
        plt.close(fig)
