"""Round 2 of the interval calibration, on development data only (the dev CV frames of bench/forecast_m3_dev.py).

    PYTHONPATH=. python bench/forecast_m3_dev_calib.py

Each dev series' last CV window (its last h training points) plays the test set; intervals are calibrated on
the earlier CV windows as `panel_fit` would. Candidates differ in how the factor on the conformal half-widths
is keyed (none, per season length m, per M3 frequency group, per m and horizon step, one for all) and in how
many CV windows feed the conformal errors (2 or 3). The check: factors learned on one half of the dev series,
coverage measured on the other half (and back), per M3 frequency group; the criterion is the worst distance
to nominal over groups and levels (goal: within 2 points). No M3 test data is read.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from forecast_m3 import GROUPS  # bench/ is on sys.path when run as a script
from forecast_m3_dev_select import calibrated_window, coverage, load_dev, nested_factor, scaled

from orrery.forecast import models as reg

POLICY_COMBO = "scum_mean"  # what the panel policy picked on every dev and test panel


def plain_frames(n_windows: int) -> dict[str, pd.DataFrame]:
    """Per group: the dev-test window's forecasts with plain conformal intervals from `n_windows` CV windows."""
    out = {}
    for kind in GROUPS:
        cv, data = load_dev(kind)
        cv = cv[cv["back"] <= n_windows]
        fc = calibrated_window(cv, data, POLICY_COMBO, 0, list(range(1, n_windows + 1)))
        fc = fc.sort_values(["unique_id", "ds"])
        out[kind] = fc.assign(kind=kind, m=GROUPS[kind], step=fc.groupby("unique_id").cumcount())
    return out


Key = Callable[[pd.DataFrame], pd.Series]
KEYS: dict[str, Key | None] = {
    "plain": None,
    "per_m (current)": lambda f: f["m"].astype(str),
    "per_group": lambda f: f["kind"],
    "one_for_all": lambda f: pd.Series("all", index=f.index),
    "per_m_step": lambda f: f["m"].astype(str) + "/" + f["step"].astype(str),
}


def apply_factors(learn: pd.DataFrame, check: pd.DataFrame, key: Key | None) -> pd.DataFrame:
    if key is None:
        return check
    k_learn, k_check = key(learn), key(check)
    parts = [scaled(check[k_check == k], nested_factor(learn[k_learn == k])) for k in k_check.unique()]
    return pd.concat(parts)


def held_out(frames: dict[str, pd.DataFrame], key: Key | None, seed: int) -> dict[str, dict[int, float]]:
    """Coverage per group with factors learned on the other half of the dev series (both ways)."""
    return {kind: coverage(g) for kind, g in held_out_frame(frames, key, seed).groupby("kind")}


def held_out_frame(frames: dict[str, pd.DataFrame], key: Key | None, seed: int) -> pd.DataFrame:
    all_ = pd.concat(frames.values())
    ids = np.random.default_rng(seed).permutation(all_["unique_id"].unique())
    a = all_[all_["unique_id"].isin(ids[: len(ids) // 2])]
    b = all_[all_["unique_id"].isin(ids[len(ids) // 2 :])]
    return pd.concat([apply_factors(a, b, key), apply_factors(b, a, key)])


def sampling_spread(frames: dict[str, pd.DataFrame], n: int = 150, reps: int = 1000) -> pd.DataFrame:
    """How far the coverage of one sample of n series strays by chance: per group, the 5-95% range of coverage
    over bootstrap samples of n dev series (revised rule, factors learned on the other half of the dev series).
    A series' h points share one origin and move together, so the spread is that of n series, not n*h points."""
    got = pd.concat([held_out_frame(frames, KEYS["per_group"], seed=0)])
    rng = np.random.default_rng(0)
    rows = []
    for kind, g in got.groupby("kind"):
        inside = {
            lv: ((g[f"lo_{lv}"] <= g["y"]) & (g["y"] <= g[f"hi_{lv}"])).groupby(g["unique_id"]).agg(["sum", "size"])
            for lv in reg.LEVELS
        }
        ids = inside[80].index.to_numpy()
        for _ in range(reps):
            pick = rng.choice(ids, size=n, replace=True)
            rows.append(
                {
                    "kind": kind,
                    **{
                        f"cov{lv}": inside[lv].loc[pick, "sum"].sum() / inside[lv].loc[pick, "size"].sum()
                        for lv in reg.LEVELS
                    },
                }
            )
    res = pd.DataFrame(rows).groupby("kind")
    return pd.concat({"p5": res.quantile(0.05), "p95": res.quantile(0.95)}, axis=1)


def main() -> None:
    rows = []
    for nw in (2, 3):
        frames = plain_frames(nw)
        for name, key in KEYS.items():
            for seed in range(5):  # five random halvings: the spread says how noisy the check is
                for kind, cov in held_out(frames, key, seed).items():
                    rows.append(
                        {
                            "windows": nw,
                            "rule": name,
                            "seed": seed,
                            "kind": kind,
                            **{f"cov{lv}": cov[lv] for lv in reg.LEVELS},
                        }
                    )
        for kind, f in frames.items():
            print(
                f"{nw} windows, {kind}: factors (all dev series)",
                {lv: round(v, 3) for lv, v in nested_factor(f).items()},
            )
        f = pd.concat(frames.values())
        print(
            f"{nw} windows, per m:",
            {m: {lv: round(v, 3) for lv, v in nested_factor(g).items()} for m, g in f.groupby("m")},
        )
    res = pd.DataFrame(rows)
    res["worst"] = np.maximum((res["cov80"] - 0.80).abs(), (res["cov95"] - 0.95).abs())
    table = res.groupby(["windows", "rule", "kind"])[["cov80", "cov95", "worst"]].mean().unstack("kind")
    pd.set_option("display.width", 250)
    print(table.round(3).to_string())
    per_seed = res.groupby(["windows", "rule", "seed"])["worst"].max().groupby(["windows", "rule"])
    print("\nworst distance to nominal over groups and levels, per halving (mean, max over 5 halvings):")
    print(pd.DataFrame({"mean": per_seed.mean(), "max": per_seed.max()}).round(3).sort_values("mean").to_string())
    print("\nrevised rule (per group, 2 windows): 5-95% range of the coverage of one sample of 150 dev series:")
    print(sampling_spread(plain_frames(2)).round(3).to_string())


if __name__ == "__main__":
    main()
