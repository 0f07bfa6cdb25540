"""Which model fits which series, and running statsforecast so that one failing fit never stops a panel.

Per series: how many CV windows its length allows, whether it has two full seasons, which models it is long
enough for. Series with the same plan are fitted together (statsforecast is vectorised over series). A fit that
raises is bisected down to the failing series and model; the failure becomes a `Note` (data, not a log line)
and everything else goes on. statsforecast's own `fallback_model` is not used: it swaps models silently, one
fallback for all, and we must report which series got what.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from statsforecast import StatsForecast

from orrery.errors import OrreryError
from orrery.forecast import models as reg

MIN_TRAIN = 8  # observations before the first CV cutoff: the smallest series AutoETS fits
FALLBACK: tuple[str, ...] = ("DynamicOptimizedTheta", "Naive", "HistoricAverage")  # tried in order
KEYS = ("unique_id", "ds", "cutoff", "y")

Progress = Callable[[str, int, int], None]  # on_progress(label, done, total), as RunContext.progress


@dataclass(frozen=True)
class Note:
    """Why a series did not get something: a model skipped or failed, no CV window, a fallback."""

    unique_id: str
    model: str  # "" when the note is about the series as a whole
    stage: str  # "cv", "forecast" or "data"
    reason: str


def notes_frame(notes: Sequence[Note]) -> pd.DataFrame:
    return pd.DataFrame([asdict(n) for n in notes], columns=["unique_id", "model", "stage", "reason"])


def season_for(n: int, m: int) -> int:
    """The season length a series of n observations is fitted with: m only with two full seasons."""
    return m if m > 1 and n >= 2 * m else 1


def cv_windows(n: int, m: int, h: int, most: int) -> int:
    """CV windows of h a series of n observations allows (at most `most`), each leaving a fittable history.

    A series long enough keeps two full seasons before the first cutoff, so CV scores the seasonal fit it
    will be forecast with."""
    need = max(MIN_TRAIN, 2 * m) if n >= max(MIN_TRAIN, 2 * m) + h else MIN_TRAIN
    return int(max(0, min(most, (n - need) // h)))


def eligible(names: Sequence[str], n: int, m: int, h: int, intervals: bool = False) -> tuple[list[str], dict[str, str]]:
    """The models a series of n observations can be fitted with, and why each other one is skipped."""
    ok, skipped = [], {}
    for name in names:
        spec = reg.REGISTRY[name]
        if spec.needs_season and season_for(n, m) == 1:
            skipped[name] = f"needs two full seasons ({2 * m} observations with m={m}); the series has {n}"
            continue
        need = reg.min_length(name, m, h, intervals)
        if n < need:
            skipped[name] = f"needs at least {need} observations; the series has {n}"
        else:
            ok.append(name)
    return ok, skipped


@dataclass
class Runner:
    """Runs one statsforecast method over a panel, grouped by plan, with failures isolated."""

    freq: str | int
    h: int
    n_jobs: int = 1
    client: Any = None
    on_progress: Progress | None = None
    refit: bool = False  # CV: refit every window (True) or fit at the first cutoff and only filter on (False)

    def run(
        self,
        df: pd.DataFrame,
        names: Sequence[str],
        m: int,
        *,
        stage: str,
        n_windows: int = 0,
        levels: Sequence[int] = (),
    ) -> tuple[pd.DataFrame, list[Note], dict[str, int]]:
        """Cross-validate (stage "cv", up to n_windows per series) or forecast (stage "forecast") `names`.

        Returns statsforecast's wide frame (a model's columns NaN where it was skipped or failed), the notes,
        and the CV windows each series got (stage "cv")."""
        groups, notes, windows = self._plan(df, names, m, stage, n_windows, bool(levels))
        total, frames = int(df["unique_id"].nunique()), []
        done = total - sum(len(uids) for uids in groups.values())  # series with nothing to fit are done
        for (w, season, models), uids in groups.items():
            for chunk in _chunks(uids, self.on_progress is not None):
                part = df[df["unique_id"].isin(chunk)]
                frame, failed = self._safe(part, list(models), season, stage, w, levels)
                notes += failed
                if frame is not None:
                    frames.append(frame)
                done += len(chunk)
                if self.on_progress is not None:
                    self.on_progress("cross-validation" if stage == "cv" else "forecast", done, total)
        cols = [*names, *reg_interval_columns(names, levels)]
        out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["unique_id", "ds"])
        keys = list(KEYS) if stage == "cv" else ["unique_id", "ds"]
        out = out.reindex(columns=keys + cols)
        return out, notes, windows

    def _plan(
        self, df: pd.DataFrame, names: Sequence[str], m: int, stage: str, n_windows: int, intervals: bool
    ) -> tuple[dict[tuple[int, int, tuple[str, ...]], list[str]], list[Note], dict[str, int]]:
        groups: dict[tuple[int, int, tuple[str, ...]], list[str]] = {}
        notes: list[Note] = []
        windows: dict[str, int] = {}
        for uid, n in df.groupby("unique_id", sort=False).size().items():
            uid, n = str(uid), int(n)
            w = cv_windows(n, m, self.h, n_windows) if stage == "cv" else 0
            if stage == "cv":
                windows[uid] = w
                if w == 0:
                    notes.append(
                        Note(
                            uid,
                            "",
                            "cv",
                            f"no CV window: {n} observations, fewer than "
                            f"{MIN_TRAIN} + h={self.h}; the forecast is not cross-validated",
                        )
                    )
                    continue
            fit_n = n - w * self.h
            ok, skipped = eligible(names, fit_n, m, self.h, intervals)
            notes += [Note(uid, k, stage, why) for k, why in skipped.items()]
            season = season_for(fit_n, m)
            if m > 1 and season == 1:
                notes.append(
                    Note(
                        uid,
                        "",
                        stage,
                        f"fewer than two seasons ({fit_n} < {2 * m} observations): fitted without seasonality",
                    )
                )
            if ok:
                groups.setdefault((w, season, tuple(ok)), []).append(uid)
        return groups, notes, windows

    def _safe(
        self, df: pd.DataFrame, models: list[str], season: int, stage: str, w: int, levels: Sequence[int]
    ) -> tuple[pd.DataFrame | None, list[Note]]:
        """Fit; on an exception bisect the series, then split the models, so only the failing pair is lost."""
        try:
            out = self._call(df, models, season, stage, w, levels)
        except ClusterError:
            raise  # the cluster's failure, not a series': bisecting would only wait again
        # statsforecast raises NotImplementedError, ValueError, LinAlgError or bare Exception from inside a fit;
        # each is recorded as a Note for the (series, model) it came from, never swallowed.
        except Exception as exc:  # noqa: BLE001
            uids = list(df["unique_id"].unique())
            if len(uids) > 1:
                half = set(uids[: len(uids) // 2])
                a, na = self._safe(df[df["unique_id"].isin(half)], models, season, stage, w, levels)
                b, nb = self._safe(df[~df["unique_id"].isin(half)], models, season, stage, w, levels)
                return _concat(a, b), na + nb
            if len(models) > 1:
                parts = [self._safe(df, [mm], season, stage, w, levels) for mm in models]
                return _merge([p for p, _ in parts]), [n for _, ns in parts for n in ns]
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'fit failed'}"
            return None, [Note(str(uids[0]), models[0], stage, reason)]
        return _drop_nonfinite(out, models, stage)

    def _call(
        self, df: pd.DataFrame, models: list[str], season: int, stage: str, w: int, levels: Sequence[int]
    ) -> pd.DataFrame:
        built = reg.build(models, season, self.h)
        kw: dict[str, Any] = {"h": self.h}
        if stage == "cv":
            # statsforecast filters a fitted model on (refit=False) only for models with a `forward` method
            forward = [hasattr(b, "forward") and reg.REGISTRY[mm].forward for mm, b in zip(models, built, strict=True)]
            if not self.refit and any(forward) and not all(forward):
                parts = [[mm for mm, f in zip(models, forward, strict=True) if f == keep] for keep in (True, False)]
                return _merge([self._call(df, p, season, stage, w, levels) for p in parts])
            kw |= {"n_windows": w, "step_size": self.h, "refit": self.refit or not all(forward)}
        elif levels:
            kw["level"] = list(levels)
        sf = StatsForecast(models=built, freq=self.freq, n_jobs=self.n_jobs)
        method = "cross_validation" if stage == "cv" else "forecast"
        if self.client is None:
            return getattr(sf, method)(df=df, **kw)
        return _on_dask(sf, method, df, self.client, kw)


def reg_interval_columns(names: Sequence[str], levels: Sequence[int]) -> list[str]:
    return [c for n in names for c in reg.interval_columns(n, levels)]


def _chunks(uids: list[str], split: bool) -> list[list[str]]:
    """With a progress callback, about 20 steps per group (at least 20 series each, to stay vectorised)."""
    size = max(20, -(-len(uids) // 20)) if split else len(uids)
    return [uids[i : i + size] for i in range(0, len(uids), size)]


def _concat(a: pd.DataFrame | None, b: pd.DataFrame | None) -> pd.DataFrame | None:
    parts = [p for p in (a, b) if p is not None]
    return pd.concat(parts, ignore_index=True) if parts else None


def _merge(frames: list[pd.DataFrame | None]) -> pd.DataFrame | None:
    frames = [f for f in frames if f is not None]
    if not frames:
        return None
    out = frames[0]
    for f in frames[1:]:
        keys = [c for c in KEYS if c in out.columns and c in f.columns]
        out = out.merge(f, on=keys, how="outer")
    return out


def _drop_nonfinite(out: pd.DataFrame, models: list[str], stage: str) -> tuple[pd.DataFrame, list[Note]]:
    """A model whose point forecast is NaN/inf on a series counts as failed there (its columns set to NaN)."""
    notes = []
    for name in models:
        bad = ~np.isfinite(out[name].to_numpy(dtype=float))
        if bad.any():
            uids = out.loc[bad, "unique_id"].astype(str).unique()
            rows = out["unique_id"].astype(str).isin(uids)
            out.loc[rows, [c for c in out.columns if c == name or c.startswith(f"{name}-")]] = np.nan
            notes += [Note(u, name, stage, "non-finite forecast") for u in uids]
    return out, notes


class ClusterError(OrreryError):
    """The Dask cluster cannot do the work: unreachable, no worker left, or a task keeps killing its workers."""

    exit_code = 1


LOST_AFTER_S = 30.0  # a cluster without any worker for this long is given up on (Dask itself would wait forever)
POLL_S = 0.5


def _on_dask(sf: StatsForecast, method: str, df: pd.DataFrame, client: Any, kw: dict[str, Any]) -> pd.DataFrame:
    """The same StatsForecast call on a Dask cluster (fugue backend), brought back to pandas dtypes."""
    import dask.dataframe as dd

    workers = max(1, len(client.scheduler_info()["workers"]))
    ddf = dd.from_pandas(df, npartitions=max(1, min(df["unique_id"].nunique(), 4 * workers)))
    out = _result(client, client.compute(getattr(sf, method)(df=ddf, **kw)))
    floats = [c for c in out.columns if c not in ("unique_id", "ds", "cutoff")]
    out[floats] = out[floats].astype("float64")
    out["unique_id"] = out["unique_id"].astype(str)
    out["ds"] = out["ds"].astype(df["ds"].dtype)
    if "cutoff" in out.columns:
        out["cutoff"] = out["cutoff"].astype(df["ds"].dtype)
    return out.sort_values(["unique_id", "ds"] + (["cutoff"] if "cutoff" in out else [])).reset_index(drop=True)


def _result(client: Any, future: Any) -> pd.DataFrame:
    """Wait for `future`, failing in one line when the cluster has had no worker for LOST_AFTER_S or a task
    killed its workers (Dask's KilledWorker); the future is cancelled on any way out (Ctrl-C included)."""
    from dask.config import get as dask_config
    from distributed import KilledWorker
    from distributed.comm.core import CommClosedError

    since: float | None = None
    try:
        while True:
            try:
                return future.result(timeout=POLL_S)
            except TimeoutError:
                pass
            if client.scheduler_info()["workers"]:
                since = None
                continue
            since = since or time.monotonic()
            if time.monotonic() - since > LOST_AFTER_S:
                raise ClusterError(
                    f"the Dask cluster at {client.scheduler.address} has had no worker for "
                    f"{LOST_AFTER_S:.0f} s mid-run; start workers (dask worker ADDRESS) and run again"
                )
    except KilledWorker:
        raise ClusterError(
            f"Dask workers died {1 + int(dask_config('distributed.scheduler.allowed-failures'))} "
            "times running one fit; give the workers more memory or run without --scheduler"
        ) from None
    except (OSError, CommClosedError) as exc:
        raise ClusterError(f"lost the Dask scheduler mid-run ({type(exc).__name__}); check it and run again") from None
    finally:
        if not future.done():
            future.cancel()
