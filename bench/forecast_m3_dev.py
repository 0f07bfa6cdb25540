"""Development data for orrery.forecast's panel policy: rolling-origin CV on the TRAINING part of M3 series.

    PYTHONPATH=. nice -n 10 python bench/forecast_m3_dev.py --groups yearly quarterly other

The series come from `bench/forecast_m3.py`'s split (dev series are disjoint from the retired seed-0 sample
and from the test sample), and only their training parts (`x`) are read: their M3 test parts are never used.
Each series gets up to DEV_WINDOWS windows of h: the last one (the last h training points) plays the test
set, the earlier ones are what the policy sees. The CV frames are saved for bench/forecast_m3_dev_select.py.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd
from forecast_m3 import FITTED, GROUPS, split_series  # bench/ is on sys.path when run as a script

from orrery.forecast import analysis as A
from orrery.forecast.data import load

DEV_WINDOWS = 4
DEV_DIR = Path("/tmp/orrery_m3_dev")  # CV frames: large, regenerable, not committed


def dev_panel(kind: str) -> tuple[pd.DataFrame, int]:
    series = split_series(kind)["dev"]
    train = pd.concat(
        [
            pd.DataFrame({"unique_id": s.sn, "date": range(1, len(s.x) + 1), "value": list(map(float, s.x))})
            for s in series
        ]
    )
    return train, series[0].h


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--groups", nargs="*", default=list(GROUPS))
    args = p.parse_args()
    DEV_DIR.mkdir(parents=True, exist_ok=True)
    for kind in args.groups:
        train, h = dev_panel(kind)
        data = load(train, groupby="unique_id", m=GROUPS[kind], h=h)
        t0 = time.perf_counter()
        cv = A.cross_validate(data, FITTED, n_windows=DEV_WINDOWS)
        cv.cv.to_pickle(DEV_DIR / f"{kind}_cv.pkl")
        data.df.to_pickle(DEV_DIR / f"{kind}_train.pkl")
        print(f"{kind}: {len(data.ids)} series, {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
