"""The BI and markets apps stand on orrery.timeseries, not on the forecast app: installing `orrery[bi]` or
`orrery[markets]` brings neither dask nor fugue, and importing them loads neither."""

import json
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
HEAVY = {"dask", "distributed", "fugue", "statsforecast"}

PROBE = """
import json, pkgutil, sys, importlib
import numpy as np, pandas as pd
import orrery.bi, orrery.markets
for pkg in (orrery.bi, orrery.markets):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(info.name)
from orrery import timeseries as T
y = pd.Series(100 + np.sin(np.arange(16)) + 0.3 * np.arange(16), index=pd.date_range("2024-01-01", periods=16, freq="MS"))
T.features(y.to_numpy(), 1); T.detect_anomalies(y, 1)
best = next(iter(T.cross_validate(y.to_numpy(), 2)))
T.forecast(y.to_numpy(), best, 3)
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


@pytest.mark.integration  # a real subprocess
def test_bi_and_markets_import_and_forecast_without_dask_or_fugue():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert {"orrery", "statsmodels", "pandas"} <= loaded  # the probe really ran the helpers
    assert not loaded & HEAVY


def _extras() -> dict[str, list[str]]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def closure(extra: str) -> set[str]:
    """Every distribution `pip install orrery[extra]` pulls, from pyproject for orrery and the installed
    distributions' metadata for the rest (markers evaluated for the extras asked for)."""
    extras, seen, todo = _extras(), set(), [Requirement(f"orrery[{extra}]")]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        wanted = [(name, e) for e in ("", *sorted(req.extras))]
        if all(w in seen for w in wanted):
            continue
        seen.update(wanted)
        if name == "orrery":
            todo += [Requirement(r) for e in req.extras for r in extras[e]]
            continue
        try:
            lines = metadata.requires(name) or []
        except metadata.PackageNotFoundError:  # not installed here: its name is counted, its own needs unknown
            continue
        for line in lines:
            dep = Requirement(line)
            if dep.marker is None or any(dep.marker.evaluate({"extra": e}) for e in ("", *req.extras)):
                todo.append(dep)
    return {n for n, _ in seen}


@pytest.mark.parametrize("extra", ["bi", "markets"])
def test_bi_and_markets_extras_install_neither_dask_nor_fugue(extra):
    pulled = closure(extra)
    assert {"statsmodels", "pandas", "numpy"} <= pulled
    assert not pulled & HEAVY, sorted(pulled & HEAVY)


def test_the_forecast_extra_still_has_its_cluster_backend():
    assert {"dask", "fugue", "statsforecast"} <= closure("forecast")
