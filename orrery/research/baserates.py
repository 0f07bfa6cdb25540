"""The base rate of a data-series question ("higher on the resolution date?"), learned per source.

One share of Yes per source is a weak prior: ACLED's "ten times as many" questions never resolved Yes while its
"more than the average" ones did three times in ten, and a weather station's temperature rises from November to
May and falls from November to December. So each source gets a small logistic model (:class:`BaseRates`) over what
is known when the question is asked (:class:`SeriesCase`):

* ``template``: the share of Yes among resolved questions of the same template (the question's first line with
  names, quoted terms, numbers and dates masked), shrunk toward the source's share by ``PRIOR`` pseudo-questions.
  While fitting, a row's own question is left out of its template's share (a template of one question would
  otherwise predict itself);
* ``horizon``: the days from the forecast date to the resolution date (log-scaled);
* ``season``: how much a northern-hemisphere seasonal curve (coldest mid-January) changes between the two dates;
* ``trend``, ``momentum``: the sign of the series' last change and its relative change across the values the
  sources hold (:class:`orrery.research.anchors.Series`);
* ``recall_share``, ``recall_season``, ``recall_slope``: the series' own history in the question bank at the
  question's date bound (:mod:`orrery.research.history`): the share of Yes of its earlier resolved questions, its
  own seasonal direction times the seasonal change, and its change per day carried over the horizon;
* ``block_season``: the seasonal change times the seasonal direction of the source's other series in the same
  block (a Météo-France station's WMO block: 07 metropolitan France, 61 the southern Indian Ocean islands, ...),
  learned from the training rows' resolutions, a row's own series left out (:meth:`BaseRates.block_direction`).

Which terms pay was decided by grouped cross-validation on the development rows (bench/research_calibration.md).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from orrery.research.anchors import SERIES_SOURCES, Series
from orrery.research.history import SeriesMemory, day_of, recall_terms, season_at

EPS = 1e-3  # probabilities are clipped to [EPS, 1-EPS] before a logit
L2 = 1.0  # ridge penalty on every weight but the intercept
VALUE_TERMS = ("horizon", "season", "trend", "momentum", "recall_share", "recall_season", "recall_slope")
TERMS = ("intercept", "template", *VALUE_TERMS, "block_season")
PRIOR = 4.0  # pseudo-questions pulling a template's share toward its source's
BLOCK_PRIOR = 2.0  # seasonal change of no direction added to a block's tally (a block of one question says little)
_BLOCK = re.compile(r"\.(\d{2})\d{3}\.")  # meteofrance_TEMPERATURE_celsius.61972.D -> 61
MAX_HORIZON_DAYS = 365
_NAME = re.compile(r"\b[A-Z][\w&.'\-]*(?:\s+[A-Z][\w&.'\-]*)*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\d{4}-\d{2}-\d{2}|[-+]?\d[\d,.]*%?")


def logit(p: float) -> float:
    p = min(max(float(p), EPS), 1 - EPS)
    return math.log(p / (1 - p))


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2) -> np.ndarray:
    """Penalised maximum likelihood (the intercept is not penalised)."""
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        nll = np.sum(np.logaddexp(0, z) - y * z) + 0.5 * np.sum(penalty * w * w)
        grad = x.T @ (expit(z) - y) + penalty * w  # expit: no overflow warning on a large step
        return float(nll), grad

    return minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B").x


# --------------------------------------------------------------------------- what is known of a question


@dataclass(frozen=True)
class SeriesCase:
    """What the base-rate model sees of one series question."""

    source: str
    template: str = ""
    horizon: float = 0.0  # log1p(days) / log1p(MAX_HORIZON_DAYS): 0 unknown, 1 a year
    season: float = 0.0  # seasonal curve at the resolution date minus at the forecast date, in [-2, 2]
    trend: float = 0.0  # sign of the series' last change
    momentum: float = 0.0  # relative change from the first value held to the last, in [-1, 1]
    recall_share: float = 0.0  # logit of the share of Yes of the series' earlier resolved questions
    recall_season: float = 0.0  # the series' own seasonal direction times `season`
    recall_slope: float = 0.0  # the series' relative change per day in the bank, over the horizon
    block: str = ""  # the series' block (a weather station's WMO block), "" when it has none

    def terms(self) -> list[float]:
        return [getattr(self, t) for t in VALUE_TERMS]


def template_of(question: str) -> str:
    """The question's first line with quoted terms, names, numbers and dates masked, lower-cased."""
    first = question.strip().splitlines()[0] if question.strip() else ""
    head, _, rest = first.partition(" ")  # the first word is capitalised as a sentence's
    masked = _NUMBER.sub("#", _NAME.sub("X", _QUOTED.sub("X", rest)))
    return " ".join(f"{head} {masked}".lower().split())


def block_of(source_id: Any) -> str:
    """A Météo-France station's WMO block (the station number's first two digits); "" for any other series."""
    m = _BLOCK.search(str(source_id or ""))
    return m[1] if m else ""


def momentum(series: Series | None) -> float:
    if series is None or len(series.values) < 2:
        return 0.0
    first, last = series.values[0][1], series.values[-1][1]
    scale = abs(first) + abs(last)
    return 0.0 if scale == 0 else max(-1.0, min(1.0, 2 * (last - first) / scale))


def series_case(
    source: str,
    row: Mapping[str, Any] | None = None,
    series: Series | None = None,
    memory: SeriesMemory | None = None,
) -> SeriesCase:
    """A question row's case (its dates and text) with the series values the sources hold, when found, and the
    series' history in the question bank (``memory``, recalled at the question's date bound)."""
    row = row or {}
    start = day_of(row.get("forecast_due_date") or row.get("freeze_date"))
    end = day_of(row.get("resolution_date"))
    days = (end - start).days if start and end and end >= start else None
    recalled = recall_terms(memory, start, end)
    return SeriesCase(
        source,
        template_of(str(row.get("question", ""))),
        0.0 if days is None else math.log1p(min(days, MAX_HORIZON_DAYS)) / math.log1p(MAX_HORIZON_DAYS),
        0.0 if days is None else season_at(end) - season_at(start),  # type: ignore[arg-type]
        0.0 if series is None else series.trend,
        momentum(series),
        recalled.share,
        recalled.season,
        recalled.slope,
        block_of(row.get("source_id")),
    )


# --------------------------------------------------------------------------- the model

# The term sets a source may use, smallest first; each source takes the smallest within TERM_MARGIN of the lowest
# Brier in a grouped cross-validation over its own training rows (a term that helps one source overfits another:
# bench/research_calibration.md, "Base-rate terms").
BASE_SETS: tuple[tuple[str, ...], ...] = (
    (),
    ("template",),
    ("template", "horizon", "season"),
    ("template", "horizon", "season", "trend", "momentum"),
)
RECALL_TERMS = ("recall_share", "recall_season", "recall_slope")
BLOCK_SETS: tuple[tuple[str, ...], ...] = (
    ("template", "horizon", "season", "block_season"),
    ("template", "horizon", "season", "trend", "momentum", "block_season"),
)
# The candidates: the base sets, the block sets, then each base set with each history term and with all three (a
# later set enters a source's model only where it beats the earlier ones in the inner CV by TERM_MARGIN).
CANDIDATE_SETS: tuple[tuple[str, ...], ...] = (
    *BASE_SETS,
    *BLOCK_SETS,
    *((*b, *r) for b in BASE_SETS[1:] for r in [*((t,) for t in RECALL_TERMS), RECALL_TERMS]),
)
OPTIONAL_TERMS = (*RECALL_TERMS, "block_season")
# The optional terms that earned their place by the rules in bench/research_calibration.md ("The series' own
# history", "Season by block"): the block's season did (dbnomics 0.235 -> 0.214 out of fold); no history term did
# on the development rows; they stay recalled (and in the trajectory) for a calibrator fitted on a longer bank.
KEPT_TERMS: tuple[str, ...] = ("block_season",)
TERM_SETS = tuple(s for s in CANDIDATE_SETS if set(s) & set(OPTIONAL_TERMS) <= set(KEPT_TERMS))
INNER_FOLDS = 5
TERM_MARGIN = 0.005  # the fewest terms whose inner CV Brier is within this of the best (more terms, more variance)


def masked(case: SeriesCase, keep: Sequence[str]) -> SeriesCase:
    """The case with the terms not in ``keep`` blanked (a blank template is its source's share)."""
    return SeriesCase(
        case.source,
        case.template if "template" in keep else "",
        *(getattr(case, t) if t in keep else 0.0 for t in VALUE_TERMS),
    )


@dataclass
class BaseRates:
    """Per source: the share of Yes, the templates' counts, the terms used and their logistic weights."""

    shares: dict[str, float] = field(default_factory=dict)
    templates: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # source -> template -> [yes, n]
    weights: dict[str, list[float]] = field(default_factory=dict)  # source -> weights over TERMS
    terms: dict[str, list[str]] = field(default_factory=dict)  # source -> the terms it uses
    # source -> block -> [sum of (2 outcome - 1) x seasonal change, sum of |seasonal change|]
    blocks: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    def template_rate(self, case: SeriesCase, own: Sequence[float] = (0.0, 0.0)) -> float:
        """The template's share, shrunk to the source's; ``own`` (yes, n) is taken out (a row's own question)."""
        share = self.shares.get(case.source, 0.5)
        yes, n = self.templates.get(case.source, {}).get(case.template, (0.0, 0.0)) if case.template else (0.0, 0.0)
        return (yes - own[0] + PRIOR * share) / (n - own[1] + PRIOR)

    def block_direction(self, case: SeriesCase, own: Sequence[float] = (0.0, 0.0)) -> float:
        """How the block's series moved with the northern seasonal curve, in [-1, 1] (shrunk by BLOCK_PRIOR);
        ``own`` (its tally) is taken out (a row's own series)."""
        votes, weight = self.blocks.get(case.source, {}).get(case.block, (0.0, 0.0)) if case.block else (0.0, 0.0)
        return (votes - own[0]) / (weight - own[1] + BLOCK_PRIOR)

    def row(
        self, case: SeriesCase, own: Sequence[float] = (0.0, 0.0), own_block: Sequence[float] = (0.0, 0.0)
    ) -> list[float]:
        keep = self.terms.get(case.source, TERMS)
        block = self.block_direction(case, own_block) * case.season if "block_season" in keep else 0.0
        case = masked(case, keep)
        return [1.0, logit(self.template_rate(case, own if case.template else (0.0, 0.0))), *case.terms(), block]

    def rate(self, case: SeriesCase) -> float:
        w = self.weights.get(case.source)
        if w is None:
            return self.shares.get(case.source, 0.5)
        return sigmoid(float(np.dot(w, self.row(case))))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BaseRates:
        """Also a plain ``{source: share}`` mapping (a share per source, nothing learned beyond it)."""
        if "shares" not in data:
            return cls(shares={str(k): float(v) for k, v in data.items()})
        return cls(
            dict(data["shares"]),
            {s: dict(t) for s, t in data.get("templates", {}).items()},
            {s: list(w) for s, w in data.get("weights", {}).items()},
            {s: list(t) for s, t in data.get("terms", {}).items()},
            {s: dict(b) for s, b in data.get("blocks", {}).items()},
        )


RateRow = tuple[str, "SeriesCase | str", float]  # (group, the case or just its source, outcome)
Case = tuple[str, SeriesCase, float]


def base_rates(rows: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Per source, the share of resolved series questions that resolved Yes, with one pseudo-count each way."""
    counts: dict[str, list[float]] = {}
    for source, outcome in rows:
        if source in SERIES_SOURCES:
            counts.setdefault(source, []).append(outcome)
    return {s: (sum(v) + 1) / (len(v) + 2) for s, v in sorted(counts.items())}


def fit_base_rates(rows: Iterable[RateRow], l2: float = L2) -> BaseRates:
    """Every series source's model, each with the term set its own inner cross-validation prefers."""
    cases = [(g, c if isinstance(c, SeriesCase) else SeriesCase(c), o) for g, c, o in rows]
    model = BaseRates()
    for source in sorted({c.source for _, c, _ in cases} & SERIES_SOURCES):
        mine = [r for r in cases if r[1].source == source]
        cv = [_cv_brier(mine, t, l2) for t in TERM_SETS]
        terms = next(t for t, b in zip(TERM_SETS, cv, strict=True) if b <= min(cv) + TERM_MARGIN)
        one = fit_source(mine, terms, l2)
        for name in ("shares", "templates", "weights", "terms", "blocks"):
            getattr(model, name).update(getattr(one, name))
    return model


def fit_source(cases: Sequence[Case], terms: Sequence[str], l2: float = L2) -> BaseRates:
    """One source's model on ``cases`` with ``terms``; each row sees its template's share and its block's
    direction without its own question's rows."""
    source = cases[0][1].source
    model = BaseRates(shares=base_rates((c.source, o) for _, c, o in cases), terms={source: list(terms)})
    own: dict[tuple[str, str], list[float]] = {}
    own_block: dict[tuple[str, str], list[float]] = {}
    counts, blocks = model.templates.setdefault(source, {}), model.blocks.setdefault(source, {})
    for g, c, o in cases:
        for tally in (counts.setdefault(c.template, [0.0, 0.0]), own.setdefault((c.template, g), [0.0, 0.0])):
            tally[0] += o
            tally[1] += 1
        for tally in (blocks.setdefault(c.block, [0.0, 0.0]), own_block.setdefault((c.block, g), [0.0, 0.0])):
            tally[0] += (2 * o - 1) * c.season
            tally[1] += abs(c.season)
    blocks.pop("", None)  # a series without a block has no direction to learn
    x = np.array([model.row(c, own[(c.template, g)], own_block[(c.block, g)]) for g, c, _ in cases])
    model.weights[source] = fit_logistic(x, np.array([o for _, _, o in cases]), l2).tolist()
    return model


def inner_fold(group: str) -> int:
    return int(hashlib.sha1(f"inner:{group}".encode()).hexdigest(), 16) % INNER_FOLDS


def _cv_brier(cases: Sequence[Case], terms: Sequence[str], l2: float) -> float:
    errors = []
    for k in range(INNER_FOLDS):
        train = [r for r in cases if inner_fold(r[0]) != k]
        held = [r for r in cases if inner_fold(r[0]) == k]
        if train and held:
            model = fit_source(train, terms, l2)
            errors += [(model.rate(c) - o) ** 2 for _, c, o in held]
    return sum(errors) / len(errors) if errors else math.inf
