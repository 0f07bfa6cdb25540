"""Pooling and calibration on synthetic forecasts with known answers; the calibrator file; anchors."""

from __future__ import annotations

import inspect
import json
import math
import random
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from orrery.research.anchors import Anchors, find_anchors
from orrery.research.baserates import base_rates
from orrery.research.calibration import (
    COIN_GUARDS,
    FORMAT,
    GUARDS,
    METHODS,
    VERSION,
    CalibrationError,
    Calibrator,
    Example,
    Features,
    choose,
    choose_guard,
    exceed_risk,
    fit,
    fit_one,
    load_calibrator,
    logit,
    mean_brier,
    out_of_fold,
    pick_rung,
    pool,
    sigmoid,
)
from orrery.research.types import Document


def test_pool_is_the_mean_logit_and_its_spread() -> None:
    p = pool([0.9, 0.5, 0.1])
    assert p.probability == pytest.approx(0.5)
    assert p.spread == pytest.approx(math.sqrt(2 / 3) * logit(0.9))
    assert pool([0.8, 0.8]).spread == pytest.approx(0.0)
    assert pool([0.8, 0.8]).probability == pytest.approx(0.8)
    # in logit space, not probability space: two confident Yes and one No stay on the Yes side
    assert pool([0.99, 0.99, 0.2]).probability > (0.99 + 0.99 + 0.2) / 3
    assert pool([0.35]).probability == 0.35  # one trial is its own figure


def overconfident(n: int, seed: int = 1) -> list[Example]:
    """A forecaster whose logits are 4x too extreme: the truth is sigmoid(z), it says sigmoid(4z)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        z = rng.gauss(0, 1)
        outcome = float(rng.random() < sigmoid(z))
        out.append(Example(Features(sigmoid(4 * z)), outcome, f"q{i}"))
    return out


def test_a_calibrator_fitted_on_overconfident_forecasts_lowers_their_brier() -> None:
    train, test = overconfident(400, seed=1), overconfident(400, seed=2)
    calib = fit(train, [], "m")
    outcomes = [e.outcome for e in test]
    raw = mean_brier([e.features.agent for e in test], outcomes)
    calibrated = mean_brier([calib.apply(e.features) for e in test], outcomes)
    assert calibrated < raw - 0.02
    if calib.method == "platt":  # it learns to shrink: about a quarter of the logit
        assert 0.1 < calib.weights["agent"] < 0.45
    assert set(calib.fitted_on["cv_brier"]) == set(METHODS)


def test_the_market_anchor_gets_the_weight_when_the_agent_says_nothing() -> None:
    rng = random.Random(3)
    examples = []
    for i in range(300):
        market = rng.uniform(0.02, 0.98)
        examples.append(Example(Features(0.99, market=market), float(rng.random() < market), f"m{i}"))
    calib = fit(examples, [], "m")
    test = [Features(0.99, market=m) for m in (0.1, 0.5, 0.9)]
    got = [calib.apply(f) for f in test]
    assert got == sorted(got) and got[0] < 0.25 and got[2] > 0.75


def test_series_questions_get_their_sources_base_rate_learned_out_of_fold() -> None:
    rng = random.Random(4)
    rows = [(f"fred/{i}", "fred", float(rng.random() < 0.7)) for i in range(200)]
    rows += [(f"acled/{i}", "acled", float(rng.random() < 0.15)) for i in range(200)]
    assert base_rates((s, o) for _, s, o in rows) == pytest.approx({"acled": 0.15, "fred": 0.7}, abs=0.07)
    examples = [Example(Features(0.99, series=s), o, g) for g, s, o in rows]
    oof = out_of_fold(examples, rows, "platt")
    by = {s: [p for p, e in zip(oof, examples, strict=True) if e.features.series == s] for s in ("fred", "acled")}
    assert 0.55 < sum(by["fred"]) / 200 < 0.85 and 0.05 < sum(by["acled"]) / 200 < 0.3
    assert mean_brier(oof, [e.outcome for e in examples]) < 0.22  # a coin scores 0.25, the agent's 0.99 ~0.56


def two_sources(n: int, seed: int) -> list[Example]:
    """Two sources whose truth is sigmoid(z): "steady" says sigmoid(z) (calibrated), "wild" says sigmoid(-z) (its
    figure points the wrong way). One global calibration cannot fix both."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        source = "steady" if i % 2 else "wild"
        z = rng.gauss(0, 1.5)
        said = sigmoid(z) if source == "steady" else sigmoid(-z)
        out.append(Example(Features(said, source=source), float(rng.random() < sigmoid(z)), f"{source}{i}"))
    return out


def test_hierarchical_platt_fixes_a_source_miscalibrated_differently_from_the_others() -> None:
    train, test = two_sources(300, seed=3), two_sources(300, seed=4)
    outcomes = [e.outcome for e in test]
    wild = [i for i, e in enumerate(test) if e.features.source == "wild"]

    def briers(calib: Calibrator) -> tuple[float, float]:
        ps = [calib.apply(e.features) for e in test]
        return mean_brier(ps, outcomes), mean_brier([ps[i] for i in wild], [outcomes[i] for i in wild])

    platt, hier = fit_one(train, [], "platt", "m"), fit_one(train, [], "hierarchical", "m")
    (p_all, p_wild), (h_all, h_wild) = briers(platt), briers(hier)
    assert h_wild < p_wild - 0.05 and h_all < p_all - 0.04
    assert h_wild < 0.21 < 0.25 < p_wild  # the global fit does worse than a coin on the wild source
    assert (
        hier.weights["agent"] + hier.by_source["wild"]["agent"]
        < 0
        < hier.weights["agent"] + hier.by_source["steady"]["agent"]
    )
    assert hier.pooling in (1.0, 3.0, 10.0, 30.0)  # the inner CV let the sources part
    chosen = fit(train, [], "m")  # the rule picks it: its worst source is far better
    assert chosen.method == "hierarchical" and chosen.fitted_on["cv_worst_source"]["hierarchical"] < 0.2


def test_hierarchical_platt_stays_near_the_global_fit_when_sources_agree() -> None:
    train = [
        Example(replace(e.features, source="a" if i % 2 else "b"), e.outcome, e.group)
        for i, e in enumerate(overconfident(400, seed=5))
    ]
    hier, platt = fit_one(train, [], "hierarchical", "m"), fit_one(train, [], "platt", "m")
    for s in ("a", "b"):
        assert abs(hier.by_source[s]["agent"]) < 0.1 and abs(hier.by_source[s]["intercept"]) < 0.1
    assert hier.apply(Features(0.9, source="a")) == pytest.approx(platt.apply(Features(0.9)), abs=0.03)
    assert hier.apply(Features(0.9, source="unseen")) == pytest.approx(platt.apply(Features(0.9)), abs=0.03)


def signal_and_noise(n: int, seed: int) -> list[Example]:
    """Two sources: "signal"'s figure is the truth (sigmoid(z)); "noise"'s figure is as confident but unrelated to
    its outcomes, which resolve Yes three times in ten; one row in four is "noise". One global calibration gives
    both the same confidence."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        z = rng.gauss(0, 2)
        if i % 4:
            out.append(Example(Features(sigmoid(z), source="signal"), float(rng.random() < sigmoid(z)), f"s{i}"))
        else:
            out.append(Example(Features(sigmoid(z), source="noise"), float(rng.random() < 0.3), f"n{i}"))
    return out


@pytest.mark.parametrize("rule", ["best", "one_se"])
def test_the_guard_pulls_a_source_without_signal_to_its_base_rate_and_keeps_a_source_with_signal(rule: str) -> None:
    train, test = signal_and_noise(800, seed=7), signal_and_noise(800, seed=8)
    plain, guarded = fit_one(train, [], "platt", "m"), fit_one(train, [], "platt", "m", guard=rule)
    assert guarded.guard["noise"]["keep"] <= 0.25 and guarded.guard["signal"]["keep"] == 1.0
    assert guarded.guard["noise"]["target"] == pytest.approx(0.3, abs=0.06)  # its share of Yes, not a coin's 0.5

    def brier(calib: Calibrator, source: str) -> float:
        rows = [e for e in test if e.features.source == source]
        return mean_brier([calib.apply(e.features) for e in rows], [e.outcome for e in rows])

    assert brier(plain, "noise") > 0.25  # the global fit's confidence costs more than a coin on it
    assert brier(guarded, "noise") < 0.23 < brier(plain, "noise") - 0.03  # at its share's Brier (0.21)
    assert brier(guarded, "signal") == pytest.approx(brier(plain, "signal"))  # kept as it was
    assert brier(guarded, "signal") < 0.18
    assert guarded.apply(Features(0.9, source="unseen")) == plain.apply(Features(0.9, source="unseen"))


def test_fit_picks_the_guard_by_cross_validation_and_records_it() -> None:
    calib = fit(signal_and_noise(400, seed=9), [], "m", methods=["platt"])
    cv = calib.fitted_on["cv_guard"]
    assert set(cv) == set(GUARDS) and calib.guard_rule in ("best", "one_se")
    assert cv[calib.guard_rule]["noise"] < 0.23 < cv["none"]["noise"]  # out of fold, the guard's gain
    assert calib.guard["noise"]["keep"] <= 0.25


def test_the_exceed_risk_is_the_chance_a_small_sample_scores_above_a_coin() -> None:
    """One row a question, Yes three times in five, each answered 0.6: 17 drawn questions score above 0.25 when
    fewer than 0.55 of them resolve Yes (9 or fewer of 17), a binomial chance of about 0.36."""
    outcomes = [1.0] * 300 + [0.0] * 200
    errors, groups = [(0.6 - y) ** 2 for y in outcomes], [f"q{i}" for i in range(500)]
    expected = sum(math.comb(17, x) * 0.6**x * 0.4 ** (17 - x) for x in range(10))
    assert exceed_risk(errors, groups) == pytest.approx(expected, abs=0.04)
    assert exceed_risk([0.25] * 500, groups) == 0.0  # a coin scores 0.25 on any sample: never above
    assert exceed_risk([0.01] * 500, groups) == 0.0
    # grouped by question: one question's many rows are drawn as one question, not as many
    many = [0.9] * 200 + [0.01] * 10
    one_heavy = ["heavy"] * 200 + [f"q{i}" for i in range(10)]
    assert exceed_risk(many, one_heavy) < 0.5 < exceed_risk(many, [f"r{i}" for i in range(210)])


def no_signal(source: str, share: float, n: int, seed: int) -> list[Example]:
    """A source whose figures carry nothing about its outcomes, which resolve Yes ``share`` of the time; every
    question has three rows (resolution dates) with one outcome."""
    rng = random.Random(seed)
    out = []
    for q in range(n):
        outcome = float(rng.random() < share)
        out += [Example(Features(rng.uniform(0.05, 0.95), source=source), outcome, f"{source}{q}")] * 3
    return out


def test_the_worst_case_guard_answers_a_coin_where_the_share_is_uncertain_and_keeps_a_clear_share() -> None:
    train = no_signal("unsure", 0.6, 60, seed=1) + no_signal("clear", 0.1, 60, seed=2)
    train += [e for e in signal_and_noise(400, seed=3) if e.features.source == "signal"]
    best, risk = fit_one(train, [], "platt", "m", guard="best"), fit_one(train, [], "platt", "m", guard="risk_0.1")
    assert best.guard["unsure"]["target"] > 0.55 and best.guard["unsure"]["keep"] == 0.0  # its share of Yes
    assert risk.guard["unsure"] == {"target": 0.5, "keep": 0.0}  # a sample of 17 could well score above a coin
    assert risk.guard["clear"]["target"] == pytest.approx(0.1, abs=0.06) and risk.guard["clear"]["keep"] <= 0.25
    assert risk.guard["signal"]["keep"] == 1.0  # a source with signal keeps its figure
    assert risk.apply(Features(0.9, source="unsure")) == 0.5


def test_the_coin_rule_keeps_the_best_rung_or_answers_a_coin_never_a_figure_near_one() -> None:
    """Forty questions resolving Yes six times in ten: a figure of 0.55 beats a coin on average but a sample of 17
    with fewer Yes scores above it; a rung always a little under 0.25 is never above it."""
    groups = [f"q{i}" for i in range(40)]
    outcomes = np.array([1.0] * 24 + [0.0] * 16)
    coin, risky = np.full(40, 0.25), (0.55 - outcomes) ** 2
    timid = np.full(40, 0.249)  # a hair better than a coin on every sample (risk 0), worse than `risky` on average
    strong = np.full(40, 0.05)
    errors = np.array([coin, timid, risky])
    assert exceed_risk(risky, groups) > 0.2
    assert pick_rung(errors, groups, "best") == 2
    assert pick_rung(errors, groups, "risk_0.1") == 1  # the lowest-Brier rung within the risk: near a coin
    assert pick_rung(errors, groups, "coin_0.1") == 0  # the best rung is too risky: a coin, nothing between
    assert pick_rung(errors, groups, "coin_0.5") == 2  # within a looser level the best rung stays
    assert pick_rung(np.array([coin, timid, risky, strong]), groups, "coin_0.1") == 3


def test_the_coin_guard_answers_a_coin_for_an_uncertain_source_and_keeps_one_with_signal() -> None:
    train = no_signal("unsure", 0.6, 60, seed=1) + no_signal("clear", 0.1, 60, seed=2)
    train += [e for e in signal_and_noise(400, seed=3) if e.features.source == "signal"]
    calib = fit_one(train, [], "platt", "m", guard=COIN_GUARDS[0])
    assert calib.guard["unsure"] == {"target": 0.5, "keep": 0.0}
    assert calib.apply(Features(0.9, source="unsure")) == 0.5
    assert calib.guard["clear"]["target"] == pytest.approx(0.1, abs=0.06)  # a clear share is no risk: kept
    assert calib.guard["signal"]["keep"] == 1.0


def test_choose_guard_takes_the_most_protective_level_within_the_cost() -> None:
    counts = {"x": 50, "y": 50}
    cv = {
        "one_se": {"all": 0.180, "x": 0.25, "y": 0.10},
        "best": {"all": 0.170, "x": 0.24, "y": 0.10},
        "none": {"all": 0.171, "x": 0.245, "y": 0.10},
        "risk_0.05": {"all": 0.180, "x": 0.25, "y": 0.11},  # costs 0.010 overall: too much
        "risk_0.1": {"all": 0.174, "x": 0.25, "y": 0.10},
        "risk_0.2": {"all": 0.171, "x": 0.245, "y": 0.10},
    }
    risks = {g: {"x": 0.4, "y": 0.0} for g in cv}
    risks.update({"risk_0.05": {"x": 0.0, "y": 0.0}, "risk_0.1": {"x": 0.05, "y": 0.0}, "risk_0.2": {"x": 0.2, "y": 0}})
    assert choose_guard(cv, risks, counts) == "risk_0.1"
    cv["risk_0.1"]["all"] = 0.176
    assert choose_guard(cv, risks, counts) == "risk_0.2"
    risks["risk_0.2"]["x"] = 0.4  # no lower risk than the baseline's: the baseline stays
    assert choose_guard(cv, risks, counts) == "best"


def test_the_shipped_calibrator_pools_the_agents_default_number_of_trials() -> None:
    from orrery.research.agent import DEFAULT_TRIALS, SHIPPED_CALIBRATION
    from orrery.research.cli import ask, batch

    shipped = load_calibrator(SHIPPED_CALIBRATION, "local")
    assert shipped.trials == DEFAULT_TRIALS  # the bench's k rule and the agent agree
    for command in (ask, batch):  # and the CLI's default
        assert inspect.signature(command).parameters["trials"].default == DEFAULT_TRIALS
    assert shipped.guard_rule in GUARDS and set(shipped.fitted_on["cv_risk"]) == set(GUARDS)


def test_one_standard_error_takes_the_most_conservative_rung_within_reach_of_the_best() -> None:
    groups = [f"q{i}" for i in range(8)]
    coin = np.full(8, 0.25)
    close = coin - np.array([0.05, -0.04, 0.06, -0.03, 0.02, -0.05, 0.07, 0.0])  # a little better, noisily
    far = np.full(8, 0.05)  # far better on every question
    assert pick_rung(np.array([coin, close]), groups, "best") == 1
    assert pick_rung(np.array([coin, close]), groups, "one_se") == 0  # within one SE of it: the coin
    assert pick_rung(np.array([coin, close, far]), groups, "one_se") == 2


def test_the_choice_rule_takes_the_worst_source_first_then_overall_then_the_simplest() -> None:
    cv = {
        "platt": {"all": 0.150, "x": 0.27, "y": 0.10},
        "isotonic": {"all": 0.149, "x": 0.268, "y": 0.10},
        "hierarchical": {"all": 0.160, "x": 0.24, "y": 0.12},
    }
    assert choose(cv) == "hierarchical"
    cv["hierarchical"]["x"] = 0.269  # within the margin of the others now: overall decides, then the simpler
    assert choose(cv) == "platt"
    assert choose(cv, counts={"x": 3, "y": 50}) == "platt"  # a source with too few rows is not judged


def test_out_of_fold_never_sees_the_outcome_it_scores() -> None:
    """One group whose outcome disagrees with everything else: scored out of fold it cannot be fitted."""
    examples = [Example(Features(0.3), 0.0, f"g{i}") for i in range(40)]
    examples += [Example(Features(0.9), 1.0, "odd"), Example(Features(0.9), 1.0, "odd")]
    oof = out_of_fold(examples, [], "isotonic")
    assert all(p < 0.1 for p in oof[-2:])  # every other 0.3-or-0.9 question resolved No


def test_the_calibrator_file_is_versioned_and_names_its_model(tmp_path: Path) -> None:
    calib = fit(overconfident(60), [("fred/1", "fred", 1.0)], "local", trials=3)
    path = calib.save(tmp_path / "calib.json")
    data = json.loads(path.read_text())
    assert (data["format"], data["version"], data["model"], data["trials"]) == (FORMAT, VERSION, "local", 3)
    again = load_calibrator(path, "local")
    assert again.apply(Features(0.9)) == calib.apply(Features(0.9))
    with pytest.raises(CalibrationError, match="fitted for model 'local', not 'openai-x'") as exc:
        load_calibrator(path, "openai-x")
    assert "\n" not in str(exc.value)
    for old in (1, 2, 3, 4, 5, 99):  # 1: one share; 2: no per-source weights; 3: no guard; 4: no history; 5: no risk
        path.write_text(json.dumps({**data, "version": old}))
        with pytest.raises(CalibrationError, match=f"version {old}, this orrery reads version {VERSION}: refit"):
            load_calibrator(path)
    bad_guards = [
        {"target": 0.6},
        {"target": 0.6, "keep": 1.0, "x": 1},
        {"target": 1.0, "keep": 0},
        {"target": 0.6, "keep": "1"},
    ]
    for guard in ({"fred": g} for g in bad_guards):
        path.write_text(json.dumps({**data, "guard": guard, "guard_rule": "best"}))
        with pytest.raises(CalibrationError, match="damaged calibrator file .method, weights or guard.; refit"):
            load_calibrator(path)
    path.write_text('{"probability": 0.3}')
    with pytest.raises(CalibrationError, match="not a calibrator file"):
        load_calibrator(path)


def test_fit_refuses_too_few_questions() -> None:
    with pytest.raises(Exception, match="at least 10 resolved questions"):
        fit(overconfident(6), [], "m")


QUESTION = "Will Zohran Mamdani win second place in the 2025 NYC mayoral election?"
MARKET_DOC = Document(
    "fb-val-polymarket-1",
    f"Polymarket market on 2025-10-16: {QUESTION}",
    f'On 2025-10-16 the Polymarket market for "{QUESTION}" stood at 0.105 (10.5% chance of Yes). (The market '
    "price.)\nSource: https://polymarket.com/m/1",
    datetime(2025, 10, 16, tzinfo=UTC),
    "https://polymarket.com/m/1",
    "forecastbench/polymarket",
)


def series_doc(day: int, value: float, ticker: str = "TMO") -> Document:
    q = f"Will {ticker}'s market close price on the resolution date be higher than its market close price on 2025-10-{day:02d}?"
    return Document(
        f"v-{ticker}-{day}",
        f"Yahoo Finance quote on 2025-10-{day:02d}: {q}",
        f'On 2025-10-{day:02d}, Yahoo Finance quote value for "{q}": {value}. (The latest close.)',
        datetime(2025, 10, day, tzinfo=UTC),
        "",
        "forecastbench/yfinance",
    )


def test_anchors_are_extracted_from_a_board_source() -> None:
    a = find_anchors(QUESTION, [MARKET_DOC, series_doc(1, 5.0)])
    assert a.market is not None and (a.market.probability, a.market.doc_id) == (0.105, "fb-val-polymarket-1")
    assert a.series is None  # another question's series
    assert "0.105" in a.describe()
    assert find_anchors("Will Bob win the 2025 NYC mayoral election?", [MARKET_DOC]).market is None


def test_series_values_are_collected_oldest_first_with_their_trend() -> None:
    asked = "Will TMO's market close price on 2025-11-02 be higher than its market close price on 2025-10-26?\n\nSplits"
    docs = [series_doc(9, 530.0), series_doc(2, 520.0), series_doc(16, 527.87), series_doc(16, 99.0, "AAPL")]
    a = find_anchors(asked, docs)
    assert a.market is None and a.series is not None
    assert a.series.source == "yfinance"
    assert [v for _, v in a.series.values] == [520.0, 530.0, 527.87] and a.series.trend == -1.0
    again = Anchors.from_dict(json.loads(json.dumps(a.to_dict())))
    assert again.series is not None and again.series.values == a.series.values


def test_features_take_the_rows_source_when_no_series_document_was_found() -> None:
    assert Features.of(0.9, Anchors(), "fred").series == "fred"
    assert Features.of(0.9, Anchors(), "polymarket").series is None
    calib = Calibrator("m", "platt", {"intercept": 0.0, "base_rate": 1.0, "has_series": 0.0}, {"fred": 0.8})
    assert calib.apply(Features.of(0.5, Anchors(), "fred")) == pytest.approx(0.8)


def test_a_constant_agent_figure_is_centred_so_it_shifts_nothing() -> None:
    """Rows without a forecast teach the base rate; a model that always says 0.99 must not move it."""
    rng = random.Random(5)
    rows = [Example(Features(None), float(rng.random() < 0.2), f"b{i}") for i in range(300)]
    rows += [Example(Features(0.99), float(i % 5 == 0), f"a{i}") for i in range(20)]  # also 20% Yes
    calib = fit(rows, [], "m")
    assert calib.agent_center == pytest.approx(logit(0.99))
    assert calib.apply(Features(0.99)) == pytest.approx(calib.apply(Features(None)), abs=0.01)
    assert 0.12 < calib.apply(Features(0.99)) < 0.3
