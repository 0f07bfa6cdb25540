"""Pooling a question's trials, and calibrators fitted on resolved questions.

* :func:`pool` - the trials' probabilities averaged in logit space; their spread (the standard deviation of
  the logits) is the forecast's uncertainty.
* :class:`Calibrator` - maps what is known of a question (the pooled agent figure, a market anchor, a data
  series' base rate and trend) to a probability: a logistic model over those features (Platt scaling with the
  anchors as extra terms), or an isotonic map of the same score; :func:`fit` picks the one with the lower
  cross-validated Brier. Folds group every row of one underlying question, so no question's outcome is seen
  while scoring it (:func:`out_of_fold`).
* ``hierarchical`` Platt: the same logistic model with each source's own weights, partially pooled toward the
  global ones (a ridge penalty on each source's deviation, its strength chosen by inner grouped CV): a source whose
  figures are mis-calibrated differently from the others gets its own correction, a source with few rows stays near
  the global fit. :func:`fit` picks among the three by :func:`choose` (the worst source first, see there).
* The per-source guard (:func:`fit_guard`): how far each source's figure may depart from its base rate, learned
  by inner grouped CV on the training rows (a ladder from a coin through the source's share of Yes to the
  calibrator's own figure); a source whose features carry no signal is pulled to its base rate, one with signal
  keeps it. :func:`fit` picks the rule (``GUARDS``) by :func:`choose_guard`: the average-Brier rules by the same
  :func:`choose`, then a worst-case rule (``risk_L``: each source's chance that a sample of 17 of its questions
  scores above a coin kept at most L) where it lowers the worst source's risk at a small cost overall.
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
from scipy.optimize import isotonic_regression, minimize

from orrery.errors import DataError
from orrery.files import read_text
from orrery.research.anchors import SERIES_SOURCES, Anchors
from orrery.research.baserates import (
    INNER_FOLDS,
    L2,
    BaseRates,
    RateRow,
    SeriesCase,
    fit_base_rates,
    fit_logistic,
    inner_fold,
    logit,
    series_case,
    sigmoid,
)
from orrery.research.batch import load_trajectory, trajectory_path, write_json_atomic
from orrery.research.history import SeriesHistory, SeriesMemory

FORMAT = "orrery.research.calibrator"
VERSION = 6  # 2: base rates a model per source; 3: per-source weights, `source`; 4: the per-source `guard`;
# 5: base-rate terms recalled from the series' own history in the question bank; 6: the worst-case guard rules
FOLDS = 5
ISO_CLIP = 0.02  # an isotonic block of all-No must not say 0: one surprise would cost a Brier of 1
FEATURES = ("intercept", "agent", "has_market", "market", "has_series", "base_rate", "trend")
METHODS = ("platt", "isotonic", "hierarchical")  # simplest first: the order `choose` breaks ties in
POOLING = (1.0, 3.0, 10.0, 30.0, 100.0, 1000.0)  # ridge on a source's deviation; chosen by inner grouped CV
MIN_SOURCE_ROWS = 10  # a source with fewer rows is too noisy to judge a method by
CHOOSE_MARGIN = 0.003  # Briers closer than this are a tie
# The guard's ladder: the share of the calibrated logit's departure from the source's base rate a source keeps
# (a coin comes before it: the most conservative figure of all).
GUARD_KEEP = (0.0, 0.25, 0.5, 0.75, 1.0)
# How a source's rung is picked in the inner CV: "one_se", the most conservative rung whose Brier is within one
# standard error (of its paired difference, by question) of the best rung's; "best", the lowest Brier; "none": no
# guard. Most conservative first: the order `choose` breaks ties in (at equal Brier, the smaller departure).
BASE_GUARDS = ("one_se", "best", "none")
# The worst-case rules ("risk_L"): the lowest-Brier rung whose risk (`exceed_risk`: the chance that a sample of
# RISK_N of the source's questions scores above a coin's 0.25) is at most L. An average-Brier rule keeps a source's
# share of Yes when it beats a coin on average, yet a small sample whose share differs scores above a coin.
RISK_LEVELS = (0.05, 0.1, 0.2)  # lowest first: `choose_guard` takes the most protective level it can afford
RISK_GUARDS = tuple(f"risk_{level}" for level in RISK_LEVELS)
GUARDS = (*RISK_GUARDS, *BASE_GUARDS)
RISK_N = 17  # a source's questions in the bench's 120-question table
RISK_DRAWS = 2000
COIN = 0.25  # a coin's Brier on any sample
RISK_COST = 0.005  # the overall Brier a worst-case rule may cost against the baseline rule
# "coin_L": a source keeps its lowest-Brier rung where that rung's risk is at most L, else answers a coin; no rung in
# between (a figure near 0.5 but not 0.5 scores above 0.25 on about half the samples). Judged by the bench's
# COIN_CRITERION (bench/research_calibration.md, "Coin or signal"); not among GUARDS unless it passes.
COIN_GUARDS = tuple(f"coin_{level}" for level in RISK_LEVELS)


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
    source: str | None = None  # the question's source (a hierarchical calibrator's per-source weights)

    @classmethod
    def of(
        cls,
        agent: float | None,
        anchors: Anchors,
        source: str | None = None,
        row: Mapping[str, Any] | None = None,
        memory: SeriesMemory | None = None,
    ) -> Features:
        """``memory``: the series' history in the question bank at the question's date bound."""
        s = anchors.series
        series = s.source if s is not None else source if source in SERIES_SOURCES else None
        return cls(
            agent,
            None if anchors.market is None else anchors.market.probability,
            series,
            0.0 if s is None else s.trend,
            None if series is None else series_case(series, row, s, memory),
            source or series,
        )

    def series_case(self) -> SeriesCase | None:
        return self.case or (None if self.series is None else SeriesCase(self.series, trend=self.trend))


def design(f: Features, rates: BaseRates, center: float = 0.0) -> list[float]:
    """One row of the logistic model, in FEATURES order. The agent's logit is centred on its mean over the
    fitting set's forecasts: a model that always says 0.99 then adds nothing, rather than an offset that tells
    the rows it forecast from those it did not."""
    has_m, case = f.market is not None, f.series_case()
    has_s = case is not None
    rate = rates.rate(case) if case is not None else 0.5
    return [
        1.0,
        0.0 if f.agent is None else logit(f.agent) - center,
        float(has_m),
        logit(f.market) if has_m else 0.0,  # type: ignore[arg-type]
        float(has_s),
        logit(rate) if has_s else 0.0,
        f.trend if has_s else 0.0,
    ]


@dataclass
class Calibrator:
    model: str  # the model whose trajectories it was fitted on
    method: str  # platt | isotonic
    weights: dict[str, float]
    base_rates: dict[str, Any]  # BaseRates.to_dict (a plain {source: share} is read as shares only)
    iso_x: list[float] = field(default_factory=list)
    iso_y: list[float] = field(default_factory=list)
    by_source: dict[str, dict[str, float]] = field(default_factory=dict)  # hierarchical: each source's deviation
    pooling: float = 0.0  # hierarchical: the ridge on those deviations (chosen by inner grouped CV)
    trials: int = 1  # trials pooled per question in the fitting batch
    agent_center: float = 0.0  # mean logit of the fitting set's forecasts (see `design`)
    guard: dict[str, dict[str, float]] = field(default_factory=dict)  # source -> {"target", "keep"} (fit_guard)
    guard_rule: str = "none"  # the GUARDS rule the guard was picked by
    fitted_on: dict[str, Any] = field(default_factory=dict)  # question sets, counts, cross-validated Briers

    @cached_property
    def rates(self) -> BaseRates:
        return BaseRates.from_dict(self.base_rates)

    def score(self, f: Features) -> float:
        own = self.by_source.get(f.source or "", {})
        w = [self.weights.get(n, 0.0) + own.get(n, 0.0) for n in FEATURES]
        return float(np.dot(w, design(f, self.rates, self.agent_center)))

    def apply(self, f: Features) -> float:
        z = self.score(f)
        p = float(np.interp(z, self.iso_x, self.iso_y)) if self.method == "isotonic" else sigmoid(z)
        g = self.guard.get(f.source or "")
        return p if g is None else guarded(p, g["target"], g["keep"])

    @property
    def label(self) -> str:
        guard = "" if self.guard_rule == "none" else f", guard {self.guard_rule}"
        return f"{self.method}{guard} for {self.model} ({self.fitted_on.get('questions', '?')} questions)"

    def check_model(self, model: str) -> None:
        if model != self.model:
            raise CalibrationError(
                f"the calibrator was fitted for model {self.model!r}, not {model!r}: fit one for "
                "this model with `orrery research calibrate`, or pass --calibration none"
            )

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, **asdict(self)}

    def save(self, path: Path) -> Path:
        return write_json_atomic(path, self.to_dict())


def is_rung(g: Any) -> bool:
    """A guard entry as :func:`fit_guard` writes it: a target strictly inside (0, 1) and a keep in [0, 1]."""
    if not isinstance(g, dict) or set(g) != {"target", "keep"}:
        return False
    target, keep = g["target"], g["keep"]
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (target, keep))
    return numbers and 0 < target < 1 and 0 <= keep <= 1


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
        raise CalibrationError(
            f"{path} is calibrator version {data.get('version')!r}, this orrery reads version "
            f"{VERSION}: refit it with `orrery research calibrate`"
        )
    fields = {k: v for k, v in data.items() if k not in ("format", "version")}
    try:
        calib = Calibrator(**fields)
    except TypeError as exc:
        raise CalibrationError(f"{path} is a damaged calibrator file ({exc}); refit it") from None
    bad_guard = calib.guard_rule not in GUARDS or not all(map(is_rung, calib.guard.values()))
    if (
        calib.method not in METHODS
        or bad_guard
        or any(set(w) - set(FEATURES) for w in [calib.weights, *calib.by_source.values()])
    ):
        raise CalibrationError(f"{path} is a damaged calibrator file (method, weights or guard); refit it")
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


def fit_hierarchical(
    x: np.ndarray, y: np.ndarray, sources: Sequence[str], pooling: float
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Global weights (ridge L2 but the intercept, as Platt) and each source's deviation from them (ridge
    ``pooling`` on every weight, the intercept included: a source with few rows stays near the global fit), fitted
    jointly by penalised maximum likelihood."""
    names = sorted(set(sources))
    idx = np.array([names.index(s) for s in sources])
    onehot = np.eye(len(names))[idx]
    f = x.shape[1]
    penalty = np.full(f, L2)
    penalty[0] = 0.0

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, dev = theta[:f], theta[f:].reshape(len(names), f)
        z = np.einsum("ij,ij->i", x, w + dev[idx])
        r = 1 / (1 + np.exp(-z)) - y
        nll = np.sum(np.logaddexp(0, z) - y * z) + 0.5 * np.sum(penalty * w * w) + 0.5 * pooling * np.sum(dev * dev)
        g_dev = onehot.T @ (r[:, None] * x)
        return float(nll), np.concatenate([x.T @ r + penalty * w, (g_dev + pooling * dev).ravel()])

    theta = minimize(loss, np.zeros(f * (1 + len(names))), jac=True, method="L-BFGS-B").x
    dev = theta[f:].reshape(len(names), f)
    return theta[:f], {s: dev[i] for i, s in enumerate(names)}


def _score_rows(x: np.ndarray, sources: Sequence[str], w: np.ndarray, dev: Mapping[str, np.ndarray]) -> np.ndarray:
    return np.array([float(row @ (w + dev.get(s, 0.0))) for row, s in zip(x, sources, strict=True)])


def choose_pooling(x: np.ndarray, y: np.ndarray, groups: Sequence[str], sources: Sequence[str]) -> float:
    """The ridge on the sources' deviations, by :func:`choose` over :func:`pooling_cv`."""
    return choose(pooling_cv(x, y, groups, sources), order=list(reversed(POOLING)))  # the most pooled is the simplest


def pooling_cv(
    x: np.ndarray, y: np.ndarray, groups: Sequence[str], sources: Sequence[str]
) -> dict[float, dict[str, float]]:
    """Each POOLING's Brier, overall and per source, in an inner grouped CV of the training rows (the base rates
    are the training rows' own: a row's template share already leaves its own question out)."""
    preds = {lam: np.full(len(y), math.nan) for lam in POOLING}
    for k in range(INNER_FOLDS):
        held = np.array([inner_fold(g) == k for g in groups])
        if held.all() or not held.any():
            continue
        train_src = [s for s, h in zip(sources, held, strict=True) if not h]
        held_src = [s for s, h in zip(sources, held, strict=True) if h]
        for lam in POOLING:
            w, dev = fit_hierarchical(x[~held], y[~held], train_src, lam)
            preds[lam][held] = 1 / (1 + np.exp(-_score_rows(x[held], held_src, w, dev)))
    return {lam: source_briers(p.tolist(), y.tolist(), sources) for lam, p in preds.items()}


def fit_one(
    train: Sequence[Example],
    rate_rows: Sequence[RateRow],
    method: str,
    model: str,
    trials: int = 1,
    guard: str = "none",
) -> Calibrator:
    """A calibrator of one method, with the per-source guard ``guard`` picks (:func:`fit_guard`); base rates
    from ``rate_rows`` ``(group, case or source, outcome)``."""
    calib = _fit_unguarded(train, rate_rows, method, model, trials)
    if guard != "none":
        calib.guard, calib.guard_rule = fit_guard(train, rate_rows, method, guard), guard
    return calib


def _fit_unguarded(
    train: Sequence[Example], rate_rows: Iterable[RateRow], method: str, model: str, trials: int
) -> Calibrator:
    rates = fit_base_rates(rate_rows)
    center = agent_center(train)
    if method != "hierarchical":
        w, xs, ys = _fit_method(train, rates, method)
        return Calibrator(
            model,
            method,
            dict(zip(FEATURES, map(float, w), strict=True)),
            rates.to_dict(),
            xs,
            ys,
            trials=trials,
            agent_center=center,
        )
    x = np.array([design(e.features, rates, center) for e in train])
    y = np.array([e.outcome for e in train])
    sources = [e.features.source or "" for e in train]
    one = len(set(sources)) < 2  # nothing to part: the most pooled fit
    lam = POOLING[-1] if one else choose_pooling(x, y, [e.group for e in train], sources)
    w, dev = fit_hierarchical(x, y, sources, lam)
    return Calibrator(
        model,
        method,
        dict(zip(FEATURES, map(float, w), strict=True)),
        rates.to_dict(),
        by_source={s: dict(zip(FEATURES, map(float, d), strict=True)) for s, d in dev.items() if s},
        pooling=lam,
        trials=trials,
        agent_center=center,
    )


# --------------------------------------------------------------------------- the per-source guard


def guarded(p: float, target: float, keep: float) -> float:
    """``p`` pulled toward ``target`` in logit space: ``keep`` of its departure stays (0: the target itself)."""
    t = logit(target)
    return sigmoid(t + keep * (logit(p) - t))


def share_of(outcomes: Sequence[float]) -> float:
    return (sum(outcomes) + 1) / (len(outcomes) + 2)


def rungs(share: float) -> list[tuple[float, float]]:
    """The guard's ladder for a source, most conservative first: a coin, then ``GUARD_KEEP`` of the departure
    from the source's share of Yes (the last rung, 1.0, is the calibrator's own figure)."""
    return [(0.5, 0.0), *((share, k) for k in GUARD_KEEP)]


def exceed_risk(errors: Sequence[float], groups: Sequence[str], n: int = RISK_N, draws: int = RISK_DRAWS) -> float:
    """The chance that ``n`` questions drawn with replacement (each contributing one of its rows, at random) score
    a mean squared error above a coin's: a bootstrap grouped by question, seeded so a fit is reproducible."""
    names = sorted(set(groups))
    if not names:
        return 0.0
    rows = [np.array([e for e, g in zip(errors, groups, strict=True) if g == name]) for name in names]
    sizes = np.array([len(r) for r in rows])
    flat, start = np.concatenate(rows), np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rng = np.random.default_rng(0)
    drawn = rng.integers(0, len(names), size=(draws, n))
    picked = flat[start[drawn] + (rng.random((draws, n)) * sizes[drawn]).astype(int)]
    return float(np.mean(picked.mean(axis=1) > COIN + 1e-9))


def risk_rung(errors: np.ndarray, groups: Sequence[str], level: float) -> int:
    """The lowest-Brier rung whose :func:`exceed_risk` is at most ``level``; where none is, the least risky."""
    means = errors.mean(axis=1)
    risks = [exceed_risk(row, groups) for row in errors]
    within = [r for r in range(len(errors)) if risks[r] <= level]
    if within:
        return min(within, key=lambda r: means[r])
    return min(range(len(errors)), key=lambda r: (risks[r], means[r]))


def pick_rung(errors: np.ndarray, groups: Sequence[str], rule: str) -> int:
    """The rung (row of ``errors``: rungs x rows, squared errors) ``rule`` picks: ``best``, the lowest mean;
    ``one_se``, the first (most conservative) whose mean is within one standard error of the best's, the error of
    the paired difference summed per question (rows of one question are not independent); ``risk_L``,
    :func:`risk_rung` at level L; ``coin_L``, the best rung where its :func:`exceed_risk` is at most L, else the
    coin."""
    if rule.startswith("risk_"):
        return risk_rung(errors, groups, float(rule.removeprefix("risk_")))
    means = errors.mean(axis=1)
    best = int(np.argmin(means))
    if rule.startswith("coin_"):  # the best rung or a coin (rung 0), nothing in between
        return best if exceed_risk(errors[best], groups) <= float(rule.removeprefix("coin_")) else 0
    if rule == "best":
        return best
    names = sorted(set(groups))
    member = np.eye(len(names))[[names.index(g) for g in groups]]  # rows x questions
    for r in range(len(errors)):
        per_question = (errors[r] - errors[best]) @ member
        se = math.sqrt(len(names) * per_question.var(ddof=1)) / errors.shape[1] if len(names) > 1 else math.inf
        if means[r] <= means[best] + se:
            return r
    return best


def fit_guard(
    train: Sequence[Example], rate_rows: Sequence[RateRow], method: str, rule: str
) -> dict[str, dict[str, float]]:
    """Each source's rung (``{"target", "keep"}``), picked by ``rule`` from an inner grouped CV of the unguarded
    calibrator on ``train`` (each inner fold's base rates and shares from its own training rows). A source with
    fewer than MIN_SOURCE_ROWS rows gets none: too few to judge by."""
    y = np.array([e.outcome for e in train])
    sources = [e.features.source or "" for e in train]
    preds, shares = np.full(len(train), math.nan), {}
    for k in range(INNER_FOLDS):
        held = [inner_fold(e.group) == k for e in train]
        fit_rows = [e for e, h in zip(train, held, strict=True) if not h]
        if not fit_rows or not any(held):
            continue
        calib = _fit_unguarded(fit_rows, [r for r in rate_rows if inner_fold(r[0]) != k], method, "", 1)
        for i in np.flatnonzero(held):
            preds[i] = calib.apply(train[i].features)
            mine = [e.outcome for e in fit_rows if e.features.source == train[i].features.source]
            shares[i] = share_of(mine)
    guard = {}
    for s in sorted(set(sources) - {""}):
        idx = [i for i, t in enumerate(sources) if t == s and not math.isnan(preds[i])]
        if len(idx) < MIN_SOURCE_ROWS:
            continue
        ladders = {i: rungs(shares[i]) for i in idx}
        errors = np.array(
            [[(guarded(preds[i], *ladders[i][r]) - y[i]) ** 2 for i in idx] for r in range(1 + len(GUARD_KEEP))]
        )
        r = pick_rung(errors, [train[i].group for i in idx], rule)
        target, keep = rungs(share_of([e.outcome for e in train if e.features.source == s]))[r]
        guard[s] = {"target": target, "keep": keep}
    return guard


def fold_of(group: str, folds: int = FOLDS) -> int:
    return int(hashlib.sha1(group.encode("utf-8")).hexdigest(), 16) % folds


def out_of_fold(
    examples: Sequence[Example],
    rate_rows: Sequence[RateRow],
    method: str,
    folds: int = FOLDS,
    model: str = "",
    guard: str = "none",
) -> list[float]:
    """Each example's calibrated probability from a calibrator fitted without its fold (grouped by question),
    base rates and guard included."""
    out = [math.nan] * len(examples)
    for k in range(folds):
        held = [i for i, e in enumerate(examples) if fold_of(e.group, folds) == k]
        if not held:
            continue
        train = [e for e in examples if fold_of(e.group, folds) != k]
        rows = [r for r in rate_rows if fold_of(r[0], folds) != k]
        if not train:
            continue
        calib = fit_one(train, rows, method, model, guard=guard)
        for i in held:
            out[i] = calib.apply(examples[i].features)
    return out


def mean_brier(probabilities: Sequence[float], outcomes: Sequence[float]) -> float:
    pairs = [(p, o) for p, o in zip(probabilities, outcomes, strict=True) if not math.isnan(p)]
    return sum((p - o) ** 2 for p, o in pairs) / len(pairs)


def source_briers(
    probabilities: Sequence[float], outcomes: Sequence[float], sources: Sequence[str | None]
) -> dict[str, float]:
    """Brier overall (``all``) and per source."""
    out = {"all": mean_brier(probabilities, outcomes)}
    for s in sorted({str(s) for s in sources}):
        idx = [i for i, t in enumerate(sources) if str(t) == s]
        out[s] = mean_brier([probabilities[i] for i in idx], [outcomes[i] for i in idx])
    return out


def worst_source(briers: Mapping[str, float], counts: Mapping[str, int] | None = None) -> float:
    """The highest per-source Brier over the sources with at least MIN_SOURCE_ROWS rows (``counts``: rows per
    source; without it every source counts)."""
    return max(
        (b for s, b in briers.items() if s != "all" and (counts is None or counts.get(s, 0) >= MIN_SOURCE_ROWS)),
        default=briers["all"],
    )


def choose(
    cv: Mapping[Any, Mapping[str, float]], order: Sequence[Any] = METHODS, counts: Mapping[str, int] | None = None
) -> Any:
    """The rule (written down before any table was computed with it): the lowest worst-source Brier; among those
    within CHOOSE_MARGIN of it the lowest overall Brier; among those within CHOOSE_MARGIN of that the first in
    ``order`` (the simplest)."""
    worst = {m: worst_source(b, counts) for m, b in cv.items()}
    near = [m for m in cv if worst[m] <= min(worst.values()) + CHOOSE_MARGIN]
    best = min(cv[m]["all"] for m in near)
    return next(m for m in order if m in near and cv[m]["all"] <= best + CHOOSE_MARGIN)


def source_risks(
    probabilities: Sequence[float], examples: Sequence[Example], counts: Mapping[str, int]
) -> dict[str, float]:
    """:func:`exceed_risk` of each source with at least MIN_SOURCE_ROWS rows, from its (out-of-fold) figures."""
    out = {}
    for s in sorted(s for s, n in counts.items() if n >= MIN_SOURCE_ROWS):
        idx = [i for i, e in enumerate(examples) if str(e.features.source) == s and not math.isnan(probabilities[i])]
        errors = [(probabilities[i] - examples[i].outcome) ** 2 for i in idx]
        out[s] = exceed_risk(errors, [examples[i].group for i in idx])
    return out


def choose_guard(
    cv: Mapping[str, Mapping[str, float]], risks: Mapping[str, Mapping[str, float]], counts: Mapping[str, int]
) -> str:
    """The rule (written down before any table was computed with it): the baseline is :func:`choose` over
    BASE_GUARDS; the lowest RISK_LEVELS rule whose worst-source risk is lower than the baseline's and whose
    overall Brier is not higher by more than RISK_COST replaces it."""
    baseline = choose({g: cv[g] for g in BASE_GUARDS if g in cv}, order=BASE_GUARDS, counts=counts)
    worst = max(risks[baseline].values(), default=0.0)
    for g in RISK_GUARDS:
        if g in cv and max(risks[g].values(), default=0.0) < worst and cv[g]["all"] <= cv[baseline]["all"] + RISK_COST:
            return g
    return baseline


def fit(
    examples: Sequence[Example],
    rate_rows: Sequence[RateRow],
    model: str,
    *,
    trials: int = 1,
    folds: int = FOLDS,
    fitted_on: Mapping[str, Any] | None = None,
    methods: Sequence[str] = METHODS,
) -> Calibrator:
    """The method :func:`choose` picks from the out-of-fold Brier overall and per source, then (with that method)
    the guard rule :func:`choose_guard` picks, refitted on every example."""
    if len(examples) < 2 * folds:
        raise DataError(
            f"calibration needs at least {2 * folds} resolved questions with a forecast, got "
            f"{len(examples)}: run a larger batch first"
        )
    outcomes = [e.outcome for e in examples]
    sources = [e.features.source for e in examples]
    counts = {str(s): sources.count(s) for s in set(sources)}
    cv = {m: source_briers(out_of_fold(examples, rate_rows, m, folds), outcomes, sources) for m in methods}
    method = choose(cv, counts=counts)
    oof = {g: out_of_fold(examples, rate_rows, method, folds, guard=g) for g in GUARDS}
    cv_guard = {g: source_briers(p, outcomes, sources) for g, p in oof.items()}
    risks = {g: source_risks(p, examples, counts) for g, p in oof.items()}
    guard = choose_guard(cv_guard, risks, counts)
    calib = fit_one(examples, rate_rows, method, model, trials, guard)
    calib.fitted_on = {
        **(fitted_on or {}),
        "questions": len(examples),
        "folds": folds,
        "cv_brier": {m: round(v["all"], 4) for m, v in cv.items()},
        "cv_worst_source": {m: round(worst_source(v, counts), 4) for m, v in cv.items()},
        "cv_guard": {g: {s: round(b, 4) for s, b in v.items()} for g, v in cv_guard.items()},
        "cv_risk": {g: {s: round(r, 3) for s, r in v.items()} for g, v in risks.items()},
    }
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
    the anchors found for it, whose series values the case takes; the series' history is recalled from ``rows``
    at each row's freeze date)."""
    anchors, rows = anchors or {}, list(rows)
    history = SeriesHistory(rows)
    return [
        (
            group_of(r),
            series_case(
                str(r.get("source") or ""),
                r,
                a.series if (a := anchors.get(r["id"])) else None,
                history.recall(r),
            ),
            float(r["resolution"]),
        )
        for r in rows
        if r.get("resolution") is not None
    ]


def examples_from_runs(
    rows: Sequence[Mapping[str, Any]], runs: Path, k: int | None = None
) -> tuple[list[Example], set[str]]:
    """The resolved rows that have a forecast in the batch folder ``runs``, as examples, and the models named (the
    series' history recalled from ``rows`` at each run's date bound)."""
    examples, models = [], set()
    history = SeriesHistory(rows)
    for row in rows:
        traj = load_trajectory(trajectory_path(runs, row["id"]))
        if row.get("resolution") is None or traj is None or (p := pooled_of(traj, k)) is None:
            continue
        models.add(str(traj.get("model", "")))
        memory = history.recall(row, traj.get("before"))
        features = Features.of(p, Anchors.from_dict(traj.get("anchors")), row.get("source"), row, memory)
        examples.append(Example(features, float(row["resolution"]), group_of(row)))
    return examples, models


def calibrate_runs(rows: Sequence[Mapping[str, Any]], runs: Path) -> Calibrator:
    """A calibrator from a batch's trajectories and the rows' resolutions (refused when the batch mixes models)."""
    examples, models = examples_from_runs(rows, runs)
    if len(models) > 1:
        raise DataError(
            f"{runs} holds trajectories of several models ({', '.join(sorted(models))}): a calibrator "
            "is fitted for one; calibrate each model's batch separately"
        )
    trials = max((len(t.get("trials", [])) for t in _trajectories(rows, runs)), default=1)
    sets = sorted({str(r.get("question_set")) for r in rows if r.get("question_set")})
    found = {str(t.get("question_id")): Anchors.from_dict(t.get("anchors")) for t in _trajectories(rows, runs)}
    return fit(
        examples, rate_rows(rows, found), next(iter(models), ""), trials=trials, fitted_on={"question_sets": sets}
    )


def _trajectories(rows: Sequence[Mapping[str, Any]], runs: Path) -> Iterator[dict[str, Any]]:
    for row in rows:
        if (traj := load_trajectory(trajectory_path(runs, row["id"]))) is not None:
            yield traj
