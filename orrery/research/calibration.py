"""Pooling a question's trials, and calibrators fitted on resolved questions.

* :func:`pool` - the trials' probabilities averaged in logit space; their spread (the standard deviation of
  the logits) is the forecast's uncertainty.
* :class:`Calibrator` - maps what is known of a question (the pooled agent figure, a market anchor, a data
  series' base rate and trend) to a probability: a logistic model over those features (Platt scaling with the
  anchors as extra terms), or an isotonic map of the same score; :func:`fit` picks the one with the lower
  cross-validated Brier. Folds group every row of one underlying question, so no question's outcome is seen
  while scoring it (:func:`out_of_fold`).
* The file (:meth:`Calibrator.save`/:func:`load_calibrator`) is versioned and names the model it was fitted
  for; :meth:`Calibrator.check_model` refuses another model in one line.

scikit-learn is not a dependency of orrery; scipy (already installed with statsforecast) has both pieces:
``optimize.minimize`` for the penalised logistic fit and ``optimize.isotonic_regression``.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import isotonic_regression

from orrery.errors import DataError
from orrery.files import read_text
from orrery.research.anchors import SERIES_SOURCES, Anchors
from orrery.research.baserates import (
    BaseRates,
    RateRow,
    SeriesCase,
    fit_base_rates,
    fit_logistic,
    logit,
    series_case,
    sigmoid,
)
from orrery.research.batch import load_trajectory, trajectory_path, write_json_atomic

FORMAT = "orrery.research.calibrator"
VERSION = 2  # 2: base rates are a model per source (orrery.research.baserates), not one share
FOLDS = 5
ISO_CLIP = 0.02  # an isotonic block of all-No must not say 0: one surprise would cost a Brier of 1
FEATURES = ("intercept", "agent", "has_market", "market", "has_series", "base_rate", "trend")


class CalibrationError(DataError):
    """A calibrator file that cannot be used (wrong format, version or model)."""


@dataclass(frozen=True)
class Pooled:
    probability: float
    spread: float  # standard deviation of the trials' logits (0 for one trial)
    n: int


def pool(probabilities: Sequence[float]) -> Pooled:
    """The trials pooled in logit space (the mean logit), with their spread."""
    if not probabilities:
        raise ValueError("pool needs at least one probability")
    if len(probabilities) == 1:  # one trial is its own figure, unclipped
        return Pooled(float(probabilities[0]), 0.0, 1)
    z = np.array([logit(p) for p in probabilities])
    return Pooled(sigmoid(float(z.mean())), float(z.std()), len(z))


@dataclass(frozen=True)
class Features:
    """What a calibrator sees of one question."""

    agent: float | None  # the pooled agent probability (None: no forecast; the row teaches anchors and base rates)
    market: float | None = None  # a market/crowd probability a source states
    series: str | None = None  # the data source of a series question (fred, acled, ...)
    trend: float = 0.0  # sign of the series' last change
    case: SeriesCase | None = None  # what the series' base-rate model sees (default: the source alone)

    @classmethod
    def of(cls, agent: float | None, anchors: Anchors, source: str | None = None,
           row: Mapping[str, Any] | None = None) -> Features:
        s = anchors.series
        series = s.source if s is not None else source if source in SERIES_SOURCES else None
        return cls(agent, None if anchors.market is None else anchors.market.probability, series,
                   0.0 if s is None else s.trend, None if series is None else series_case(series, row, s))

    def series_case(self) -> SeriesCase | None:
        return self.case or (None if self.series is None else SeriesCase(self.series, trend=self.trend))


def design(f: Features, rates: BaseRates, center: float = 0.0) -> list[float]:
    """One row of the logistic model, in FEATURES order. The agent's logit is centred on its mean over the
    fitting set's forecasts: a model that always says 0.99 then adds nothing, rather than an offset that tells
    the rows it forecast from those it did not."""
    has_m, case = f.market is not None, f.series_case()
    has_s = case is not None
    rate = rates.rate(case) if case is not None else 0.5
    return [1.0, 0.0 if f.agent is None else logit(f.agent) - center, float(has_m), logit(f.market) if has_m else 0.0,  # type: ignore[arg-type]
            float(has_s), logit(rate) if has_s else 0.0, f.trend if has_s else 0.0]


@dataclass
class Calibrator:
    model: str  # the model whose trajectories it was fitted on
    method: str  # platt | isotonic
    weights: dict[str, float]
    base_rates: dict[str, Any]  # BaseRates.to_dict (a plain {source: share} is read as shares only)
    iso_x: list[float] = field(default_factory=list)
    iso_y: list[float] = field(default_factory=list)
    trials: int = 1  # trials pooled per question in the fitting batch
    agent_center: float = 0.0  # mean logit of the fitting set's forecasts (see `design`)
    fitted_on: dict[str, Any] = field(default_factory=dict)  # question sets, counts, cross-validated Briers

    @cached_property
    def rates(self) -> BaseRates:
        return BaseRates.from_dict(self.base_rates)

    def score(self, f: Features) -> float:
        return float(np.dot([self.weights.get(n, 0.0) for n in FEATURES], design(f, self.rates, self.agent_center)))

    def apply(self, f: Features) -> float:
        z = self.score(f)
        if self.method == "isotonic":
            return float(np.interp(z, self.iso_x, self.iso_y))
        return sigmoid(z)

    @property
    def label(self) -> str:
        return f"{self.method} for {self.model} ({self.fitted_on.get('questions', '?')} questions)"

    def check_model(self, model: str) -> None:
        if model != self.model:
            raise CalibrationError(f"the calibrator was fitted for model {self.model!r}, not {model!r}: fit one for "
                                   "this model with `orrery research calibrate`, or pass --calibration none")

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, **asdict(self)}

    def save(self, path: Path) -> Path:
        return write_json_atomic(path, self.to_dict())


def load_calibrator(path: str | Path, model: str | None = None) -> Calibrator:
    """A calibrator file, checked: its format and version, and (given ``model``) that it was fitted for it."""
    text = read_text(Path(path), what="calibrator")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CalibrationError(f"{path} is not a calibrator file; write one with `orrery research calibrate`")
    if data.get("version") != VERSION:
        raise CalibrationError(f"{path} is calibrator version {data.get('version')!r}, this orrery reads version "
                               f"{VERSION}: refit it with `orrery research calibrate`")
    fields = {k: v for k, v in data.items() if k not in ("format", "version")}
    try:
        calib = Calibrator(**fields)
    except TypeError as exc:
        raise CalibrationError(f"{path} is a damaged calibrator file ({exc}); refit it") from None
    if calib.method not in ("platt", "isotonic") or set(calib.weights) - set(FEATURES):
        raise CalibrationError(f"{path} is a damaged calibrator file (method or weights); refit it")
    if model is not None:
        calib.check_model(model)
    return calib


# --------------------------------------------------------------------------- fitting


@dataclass(frozen=True)
class Example:
    """One resolved question: its features, its outcome and its group (every row of one underlying question)."""

    features: Features
    outcome: float
    group: str


def agent_center(examples: Sequence[Example]) -> float:
    logits = [logit(e.features.agent) for e in examples if e.features.agent is not None]
    return sum(logits) / len(logits) if logits else 0.0


def _fit_method(train: Sequence[Example], rates: BaseRates, method: str) -> tuple[np.ndarray, list, list]:
    x = np.array([design(e.features, rates, agent_center(train)) for e in train])
    y = np.array([e.outcome for e in train])
    w = fit_logistic(x, y)
    if method == "platt":
        return w, [], []
    z = x @ w
    order = np.argsort(z, kind="stable")
    fitted = isotonic_regression(y[order]).x
    return w, z[order].tolist(), np.clip(fitted, ISO_CLIP, 1 - ISO_CLIP).tolist()


def fit_one(train: Sequence[Example], rate_rows: Iterable[RateRow], method: str, model: str,
            trials: int = 1) -> Calibrator:
    """A calibrator of one method; base rates from ``rate_rows`` ``(group, case or source, outcome)``."""
    rates = fit_base_rates(rate_rows)
    w, xs, ys = _fit_method(train, rates, method)
    return Calibrator(model, method, dict(zip(FEATURES, map(float, w), strict=True)), rates.to_dict(), xs, ys,
                      trials, agent_center(train))


def fold_of(group: str, folds: int = FOLDS) -> int:
    return int(hashlib.sha1(group.encode("utf-8")).hexdigest(), 16) % folds


def out_of_fold(examples: Sequence[Example], rate_rows: Sequence[RateRow], method: str,
                folds: int = FOLDS, model: str = "") -> list[float]:
    """Each example's calibrated probability from a calibrator fitted without its fold (grouped by question),
    base rates included."""
    out = [math.nan] * len(examples)
    for k in range(folds):
        held = [i for i, e in enumerate(examples) if fold_of(e.group, folds) == k]
        if not held:
            continue
        train = [e for e in examples if fold_of(e.group, folds) != k]
        rows = [r for r in rate_rows if fold_of(r[0], folds) != k]
        if not train:
            continue
        calib = fit_one(train, rows, method, model)
        for i in held:
            out[i] = calib.apply(examples[i].features)
    return out


def mean_brier(probabilities: Sequence[float], outcomes: Sequence[float]) -> float:
    pairs = [(p, o) for p, o in zip(probabilities, outcomes, strict=True) if not math.isnan(p)]
    return sum((p - o) ** 2 for p, o in pairs) / len(pairs)


def fit(examples: Sequence[Example], rate_rows: Sequence[RateRow], model: str, *,
        trials: int = 1, folds: int = FOLDS, fitted_on: Mapping[str, Any] | None = None) -> Calibrator:
    """Platt or isotonic, whichever has the lower cross-validated Brier (Platt on a tie: fewer free values),
    refitted on every example."""
    if len(examples) < 2 * folds:
        raise DataError(f"calibration needs at least {2 * folds} resolved questions with a forecast, got "
                        f"{len(examples)}: run a larger batch first")
    outcomes = [e.outcome for e in examples]
    cv = {m: mean_brier(out_of_fold(examples, rate_rows, m, folds), outcomes) for m in ("platt", "isotonic")}
    method = min(cv, key=lambda m: (cv[m], m != "platt"))
    calib = fit_one(examples, rate_rows, method, model, trials)
    calib.fitted_on = {**(fitted_on or {}), "questions": len(examples), "folds": folds,
                       "cv_brier": {m: round(v, 4) for m, v in cv.items()}}
    return calib


# --------------------------------------------------------------------------- from a batch


def group_of(row: Mapping[str, Any]) -> str:
    """Every row of one underlying question (a dataset question has one row per resolution date) shares it."""
    return f"{row['source']}/{row['source_id']}" if row.get("source") and row.get("source_id") else str(row["id"])


def pooled_of(trajectory: Mapping[str, Any], k: int | None = None) -> float | None:
    """The pooled figure of a trajectory's first ``k`` trials (all when None; its own ``pooled`` then)."""
    if k is None:
        return trajectory.get("pooled")
    valid = [t["probability"] for t in trajectory.get("trials", [])[:k] if t.get("probability") is not None]
    return pool(valid).probability if valid else None


def rate_rows(rows: Iterable[Mapping[str, Any]], anchors: Mapping[str, Anchors] | None = None) -> list[RateRow]:
    """``(group, case, outcome)`` of every resolved row: what base rates are learned from (``anchors``: row id ->
    the anchors found for it, whose series values the case takes)."""
    anchors = anchors or {}
    return [(group_of(r), series_case(str(r.get("source") or ""), r, a.series if (a := anchors.get(r["id"])) else None),
             float(r["resolution"])) for r in rows if r.get("resolution") is not None]


def examples_from_runs(rows: Sequence[Mapping[str, Any]], runs: Path, k: int | None = None
                       ) -> tuple[list[Example], set[str]]:
    """The resolved rows that have a forecast in the batch folder ``runs``, as examples, and the models named."""
    examples, models = [], set()
    for row in rows:
        traj = load_trajectory(trajectory_path(runs, row["id"]))
        if row.get("resolution") is None or traj is None or (p := pooled_of(traj, k)) is None:
            continue
        models.add(str(traj.get("model", "")))
        features = Features.of(p, Anchors.from_dict(traj.get("anchors")), row.get("source"), row)
        examples.append(Example(features, float(row["resolution"]), group_of(row)))
    return examples, models


def calibrate_runs(rows: Sequence[Mapping[str, Any]], runs: Path) -> Calibrator:
    """A calibrator from a batch's trajectories and the rows' resolutions (refused when the batch mixes models)."""
    examples, models = examples_from_runs(rows, runs)
    if len(models) > 1:
        raise DataError(f"{runs} holds trajectories of several models ({', '.join(sorted(models))}): a calibrator "
                        "is fitted for one; calibrate each model's batch separately")
    trials = max((len(t.get("trials", [])) for t in _trajectories(rows, runs)), default=1)
    sets = sorted({str(r.get("question_set")) for r in rows if r.get("question_set")})
    found = {str(t.get("question_id")): Anchors.from_dict(t.get("anchors")) for t in _trajectories(rows, runs)}
    return fit(examples, rate_rows(rows, found), next(iter(models), ""), trials=trials,
               fitted_on={"question_sets": sets})


def _trajectories(rows: Sequence[Mapping[str, Any]], runs: Path) -> Iterator[dict[str, Any]]:
    for row in rows:
        if (traj := load_trajectory(trajectory_path(runs, row["id"]))) is not None:
            yield traj
