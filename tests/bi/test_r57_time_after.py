"""Round 57 (bench/bi_r57.md): a time after the data. T1: 'next' before a time a few words on ('next holiday
season', 'next yr') and 'from now' are the future; 'next to', 'the next day', 'next-day' are not."""

from __future__ import annotations

import pytest

from orrery.bi.decline import future


@pytest.mark.parametrize(
    "question",
    [
        "projected chair sales next holiday season",
        "projected revenue for next yr",
        "revenue over the next 3 months",
        "budget for the next fiscal year",
        "Projected fertility rate for Ethiopia ten years from now?",
        "how many orders by next friday",
    ],
)
def test_a_time_a_few_words_after_next_or_from_now_is_the_future(question):
    assert future(question)


@pytest.mark.parametrize(
    "question",
    [
        "days a week watching the news: high-school grads next to some-college ppl",
        "how many orders shipped the next day",
        "total sales in the next-day shipping mode",
        "who shipped the next order after order 5",
        "average expected delivery date per region",
        "total projected revenue per region",
    ],
)
def test_next_to_the_next_day_and_a_projected_column_are_not_the_future(question):
    assert future(question) is None
