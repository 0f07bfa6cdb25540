"""The forecasting result: fields, rich tables, Jupyter HTML, a PNG plot and JSON export."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from orrery.errors import DataError
from orrery.files import write_atomic
from orrery.forecast.analysis import CVResult
from orrery.messages import Usage
from orrery.results import Forecast, View
from orrery.results import Table as TableView


@dataclass
class ForecastResult:
    """What `ForecastAgent.analyze` returns. Every field is plain data; the methods only render it."""

    narrative: str = ""
    features: dict[str, Any] = field(default_factory=dict)
    accuracy: dict[str, dict[str, Any]] = field(default_factory=dict)  # model -> {"windows": [...], "mean": x}
    forecasts: pd.DataFrame = field(default_factory=pd.DataFrame)  # unique_id, ds, model, mean, lo_80..hi_95
    anomalies: pd.DataFrame = field(default_factory=pd.DataFrame)  # flagged points only
    best_model: str | None = None
    beats_baseline: bool = False
    selected_mase: float | None = None  # a panel's: mean CV MASE of the forecasts each series got
    trace: list[dict[str, Any]] = field(default_factory=list)
    history: pd.DataFrame = field(default_factory=pd.DataFrame)  # unique_id, ds, y
    panel: pd.DataFrame | None = None  # per series: n, cv_windows, model, notes (when groupby was set)
    notes: pd.DataFrame = field(default_factory=pd.DataFrame)  # unique_id, model, stage, reason: skips, fallbacks
    warnings: list[str] = field(default_factory=list)
    commentary_omitted: str | None = None  # why the model's commentary is not in the narrative, if it is not
    status: str = "completed"  # the agent run's status (see orrery.agent.RunResult)
    usage: Usage = field(default_factory=Usage)

    # ------------------------------------------------------------------ building

    @staticmethod
    def accuracy_from_cv(cv: CVResult) -> dict[str, dict[str, Any]]:
        table = cv.table()
        windows = [c for c in table.columns if c.startswith("window_")]
        return {
            str(m): {"windows": [float(row[w]) for w in windows], "mean": float(row["mean"])}
            for m, row in table.iterrows()
        }

    # ------------------------------------------------------------------ export

    def to_dict(self) -> dict[str, Any]:
        return {
            "narrative": self.narrative,
            "status": self.status,
            "best_model": self.best_model,
            "beats_baseline": self.beats_baseline,
            "selected_mase": self.selected_mase,
            "features": _plain(self.features),
            "accuracy": _plain(self.accuracy),
            "forecasts": _records(self.forecasts),
            "anomalies": _records(self.anomalies),
            "panel": None if self.panel is None else _records(self.panel),
            "notes": _records(self.notes),
            "warnings": list(self.warnings),
            "commentary_omitted": self.commentary_omitted,
            "usage": {"prompt_tokens": self.usage.prompt_tokens, "completion_tokens": self.usage.completion_tokens},
            "trace": _plain(self.trace),
        }

    def to_json(self, path: str | Path | None = None, indent: int = 2) -> str:
        """The JSON text; with `path`, also written there atomically (a temp file renamed over it)."""
        text = json.dumps(self.to_dict(), indent=indent)
        if path is not None:
            write_atomic(path, text)
        return text

    # ------------------------------------------------------------------ the result protocol (orrery.results)

    @property
    def output(self) -> str:
        return self.narrative

    @property
    def data(self) -> dict[str, Any]:
        return self.to_dict()

    def views(self) -> list[View]:
        """The forecast with its bands and anomalies, then the cross-validation table."""
        d = self.to_dict()
        history = [
            {"unique_id": str(r["unique_id"]), "ds": str(r["ds"])[:10], "y": _plain(r["y"])}
            for r in self.history.to_dict("records")
        ]
        out: list[View] = [
            Forecast(
                best_model=d["best_model"],
                beats_baseline=d["beats_baseline"],
                history=history,
                forecasts=d["forecasts"],
                anomalies=d["anomalies"],
            )
        ]
        if self.accuracy:
            rows = [
                {
                    "model": m,
                    "mean MASE": _plain(a["mean"]),
                    **{f"window {i + 1}": _plain(w) for i, w in enumerate(a["windows"])},
                }
                for m, a in d["accuracy"].items()
            ]
            out.append(TableView(title="Cross-validation (MASE, lower is better)", rows=rows))
        return out

    def files(self) -> dict[str, Any]:
        """result.json, and plot.png when there is a history to draw."""
        made = {"result.json": lambda p: Path(p).write_text(self.to_json())}
        return made | ({"plot.png": self.plot} if len(self.history) else {})

    # ------------------------------------------------------------------ rich / HTML

    @property
    def badge(self) -> str:
        """PASS / FAIL against SeasonalNaive in cross-validation; NO CV when the series was too short for it."""
        return "PASS" if self.beats_baseline else "FAIL" if self.accuracy else "NO CV"

    def __rich__(self) -> Group:
        color = "green" if self.beats_baseline else "red"
        head = Text.assemble(
            (f" {self.badge} ", f"bold white on {color}"),
            f"  best model: {self.best_model or '-'}  ",
            ("beats SeasonalNaive" if self.beats_baseline else "does not beat SeasonalNaive", color),
        )
        parts: list[Any] = [head]
        if self.narrative:
            parts.append(Panel(self.narrative, title="Analysis", border_style="cyan"))
        parts += [self._accuracy_table(), self._frame_table(self.forecasts, "Forecasts", 24)]
        if len(self.anomalies):
            parts.append(self._frame_table(self.anomalies[_anomaly_cols(self.anomalies)], "Anomalies", 20))
        if self.panel is not None:
            parts.append(self._frame_table(self.panel, "Panel: model per series", 20))
        elif len(self.notes):
            parts.append(self._frame_table(self.notes, "Notes: models skipped, failed or replaced", 20))
        parts += [Text(f"warning: {w}", style="yellow") for w in self.warnings]
        return Group(*parts)

    def summary(self, rows: int = 6, anomalies: int = 5) -> Group:
        """What a person reads first: the verdict, accuracy vs the baseline, the next forecast rows, the top
        anomalies, and what happened to short or failing series. The full tables are in the report."""
        color = "green" if self.beats_baseline else "red"
        base = self.accuracy.get("SeasonalNaive", {}).get("mean")
        best = (
            self.selected_mase
            if self.selected_mase is not None
            else self.accuracy.get(str(self.best_model), {}).get("mean")
        )
        versus = (
            f"CV MASE {best:.3f} vs SeasonalNaive {base:.3f}"
            if best is not None and base is not None
            else "not cross-validated"
            if not self.accuracy
            else ""
        )
        parts: list[Any] = [
            Text.assemble(
                (f" {self.badge} ", f"bold white on {color}"),
                f"  best model: {self.best_model or '-'}  ",
                (versus, color),
            )
        ]
        if self.narrative:
            parts.append(Panel(self.narrative, title="Analysis", border_style="cyan"))
        if self.commentary_omitted:
            parts.append(Text(f"commentary omitted: {self.commentary_omitted}", style="yellow"))
        if len(self.forecasts):
            if self.panel is None:  # one series, one model (named in the head line): just the rows
                nxt = self.forecasts.head(rows).drop(columns=["unique_id", "model"], errors="ignore")
            else:
                nxt = self.forecasts.groupby("unique_id", sort=False).head(1).head(rows)
            title = (
                f"Next forecasts ({self.forecasts['model'].iloc[0]})"
                if self.panel is None
                else "Next forecast per series"
            )
            parts.append(self._frame_table(nxt, title, rows))
        if len(self.anomalies) and "score" in self.anomalies:
            top = self.anomalies.sort_values("score", ascending=False).head(anomalies)
            parts.append(
                self._frame_table(top[_anomaly_cols(top)], f"Top anomalies ({len(self.anomalies)} in all)", anomalies)
            )
        if self.panel is not None:
            counts = self.panel["model"].value_counts()
            noted = int((self.panel["notes"] != "").sum()) if "notes" in self.panel else 0
            parts.append(
                Text(
                    f"{len(self.panel)} series: "
                    + ", ".join(f"{k} x{v}" for k, v in counts.items())
                    + (f"; {noted} with notes (short, skipped or failed fits: see the report)" if noted else "")
                )
            )
        elif len(self.notes):
            parts.append(
                Text(
                    "notes: "
                    + "; ".join(f"{r.model + ': ' if r.model else ''}{r.reason}" for r in self.notes.itertuples()),
                    style="yellow",
                )
            )
        parts += [Text(f"warning: {w}", style="yellow") for w in self.warnings]
        return Group(*parts)

    def _accuracy_table(self) -> Table:
        table = Table(title="Cross-validated MASE (lower is better)")
        n = max((len(v["windows"]) for v in self.accuracy.values()), default=0)
        for col in ["model", *[f"w{i + 1}" for i in range(n)], "mean"]:
            table.add_column(col, justify="left" if col == "model" else "right")
        for model, acc in self.accuracy.items():
            style = "bold green" if model == self.best_model else None
            table.add_row(model, *[f"{w:.3f}" for w in acc["windows"]], f"{acc['mean']:.3f}", style=style)
        return table

    @staticmethod
    def _frame_table(frame: pd.DataFrame, title: str, limit: int) -> Table:
        table = Table(title=title if len(frame) <= limit else f"{title} (first {limit} of {len(frame)})")
        for col in frame.columns:  # fold, never cut: an ellipsis in a number hides its digits
            table.add_column(
                "series" if col == "unique_id" else str(col),
                overflow="fold",
                justify="right" if pd.api.types.is_numeric_dtype(frame[col]) else "left",
            )
        for row in frame.head(limit).itertuples(index=False):
            table.add_row(*[_fmt(v) for v in row])
        return table

    def _repr_html_(self) -> str:
        color = "#1a7f37" if self.beats_baseline else "#cf222e"
        acc = pd.DataFrame(
            {
                m: {**{f"w{i + 1}": w for i, w in enumerate(a["windows"])}, "mean": a["mean"]}
                for m, a in self.accuracy.items()
            }
        ).T
        best = self.best_model

        def highlight(row: pd.Series) -> list[str]:
            return ["background-color:#dafbe1;font-weight:bold" if row.name == best else "" for _ in row]

        acc_html = acc.style.apply(highlight, axis=1).format("{:.3f}").to_html() if len(acc) else "<p>none</p>"
        sections = [
            ("Analysis", f"<p>{html.escape(self.narrative)}</p>", True),
            ("Accuracy (MASE)", acc_html, True),
            ("Forecasts", self.forecasts.to_html(index=False, float_format="%.3f"), True),
            (
                "Anomalies",
                self.anomalies.to_html(index=False, float_format="%.3f") if len(self.anomalies) else "<p>none</p>",
                False,
            ),
            (
                "Model per series" if self.panel is not None else "Notes",
                (self.panel if self.panel is not None else self.notes).to_html(index=False)
                if self.panel is not None or len(self.notes)
                else "<p>none</p>",
                self.panel is not None,
            ),
            ("Features", pd.Series(_plain(self.features), dtype=object).to_frame("value").to_html(), False),
        ]
        body = "".join(
            f"<details{' open' if o else ''}><summary><b>{t}</b></summary>{c}</details>" for t, c, o in sections
        )
        badge = f'<span style="background:{color};color:white;padding:2px 8px;border-radius:4px">{self.badge}</span>'
        return f"<div>{badge} best model: <b>{html.escape(str(best))}</b>{body}</div>"

    # ------------------------------------------------------------------ plot

    def plot(self, path: str | Path | None = None, uid: str | None = None) -> Any:
        """History, forecast with 80/95% bands and anomalies for one series; saved as PNG when `path` is given.
        Any series id and any finite values draw: `$` is not read as mathtext, values too large for the axis
        arithmetic are drawn scaled by a power of ten (said on the axis), infinities are left out; what still
        cannot be drawn is a one-line DataError."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        uid = uid or (str(self.history["unique_id"].iloc[0]) if len(self.history) else None)
        hist = self.history[self.history["unique_id"] == uid] if uid else self.history
        fc = self.forecasts[self.forecasts["unique_id"] == uid] if len(self.forecasts) else self.forecasts
        an = self.anomalies[self.anomalies["unique_id"] == uid] if len(self.anomalies) else self.anomalies
        bands = [c for lv in (95, 80) for c in (f"lo_{lv}", f"hi_{lv}") if c in fc]
        scale = _plot_scale(
            [hist["y"], *([fc[c] for c in ["mean", *bands]] if len(fc) else []), *([an["y"]] if len(an) else [])]
        )

        def y(values: pd.Series) -> np.ndarray:
            out = values.to_numpy(dtype=float) / scale
            return np.where(np.isfinite(out), out, np.nan)

        fig, ax = plt.subplots(figsize=(10, 4.5))
        try:
            ax.plot(hist["ds"], y(hist["y"]), color="black", lw=1.2, label="history")
            if len(fc):
                for lv, alpha in ((95, 0.15), (80, 0.3)):
                    if f"lo_{lv}" in fc:
                        ax.fill_between(
                            fc["ds"],
                            y(fc[f"lo_{lv}"]),
                            y(fc[f"hi_{lv}"]),
                            color="tab:blue",
                            alpha=alpha,
                            label=f"{lv}% interval",
                        )
                ax.plot(
                    fc["ds"],
                    y(fc["mean"]),
                    color="tab:blue",
                    lw=1.6,
                    label=_literal(f"forecast ({fc['model'].iloc[0]})"),
                )
            if len(an):
                ax.scatter(an["ds"], y(an["y"]), color="red", zorder=5, label="anomaly")
            if scale != 1.0:
                ax.set_ylabel(f"value / {scale:.0e}")
            ax.set_title(_literal(f"{uid}: {self.best_model or ''} [{self.badge}]"))
            ax.legend(loc="upper left", fontsize=8)
            fig.tight_layout()
            if path is not None:
                fig.savefig(path, dpi=110)
        except (ValueError, OverflowError) as exc:
            plt.close(fig)
            raise DataError(f"cannot draw the plot of series {uid!r}: {' '.join(str(exc).split())[:160]}") from None
        if path is not None:
            plt.close(fig)
        return fig


def _literal(text: str) -> str:
    """Text shown as written: matplotlib reads `$...$` as math (and fails on an unclosed group)."""
    return text.replace("$", r"\$")


def _plot_scale(columns: list[pd.Series]) -> float:
    """A power of ten that brings the largest finite value under 1e100, else 1: matplotlib's limit and tick
    arithmetic overflows near the float maximum (1.8e308)."""
    finite = [np.abs(v)[np.isfinite(v)] for v in (c.to_numpy(dtype=float) for c in columns)]
    peak = max((float(v.max()) for v in finite if v.size), default=0.0)
    return 10.0 ** int(np.floor(np.log10(peak))) if peak > 1e100 else 1.0


def _anomaly_cols(frame: pd.DataFrame) -> list[str]:
    return [c for c in ("unique_id", "ds", "y", "fitted", "lo", "hi", "score") if c in frame.columns]


def _fmt(value: Any) -> str:
    if isinstance(value, float | np.floating):  # as many decimals as a reader can use: 0.874, 48.3, 326,568
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.1f}" if abs(value) >= 10 else f"{value:.3f}"
    if isinstance(value, pd.Timestamp):
        return str(value.date()) if value == value.normalize() else str(value)
    return str(value)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [_plain(r) for r in frame.to_dict(orient="records")]


def _plain(value: Any) -> Any:
    """JSON-safe copy: numpy scalars to Python, timestamps to ISO strings, NaN/inf to None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, pd.DataFrame):
        return _records(value)
    return value
