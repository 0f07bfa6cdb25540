"""Choose orrery.forecast's panel policy and interval calibration on development data only (training parts).

    PYTHONPATH=. python bench/forecast_m3_dev_select.py      # after bench/forecast_m3_dev.py

Reads the CV frames of bench/forecast_m3_dev.py. In each dev series the last CV window (the last h training
points) plays the test set ("dev test"); the policy sees only the earlier windows, as `panel_fit` would on the
series without its last h points. Prints, per frequency and over random sub-panels of the dev series:
the dev-test sMAPE/MASE of each candidate rule next to the ETS/Theta/CES mean, and the dev-test coverage of
each calibration. No M3 test data is read.

The criterion, written down (2026-11-22 10:40 UTC) before the full-size quarterly and monthly dev results were
printed: among the rules, the one with the lowest dev-test sMAPE difference to mean3 averaged over the four
frequencies on the full dev panels, with the policy seeing 2 CV windows (panel_fit's default), among the rules
whose dev-test sMAPE is not above mean3's on any frequency and whose MASE is at most 0.01 above; on a tie
(within 0.02), the rule that departs from mean3 less often. The intervals: the calibration whose coverage on
held-out dev series ("factor_half" for the per-m factors) is closest to nominal in the worst frequency and level.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from forecast_m3 import GROUPS  # bench/ is on sys.path when run as a script
from forecast_m3_dev import DEV_DIR

from orrery.forecast import analysis as A
from orrery.forecast import models as reg
from orrery.forecast.data import SeriesData

CANDIDATES: dict[str, tuple[tuple[str, ...], str]] = {
    "mean3": (("AutoETS", "AutoTheta", "AutoCES"), "mean"),
    "scum": (("AutoETS", "AutoCES", "DynamicOptimizedTheta", "AutoARIMA"), "median"),
    "scum_mean": (("AutoETS", "AutoCES", "DynamicOptimizedTheta", "AutoARIMA"), "mean"),
    "mean4": (("AutoETS", "AutoTheta", "AutoCES", "AutoARIMA"), "mean"),
}


def load_dev(kind: str, folder: Path = DEV_DIR) -> tuple[pd.DataFrame, SeriesData]:
    """The CV frame with each candidate's column and `back` (0 = the dev-test window, 1 = the latest CV one)."""
    cv = pd.read_pickle(folder / f"{kind}_cv.pkl")
    df = pd.read_pickle(folder / f"{kind}_train.pkl")
    h = int(cv.groupby(["unique_id", "cutoff"]).size().iloc[0])
    for name, (members, how) in CANDIDATES.items():
        agg = np.nanmean if how == "mean" else np.nanmedian
        cv[name] = agg(cv[list(members)].to_numpy(dtype=float), axis=1)
    cv["back"] = cv.groupby("unique_id")["cutoff"].rank(method="dense", ascending=False).astype(int) - 1
    return cv, SeriesData(df=df, freq=1, m=GROUPS[kind], h=h)


def window_scores(cv: pd.DataFrame, data: SeriesData) -> pd.DataFrame:
    """sMAPE and MASE of every candidate per (series, window)."""
    scores = A.score_cv(cv, data.df, list(CANDIDATES), data.m)
    back = cv[["unique_id", "cutoff", "back"]].drop_duplicates()
    return scores.merge(back, on=["unique_id", "cutoff"])


Rule = Callable[[pd.DataFrame], str]  # CV scores of a panel -> the candidate it forecasts with


def rule_fixed(name: str) -> Rule:
    return lambda _cvs: name


def rule_switch(
    delta: float, pool: Sequence[str] = ("scum", "scum_mean"), min_series: int = 5, default: str = "mean3"
) -> Rule:
    """Forecast with `default` unless a pooled candidate's CV sMAPE is lower by more than `delta` (relative) and
    its CV MASE is lower too, over at least `min_series` series with CV windows."""

    def choose(cvs: pd.DataFrame) -> str:
        per = cvs.groupby(["unique_id", "model"])[["smape", "mase"]].mean().groupby("model").mean()
        if cvs["unique_id"].nunique() < min_series or default not in per.index:
            return default
        best = min(pool, key=lambda c: per.loc[c, "smape"] if c in per.index else np.inf)
        gain = (
            best in per.index
            and per.loc[best, "smape"] < (1 - delta) * per.loc[default, "smape"]
            and per.loc[best, "mase"] < per.loc[default, "mase"]
        )
        return best if gain else default

    return choose


def simulate(
    scores: pd.DataFrame, rules: dict[str, Rule], n_windows: int, sizes: Sequence[int], reps: int, seed: int = 0
) -> pd.DataFrame:
    """Dev-test sMAPE/MASE of each rule minus mean3's, on random sub-panels (and the whole dev panel)."""
    ids = scores["unique_id"].unique()
    seen = scores[(scores["back"] >= 1) & (scores["back"] <= n_windows)]
    test = scores[scores["back"] == 0].set_index(["unique_id", "model"])[["smape", "mase"]]
    rng = np.random.default_rng(seed)
    rows = []
    for size in [*sizes, len(ids)]:
        for rep in range(reps if size < len(ids) else 1):
            panel = rng.choice(ids, size=min(size, len(ids)), replace=False)
            cvs = seen[seen["unique_id"].isin(panel)]
            ref = test.loc[(panel, "mean3"), :].mean()
            for name, rule in rules.items():
                pick = rule(cvs)
                got = test.loc[(panel, pick), :].mean()
                rows.append(
                    {
                        "size": size,
                        "rep": rep,
                        "rule": name,
                        "pick": pick,
                        "d_smape": got["smape"] - ref["smape"],
                        "d_mase": got["mase"] - ref["mase"],
                    }
                )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------- intervals


def truncated(data: SeriesData, cutoffs: pd.DataFrame) -> SeriesData:
    """Each series up to its cutoff (the forecast origin being emulated)."""
    df = data.df.merge(cutoffs, on="unique_id")
    df = df[df["ds"] <= df["cutoff"]].drop(columns="cutoff").reset_index(drop=True)
    return SeriesData(df=df, freq=data.freq, m=data.m, h=data.h)


def window_forecast(cv: pd.DataFrame, back: int, name: str) -> pd.DataFrame:
    part = cv[cv["back"] == back]
    out = pd.DataFrame({"unique_id": part["unique_id"], "ds": part["ds"], "mean": part[name], "y": part["y"]})
    for lv in reg.LEVELS:
        out[f"lo_{lv}"], out[f"hi_{lv}"] = np.nan, np.nan
    return out.reset_index(drop=True)


def calibrated_window(
    cv: pd.DataFrame,
    data: SeriesData,
    name: str,
    back: int,
    windows: Sequence[int],
    factor: dict[int, float] | None = None,
) -> pd.DataFrame:
    """Window `back`'s forecasts of candidate `name` with intervals calibrated on CV windows `windows` (each
    series as it was at window `back`'s origin), half-widths times `factor` per level."""
    members, how = CANDIDATES[name]
    fc = window_forecast(cv, back, name)
    origin = cv[cv["back"] == back][["unique_id", "cutoff"]].drop_duplicates()
    data_at = truncated(data, origin)
    seen = cv[cv["back"].isin(windows) & cv["unique_id"].isin(origin["unique_id"])]
    cal = A.calibrate(
        A.CVResult(cv=seen, scores=pd.DataFrame(), models=list(members)), data_at, list(members), how, factors={}
    )  # plain: the factors are what this script measures
    out = A.calibrated(fc[fc["unique_id"].isin(data_at.ids)], cal, data_at)
    return scaled(out, factor) if factor else out


def coverage(fc: pd.DataFrame) -> dict[int, float]:
    return {lv: float(((fc[f"lo_{lv}"] <= fc["y"]) & (fc["y"] <= fc[f"hi_{lv}"])).mean()) for lv in reg.LEVELS}


def nested_factor(fc: pd.DataFrame) -> dict[int, float]:
    """Per level, the factor on the half-widths that makes the window's coverage exactly the level."""
    out = {}
    for lv in reg.LEVELS:
        half = (fc[f"hi_{lv}"] - fc[f"lo_{lv}"]) / 2
        ratio = ((fc["y"] - fc["mean"]).abs() / half.replace(0, np.nan)).to_numpy(dtype=float)
        out[lv] = A.conformal_quantile(ratio, lv)
    return out


def interval_report(cv: pd.DataFrame, data: SeriesData, name: str, n_windows: int) -> dict[str, Any]:
    cv = cv[cv["back"] <= n_windows]
    policy_windows = list(range(1, n_windows + 1))
    plain = calibrated_window(cv, data, name, 0, policy_windows)
    check = calibrated_window(cv, data, name, 1, list(range(2, n_windows + 1)))
    k = nested_factor(check)
    nested = calibrated_window(cv, data, name, 0, policy_windows, k)
    latest = calibrated_window(cv, data, name, 0, [1])
    # a fixed factor per level learnt on half the dev series' dev test, checked on the other half (and back)
    ids = np.random.default_rng(1).permutation(plain["unique_id"].unique())
    halves = [
        plain[plain["unique_id"].isin(ids[: len(ids) // 2])],
        plain[plain["unique_id"].isin(ids[len(ids) // 2 :])],
    ]
    crossed = [scaled(b, nested_factor(a)) for a, b in (halves, halves[::-1])]
    return {
        "plain": coverage(plain),
        "latest": coverage(latest),
        "k": k,
        "nested": coverage(nested),
        "factor": nested_factor(plain),
        "factor_half": coverage(pd.concat(crossed)),
        "check_points": len(check),
        "test_points": len(plain),
        "plain_frame": plain,
    }


def scaled(fc: pd.DataFrame, factor: dict[int, float]) -> pd.DataFrame:
    out = fc.copy()
    for lv, k in factor.items():
        half = (out[f"hi_{lv}"] - out[f"lo_{lv}"]) / 2
        out[f"lo_{lv}"], out[f"hi_{lv}"] = out["mean"] - k * half, out["mean"] + k * half
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--groups", nargs="*", default=list(GROUPS))
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("--dir", type=Path, default=DEV_DIR)
    args = p.parse_args()
    rules: dict[str, Rule] = {
        "mean3": rule_fixed("mean3"),
        "scum": rule_fixed("scum"),
        "scum_mean": rule_fixed("scum_mean"),
        "mean4": rule_fixed("mean4"),
    }
    rules |= {f"switch{d:g}": rule_switch(d) for d in (0.0, 0.02, 0.05)}
    rules |= {f"scum_only{d:g}": rule_switch(d, pool=("scum",)) for d in (0.0, 0.02)}
    rules |= {f"from_scum_mean{d:g}": rule_switch(d, pool=("mean3", "scum"), default="scum_mean") for d in (0.0, 0.02)}
    pd.set_option("display.width", 200)
    full, plains = [], {}
    for kind in args.groups:
        cv, data = load_dev(kind, args.dir)
        scores = window_scores(cv, data)
        print(
            f"\n=== {kind}: {len(data.ids)} dev series, windows per series "
            f"{cv.groupby('unique_id')['back'].max().add(1).value_counts().sort_index().to_dict()}"
        )
        for nw in (2, 3):
            sim = simulate(scores, rules, nw, sizes=(10, 30), reps=args.reps)
            table = sim.groupby(["size", "rule"]).agg(
                d_smape=("d_smape", "mean"),
                d_mase=("d_mase", "mean"),
                worse=("d_smape", lambda d: float((d > 0).mean())),
                picks_mean3=("pick", lambda s: float((s == "mean3").mean())),
            )
            print(f"-- policy sees {nw} CV windows: dev-test difference to mean3 (negative = better)")
            print(table.round(3).to_string())
            full.append(sim[sim["size"] == sim["size"].max()].assign(kind=kind, n_windows=nw))
            for name in ("mean3", "scum", "scum_mean"):
                rep = interval_report(cv, data, name, nw)
                plains[(kind, nw, name)] = rep.pop("plain_frame")
                print(
                    f"   intervals {name}:",
                    {
                        k: ({lv: round(x, 3) for lv, x in v.items()} if isinstance(v, dict) else v)
                        for k, v in rep.items()
                    },
                )
    summary(pd.concat(full), plains)


def summary(full: pd.DataFrame, plains: dict[tuple[str, int, str], pd.DataFrame]) -> None:
    """The selection criterion on the full dev panels, and the interval factors per season length."""
    for nw, part in full.groupby("n_windows"):
        wide = part.pivot_table(index="rule", columns="kind", values=["d_smape", "d_mase"])
        wide[("mean", "d_smape")] = wide["d_smape"].mean(axis=1)
        wide[("never_worse", "")] = (wide["d_smape"] <= 0).all(axis=1) & (wide["d_mase"] <= 0.01).all(axis=1)
        picks = part.pivot_table(index="rule", columns="kind", values="pick", aggfunc="first")
        print(f"\n### full dev panels, policy sees {nw} CV windows")
        print(wide.sort_values(("mean", "d_smape")).round(3).to_string())
        print(picks.to_string())
    for nw in sorted({k[1] for k in plains}):
        for name in sorted({k[2] for k in plains}):
            by_m: dict[int, list[pd.DataFrame]] = {}
            for (kind, n, nm), frame in plains.items():
                if n == nw and nm == name:
                    by_m.setdefault(GROUPS[kind], []).append(frame)
            print(
                f"factors {name}, {nw} windows:",
                {m: {lv: round(k, 3) for lv, k in nested_factor(pd.concat(fs)).items()} for m, fs in by_m.items()},
            )


if __name__ == "__main__":
    main()
