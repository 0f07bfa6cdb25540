"""What a market question says, read by rules: its dates and the window they make, the metric a comparison
ranks by, the screen conditions, the indicators it names.

Dates: ISO ("2012-06-29"), written ("June 15, 2010", "15 June 2010", "Jun 15th 2010"), months ("March 2012"),
years ("2011"). Windows: "between D1 and D2" / "from D1 to D2", a month or a year (its first to its last
trading day), "YTD" (January 1 of the date's year to the date), "52 weeks" (the 52 weeks ending on the date),
"over the last N days/weeks/months/years" (ending on the date). A date with none of these is a point in time.
Hand-written: dateutil and dateparser read one date from a string, not every date and range in a sentence.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

import pandas as pd

from orrery.grounding import NUMBER_WORDS

_MONTHS = (
    {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
    | {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
    | {"sept": 9}
)
_MONTH = r"(?P<{}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_DATE = re.compile(
    "|".join(
        [
            r"\b(?P<iy>(?:19|20)\d{2})-(?P<im>[01]\d)-(?P<id>[0-3]\d)\b",
            rf"\b{_MONTH.format('am')}\s+{_DAY.format('ad')},?\s+(?P<ay>(?:19|20)\d{{2}})\b",
            rf"\b{_DAY.format('bd')}\s+{_MONTH.format('bm')},?\s+(?P<by>(?:19|20)\d{{2}})\b",
            rf"\b{_MONTH.format('mm')},?\s+(?P<my>(?:19|20)\d{{2}})\b",
            r"(?<![\w-])(?P<yy>(?:19|20)\d{2})(?![\w-])",
        ]
    ),
    re.IGNORECASE,
)
_RANGE_WORDS = re.compile(r"\b(between|from)\b.+\b(and|to|through|until)\b", re.IGNORECASE)
_LAST_N = re.compile(
    rf"\b(?:last|past|over|trailing)\s+(?P<n>\d+|{'|'.join(w for w, i in NUMBER_WORDS.items() if i)})\s*"
    r"(?P<unit>days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Mention:
    kind: str  # day | month | year
    start: str  # YYYY-MM-DD: the day, or the first day of the month or year
    end: str  # the day, or the last day of the month or year


def dates_in(text: str) -> list[Mention]:
    """Every date, month and year the text names, in order."""
    out = []
    for m in _DATE.finditer(text):
        g = {k: v for k, v in m.groupdict().items() if v}
        if "my" in g:
            first = pd.Timestamp(int(g["my"]), _MONTHS[g["mm"].lower()], 1)
            out.append(Mention("month", _iso(first), _iso(first + pd.offsets.MonthEnd(0))))
        elif "yy" in g:
            out.append(Mention("year", f"{g['yy']}-01-01", f"{g['yy']}-12-31"))
        else:
            p = "i" if "iy" in g else "a" if "ay" in g else "b"
            month = int(g[p + "m"]) if p == "i" else _MONTHS[g[p + "m"].lower()]
            # kept as written even when it is no date ("February 30"): the tool then says so
            day = f"{g[p + 'y']}-{month:02d}-{int(g[p + 'd']):02d}"
            out.append(Mention("day", day, day))
    return out


def _iso(ts: pd.Timestamp) -> str:
    return ts.strftime("%Y-%m-%d")


@dataclass(frozen=True)
class Window:
    """A period (start..end) or a point in time (start None); `end` None = the last date in the data."""

    start: str | None
    end: str | None
    definition: str  # said in the answer
    kind: str = "point"  # point | range | month | year | ytd | 52w | last_n

    @property
    def point(self) -> bool:
        return self.kind == "point"


def window(text: str, anchor: str) -> Window:
    """The period or date the question asks about; `anchor` (the data's last date) ends a window the question
    leaves open ("YTD", "52-week high" with no date)."""
    low = text.lower()
    found = dates_in(text)
    days = [m for m in found if m.kind == "day"]
    on = days[-1].end if days else None
    end = on or anchor
    if re.search(r"\b(ytd|year[- ]to[- ]date)\b", low):
        start = f"{end[:4]}-01-01"
        return Window(start, end, f"YTD = from January 1 of {end[:4]} to {end} (from the year's first close)", "ytd")
    if re.search(r"\b52[- ]?(weeks?|wk)\b", low):
        start = _iso(pd.Timestamp(end) - pd.Timedelta(days=363))
        return Window(
            start,
            end,
            f"52 weeks ending {end} ({start} to {end}); the 52-week high / low is the highest / lowest close in it",
            "52w",
        )
    if m := _LAST_N.search(low):
        n, unit = NUMBER_WORDS.get(m.group("n")) or int(m.group("n")), m.group("unit").rstrip("s")
        if not days and found:  # "the last two months of 2012": they end with the year (or month) named
            end = min(found[-1].end, anchor)
        offset = {
            "day": pd.Timedelta(days=n),
            "week": pd.Timedelta(weeks=n),
            "month": pd.DateOffset(months=n),
            "year": pd.DateOffset(years=n),
        }[unit]
        start = _iso(pd.Timestamp(end) - offset + pd.Timedelta(days=1))
        return Window(start, end, f"the last {n} {unit}{'s' * (n != 1)} ending {end} ({start} to {end})", "last_n")
    if len(found) >= 2 and (_RANGE_WORDS.search(low) or len(days) == 2):
        a, b = found[0], found[-1]
        return Window(
            a.start,
            b.end,
            f"from the first close on or after {a.start} to the last close on or before {b.end}",
            "range",
        )
    if days:
        return Window(None, on, f"on {on} (the last close on or before it)")
    if found:
        m = found[-1]
        what = m.start[:7] if m.kind == "month" else m.start[:4]
        return Window(m.start, m.end, f"{what}: from its first close to its last ({m.start} to {m.end})", m.kind)
    return Window(None, None, "as of the last date in the data")


# -- what to compute -----------------------------------------------------------------------------------------
_LOWER = re.compile(
    r"\b(lower|lowest|worst|least|less|fell|dropped|declined|weakest|smallest|cheapest|"
    r"underperform\w*)\b",
    re.IGNORECASE,
)


def metric(text: str, point: bool) -> str:
    """What a comparison ranks by: return, volatility, max_drawdown, or a field on the date (close, rsi_14...)."""
    low = text.lower()
    if re.search(r"volatil", low):
        return "volatility"
    if "drawdown" in low:
        return "max_drawdown"
    if m := re.search(r"\b(?:(\d+)[- ]day )?rsi(?:[ (-]*(\d+)\)?)?", low):
        return f"rsi_{m.group(1) or m.group(2) or 14}"
    if re.search(r"\b52[- ]?(weeks?|wk) high\b", low):
        return "high_52w"
    if re.search(r"\b52[- ]?(weeks?|wk) low\b", low):
        return "low_52w"
    if re.search(r"\b(volume)\b", low):
        return "volume"
    if point and re.search(r"\b(close[ds]?|closing|price|trad\w+ at|worth)\b", low):
        return "close"
    return "return"


def lowest(text: str) -> bool:
    """Whether the question asks for the lowest value ("which fell more", "the worst return")."""
    low = text.lower()
    if re.search(r"\b(fell|dropped|declined|lost) (the )?(most|more)\b", low):
        return True
    return bool(_LOWER.search(low)) and not re.search(r"\b(higher|highest|best|more|most|gained|rose)\b", low)


_OP = r"(?P<op>below|under|less than|lower than|above|over|greater than|more than|higher than|<=|>=|<|>)"
_CONDITIONS = [
    re.compile(
        rf"\b(?:(?P<n>\d+)[- ]day )?rsi(?:[ (-]*(?P<n2>\d+)\)?)?\s*(?:of |is |was |were |reading )?{_OP}\s*"
        rf"(?P<x>\d+(?:\.\d+)?)",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\b(?:close[ds]?|price[sd]?|trad(?:ed|ing))\s+(?:is |was |were )?{_OP}\s+(?:their|its|the)\s+"
        r"(?P<ma>(?P<k>\d+)[- ]day (?:simple |exponential )?(?:moving average|sma|ema|ma)|(?:sma|ema)[ _-]?\d+)",
        re.IGNORECASE,
    ),
]


def conditions(text: str) -> list[str]:
    """Screen conditions the question states, as the screener reads them ("rsi_14 < 30", "close > sma_50")."""
    from orrery.markets.screener import field_name

    out = []
    for pattern in _CONDITIONS:
        for m in pattern.finditer(text):
            op = m.group("op").lower()
            sign = "<" if op.startswith(("below", "under", "less", "lower", "<")) else ">"
            sign += "=" if op.endswith("=") else ""
            if "x" in m.groupdict():
                out.append(f"rsi_{m.group('n') or m.group('n2') or 14} {sign} {m.group('x')}")
            else:
                out.append(f"close {sign} {field_name(m.group('ma'))}")
    return list(dict.fromkeys(out))


_INDICATORS = {
    "RSI": r"\brsi\b|overbought|oversold|momentum",
    "MACD": r"\bmacd\b",
    "BBANDS": r"bollinger|bbands",
    "SMA": r"\bsma\b|moving average",
    "EMA": r"\bema\b|exponential",
    "ATR": r"\batr\b|average true range",
    "STOCH": r"stochastic|\bstoch\b|overbought|oversold",
    "ADX": r"\badx\b",
    "OBV": r"\bobv\b|on[- ]balance",
}


def indicators(text: str) -> tuple[list[str], int | None]:
    """The indicators the question names (else RSI, MACD and SMA) and the one period it gives, if any."""
    low = text.lower()
    names = [k for k, p in _INDICATORS.items() if re.search(p, low)] or ["RSI", "MACD", "SMA"]
    m = re.search(r"\b(\d+)[- ]day\b|\b(?:rsi|sma|ema|atr|adx)[ (-]*(\d+)\b", low)
    return names, int(m.group(1) or m.group(2)) if m else None
