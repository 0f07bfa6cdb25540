"""Screener conditions in plain words -> comparisons of fields on each symbol's last bar.

"RSI < 30", "close above SMA200", "volume 2x its 20-day mean", "rsi_14 >= 70", "close > 1.1 x sma_50".
A side is a number, a field, or a multiple of a field; fields are those of `analysis.field_value`.
Written by hand: the phrases are ours, and no library parses trading conditions in words.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from orrery.errors import DataError
from orrery.markets.analysis import FIELDS, field_value

OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "=": lambda a, b: abs(a - b) < 1e-9,
}
_WORD_OPS = [
    (r"\bis at least\b|\bat least\b", ">="),
    (r"\bis at most\b|\bat most\b", "<="),
    (r"\b(?:is )?(?:above|over|greater than|more than|higher than)\b", ">"),
    (r"\b(?:is )?(?:below|under|less than|lower than)\b", "<"),
    (r"==", "="),
]
_MULTIPLE = re.compile(
    r"^(?P<field>[\w %]+?)\s+(?:is\s+)?(?:at least\s+)?(?P<k>\d+(?:\.\d+)?)\s*(?:x|times)\s+"
    r"(?:its|the)?\s*(?P<n>\d+)[- ]?day\s+(?:mean|average|avg)(?:\s+volume)?$"
)
_SIDE = re.compile(r"^(?:(?P<k>\d+(?:\.\d+)?)\s*(?:x|\*|times)\s*)?(?P<field>.+)$")
_SYNONYMS = {
    "price": "close",
    "last": "close",
    "close price": "close",
    "last price": "close",
    "stochastic": "stoch_k",
    "stoch": "stoch_k",
    "%k": "stoch_k",
    "%d": "stoch_d",
    "upper band": "bb_upper",
    "upper bollinger band": "bb_upper",
    "bollinger upper": "bb_upper",
    "lower band": "bb_lower",
    "lower bollinger band": "bb_lower",
    "bollinger lower": "bb_lower",
    "macd signal": "macd_signal",
    "signal": "macd_signal",
    "macd histogram": "macd_hist",
    "change": "change_pct",
    "daily change": "change_pct",
    "52 week high": "high_52w",
    "52-week high": "high_52w",
    "52 week low": "low_52w",
    "52-week low": "low_52w",
    "volatility": "volatility_pct",
    "1 month return": "return_1m_pct",
    "1y return": "return_1y_pct",
    "rsi": "rsi_14",
    "atr": "atr_14",
    "adx": "adx_14",
    "sma": "sma_50",
    "ema": "ema_50",
    "moving average": "sma_50",
}


@dataclass(frozen=True)
class Side:
    field: str | None  # None: a constant
    k: float  # the multiple of the field, or the constant

    def value(self, df: pd.DataFrame) -> float | None:
        if self.field is None:
            return self.k
        v = field_value(df, self.field)
        return None if v is None else self.k * v

    def __str__(self) -> str:
        return f"{self.k:g}" if self.field is None else (self.field if self.k == 1 else f"{self.k:g} x {self.field}")


@dataclass(frozen=True)
class Condition:
    left: Side
    op: str
    right: Side

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"

    def check(self, df: pd.DataFrame) -> tuple[bool, float | None, float | None]:
        a, b = self.left.value(df), self.right.value(df)
        return (a is not None and b is not None and OPS[self.op](a, b)), a, b


def field_name(text: str) -> str:
    s = re.sub(r"[()]", " ", text.strip().lower())
    s = re.sub(r"\b(its|the|a)\b", " ", s)
    s = re.sub(r"\s+", " ", s).strip()
    if s in _SYNONYMS:
        return _SYNONYMS[s]
    if m := re.fullmatch(r"(rsi|sma|ema|atr|adx|ma)\s*[_-]?\s*(\d+)", s):
        return f"{'sma' if m.group(1) == 'ma' else m.group(1)}_{m.group(2)}"
    if m := re.fullmatch(
        r"(\d+)[- ]?day (sma|ema|moving average|ma|simple moving average|exponential moving average)", s
    ):
        return f"{'ema' if m.group(2)[0] == 'e' else 'sma'}_{m.group(1)}"
    if m := re.fullmatch(r"(\d+)[- ]?day (?:mean|average|avg) volume|volume (?:sma|mean|average)[_ ]?(\d+)", s):
        return f"volume_sma_{m.group(1) or m.group(2)}"
    if s in FIELDS or re.fullmatch(r"(rsi|sma|ema|atr|adx|volume_sma)_\d+", s):
        return s
    raise DataError(
        f"unknown field {text.strip()!r} in a screener condition; use e.g. rsi, sma_200, close, "
        f"volume, macd, adx (all: {', '.join(FIELDS)}; N = a period)"
    )


def _side(text: str) -> Side:
    s = text.strip()
    try:
        return Side(None, float(s.rstrip("%")))
    except ValueError:
        pass
    m = _SIDE.match(s.lower())
    assert m is not None  # the pattern matches any non-empty text
    return Side(field_name(m.group("field")), float(m.group("k") or 1))


def parse(text: str) -> Condition:
    """One condition in words or symbols; DataError (with examples) when it cannot be read."""
    s = re.sub(r"\s+", " ", text.strip().lower())
    if m := _MULTIPLE.match(s):
        f = field_name(m.group("field"))
        base = f"volume_sma_{m.group('n')}" if f == "volume" else f"sma_{m.group('n')}"
        return Condition(Side(f, 1), ">=", Side(base, float(m.group("k"))))
    for pattern, op in _WORD_OPS:
        s = re.sub(pattern, f" {op} ", s)
    m = re.match(r"^(.+?)\s*(>=|<=|>|<|=)\s*(.+)$", s)
    if not m:
        raise DataError(
            f"cannot read the condition {text!r}; write it like 'RSI < 30', 'close above SMA200' or "
            "'volume 2x its 20-day mean'"
        )
    return Condition(_side(m.group(1)), m.group(2), _side(m.group(3)))


def distance(cond: Condition, a: float | None, b: float | None) -> float:
    """How far a symbol is from meeting `cond`, relative to the right side (0 when met)."""
    if a is None or b is None:
        return float("inf")
    if OPS[cond.op](a, b):
        return 0.0
    return abs(a - b) / max(abs(b), 1e-9)
