"""Numbers in text: the grounding check (every number in a narrative must come from a tool result, within rounding)
and the numbers a user writes as words."""

from __future__ import annotations

import re
from collections.abc import Iterable

_NUMBER = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|(?<![\w.])-?\d+(?:\.\d+)?%?")


def numbers_in(text: str) -> list[tuple[str, float]]:
    """(as written, value) for each number in `text`; thousands separators are understood."""
    return [(m.group(0), float(m.group(0).replace(",", "").rstrip("%"))) for m in _NUMBER.finditer(text)]


# Zero to ninety as words: the apps read 'four-cylinder', 'the last three months', 'more than fifteen'. A table, not a
# parser: text2num reads 'four cylinder' but not 'four-cylinder', and no parser says whether a number is written.
NUMBER_WORDS: dict[str, int] = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
} | {w: 10 * i for i, w in enumerate(["thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 3)}
_WRITTEN_NUMBER = re.compile(
    rf"\d|\b(?:{'|'.join(NUMBER_WORDS)}|hundred|thousand|million|billion|dozen|half|"
    r"(?:twen|thir|for|fif|six|seven|eigh|nine)ties)\b",
    re.IGNORECASE,
)


def number_words(text: str) -> set[int]:
    """The values of the numbers `text` writes as one word ('four-cylinder': 4)."""
    return {NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in NUMBER_WORDS}


def writes_a_number(text: str) -> bool:
    """Whether `text` writes a number at all: digits, a number word, 'a dozen', 'half', 'the eighties'."""
    return bool(_WRITTEN_NUMBER.search(text))


def _decimals(written: str) -> int:
    return len(written.split(".")[1]) if "." in written else 0


def ungrounded(narrative: str, sources: Iterable[str], allowed: Iterable[float] = ()) -> list[str]:
    """Numbers in `narrative` that match no number in `sources` at the precision they are written
    (12.35 matches 12.3456; 12 matches 12.4), nor one of `allowed`."""
    known = [v for s in sources for _, v in numbers_in(s)] + list(allowed)
    # A percentage is a claim of its own: it must be an allowed level (80%, 95%) or a tool's ratio x100,
    # not any tool number that happens to be near (a "10%" growth is not grounded by a count of 10).
    as_percent = list(allowed) + [100 * y for y in known if abs(y) <= 1.5]
    bad = []
    for written, x in numbers_in(narrative):
        tol = 0.5 * 10 ** -_decimals(written.rstrip("%")) + 1e-9
        pool = as_percent if written.endswith("%") else known
        if not any(abs(x - y) <= tol or abs(x + y) <= tol for y in pool):
            bad.append(written)
    return bad


def grounded_sentences(narrative: str, sources: Iterable[str], allowed: Iterable[float] = ()) -> tuple[str, list[str]]:
    """(the narrative without its sentences that quote an ungrounded number, the numbers those quoted)."""
    sources, allowed = list(sources), list(allowed)
    kept, bad = [], []
    for sentence in re.split(r"(?<=[.!?])\s+", narrative.strip()):
        wrong = ungrounded(sentence, sources, allowed)
        bad += wrong
        if sentence and not wrong:
            kept.append(sentence)
    return " ".join(kept), bad
