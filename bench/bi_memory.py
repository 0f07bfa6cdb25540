"""Execution accuracy of the BI agent with an empty example memory vs a memory of approved answers, side by side.

One run, the embedded model, a set's questions with gold SQL (`--set dev`: bench/bi_questions.py's dev set,
interleaved Chinook / TPC-H as bench/bi.py orders it; `--set nokeys`: the no-key development set of
bench/bi_nokeys_questions.py as bench/bi_nokeys.py orders it, its unanswerable questions too with
`--unanswerable`), `--start` / `--limit` a stated subset on the shared machine:
1. memory off: each question answered by a fresh agent (`clarify=False`, `prose=False`, as bench/bi.py), scored
   by bench/bi.py's execution match (an unanswerable question is right when declined with no SQL). The anchor.
2. the memory is filled by approving the answers of step 1 to answerable questions that were right (question ->
   the SQL the agent ran), per database, in a fresh store with MiniLM vectors (fused search, the agent's default).
3. memory on: the same questions again, each agent given that memory as `bi_agent` gives it (the k nearest
   approved pairs of its database shown to the plan step and the SQL step, and a term an approved nearby question
   used counting as held by the decline judgment), leave-one-out (a question never retrieves its own pair).
The rule, fixed before the runs it is measured on: k=3, similarity floor 0.3 (MiniLM cosine). Both were set in the
previous round on the dev set's first 24 questions with gold SQL (`first24`: its one misleading example scored
0.04) and kept unchanged when the examples were also given to the plan and decline steps; the runs `nokeys` and
`dev_rest` are the first with the examples at those steps (nothing was tuned on them). The runs `nokeys_shape`
and `dev_shape` add two rules written down before they ran (orrery/bi/README.md, "Approved examples"): a pair is
shown to the plan and SQL steps only for a question of its shape (aggregate, distinct, extreme, grouping, time;
from the words, the pair's SQL checked), decided from the previous runs' right -> wrong answers (each followed a
pair of another shape); and an approved query is reused, its values swapped, for the same question with other
values. `dev_shape` is the whole dev set in one run (earlier dev runs split it in three, so a question never met
its value-swapped twin: AC/DC / Queen, Rock / Jazz). Every set here is development data (nothing is held out).
`--set grown` (the run `grown`): a realistic memory, as a user's approvals grow: every right answer to an
answerable question in the stored runs of every development set (STORED: the newest run holding each question),
approved per database, leave-one-out by question text; measured on a sample drawn before the run, round-robin
over (set, database) strata (`grown_sample`), each question answered without and with it back to back in
alternating order (a question the memory cannot touch, `touched`, carries its empty answer but for VERIFY of them).
Its rules, written down before it ran: a pair shown to the plan and SQL steps must also have the question's
condition (threshold / filter / none, from the words; its WHERE / HAVING checked: orrery/bi/README.md), decided
from `dev_shape`'s right -> wrong answers and checked on the 175 stored right answers (words and SQL agree on
169); the k shown are the nearest that fit among 3k (POOL). `grown_v2` (`--exclude grown`): the same memory,
the sample's next questions (`grown_sample(136, 14)` less `grown`'s), and two rules decided on `grown`'s right ->
wrong answers: a pair is shown to the plan and SQL steps only at MiniLM cosine >= 0.6 (SHOW_FLOOR), and the
decline evidence needs the term's words as whole words. `grown_v3` (`--exclude grown --exclude grown_v2
--answerable 269 --declinable 28`): the same memory, the sample's next questions in its order (every answerable
question neither earlier run asked, 14 unanswerable among them), cut at 50 minutes (what it answered by then is
the sample, fixed by the order, not by its results); its rules, decided from the diagnosis of `grown`'s and
`grown_v2`'s empty-memory misses (bench/bi_memory.md): the layer taught by the approved pairs (`examples.taught`:
a phrase no schema name spells, beside the one column its pair's SQL used unnamed, is that column's synonym) and
the decline evidence reading two glued words ('line items' says `lineitem`). `grown_v4` (`--exclude grown
--exclude grown_v2 --exclude grown_v3 --answerable 269 --declinable 28 --then heldout9 --then heldout10`): the same
memory; the sample, fixed before the run: the grown sample's 15 questions no earlier run asked (all answerable),
then the questions of held-out #9 and #10 (development data, never used to choose a rule here, none of them in the
memory) whose database the memory holds (olympics and elements aside: 38 and 40, 47 answerable), one from each set
in turn, each in its file's order; cut at 40 minutes. Its rules, decided from grown_v3's answers read again
(bench/bi_memory.md): a pair is shown only with the question's ranking direction, a threshold's pair only on the
same thing (the word after the number), a lower-case word of a category's value is a filter; a phrase is taught
only by two approved questions; how approved queries compared a column with a value is in that column's
description for a question comparing a value of that kind. `grown_v5` (`--answerable 0 --declinable 0 --then
heldout11 --targets`): the same memory; the sample, fixed before the run: held-out #11's questions on the memory's
databases (31, 21 answerable; development data, never read for a rule), one from each set in turn, then TARGETS
(grown_v4's 8 wrong-both comparisons, then its 2 right -> wrong ones), cut at 25 minutes; its rules, decided from
grown_v4's answers read again (bench/bi_memory.md, "grown_v5 (plan)"): a question comparing several values is shown
only approved comparisons and a one-value question none, and is told each column an approved query compared with
one value as `IN` its own values the column stores. `grown_v5r` (`--again grown_v5`): that description reverted
(the rule written before the run: its one right -> wrong answer), the questions it touched answered again.
`grown_v5x` (`--again grown_v5r --pick changed --exact`): the answers that changed between the two conditions
answered again with no prompt cache, where two answers of one prompt are the same.
Reported: both accuracies and the difference in points, the questions that changed (right -> wrong is a
retrieved example misleading: the model and the questions are otherwise the same and the model decodes
greedily), seconds per question with the memory on and off, the load average.

    nice -n 10 python bench/bi_memory.py --set nokeys --unanswerable --tag nokeys
    nice -n 10 python bench/bi_memory.py --set dev --start 48 --tag dev_rest
    nice -n 10 timeout 3600 python bench/bi_memory.py --set grown --tag grown   # 68 + 6 questions, cut at 1 h
    nice -n 10 timeout 2400 python bench/bi_memory.py --set grown --tag grown_v2 --exclude grown --answerable 136 --declinable 14
    nice -n 10 timeout 3000 python bench/bi_memory.py --set grown --tag grown_v3 --exclude grown --exclude grown_v2 \
        --answerable 269 --declinable 28
    nice -n 10 timeout 2400 python bench/bi_memory.py --set grown --tag grown_v4 --exclude grown --exclude grown_v2 \
        --exclude grown_v3 --answerable 269 --declinable 28 --then heldout9 --then heldout10
    nice -n 10 timeout 1500 python bench/bi_memory.py --set grown --tag grown_v5 --answerable 0 --declinable 0 \
        --then heldout11 --targets
    nice -n 10 timeout 900 python bench/bi_memory.py --again grown_v5 --tag grown_v5r   # the IN description reverted
    nice -n 10 timeout 900 python bench/bi_memory.py --again grown_v5r --pick changed --exact --tag grown_v5x
    python bench/bi_memory.py --v18-scope     # round 18: what a memory of corrections holds near each question
    nice -n 10 timeout 900 python bench/bi_memory.py --v18 --tag corrected_v18   # empty vs corrections, primed
    python bench/bi_memory.py --report        # bi_memory.md and results/bi_memory.json from the runs in RUNS
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's orrery, not the one the venv installed
from bi import DECLINED, _commit, _write_json, questions, scored  # noqa: E402

K = 3
FLOOR = 0.3
# What the memory does in a run made now (older runs say theirs).
STEPS = (
    "plan, decline, sql; shape + condition (+ comparison) + direction; show floor 0.6; reuse; taught layer (2 pairs) "
    "+ filters (none for a comparison); approved columns as decline evidence (0.6)"
)
RESULTS = HERE / "results"
# The runs bi_memory.md reports, in order: the first (k=3, no similarity floor: the rule fixed before any run), then
# the floor decided from the first run's one misleading example, on dev questions that run did not use (both with
# the examples shown to the SQL step only); then the examples at every step that decides, on the no-key set and
# on the dev questions neither earlier run used.
RUNS = (
    "first24",
    "next24_floor",
    "nokeys",
    "dev_rest",
    "nokeys_shape",
    "dev_shape",
    "grown",
    "grown_v2",
    "grown_v3",
    "grown_v4",
    "grown_v5",
    "grown_v5r",
    "grown_v5x",
    "grown_v6",
    "grown_v8ab",
    "grown_v9a",
    "grown_v9s",
    "grown_v10",
    "grown_v11",
    "grown_v11b",
    "grown_v11c",
    "grown_v12",
    "grown_v13",
    "grown_v14",
    "grown_v16",
    "grown_v16b",
    "grown_v17",
    "grown_v17b",
    "corrected_v18",
    "corrected_v18b",
)
# grown_v5's second and third parts (`--targets`), fixed before its run (bench/bi_memory.md, "grown_v5 (plan)"):
# grown_v4's answerable questions wrong both ways that compare several values, then its two right -> wrong ones.
TARGETS = {
    "wrong both (grown_v4)": (
        "jazz and blues: track count for each",
        "Hey, how do Nolan's and Tarantino's films compare on the Tomatometer? Average for each please.",
        "for the year 2000 give me japanese, brazilian and nigerian life expectancy",
        "nigerian vs japanese life expectancy, 1995",
        "profit in the West vs the East region?",
        "Average mpg of the European cars compared with the Asian ones.",
        "fuel economy (mpg) for Europe-built and Asia-built autos, averaged",
        "California versus Texas revenue, summed",
    ),
    "right -> wrong (grown_v4)": (
        "county count for Georgia and for Kentucky",
        "average runtime, PG-13 versus R",
    ),
}
# What the result files cannot say about a run's conditions.
NOTES = {
    "corrected_v18": "round 18's plan (below), `--v18`, 14:08-14:23 UTC, cut at 15 minutes after 13 of its 32"
    " questions (7 corrected, 6 guards: 3 answerable, 3 unanswerable), the worktree at d852dcd; 1-minute load"
    " 6.8-10.4 (other helpers' benchmarks, and this helper's no-model `--v18-refusals` at 14:09-14:12).",
    "corrected_v18b": "round 18's second run (below), `--v18 --exclude corrected_v18`, 14:24-14:36 UTC, the"
    " sample's other 19 questions (9 corrected, 10 guards: 5 answerable, 5 unanswerable), all answered before its"
    " cut, the same code (orrery unchanged since d852dcd; the sql_parts change of 2a7a3ed was written while it ran,"
    " after its process had imported examples.py, and reverted in e594580); 1-minute load 3.0-8.4.",
    "grown_v17b": "round 17's second run (below), `--v17 --exclude grown_v17`, 11:33-11:48 UTC, cut at 15 minutes"
    " after 15 of the sample's remaining 20 questions (11 answerable, 4 unanswerable; all of held-out #19), run from"
    " the same copy of 067029d (its `set` and `commit` fields written after the cut); 1-minute load 7.4-11.5 (other"
    " helpers' benchmarks, and this helper's tests of tests/bi/test_examples*.py at 11:35-11:39).",
    "grown_v17": "round 17's plan (below), `--v17`, 11:16-11:31 UTC, cut at 15 minutes after 18 of its 38 questions (8"
    " answerable, 10 unanswerable; 13 of round 16's remainder, 5 of held-out #19), run from a copy of 067029d"
    " (`git archive`; its `set` and `commit` fields written after the cut); the 1-minute load rose from 0.7 to 11.1"
    " (other helpers' benchmarks beside it): its seconds are not quiet-machine times, and the two conditions of a"
    " question ran back to back at the same load.",
    "grown_v16b": "round 16's continuation (below), `--v16 --exclude grown_v16`, 10:05-10:17 UTC, cut at 12 minutes"
    " after 19 of the sample's remaining 32 questions (17 answerable, 2 unanswerable), run from the detached checkout"
    " of dc2c1af (its `set` field written after the cut); 1-minute load 2.4-3.9.",
    "grown_v16": "round 16's plan (below), `--v16`, 09:35-09:50 UTC, cut at 15 minutes after 14 of its 46 questions"
    " (12 answerable, 2 unanswerable; 7 of held-out #17, 7 of #18), run from a detached checkout of dc2c1af (its `set` field written after the cut); the"
    " 1-minute load rose from 1.7 to 9.4 (other helpers' benchmarks beside it): its seconds are not quiet-machine"
    " times, and the two conditions of a question ran back to back at the same load.",
    "grown_v14": "round 14's plan (below), `--v14` at 0c182c1, 07:12-07:15 UTC, the whole sample (3 questions)."
    " Its two conditions are both the grown memory: the columns headed 'empty' are the memory with round 14's rule"
    " off (`shape_words_off`), 'memory' the memory with it on. 1-minute load 4-6 (other helpers beside it).",
    "grown_v13": "round 13's plan (below), `--v13`, 06:33-06:45 UTC, the whole sample (24 questions: 16 answerable, 8"
    " unanswerable), run from a copy of the branch at 441f33d (the deletions and the cache were committed beside it,"
    " not in it); 1-minute load up to 5.1 (other helpers, and this helper's tests and a 15-question replay at"
    " 06:34-06:39). Its `steps` field is the STEPS of 441f33d, which still named the placing: the placing and the"
    " filter values were off in this run (their defaults since 73cdf1d and 0c04b47).",
    "grown_v12": "round 12's plan (below), `--v12`, 04:49-05:05 UTC, the whole sample (15 questions; a question whose"
    " decline the filter-value rule decided answered a third time without it, `on_unfiltered`), 1-minute load 5-8"
    " (other helpers beside it).",
    "grown_v11c": "round 11b's guard (below), `--v11c`, 04:26-04:33 UTC, the whole sample (8 questions, each answered"
    " three ways; a first run at 04:20 had no third answer, `unplaced` not passed, and was discarded), 1-minute load"
    " 3-6.",
    "grown_v11b": "round 11b's plan (below), `--v11b`, 04:05-04:14 UTC, the whole sample (5 questions, each answered"
    " three ways), 1-minute load 3-6 (other helpers beside it).",
    "grown_v11": "round 11's plan (below), `--v11`, 03:30-04:00 UTC, cut at 30 minutes after 31 of its 53 questions"
    " (16 of part b_declined's 24, 15 of held-out #15's 29), 1-minute load 4-12 (other helpers beside it, and for"
    " about 8 of its 30 minutes this helper's cache measurement, an embedding-only script at nice 15). Its `set`"
    " field was written after the cut (the run writes it at its end). The memory as a whole is round 10's rules"
    " (the placing changed no answer): +10.3 over the sample's 29 answerable, half of which is by construction"
    " misses the memory holds; +0.0 on held-out #15's part.",
    "grown_v9a": "round 9's plan (below), `--v9 --any-shape`, run by the lead 23:49-00:11 UTC beside grown_v9s and "
    "the test suite (load 2-6): pairs shown to 15 of 27 questions, no answer changed (6 of 18 right both ways, "
    "5 of 9 unanswerable declined both ways). Its empty condition gave the same 27 answers as grown_v9s's, run "
    "separately: the primed protocol's replies are a function of their requests.",
    "grown_v10": "round 10's plan (below), `--v10`, 01:55-02:25 UTC, cut at 30 minutes after 39 of its 51 "
    "questions (20 of part b_declined's 24, 19 of held-out #14's 27), 1-minute load 1-7 (other helpers beside it). "
    "The rule reached the 3 questions the mechanical check (below) predicted: 'California versus Texas revenue, "
    "summed' declined -> right (`SUM(sales)` per state); 'compare revenue in California and New York' declined -> "
    "wrong (sales listed, not summed); 'how many clients ... Canada ... USA' declined -> wrong (a join to Invoice "
    "counted invoices). The other two wrong -> right answers were shown pairs, not the rule ('what percentage of our "
    "total sales is furniture?' after 'total quantity of Chairs sold'; 'lifespan figures for Nigeria and Kenya' after "
    "'life expectancy: nigeria vs kenya, 1990'). Still declined with the memory: 'jobless percentage', 'units sold', "
    "'group', 'outbound route count' (below COLUMN_MEANING, as predicted), and on held-out #14 'big airports', "
    "'listed', 'staff headcount' (the last unanswerable, declined both ways). Of the 20 b_declined questions run, "
    "only 7 were still declined with an empty memory (11 completed, 2 errors): decline.py changed since their runs.",
    "grown_v9s": "round 9's plan (below), `--v9` with the shape rules (the default), run by the lead 23:50-00:09 "
    "UTC beside grown_v9a: pairs shown to 2 of 27 questions, no answer changed. By the plan's rule (any shape "
    "must give more right answers than the shape rules) the default stays `shaped = True`: on held-out #14's "
    "questions on the memory's databases neither shows gains, and the measured effect of approved examples is "
    "0 points there (+1.9 on grown_v6).",
    "nokeys": "its empty-memory pass ran at a 1-minute load of 8-12 (other benchmarks), its second pass at 4-8 "
    "with dev_rest running beside it from its question 25: the two passes' seconds are not comparable. "
    "Two of its right -> wrong answers copied a retrieved pair's shape: after 'What was the population "
    "of India in 2000?' (one value, no aggregate) the SUM of 'total population of South Asia' and the AVG "
    "of 'average fertility in Europe & Central Asia' were dropped; all its misses were wrong SQL (no "
    "answerable question was declined in either pass), so the plan and decline hooks had nothing to turn.",
    "dev_rest": "ran beside nokeys's second pass; 12 questions: one answer is 8.3 points.",
    "nokeys_shape": "ran beside dev_shape, 05:30-06:32 UTC, the 1-minute load 6-11 (other helpers' benchmarks too), "
    "higher in the second pass: its seconds are not comparable. The three right -> wrong answers of `nokeys` "
    "(the 1995 movies, South Asia's total, Europe's average fertility) were given no pair of another shape and "
    "stayed right. No question of this set is another's with other values of the same column (Denver / Puerto "
    "Rico: a city and a country), so nothing was reused.",
    "dev_shape": "the whole dev set in one run, beside nokeys_shape (load 6-11). Its four reuses (AC/DC <-> Queen, "
    "Rock <-> Jazz) were right, as they were with an empty memory. Its right -> wrong answers followed pairs of "
    "the same shape: a count with no condition ('How many suppliers are there?') shown for 'How many parts are "
    "of brand Brand#13?' (answered by a lookup), the condition 'more than 0.99' dropped beside three counts "
    "with conditions, 'How many albums have more than 20 tracks?' answered with the albums' titles, and 'total "
    "available quantity' declined at field mapping ('availablequantity'). Whether a question has a condition "
    "is not part of the shape; that is the next rule to try, on new development data.",
    "grown": "the condition rule's run: 08:27-09:02 UTC, each question's two answers back to back (whichever "
    "came second was faster, the model's prompt cache: 18.4 s empty then 14.3 s with memory on even questions, "
    "8.9 s / 13.3 s the other way on odd ones; the means over both orders are comparable), beside other helpers' "
    "benchmarks. Its right -> wrong answers: 'Which customer has spent the most with us overall?' after 'Which "
    "country has the most customers?' (a comparison with a SUM subquery), 'population of Germany in 1990 and in "
    "2010' after one-year pairs (the second year dropped), 'how many parts does Supplier#000000001 supply?' after "
    "supplier counts (it counted suppliers), 'lowest life expectancy in 1990' after 'highest fertility in 1970' "
    "(NULLS LAST dropped), and the unanswerable 'average age of our customers' answered (an error) after 'average "
    "unit price of tracks': the decline evidence found 'age' inside 'average' (a partial match). The four pairs "
    "that misled were at MiniLM cosine 0.55-0.62, the five that helped at 0.47-0.90. Nothing reused: no sampled "
    "question is an approved one with other values. From these 74 questions two rules were decided (grown_v2).",
    "grown_v2": "the show floor (0.6) and whole-word evidence, measured on 76 questions `grown` did not run, "
    "09:15-09:31 UTC on a quieter machine (1-minute load 1.3-1.9). Its one right -> wrong answer: 'How many "
    "artists have more than 5 albums?' after 'How many albums have more than 20 tracks?' (same shape and "
    "threshold, cosine >= 0.6; the HAVING was dropped). Its four reuses were right (Jazz -> Rock, AFRICA -> "
    "EUROPE, Metallica -> Iron Maiden, and Queen -> Pearl Jam, wrong with an empty memory: it counted albums). "
    "'compare the average mpg of toyota and ford' turned right with no pair shown and no reuse: the memory "
    "could only act through the decline evidence, which writes no SQL, so this is the embedded model's own "
    "variation between two runs of one prompt (llama.cpp's prompt cache), the noise one answer carries. "
    "Nothing was carried: 75 of 76 questions were touched, and the one untouched ('what are the 5 most "
    "fuel-efficient models?', like `grown`'s 'What will the weather be tomorrow?') gave the same answer both "
    "ways. The two runs are two samples under two rules: their numbers are not pooled.",
    "grown_v3": "the taught layer and glued-word evidence, 11:13-12:03 UTC, cut at 50 minutes after 132 of the 147 "
    "questions planned (118 answerable, 14 unanswerable), each answered both ways back to back, beside two other "
    "helpers' embedded-model benchmarks (1-minute load 1.7-8.3): its seconds are not quiet-machine times. What "
    "turned answers, read from its rows: the taught layer changed none (no question of the 132 holds a phrase "
    "the pairs taught; where a taught column is in the SQL step's slice its description differs, so it could "
    "only add prompt noise); the glued-word evidence turned 2 wrong declines right ('line items ... shipped by "
    "RAIL in 1995', '... to customers in JAPAN in 1996': 'lineitem number' held by an approved 'line items' "
    "question), the whole-word evidence and the pairs shown the other 6 ('line status O', 'delay in days per "
    "ship mode', 'a company listed', 'the playlist with the most tracks', 'account balance of suppliers', "
    "'written by Woody Allen'); 20 reuses, all right (right with an empty memory too). Its 4 right -> wrong "
    "answers (3.0%, over the 2% goal) followed a pair shown: 'How many large airports are there?' after 'How "
    "many airports are there?' (a lower-case value is no filter for `condition`: shown; the model grouped by "
    "type), 'the name of the longest track' after 'the shortest track' (the ascending order copied: a ranking's "
    "direction is not part of the shape), 'Which production company made the most movies?' after 'Which "
    "director has the most movies?' (the plan named 'company' alone, declined at field mapping), and 'How many "
    "albums have more than 20 tracks?' after 'How many artists have more than 5 albums?' (the threshold dropped, "
    "the mirror of grown_v2's one). Two rules follow from them, for new development data: a ranking's direction "
    "(most / highest / longest vs least / lowest / shortest) must match, and a lower-case word that is a value "
    "of the question's table ('large') is a filter.",
    "grown_v4": "the direction, threshold-thing and category-value rules, two-question teaching and the value "
    "comparisons, 14:13-14:41 UTC, all 93 questions planned (62 answerable, 31 unanswerable; not cut), each "
    "answered both ways back to back beside other helpers' embedded-model benchmarks (1-minute load 2.1-7.5): "
    "its seconds are not quiet-machine times. By part: the grown sample's 15 (dev and heldout) 11 -> 13 right; "
    "held-out #9's 23 answerable 8 -> 8; held-out #10's 24 answerable 10 -> 9. Its empty-memory accuracy (46.8%) "
    "is far below grown_v3's (83.9%): held-out #9 and #10 ask harder questions (comparisons of several values, "
    "'X versus Y', per-group breakdowns) that the memory's 175 pairs seldom resemble: 14 of the 93 questions were "
    "shown a pair at all (21 pairs). What turned answers, read from its rows: wrong -> right, 'invoices issued "
    "in 2023' (a reuse of the approved 2022 query; 4 reuses, all right), 'total quantity of tracks sold' (shown "
    "'total size in bytes of all tracks'), 'what did canadian and french customers spend altogether, per "
    "country' (no pair shown, no value comparison taught: the model's own variation, or the decline evidence). "
    "Right -> wrong, both from this round's additions: 'county count for Georgia and for Kentucky' was shown "
    "'georgia has how many counties again?' (before, 'georgia' was no filter in the words and the pair was "
    "hidden; the category-value rule made it fit) and answered for one state; 'average runtime, PG-13 versus R' "
    "was shown no pair but its layer said `Rating = 'PG-13'` (the value comparisons) and the model wrote "
    "`Genre = 'PG-13' AND Rating = 'PG-13'`, dropping R. The value comparisons were in the prompt of 57 of the 93 "
    "questions and turned none right. The direction rule hid the 'most' pairs from 'Which file format has the "
    "fewest tracks in the catalogue?' (wrong both ways); the threshold rule hid nothing here. The next rule "
    "these two answers point to, for new development data: a question naming two or more values ('Georgia and "
    "Kentucky', 'PG-13 versus R') is a comparison, shown no pair of one value and no value comparison.",
    "grown_v5": "the comparison rules of 'grown_v5 (plan)' (a comparison shown only comparisons; its columns "
    "described as `IN` its own values), 16:37-16:52 UTC, all 41 questions planned (31 answerable, 10 unanswerable; "
    "not cut, 15 minutes), each answered both ways back to back beside other helpers' embedded-model benchmarks "
    "(1-minute load 1.7-8.7): not quiet-machine times. By part: held-out #11's 21 answerable 5 -> 7 (+9.5 points, "
    "none turned wrong; 8 of its 10 unanswerable declined both ways); grown_v4's 8 wrong-both comparisons 2 -> 3 "
    "(two of them, 'jazz and blues' and 'Europe-built and Asia-built', were right with an empty memory this time: "
    "the code merged since grown_v4 and the model's own variation); grown_v4's 2 right -> wrong 2 -> 1. What turned "
    "answers, read from its rows: wrong -> right, 'lifespan figures for Nigeria and Kenya back in 1990' and "
    "'nigerian vs japanese life expectancy, 1995', each shown 'life expectancy: nigeria vs kenya, 1990' (a "
    "comparison pair the rule now shows: before, its lower-case values read as no condition and the pair was "
    "hidden), and 'order count for the two years 1995-1996 combined' (shown a one-year count of another filter, "
    "as before the rule). Right -> wrong: 'average runtime, PG-13 versus R', shown no pair, its layer saying "
    "`Rating IN ('R', 'PG-13')`; the model wrote `Genre = 'PG-13' AND Rating = 'PG-13' OR Genre = 'R' AND Rating = "
    "'R'`. 1 of 41 is 2.4%, over the 2% of the rule written before the run, so the `IN` description was reverted "
    "before the cause was known; it was not the description (grown_v5r). It was in the prompt of 9 questions (2 "
    "more held an approved query's own `IN` as a one-value comparison) and turned none right alone. 4 questions "
    "were shown a pair (5 pairs); nothing reused (no sampled question is an approved one with other values).",
    "grown_v5r": "the rules adopted (grown_v5's less the reverted `IN` description): grown_v5's 11 questions whose "
    "layer held an `IN` (9 from the reverted rule, 2 an approved query's own) answered again both ways, the empty "
    "memory first, 16:55-17:01 UTC (1-minute load 5.4-9.0), the other 30 carried from grown_v5 (the reverted rule "
    "gave them nothing: the same prompts); its seconds mix both runs. Every answer as in grown_v5: +6.5 points, "
    "held-out #11's part 5 -> 7. Its one right -> wrong answer, 'average runtime, PG-13 versus R', came again with "
    "no pair shown and no value comparison: its plan and SQL prompts are the same with and without the memory "
    "(checked with a scripted model giving both the same replies: identical messages), and with an empty memory, "
    "asked three times in a row at 17:03 UTC, it was answered right, then wrong twice with this very SQL: the "
    "second of two back-to-back answers of one question can differ (llama.cpp's prompt cache), and in both runs "
    "the memory's answer of this question came second. So no answer here was turned wrong by a retrieved example "
    "(0 of 41); the protocol's right -> wrong count includes this order effect, which answering each question's "
    "two conditions from the same cache state would remove (grown_v5x).",
    "grown_v5x": "grown_v5r's 4 answers that changed between the conditions (3 wrong -> right, 1 right -> wrong) "
    "answered again both ways with no prompt cache (`--exact`: every prompt processed in full, so two answers of "
    "one prompt are the same: 'PG-13 versus R' asked twice that way gave the same right SQL twice), 17:07-17:17 UTC, "
    "1-minute load 6.6-8.7; the other 37 questions carried from grown_v5r (right or wrong in both conditions "
    "there). The 3 wrong -> right answers came again (2 from a comparison pair the new rule shows, 1 from a pair "
    "the earlier rules show); 'average runtime, PG-13 versus R' was right both ways: no answer turned wrong. "
    "By part: held-out #11's 21 answerable 5 -> 7, grown_v4's 8 wrong-both comparisons 2 -> 3, its 2 right -> wrong "
    "2 -> 2. Seconds: the 4 exact answers took 53-98 s each with no cache; the rest are grown_v5's (11.7 s / "
    "question with memory, 10.4 without, load 1.7-8.7).",
    "grown_v8ab": (
        "grown_v8 (23:00-23:25 UTC, 21 questions, cut at its 25 minutes) and grown_v8b (23:25-23:40 UTC, the "
        "other 31, `--exclude grown_v8`; it answered the rest of the sample before its cut) joined by `--join"
        " grown_v8 grown_v8b --tag grown_v8ab`: the lever of round 8's plan (`--any-shape`: the k nearest "
        "pairs at cosine >= 0.6 shown whatever their shape), the primed protocol, beside other helpers' work "
        "(1-minute load 2.4-8.3). 29 of 52 questions were shown a pair (50 pairs); with the shape rules 4 of "
        "these 52 would be (the shape rules' `shown`, read after the run). Against the criterion written "
        "before the run: held-out #13's answerable part 6 -> 7 of 20 (+5.0 points) and right -> wrong 0 of 52"
        " (0.0%): met. Read after the run (decides nothing by itself, but says what the numbers are worth): "
        "held-out #13's one wrong -> right answer, 'average life expectancy in 2000 for each world region', "
        "was shown first 'What was the average life expectancy per region in 2000?', a pair the shape rules "
        "show too, so that gain is not shown to be the lever's; of grown_v6's misses, 'lifespan figures for "
        "Nigeria and Kenya back in 1990' and 'order count for the two years 1995-1996 combined' turned right "
        "in grown_v6 too under the shape rules (the same first pair), and only '2010 longevity -- japan vs "
        "germany vs brazil' (shown 'What was the life expectancy in Japan in 2010?', a one-value pair the "
        "comparison rule hides) is the lever's own; 'top carrier by route count' went from a wrong answer to "
        "a decline ('airline code'). The sample held few right answers (16 of 52 right with an empty memory, "
        "10 of them declines of unanswerable questions), so its right -> wrong count says little about the "
        "harm the shape rules were added against (dev_shape, grown_v3: other-shape pairs at 0.55-0.62). Not "
        "shipped as the default: the comparison that decides it, any shape against the shape rules on one "
        "sample with many right answers, was not run; `ExampleMemory.shaped` stays True (the shape rules on), "
        "`--any-shape` measures it False. The shape rules' `shown` for the 52: `python bench/bi_memory.py "
        "--shaped-shown grown_v8ab`. Checked after (results/bi_memory_grown_v8s.json, 23:43-23:48 UTC: "
        "`run_primed` with `shaped=True` on the 4 questions the shape rules show a pair): all 3 of their wrong -> "
        "right answers come with the shape rules too (held-out #13's 'average life expectancy in 2000 for each "
        "world region' included), the fourth right both ways: on this sample the lever's own gain is one answer "
        "('2010 longevity'), none on held-out #13."
    ),
    "grown_v6": (
        "read by the lead after the run (decides nothing): run by the lead at 20:59-21:24 UTC on the merged "
        "code of this session (rounds 18 and 19 and the lead's fixes in; the memory's rules unchanged since "
        "grown_v5x), on a quiet machine (load 1.0-2.0, nothing beside it), with the primed protocol, so each "
        "change between the conditions is the memory's. By the adoption rule written before the run (points "
        "up, right -> wrong at most 2%: +1.9, 1.3%) the memory's rules stay as they are. The memory reached "
        "few questions: 6 of 75 were shown a pair (8 pairs), 10 had a request it changed. Under this "
        "protocol, grown_v5's part gains +3.2 points (15 -> 16 of 31), where grown_v5x's +9.7 mixed cached "
        "and uncached answers on older code. So the measured effect of approved examples on these development"
        " questions is about +2 points, not +10. The one right -> wrong answer, 'nigerian vs japanese life "
        "expectancy, 1995', is the memory's (the same request gives the same reply under this protocol); its "
        "pair is the comparison pair that turned its neighbour 'lifespan figures for Nigeria and Kenya back "
        "in 1990' right. 13 of the 28 answerable questions wrong in both conditions were declined before the "
        "memory could reach the SQL step."
    ),
}


# The diagnosis written before the taught layer was built (`--diagnose` lists what it was read from: each miss with
# its SQL, the gold SQL, the columns the gold uses and the miss lacks, and the approved pairs of its database that
# use each such column and share a word with the question); the classes were read by hand from that listing.
DIAGNOSIS = [
    "### What would have turned the empty memory's misses (grown, grown_v2; no model run)",
    "",
    "The 61 answerable questions wrong with an empty memory in `grown` (35) and `grown_v2` (26), each read against "
    "the 175 approved pairs of the grown memory (its own pair aside) by `python bench/bi_memory.py --diagnose`:",
    "",
    "| what would have made it right | held by an approved pair of its database | grown | grown_v2 |",
    "|---|---|---|---|",
    "| a join path the approved SQL used (routes -> airports by `SourceID` / `DestinationID`; supplier -> nation "
    "-> region; customer -> `SupportRepId` -> employee; track -> media type; counties -> states; cars -> origins)"
    " | yes | 6 | 3 |",
    "| a value's spelling or column ('urgent' = '1-URGENT'; 'medium-sized' like 'large_airport'; 'Texas', "
    "'nevada' -> a state code as 'georgia' -> 'GA') | yes | 3 | 1 |",
    "| a wrong decline an approved similar question contradicts ('line items' by AIR / TRUCK, 'air compared "
    "with regular air': 'How many line items were shipped by RAIL in 1995?' is approved) | yes | 0 | 3 |",
    "| a word -> column mapping an approved question shows ('account balance' -> `c_acctbal`) | yes | 0 | 1 |",
    "| a near-same template (value swap: Pearl Jam after Queen) | yes | 0 | 1 |",
    "| the SQL's logic (an aggregate, LIMIT 1, HAVING, a comparison's direction) with every word mapped right | "
    "no: only a pair of the same shape, which the shape rule already shows | 11 | 8 |",
    "| a word or value no approved question uses ('clients', 'revenue', 'money', 'births per woman', "
    "'percentage', 'fuel economy', 'BillingCity', 'first-class') | no | 15 | 9 |",
    "",
    "18 of the 61 misses (30%) are held by the memory, 43 are not. A word -> column mapping, the candidate the "
    "brief named, would turn 1; join paths (9) and values (4) would turn the most, and both are decided outside "
    "the prompt (compose.py derives the joins from the tables the model names; entity resolution finds the "
    "values), in files this change does not own. Built and measured here (`grown_v3`): the layer taught by the "
    "approved pairs (`examples.taught`: 11 phrases over the 175 pairs, some of them words of no column: 'came', "
    "'place', 'sold'; one of the 61 misses has one: 'leave', taught to `airports.IATA` by 'How many routes leave "
    "from ORD?', in 'How many flights leave from Houston's airports?') and the decline evidence reading glued words (2 of the 3 wrong "
    "declines: 'lineitem number' of 'line items'; 'air line item count' names 'air', which the approved question "
    "does not).",
    "",
    "### grown_v3's answers read again (no model run)",
    "",
    "Its 4 right -> wrong answers and its 11 answerable questions wrong both ways, each read against the 175 "
    "approved pairs of the grown memory (`python bench/bi_memory.py --diagnose --tag grown_v3` lists each miss, "
    "its SQL, the gold and the approved pairs that use a column the miss lacks); the classes read by hand:",
    "",
    "| what turned or would have turned it | held by the memory | right -> wrong | wrong both ways |",
    "|---|---|---|---|",
    "| a ranking's direction: 'the longest track' shown 'the shortest track' (ORDER BY ascending copied) "
    "| a rule: the pair's direction words must match | 1 | 0 |",
    "| a threshold on another thing: 'albums with more than 20 tracks' shown 'artists with more than 5 albums' "
    "(the HAVING dropped; grown_v2's one right -> wrong, the mirror) | a rule: the word after the number must match "
    "| 1 | 0 |",
    "| a lower-case value read as no condition: 'How many large airports' shown 'How many airports' (grouped by "
    "type) | a rule: a word of a category's value ('large' of 'large_airport') is a filter | 1 | 0 |",
    "| the plan copied a pair's field and named 'company' alone ('production company' after 'director'), "
    "declined at field mapping | no | 1 | 0 |",
    "| a value's column or spelling an approved query compared: a year on `omdb.Released` ('released in 1995' is "
    "approved as `Released LIKE '1995%'`; the misses wrote `Released = '2009-01-01'` and `tomatoes.DVD LIKE "
    "'1999%'`), a state through `states.name` ('georgia' approved; 'ohio' compared with `counties.name`) "
    "| yes: the approved SQL's predicates | 0 | 3 |",
    "| a word -> column an approved query shows: a nation by `n_name`, not its key (grouped by `n_nationkey`) "
    "| yes | 0 | 1 |",
    "| the SQL's logic with every word mapped right: minutes as milliseconds, `IS NULL` for 'no composer', "
    "DISTINCT years, an extra join or predicate, 'composed by' read as the artist, 'Michigan compared with "
    "Ohio' as one filter | no | 0 | 7 |",
    "",
    "4 of the 11 misses are held by the memory (3 a value's column, 1 a word's column), 7 are not; so on this "
    "sample the memory could not have given +10 points (its empty-memory accuracy was 83.9%: 11 misses are 9.3 "
    "points). 3 of the 4 right -> wrong answers have a rule that would have kept the pair hidden; the taught "
    "phrases (11 over the 175 pairs, each from one approved question: 'came', 'place', 'sold', 'leave', "
    "'different', 'catalog', 'code', 'movie won', 'direct', 'built after', 'come') turned nothing. What "
    "`grown_v4` measures, decided from this: the direction, threshold-thing and category-value rules (which "
    "pairs are shown); a phrase taught only when two approved questions align it to the same column (none of "
    "the 11 is: nothing is taught on this memory); and how approved queries compared a column with a value "
    "(`examples.filters`: the first year and the first text predicate per column, 44 columns over the 175 "
    "pairs, in the column's description) for a question that compares a value of that kind.",
    "",
    "### grown_v5 (plan): grown_v4's answers read again (no model run)",
    "",
    "grown_v4's 30 answerable questions wrong both ways, each read against the 175 approved pairs of the grown "
    "memory (`python bench/bi_memory.py --diagnose --tag grown_v4`, and the 5 nearest pairs of its database with "
    "their MiniLM cosine and whether `fits` shows them); none of the 30 was shown a pair. The classes, read by hand:",
    "",
    "| what the answer lacked | the approved pair that holds it | could a pair decide it | wrong both ways |",
    "|---|---|---|---|",
    "| a comparison of several values, answered for one or as one filter: 'nigerian vs japanese life expectancy, "
    "1995' (`name = 'Nigeria' AND name = 'Japan'`), 'japanese, brazilian and nigerian life expectancy' (no country "
    "filter), 'jazz and blues: track count for each' (`Name = 'Jazz'` alone) | 'life expectancy: nigeria vs kenya, "
    "1990' (0.75, `countries.name IN (...)`) hidden: the question's lower-case values read as no condition; 'how's "
    "life expectancy in Japan compared to India in 2000?' (0.74); 'How many tracks are in the Jazz genre?' and "
    "'... Blues genre?' (0.77, the column for each value; hidden: one value against two) | yes | 3 |",
    "| a comparison, answered with its values but not per value: 'Average mpg of the European cars compared with "
    "the Asian ones' (a subquery), 'profit in the West vs the East region?' (no SUM, no GROUP BY) | 'how many cars "
    "come from europe, and how many from asia?' (0.63, IN + GROUP BY, but a count: another shape), 'What are the "
    "total sales per region?' (0.57, below the show floor) | no: only a pair of another shape | 2 |",
    "| a comparison declined before any SQL: 'Nolan's and Tarantino's films ... please' ('please'), 'Europe-built "
    "and Asia-built autos' (the value's spelling), 'California versus Texas revenue' ('revenue') | no approved "
    "question says 'please', 'Europe-built' or 'revenue'; none uses `tomatoes.Meter` | no | 3 |",
    "| a near-same question hidden by its shape words: 'headcount of all South Asian nations together, 2010' "
    "('together' reads no sum), 'Which billing country has the highest total invoice amount?' (a ranking of "
    "groups), 'region-by-region tally of countries' ('region-by-region' reads no grouping) | 'What was the total "
    "population of South Asia in 2010?' (0.68), 'What is the total invoice amount per billing country?' (0.87), "
    "'Which region has the most countries?' (0.66) | only by loosening the shape rule, which is what turned "
    "answers wrong before (dev_shape) | 3 |",
    "| a table a pair of the other ranking direction names: 'Which file format has the fewest tracks' | 'Which "
    "media type has the most tracks?' (0.70; hidden by the direction rule, which keeps DESC from being copied) | "
    "no (by rule) | 1 |",
    "| a value's column an approved query compared with another value: `sub_categories.category` ('Furniture'), "
    "`states.name` through `counties.state = states.code` ('Nevada', 'Ohio'; already in the column's description "
    "by the value comparisons), `omdb.Rating` ('R-rated', declined at field mapping), `cars.yr` (''80 lineup') | "
    "'total profit of the Technology category', 'georgia has how many counties again?', 'How many movies rated "
    "PG-13 are there?', 'how many of the cars were built after 1980?' (cosine 0.16-0.62) | partly: the value "
    "comparisons already carry them, and turned none in grown_v4 | 5 |",
    "| a join path: supplier -> nation -> region (the model named `region` alone), and two declined before any "
    "SQL ('TPC-H', 'SupportRep') | 'How many suppliers are in CANADA?', 'Which region has the most customers?', "
    "'How many customers does Jane Peacock support?' use it; every join condition of the 175 approved queries is "
    "already in its database's layer (checked: 0 of them missing), so a learned join adds nothing here | no: the "
    "layer has the join | 3 |",
    "| a word or the SQL's logic no pair holds: 'shipments', 'BoxOffice' (twice), 'headcount' by region, 'Ford "
    "model', 'heaviest', a percentage, ORD's airline (`Source`), the drag on profit (ORDER BY the sum), a cut "
    "JSON reply | no | no | 10 |",
    "",
    "3 of the 30 could be decided by a pair the memory holds and the rules hide (the comparisons of several "
    "values); 5 more are a value's column the memory already writes into the layer (they turned none in grown_v4); "
    "the other 22 no pair can decide without loosening a rule that was added because it misled. grown_v4's two "
    "right -> wrong answers are comparisons too ('county count for Georgia and for Kentucky' after a one-value "
    "pair, 'average runtime, PG-13 versus R' after a one-value value comparison). Learned joins (the brief's (b)) "
    "are not built: on this memory there is no approved join the layer lacks. Built for grown_v5, written down "
    "before it runs:",
    "",
    "- a comparison condition (`examples.condition` -> 'compare'): a question with a comparison word ('vs', "
    "'versus', 'compared with / to', 'compare') or two or more values joined by 'and' / 'or' / commas; an "
    "approved query comparing one column with two or more values (IN, or OR-ed equalities); a pair is shown only "
    "for a question of its condition, so a comparison is never shown a pair of one value and a comparison pair is "
    "never shown for one value (only pairs are hidden from one-value questions; comparisons gain comparison "
    "pairs of their shape);",
    "- the value comparisons for a comparison: a column an approved query compared with one value is described "
    "with that comparison for several values (`Rating IN ('PG-13', 'R')`), only with the question's values the "
    "column stores (checked on the data), never the one-value predicate;",
    "- the sample, fixed before the run: held-out #11's questions on the memory's databases (31: 21 answerable, "
    "10 unanswerable; development data, never read for a rule) one from each set in turn; then the 8 grown_v4 "
    "wrong-both comparisons above (TARGETS) and grown_v4's 2 right -> wrong comparisons; reported per part; cut at "
    "25 minutes. Adopted when the points go up on held-out #11's part and right -> wrong is at most 2% of the "
    "questions run; else the rule that misled is reverted.",
    "",
    "### grown_v6 (plan): a protocol where a change is the memory's, and grown_v5's wrong-both answers read again",
    "",
    "The cause of grown_v5r's order effect, read from llama.cpp's timings (`cache_n`: prompt tokens reused): "
    "besides its one slot, llama.cpp keeps earlier prompts' states in memory (`cache_ram_mib`, 8192 MiB by "
    "default) and restores the one sharing the longest prefix, so a prompt asked a second time reuses all but its "
    "last token where the first time processed it whole, and decodes from other numbers. 'average runtime, PG-13 "
    "versus R' asked three times in a row with an empty memory: its plan prompt reused 0, then 782, then 782 of "
    "783 tokens; answered right, then wrong twice. The protocol (bench/bi_memory_primed.py, `--primed`): the "
    "embedded model with no memory of prompt states (`LocalModel(cache_ram_mib=0)`) and a one-token priming "
    "request before every call, so every call reuses the same 4 template tokens whatever came before: its reply "
    "is a function of its request alone. Both conditions of a question are then answered from the same state "
    "call by call, and the memory's condition replays the empty condition's reply to a request the memory left "
    "unchanged (its seconds charged as decoded), so only the calls whose prompt the memory changed are decoded "
    "again. A change between the conditions is the memory's. Cheaper alternatives were rejected: one priming "
    "request before each condition's first call leaves the in-memory states of earlier questions to be restored "
    "by later calls (a function of the history, not of the question); `--exact` (no prompt cache) is the same "
    "cost per call with no replay. Its cost and its check, measured before grown_v6 (`--determinism`, "
    "results/bi_memory_determinism.json): "
    "three questions (DETERMINISM: grown_v5's three changed answers) each asked three times in a row, primed "
    "with no replay: the same status and SQL all three times for each of the three ('average runtime, PG-13 versus "
    "R' 82.6 / 73.5 / 129.6 s, 'lifespan figures for Nigeria and Kenya back in 1990' 179.7 / 138.6 / 120.2 s, "
    "'order count for the two years 1995-1996 combined' 53.3 / 63.0 / 41.2 s; 19:40-19:57 UTC, 1-minute load "
    "5-8, other helpers' tests and benchmarks beside it); with the ordinary cache the first of these, asked three "
    "times at 19:36 UTC (load 1-2), was answered right, then wrong twice (12 s each after the first). Cost: every "
    "call processes its whole prompt (about 780 plan and 1,600 SQL tokens), 33 s an answer primed against "
    "11-12 s cached on a quiet machine (the probe at 19:36, load 1-2): about 3x for the empty condition, while "
    "the memory's condition decodes only the calls it changed. The cached half of `--determinism` was stopped "
    "to save time (the probe above is its measurement), so results/bi_memory_determinism.json was not written.",
    "",
    "grown_v5's 19 answerable questions wrong both ways in grown_v5x (no model run; its rows and the 175 approved "
    "pairs, `--diagnose --tag grown_v5x`); none was shown a pair:",
    "",
    "| what the answer lacked | questions | the approved pair that holds it | could a pair decide it, and where |",
    "|---|---|---|---|",
    "| a word no approved question says, declined at field mapping: 'galon' (a typo of 'gallon'), 'jobless "
    "percentage', 'group' ('a tally for each group'), 'revenue' | 4 | none: cars' 2 pairs never say 'mpg' or "
    "'gallon', counties' say 'unemployment', store's 'sales' | no |",
    "| a phrase one approved question says beside another column: 'units sold per shipping mode' | 1 | 'What is "
    "the total quantity of Chairs sold?' (`SUM(quantity)`; 'quantity' named) | no: taught from this one pair "
    "(`SUPPORT` 1), 'sold' is aligned to `orders.sub_category`, the column its question leaves unnamed (the "
    "value 'Chairs'), not to `quantity`: it would place the term on the wrong column |",
    "| a demonym or a part of a stored value, declined at value resolution: 'South Asian' ('no value Asian', "
    "the nearest 'South Asia'), 'Nolan's and Tarantino's' ('Christopher Nolan') | 2 | 'What was the total "
    "population of South Asia in 2010?' (shown, cosine >= 0.6) says 'South Asia', not 'South Asian'; no pair "
    "names Nolan or Tarantino | only at the decline's value check (orrery/bi/decline.py, `missing_values`, "
    "which reads no approved pair), not the memory's to change this round |",
    "| the SQL of a comparison: one value kept ('rail ... compared to air'), no aggregate or no grouping "
    "('Furniture versus Technology', 'West vs East', 'Ohio and of Indiana' on `counties.name`), a subquery "
    "('European compared with Asian'), no filter ('japanese, brazilian and nigerian'), the wrong measure "
    "('jazz + blues track total' summed invoices, 'Rotten Tomatoes meter' read `Rotten`) | 9 | comparison "
    "pairs exist for world and cars only ('life expectancy: nigeria vs kenya, 1990', 'how many cars come from "
    "europe, and how many from asia?': another aggregate, hidden by the shape rule); grown_v5's `IN` "
    "description was in 5 of these prompts and turned none (for 'Ohio and Indiana' it named `counties.name` too: "
    "counties named Ohio exist) | no: only by loosening the shape rule (a count shown for an average), which is "
    "what turned answers wrong before |",
    "| a join or a word of no pair: 'tally vendors by r_name', 'support reps ... customers assigned', 'top carrier "
    "by route count' | 3 | 'Which region has the most customers?' (another table), 'How many customers does "
    "Jane Peacock support?' | no: the layer has the joins |",
    "",
    "So no approved pair of this memory could turn one of the 7 declines, and one approved pair is not enough "
    "evidence for a term where no layer text places it: the only declined term one pair says ('sold') would be "
    "taught to the wrong column, as grown_v3's one-pair phrases were verbs of their questions ('came', 'direct', "
    "'movie won'); `SUPPORT` stays 2. No memory rule is changed for grown_v6: what would reach these questions is "
    "the decline's reading of demonyms and value parts (bi18's files) and words no user approved. Measured, "
    "written down before it runs:",
    "",
    "- grown_v6: the same memory (175 approved pairs) and rules as grown_v5x, the primed protocol; its sample "
    "fixed before the run (`v6_sample`): grown_v5's 41 questions (31 answerable) in its order and held-out #12's "
    "questions on the memory's databases (34, 21 answerable; development data, never used for a memory rule) in "
    "`later`'s order, one from each part in turn; `nice -n 10`, cut at 30 minutes; reported per part. The rule "
    "for keeping the memory's rules as they are: the points go up and right -> wrong is at most 2% of the "
    "questions run; else the rule that misled (read from the pair shown or the layer text of each right -> wrong "
    "answer) is reverted.",
    "",
    "grown_v6 was not run by the round's helper (an interrupted connection cost it an hour between the "
    "determinism check at 19:57 UTC and its deadline at 21:15 UTC); the lead ran it afterwards with the "
    "command it left, `nice -n 10 timeout 1800 python bench/bi_memory.py --set grown --v6 --tag grown_v6`"
    " (its row and lines below).",
    "",
]


# Round 8 (bench/bi_memory.md): the plan, written before grown_v8 ran, then the ceiling it was read from.
ROUND8_PLAN = [
    "",
    "### round 8 (plan, written before grown_v8 ran): the lever and its criterion",
    "",
    "The ceiling (below, `ceiling`) and the reach of the show rules on grown_v6's 19 answerable misses of"
    " class template / parts (what `ExampleMemory.shown` would give them; a pair is useful when its SQL "
    "or gold is the miss's gold template, or it uses a column or join the gold needs and the empty answer"
    " lacked): with the shape rules (`fits`) at the show floor 0.6, 2 are shown a pair, 1 a useful one; "
    "without the shape rules at 0.6, 13 shown, 8 useful; lowering the floor with the shape rules reaches "
    "3 useful at 0.3. grown_v5's 18: 2 / 7 useful (shape / no shape, at 0.6); grown_v4's 20: 1 / 8. The "
    "shape rules, not the floor, hide what the memory holds.",
    "",
    "- the lever measured: `ExampleMemory.shaped = False` (`--any-shape`): the k nearest pairs at cosine "
    ">= 0.6 shown whatever their shape, condition or direction (the rules `fits` adds stay for reuse and "
    "the decline evidence, which do not read it).",
    "- the sample, fixed before the run (`v8_sample`): grown_v6's 19 answerable misses of class template "
    "/ parts in its order, and held-out #13's questions on the memory's databases (33: 20 answerable, 13 "
    "unanswerable; development data, never used for a memory rule) in `later`'s order, one from each part"
    " in turn; the primed protocol, `nice -n 10 timeout 1500` (25 minutes: this round's deadline), "
    "reported per part.",
    "- adopted (the default becomes `shaped = False`) only when the points go up on held-out #13's "
    "answerable part AND right -> wrong is at most 2% of the questions run; else not shipped (the switch "
    "stays off, the numbers kept).",
    "- amended at 23:10 UTC, from its pace only (4 questions in its first 10 minutes, none changed): "
    "grown_v8 answers about 10 questions in 25 minutes, so when it stops, `grown_v8b` continues the same "
    "sample on the same code from the first question it did not answer (`--exclude grown_v8`), cut at "
    "23:52 UTC; the two are reported together as one run, the criterion unchanged.",
]


# Round 9 (bench/bi_memory.md): the lead's plan, written before grown_v9 ran.
ROUND9_PLAN = [
    "",
    "### round 9 (plan, written by the lead before grown_v9 ran): any shape against the shape rules",
    "",
    "Round 8's run left the lever undecided: its sample was mostly misses, and its gains came with the shape rules"
    " too. The comparison that decides it, on questions with right answers to lose: held-out #14's questions on the"
    " memory's databases (`v9_sample`: 27, 18 answerable; development data since its one run, never used for a"
    " memory rule), the primed protocol, the same grown memory (175 pairs). `grown_v9a`: `--any-shape`; `grown_v9s`:"
    " the shape rules (the default). Both answer the empty condition the same way (primed: a reply is a function of"
    " its request), so the two memory conditions are compared with each other and with it.",
    "",
    "- adopted (the default becomes `shaped = False`) only when any shape gives more right answers than the shape"
    " rules on this sample AND its right -> wrong against the empty memory is at most 2% of the questions run;"
    " else the default stays.",
]


ROUND10_PLAN = [
    "",
    "### round 10 (diagnosis and plan, written before grown_v10 ran): the (b) misses declined before any SQL",
    "",
    "The 30 rows of `ceiling`'s class (b) with no SQL with an empty memory (grown .. grown_v6; 24 distinct questions,"
    " several asked in more than one run), each read from its stored reason (`off.why`), the memory's answer in the"
    " same run (`on`), the grown memory's pairs of its database (its own aside: which approved questions say the"
    " declined word, which approved queries use the column the gold maps it to) and `_aligned` (what one pair would"
    " align to that column; `lessons` needs SUPPORT = 2). No model run.",
    "",
    "| class (rows / distinct questions) | declined word (check) | the gold's column for it | approved questions that"
    " say the word | approved queries that use the column | `taught` | why not |",
    "|---|---|---|---|---|---|---|",
    "| not a decline: the SQL step failed (5 / 4) | none: 'lifespan ... Nigeria and Kenya' x2 and 'longevity -- japan"
    " vs germany vs brazil' (a column of another database, `o_orderdate` / `TakenOn`), 'unemployment rate per state"
    " in the Northeast' (a cut JSON reply), 'nation's customers ... total account balance' (GROUP BY) | - | - | - |"
    " - | the SQL step was reached; 'lifespan' was turned right by a shown pair in grown_v5 and grown_v6 |",
    "| a glued word (4 / 4) | 'lineitem number' (field mapping) | `lineitem` (the table, counted) | 4-5 at cosine"
    " 0.54-0.75 ('How many line items were shipped by RAIL in 1995?') | 11-12 | no (no unnamed column) | already"
    " covered: `_says` reads 'line items' as 'lineitem' since grown_v3 (its two turned right there); grown_v2's two"
    " ran before that rule |",
    "| a paraphrase no approved question of the database says (13 / 9) | 'revenue' x4 (2 questions) and"
    " 'furniture revenue', 'units sold' x2, 'jobless percentage' x2, 'woman' ('births per woman'), 'clients',"
    " 'supplier headcount', 'outbound route count' (all field mapping) | `orders.sales`, `orders.quantity`,"
    " `unemployment.rate`, `indicators.fertility`, `Customer`, `supplier`, `routes.SourceID` | none (they say"
    " 'sales', 'quantity', 'unemployment', 'fertility', 'customers', 'suppliers', 'departing routes') | every one: 1-5"
    " queries per column | no: the word is only in the miss's own question, so no pair aligns it (and the one pair"
    " saying 'sold' aligns it to `sub_category`) | `covers` needs the term's words in an approved question; the"
    " meaning check (decline.py, `meaning_of`, MEANING_FLOOR 0.785 against the whole layer) places none |",
    "| a word an approved question says, then wrong SQL (1 / 1) | 'support agent' | `Customer.SupportRepId` |"
    " 'How many employees have the title Sales Support Agent?' (0.66; a value of `Employee.Title`) | 1 ('How many"
    " customers does Jane Peacock support?', 0.48) | no | covered with the memory (grown_v6: answered, wrong: the"
    " pair is about the title, not the join) |",
    "| no column at all (7 / 6) | 'percentage' x2 (a ratio of two sums), 'group' x2 ('a tally for each group'), 'TPC-H'"
    " (the benchmark's name, value check), 'SupportRep' (a column's spelling, value check), 'air line item count'"
    " ('air' is a value) | an expression, a GROUP BY, none | none | - | no | not the memory's: decline.py's"
    " grammar of ratios, groupings and value words |",
    "",
    "So no approved pair can turn 28 of the 30 by what it says: 4 are already covered, 5 reached the SQL step, 7 name"
    " no column, and 13 use a word that only the miss says. What the memory does hold for those 13 is the column:"
    " every one is used by an approved query of its database, in 8 of the 9 questions by one of the k=3 nearest"
    " pairs (`nearest`, floor 0.3). The lever, written before its run: approved columns as decline evidence.",
    "",
    "- the rule (`ExampleMemory.covers`): a term is also covered when each of its own words (not generic) is spelt by,"
    " or at least COLUMN_MEANING = 0.6 (MiniLM cosine) from, the name in words of a table or column that an approved"
    " query of the k nearest pairs (`nearest`) reads. Each word must be placed, so a held modifier does not lift a"
    " missing head ('customer age': 'age' is near no approved column). On the diagnosis' 9 questions, mechanically:"
    " 'clients' -> `Customer` (0.62), 'revenue' -> `profit` / `sales` (0.73 / 0.65), the others below 0.6 ('jobless"
    " percentage' 0.36, 'woman' 0.40, 'outbound route count' 0.59 whole). Evidence for the decline only: which"
    " column the SQL uses is still the SQL step's choice.",
    "- the sample, fixed before the run (`v10_sample`): the 24 distinct questions above in `ceiling`'s order"
    " (part `b_declined`, the rule's own development data) and held-out #14's questions on the memory's databases"
    " (part `heldout14`, 27: 18 answerable, 9 unanswerable; no memory rule was adopted on it) one from each part in"
    " turn, the primed protocol, `nice -n 10 timeout 1800`, reported per part.",
    "- adopted only when (1) the points go up on part `b_declined` (the rule reaches its target), (2) on part"
    " `heldout14` no answerable question turns right -> wrong and no unanswerable question declined with an empty"
    " memory is answered with it, and (3) right -> wrong over all questions run is at most 2%; else not shipped"
    " (`covers` stays as it was, the numbers kept).",
]


ROUND10_AFTER = [
    "",
    "Checked before the run, mechanically (no model): every term declined with 'no field for ...' in the stored"
    " results of the memory's databases (101 (database, question, term): 49 answerable, 52 unanswerable) against the"
    " rule with the grown memory: it newly covers 3 answerable ('clients', 'revenue' twice: the 3 it reached in the"
    " run) and 2 unanswerable: 'nation' of 'which nation has the friendliest people?' ('countries', 0.68: a right"
    " placement; the question's missing part is 'friendliest people') and 'bitrate' of 'What is the bitrate of each"
    " track?' (`Bytes`, 0.60, at the floor: the one over-fire). The floor was not moved after this check.",
    "",
    "The result (grown_v10, its row and lines above): part b_declined 7 -> 10 of 20 (+15.0 points; the rule's own"
    " share +5.0: 1 of the 3 it reached turned right), held-out #14's part 5 -> 5 of 16 (+0.0), its one unanswerable"
    " declined with an empty memory still declined, right -> wrong 0 of 39. By the plan's criterion the rule is"
    " adopted and stays in `ExampleMemory.covers`. What it does not reach, and why: a paraphrase whose words are far"
    " from every approved column name by MiniLM ('jobless' / `rate` 0.33, 'woman' / `fertility`, 'units sold' /"
    " `quantity` not among the near pairs' columns), and the SQL after a decline is turned (2 of 3 written wrong: an"
    " aggregate dropped, a join added). Next: the near pairs' columns as a hint to the SQL step for a term the rule"
    " covered (which column the term was placed on), and the same evidence for a value word (decline.py's value"
    " check reads no approved SQL: 'big airports', 'SupportRep').",
]


ROUND11_PLAN = [
    "",
    "### round 11 (diagnosis and plan, written before grown_v11 ran): where a covered term lives",
    "",
    "Round 10's rule let 3 declined questions through to the SQL step (grown_v10); 2 were then written wrong. Each"
    " read from grown_v10's stored answers, the grown memory's 3 nearest pairs of its database (`nearest`, its own"
    " aside) and MiniLM's cosine between the declined word and the names those pairs' queries read (no model run):",
    "",
    "| question (grown_v10, memory) | word | names the near pairs read, nearest first (cosine) | what went wrong |"
    " would a column hint reach it |",
    "|---|---|---|---|---|",
    "| California versus Texas revenue, summed (right) | 'revenue' | `profit` 0.73, `sales` 0.65, `orders` 0.27 | -"
    " | a hint by the nearest name says `profit` and could turn it wrong; with two names at or above 0.6 the rule"
    " below places nothing: unchanged |",
    "| compare revenue in California and New York (wrong) | 'revenue' | the same two names | `sales` listed per"
    " row, not summed per state: the column was right, the aggregate dropped | no: two names (nothing placed), and"
    " what it lacks is an aggregate, not a column |",
    "| how many clients do we have in Canada, and how many in the USA? (wrong) | 'clients' | `Customer` 0.62,"
    " `customer id` 0.41, `invoice` 0.37 | a join to Invoice: COUNT(*) counted invoices (a near pair is 'How many"
    " invoices were billed to Canada?') | yes: one name, the table `Customer`; its description in the SQL prompt"
    " says the question's 'clients' are its rows |",
    "",
    "The questions still declined with the memory are not reached either: every word of the term must be placed, and"
    " 'jobless' (`unemployment` 0.47), 'units' / 'sold' (0.32-0.37), 'outbound' (`airports` 0.43), 'big'"
    " (`type` 0.41) are below COLUMN_MEANING; 'group' is no column. So the hint reaches 1 of round 10's 3 (the"
    " 'clients' join), and a hint that names a column only when one name is near is what keeps 'revenue' safe.",
    "",
    "- the rule (`ExampleMemory.placing`, `placements`, written by `taught` on each question): the question's runs"
    " of words that nothing names (`_runs`, the runs `_aligned` reads: no schema name or synonym, no word of a value"
    " the question names or the data stores) are placed on a table or column that an approved query of the k"
    " nearest pairs reads (a join's keys aside) when exactly one such name is at least COLUMN_MEANING = 0.6 from"
    " each word of the run; two names place nothing. A column gets the run as a synonym (field mapping maps it, so"
    " the SQL prompt's 'Known:' says which column) and in its description; a table, in its description (the SQL"
    " prompt's schema shows it). Recomputed per question, removed by `untaught`.",
    "- checked before the run on round 10's sample (51 questions, mechanically, no model): it fires on 'clients'"
    " alone. Its first draft also placed lower-case values on `countries` ('india' of 'india and china headcount,"
    " 1980'; 'germany', 'brazil'): values are excluded by `stored_words` (a category's word or any stored value),"
    " decided on that check, before the run.",
    "- the sample, fixed before the run (`v11_sample`): round 10's part `b_declined` (24 questions, in its order) and"
    " held-out #15's questions on the memory's databases (part `heldout15`, 29: 18 answerable, 11 unanswerable;"
    " development data since its one run, never used for a memory rule: the right -> wrong guard) one from each part"
    " in turn, the primed protocol, `nice -n 10 timeout 1800`, reported per part. A question the rule fires on is"
    " answered a third time with the memory and the switch off (`on_unplaced`): the rule's own effect, in the same"
    " run.",
    "- adopted (`placing` stays True) only when (1) over the questions it fires on, with the rule gives more right"
    " answers than the same memory without it (`on` against `on_unplaced`), (2) on part `heldout15` it turns no"
    " answer right -> wrong against `on_unplaced` and no unanswerable question declined without it is answered with"
    " it, and (3) the memory's right -> wrong (empty -> memory) over all questions run is at most 2%; else not"
    " shipped (`placing` defaults to False, the numbers kept). If it fires on no held-out #15 question, (1) rests on"
    " part b_declined, its own development data, and the report says so.",
]


ROUND11_AFTER = [
    "",
    "Checked after the run started, before its results were read (mechanically, `placements` over the whole"
    " `v11_sample`, 53 questions, with the value test the agent uses): the rule fires on 3: 'clients' -> `Customer`"
    " (b_declined), 'acct' of \"suppliers' mean acct balance broken out by region\" -> `customer.c_acctbal`"
    " (held-out #15; a wrong placement: the near pairs read customers' balances, the question asks suppliers'),"
    " 'vehicle' of 'heavyest vehicle on the list?' -> the `cars` table (a right one; the cut came first). The first"
    " question's progress line (clients: wrong with the memory) was in the log before this check; nothing was changed"
    " after the run started.",
    "",
    "The result (grown_v11, its row and lines above): the placing fired on 2 of the 31 questions run and changed no"
    " answer: with and without it the same SQL ('clients': both model calls of its answer with the memory decoded anew, none replayed, the"
    " same count over a join to Invoice; 'acct': the same `AVG(customer.c_acctbal)` as with an empty memory): right"
    " 0 -> 0, right -> wrong 0. Criterion (1) is not met: not shipped; `ExampleMemory.placing` defaults to False"
    " (`ExampleMemory(..., placing=True)` measures it), the numbers kept. The memory otherwise (round 10's rules):"
    " part b_declined 7 -> 10 of 16 (+18.8), held-out #15's part 2 -> 2 of 13 (+0.0), right -> wrong 0 of 31."
    " Why the hint did not move the SQL is not read yet: for 'clients' no pair was shown, and the layer's table"
    " slice for the question is `Customer` alone (`retrieve`), so the Invoice join is the model's or the composed"
    " parts' own; a description of the table does not reach it.",
    "",
    "The cache (`_near_names`, an lru cache per (words, names) in place of `_reads` embedding the near pairs' names on"
    " every call): on the 279 (database, question, term) declined with 'no field for ...' in the stored results of"
    " the memory's databases, 3 `covers` calls each (the decline judgment asks a term more than once), embed calls"
    " 2415 -> 1905, texts embedded 9396 -> 5764 (-39%), 556 -> 359 ms per call (1-minute load 6-9, beside the model"
    " run: not quiet-machine times). What is left per call is `nearest`: the question and its pairs embedded on each"
    " call (2.3 embed calls per `covers` call).",
    "",
    "Next: read the SQL step's request for 'clients' with and without the placing (is the Invoice join the model's"
    " or the parts' derived joins?) before any other hint; for 'compare revenue in California and New York' the"
    " lever is the aggregate the near approved queries put on the column (all read `SUM(sales)` / `SUM(profit)`),"
    " not the column, and two names are near 'revenue'; a cache of `nearest` per (connection, question), cleared"
    " on an approval or a removal; and for a value word, the hook in decline.py's value check (`missing_values`)"
    " that would ask `approved_covers` as `_missing` does.",
]


ROUND11B_PLAN = [
    "",
    "### round 11b (plan, written before grown_v11b ran): the placed word where compose counts rows",
    "",
    "Read after grown_v11 (its 'Next'), by answering 'how many clients do we have in Canada, and how many in the"
    " USA?' once more with the memory, placing on and off, every request and reply logged (bench/bi_memory_primed.py,"
    " 04:05 UTC): both times the SQL step's parts were right (`select count(*)`, `group_by Customer.Country`, the"
    " slice `Customer` alone, the table's description saying 'clients' with the placing); the Invoice join is"
    " compose's (`_lookup_counted`: a COUNT(*) of a looked-up table's rows filtered on a named value counts the table"
    " that refers to it, unless the counted noun names the table by its name or a column's synonym"
    " (`_counted_table`); 'customers' does, 'clients' did not). A description does not reach that rule; a synonym"
    " does: with 'clients' a synonym of `Customer.CustomerId`, compose writes the gold's query (checked with compose"
    " alone, no model).",
    "",
    "- the amendment: a word placed on a table is also a synonym (and in the description) of its key column"
    " (`_key_column`: one named 'id' or '<table> id', else the first column): the table's rows are named by it"
    " wherever the layer's synonyms are read (compose's counted table, field mapping, the decline judgment).",
    "- the sample, fixed before the run (`v11b_sample`, no model: the questions the rule fires on, which only the"
    " memory and the code decide): of round 10's part b_declined and held-out #13's, #14's and #15's questions on the"
    " memory's databases (development data; #13 and #14 were used for memory rules before, #15 never), those whose"
    " words the placing places; each answered with an empty memory, with the memory and the placing, and with the"
    " memory without it (`on_unplaced`), primed, `nice -n 10 timeout 1500`.",
    "- adopted (`ExampleMemory.placing` defaults to True) only when (1) with the placing more of these questions are"
    " right than without it, (2) none right without it is wrong with it (a right -> wrong by the rule: not adopted,"
    " whatever the gains), and (3) no unanswerable question declined without it is answered with it; else not"
    " shipped (the switch stays off, the numbers kept). Few questions: a gain on 'clients' alone is the rule's own"
    " development data, and the report says so.",
]


ROUND11B_AFTER = [
    "",
    "The result (grown_v11b, its row and lines above): the sample was 5 questions (the placing fires on 'clients' of"
    " b_declined and of held-out #13, 'tomatometer' of held-out #13 -> the `tomatoes` table, and held-out #15's 'acct'"
    " and 'vehicle'); with the placing 2 right, without it 1 ('how many clients do we have in Canada, and how many in"
    " the USA?' wrong -> right: `COUNT(*) FROM Customer` per country, no Invoice join), right -> wrong 0, no"
    " unanswerable question in the sample. The criterion is met: `ExampleMemory.placing` defaults to True. What it is"
    " worth: the one gain is 'clients', the question the amendment was read from (its own development data), and no"
    " held-out question gained; 'avg tomatometer of the films Christopher Nolan directed?' went from a wrong answer"
    " to an error with it (the word near the table's name, `tomatoes`, while the column it means is `Meter`: written"
    " on the table's key column, the model invented `tomatoes.Name`), wrong both ways, so not a right -> wrong, but a"
    " sign of the over-fire to watch: a word that names a measure of a table placed on the table. 'acct' (placed on"
    " customers' balances for suppliers') and 'vehicle' stayed wrong. Held-out #16 decides whether it holds.",
    "",
    "Guard, written after grown_v11b's adoption and before grown_v11c ran: the rule fires on 13 of the 496"
    " development questions of the memory's sets and databases (every stored set's and held-out #13-#15's,"
    " mechanically); read by hand, 6 placements are right ('clients' x3, 'elevation' -> `Altitude`, 'vehicle' ->"
    " `cars`, 'bitrate' -> `Bytes` of an unanswerable question) and 5 wrong ('shipments' -> `supplier`, 'films' ->"
    " `omdb.Oscars` x2, 'acct' -> customers' balance, 'tomatometer' -> the `tomatoes` table), 2 neither ('overall' ->"
    " `Invoice.Total`, 'porsches' -> `cars` of an unanswerable question). `grown_v11c` answers the 8 that grown_v11b"
    " did not, three ways as before; if the placing turns any right answer wrong there, or answers an unanswerable"
    " question declined without it, the default goes back to False.",
]


ROUND12_PLAN = [
    "",
    "### round 12 (diagnosis and plan, written before grown_v12 ran): approved filters as evidence for value words",
    "",
    "Round 11's 'Next': a value word an approved query's filter spells or means ('big airports' declined while the"
    " near approved queries filter on 'large_airport'). The rule (`ExampleMemory.filter_values`, in `_reads`): a"
    " declined term's word is also held when it is spelt by a word of a text literal a near approved query (the k"
    " nearest, `nearest`) compares with a column (=, <>, IN, LIKE: `_filter_values`), or is another form of one"
    " (`other_form`), or is at least COLUMN_MEANING = 0.6 (MiniLM) from a word of such a value written in lower case"
    " (a category's code, 'large_airport'); each word of the term must be held, by a read name or a filter value.",
    "",
    "Diagnosis (`--reach12`, no model): every development question of the memory's sets and of held-out #13-#15 on"
    " its databases, each term a stored result declined it on ('no field ... for') or `missing_asked` declines with"
    " the grown memory, against `covers` without and with the rule. The first draft (MiniLM against every filter"
    " value's words) newly covered 3 terms: 'size' of 'How many medium-sized airports are in the United States?'"
    " (answerable; near pairs filter 'large_airport') and two unanswerable over-fires, 'lead singer' of 'Who is the"
    " lead singer of Queen?' and 'royalty' of 'How much royalty is paid to the composer of each track?' (near a"
    " band's name, 'Queen' / 'Led Zeppelin'). So MiniLM reads only lower-case values (a code, not a name): decided on"
    " that check, before any run; the rule then covers 'size' alone. 'big airports' itself is not the memory's:"
    " decline.py's `missing_kinds` declines it ('the data holds no value 'big airports''), a check that asks no"
    " approved pair (bi27's file: the hook is `_modifier_held` asking `approved_covers`).",
    "",
    "- the sample, fixed before the run (`v12_sample`): the reached question (part reach), a guard of 12 questions"
    " right with the memory in grown_v10 / grown_v11 whose near pairs filter on a text value (part guard), and the"
    " draft's two unanswerable over-fires (part overfire); primed, each answered with an empty memory, with the memory"
    " and the rule, and, where the rule decided a term (`_filter_decided`), with the memory without it"
    " (`on_unfiltered`); `nice -n 10 timeout 1200`.",
    "- shipped (`filter_values` defaults to True) only when (1) over the questions the rule decided a term on, it"
    " gives more right answers than without it (`on` against `on_unfiltered`), (2) right -> wrong (`on_unfiltered` or"
    " the memory's answer -> with the rule) at most 2% of the questions run (none, on 15), and (3) no unanswerable"
    " question is answered because of the rule; else reverted (default False, the numbers kept). One reached"
    " question is thin evidence: a gain there is one question of development data, and the report says so.",
]


ROUND13_PLAN = [
    "",
    "### round 13 (plan, written before grown_v13 ran): the shipped memory on wording it was not built on",
    "",
    "The issue's question: does the shipped memory (round 10's rules; the placing and the filter values off) help on"
    " wording it was not built on? Held-out #16 (bench/bi_heldout16.py) was run once last session with an empty"
    " memory and never used for a memory rule. No rule is tuned on this run: it is a measurement.",
    "",
    "- the sample, fixed before the run (`v13_sample`): held-out #16's questions on the memory's databases (`later`,"
    " its file's order), each answered with an empty memory and with the grown memory (the same `approved_pairs`"
    " earlier rounds used), side by side, primed (bench/bi_memory_primed.py), `nice -n 10 timeout 1500` (cut at 25"
    " minutes of model time; the questions answered are the ones reported).",
    "- reported: right with an empty memory against with the memory (answerable questions run), right -> wrong and"
    " wrong -> right, each unanswerable question declined with an empty memory and answered with the memory (answered"
    " because of the memory), and seconds per question with the memory on (median / mean) against empty.",
    "- read as: the memory helps on new wording when wrong -> right exceeds right -> wrong; it is safe there when right"
    " -> wrong is at most 2% of the questions run and no unanswerable question is answered because of it. Whatever"
    " the numbers, nothing is changed on them in this round.",
]


ROUND14_PLAN = [
    "",
    "### round 14 (diagnosis and plan, written before grown_v14 ran): approved examples the shape rules keep from new"
    " wording",
    "",
    "Diagnosis (no model; `shown` with the agent's value test, grown_v13's stored answers): of held-out #16's 24"
    " questions on the memory's databases, 12 have an approved pair at 0.6 or more among the POOL * k nearest; 2 were"
    " shown one (both fit), 10 none. For each, the pairs at 0.6 or more, the `fits` check that left each out, and"
    " whether the pair's SQL has what the gold needs (columns, aggregate, joins, filters):",
    "",
    "| question (grown_v13: empty / memory) | pair (cosine) | left out by | would it have helped | class |",
    "|---|---|---|---|---|",
    "| blues + jazz songs, how many altogether (right / right) | 'How many tracks are in the Blues genre?' 0.79,"
    " '... Jazz genre?' 0.73 | shape: 'altogether' read as a sum | no: one genre where the gold compares two (`IN`);"
    " the grown_v4 hazard (a one-value pair for a comparison) | misread word ('altogether' after a count); the"
    " exclusion is right on another ground ('+' joins two values: a comparison) |",
    "| line items going by AIR versus RAIL, give me both counts (wrong / right) | 'How many line items were shipped"
    " by RAIL in 1995?' 0.70 | shape ('counts' unread) and condition (compare vs filter) | no: one mode and a year,"
    " the gold groups two modes | right exclusion |",
    "| spielberg vs scorsese - number of films each (wrong / wrong) | 'Which director has the most movies?' 0.61 |"
    " shape, condition, direction | no: a ranking, the gold counts two directors | right exclusion |",
    "| how many people lived in india, and in china, in 2000 (wrong / wrong) | 'What was the population of India in"
    " 2000?' 0.69 | shape ('how many people' read as a count), condition (lower-case countries: no filter read) |"
    " partly: the right column and year, one country where the gold compares two | misread words; a one-value pair"
    " for a comparison |",
    "| puerto rico's airports - names (right / right) | 'How many airports are in Puerto Rico?' 0.84 | shape (count"
    " vs list) | no: a count, the gold lists names | right exclusion |",
    "| 4-cylinder cars, europe and asia, count for both (right / right) | 'how many cars come from europe, and how"
    " many from asia?' 0.73 | condition: the pair's words are not read as a comparison ('europe, and how many from"
    " asia') while its SQL compares | yes (the gold less `cyl = 4`), but right without it | misread pair wording |",
    "| any service from reykjavik? number of routes (unanswerable; answered both) | 'How many routes are there?' 0.61"
    " | shown | - | - |",
    "| brazillian buyers - typical invoice amount (mean) (right / right) | 'What is the average invoice total?' 0.67,"
    " '... per customer country?' 0.69, 3 sums 0.63-0.65 | shape: 'invoice total' (a column's name) read as a sum,"
    " which the pair's SQL lacks | yes: `AVG(Invoice.Total)` (the gold adds the Brazil filter, which the question's"
    " 'brazillian' does not name to the condition either) | misread word ('total' closing a noun) |",
    "| sum of order value across everything booked in 1997 (right / right) | 'What is the total value of the orders"
    " placed in 1993?' 0.67 | shown | - | - |",
    "| kids per woman across europe & central asia in 1980, avg (wrong / wrong) | 'What was the average fertility in"
    " Europe & Central Asia in 1990?' 0.72 | shape: 'per woman' read as a grouping, 'avg' unread | yes: the gold"
    " with another year | misread words ('per' a unit, 'avg') |",
    "| which region's vendors get the best quality ratings (unanswerable; declined both) | 'Which region has the"
    " most customers?' 0.65 | shape, direction ('best' unread) | no (unanswerable: showing it risks an answer) |"
    " right exclusion |",
    "| how long will people in japan live on avg by 2040 (unanswerable; declined both) | 'What was the life"
    " expectancy in Japan in 2010?' 0.67, a comparison 0.63 | condition (lower-case 'japan' read as no filter) | no"
    " (unanswerable) | right exclusion |",
    "",
    "Classes: 6 right exclusions (the pair's SQL differs from the gold in shape or condition, or the question is"
    " unanswerable), 2 shown, 4 misread words of the question or the pair ('altogether' after a count, 'total'"
    " closing a noun, 'per' before a unit, 'avg', 'counts'; a pair's 'X, and how many from Y'). One excluded pair would"
    " have helped a wrong answer ('kids per woman': the gold with another year); one a right answer"
    " ('brazillian buyers'); none of the other 8.",
    "",
    "- the rule (`shape`, `SHAPE`, `RATE`, `TOTAL_NOUN`, `ALTOGETHER`, `JOINED`): the shape words read as written:"
    " 'avg' is an average and 'counts' a count; 'altogether' after a count word is no sum; a 'total' closing a noun"
    " ('invoice total', before the end, a comma or per / by / for / in / from / across) is no sum; 'per' before a"
    " unit (capita, person, people, head, woman, man, adult, child, a number) is no grouping; '+' between two values"
    " joins a comparison. General: wording, not questions; `shape_words_off` (the bench) switches it off.",
    "- checked before the run, mechanically (no model): over every development question on the memory's databases"
    " (`v14_scope`: held-out #16's, the stored sets', held-out #13-#15's; 520), the rule changes the pairs shown on"
    " 3 ('brazillian buyers' -> 'What is the average invoice total?'; 'kids per woman' -> 'What was the average"
    " fertility in Europe & Central Asia in 1990?'; heldout6's 'rank the five countries with the most births per"
    " woman in 2010' -> 'Which country had the highest fertility in 1970?') and the kinds of taught filters"
    " (`_compares`) on none: every other question's input is the same with it, so its answers are the memory's as"
    " measured (the guard on right answers kept holds mechanically there).",
    "- the sample, fixed before the run (`v14_sample`: those 3, none unanswerable), each answered with the grown"
    " memory and the rule off (`shape_words_off`, the baseline) and with it on, primed, `nice -n 10 timeout 1200`.",
    "- shipped only when (1) with the rule more of the sample is right than without it (points up), (2) right ->"
    " wrong at most 2% of the questions run (on 3 questions: none), and (3) no unanswerable question answered because"
    " of it (none in the sample; none has its pairs changed by it in the scope); else reverted, the numbers kept."
    " Thin evidence whatever the result: 1 of the 3 is the diagnosed question itself ('kids per woman', held-out"
    " #16, development data now), and the report says so.",
]


ROUND15_PLAN = [
    "",
    "### round 15 (plan, written before any of its measures ran): the memory's cost; a misspelt value read as a filter",
    "",
    "(A) Cost, no behaviour change. Read before the code: the store's vector of an approved pair is the vector of"
    " its item's text (`Item.text`: the tool, the SQL as JSON, then the question), not of its question alone, so"
    " `_cosines` (the question against each pair's question, the floors 0.3 / 0.6 measured on those) cannot read"
    " it without changing every cosine: reading the stored vectors is a behaviour change, not this round's. What"
    " repeats is the same text embedded again: the question once per k asked (the store's search) and again in"
    " `_cosines`, and each pair's question in `_cosines` for every question near it. The change: the approved"
    " examples' store embeds through `Remembered` (orrery/recall/embed.py, added), which keeps the vector of each"
    " text it embedded (a vector is a function of its text alone, so a kept one is never stale; the newest 4,096"
    " texts), so each text is embedded once. Criterion, fixed before the code: with `--nearest-replay` (round 13's"
    " protocol, the `nearest` cache on in both passes, the kept vectors emptied before each pass), texts embedded"
    " and embed calls over the pass down by at least a third, and the same declines, pairs shown and reuse"
    " candidates on every question (compared mechanically, `same_answers`); ms per question reported both ways with"
    " the 1-minute load. Tests: a stored pair's question is embedded once whatever the questions asked (a counting"
    " fake embedder); an approval and a removal between two asks still seen.",
    "",
    "(B) Round 14's next step (2). The rule (`value_test`, the agent's test of a lower-case word as a value word):"
    " a word is also a value word when it names a stored value in another form: the demonym of a country a column"
    " holds (decline.py's `demonym_held`, countryinfo's data: 'nigerian'), another form of a category's one-word"
    " value (decline.py's `other_form`: 'european' / 'europe'), or either misspelt by one edit (optimal string"
    " alignment, a word of 5 letters or more that is no word of MiniLM's vocabulary: 'brazillian' / 'brazilian',"
    " 'canadien' / 'canadian'). Such a question's condition then reads 'filter' (or 'compare' for two of them"
    " joined), so a pair without a filter does not fit it: the safer direction. General: wording, not questions;"
    " `other_forms_off` (the bench) switches it off.",
    "- diagnosis first, no model (`--v15-scope`): over every development question on the memory's databases"
    " (`v15_scope`: round 14's `v14_scope` with sets #1..#18 whole: every set of bench/bi_nokeys.py's SETS, each"
    " question once), how many questions' condition reading (`condition` with the agent's value test) changes with"
    " the rule, and on which the pairs shown (`shown`) change. Fewer than 3 questions changed: no model run, (B)"
    " stops there.",
    "- the sample, fixed before the run (`v15_sample`: the questions whose pairs shown change, in `v15_scope`'s"
    " order, at most 16), each answered with the grown memory and the rule off (the baseline) and on, primed,"
    " `nice -n 10 timeout 1200` (cut at 20 minutes of model time; the questions answered are the ones reported).",
    "- shipped only when (1) with the rule at least as much of the sample is right as without it and at least one"
    " answer goes wrong -> right, (2) right -> wrong at most 2% of the questions run, and (3) no unanswerable"
    " question answered because of it; else reverted, the numbers kept.",
]


ROUND15_AFTER = [
    "",
    "(A), the result (`--v15-replay`, bench/results/bi_memory_replay_v15.json; no model): the 57 distinct questions"
    " of grown_v10..grown_v12, the `nearest` cache on in both passes: embed calls 217 -> 112 (-48%), texts embedded"
    " 831 -> 331 (-60%), 322 -> 171 ms per question (1-minute load 3.7 / 4.0, other helpers beside it: not"
    " quiet-machine times), the same declines, pairs shown and reuse candidates on all 57 (`same_answers`)."
    " Criterion met; shipped. What it is: `Remembered` (orrery/recall/embed.py, added; embed.py's other names"
    " unchanged), held by `ExampleMemory` (`_embed`), and the question's vector passed to the store's search"
    " (`vector=` of `MemoryStore.search` and `ApprovedExamples.examples`), so the question is embedded once for its"
    " searches (k = 6, 12, 8 with leave-one-out) and its cosines, and a pair's question once for every question"
    " near it. The store's embedder stays the process's one MiniLM (the decline check shares it). Not done: reading"
    " the stored vectors (they are of the pair's item text, its SQL included: every cosine would change, and the"
    " floors were measured on question-to-question cosines). What is left per question (about 2 calls, 6 texts):"
    " the question, the pairs no earlier question was near, and the names `_reads` compares a term with"
    " (`_near_names`, emptied before each pass).",
    "",
    "(B), the diagnosis (no model; at 916f42f: `--v15-scope`, bench/results/bi_memory_scope_v15.json): of the 788"
    " development questions on the memory's databases (`v15_scope`, sets #1..#18), the rule changes the condition"
    " reading of 12 and the pairs shown on 1. That one: held-out #9's 'for the year 2000 give me japanese, brazilian"
    " and nigerian life expectancy' (answerable) reads 'compare' (three demonyms joined) in place of 'none' and is"
    " shown 2 pairs in place of none ('how's life expectancy in Japan compared to India in 2000?', 'life expectancy:"
    " nigeria vs kenya, 1990'): the rule lets pairs in there, the opposite of the direction it was meant for. The"
    " question it was meant for, 'brazillian buyers - typical invoice amount (mean)', now reads 'filter' but is"
    " shown no pair either way: with round 14's rule reverted, the shape rules already keep 'What is the average"
    " invoice total?' from it ('total' read as a sum), so nothing was left to keep out. The other 10 ('How many"
    " trucks does each supplier own?', 'european nations + how many custs each one has', 'germans plus french -"
    " total customer count', 'heaviest european car', 'msrp for fords in 1975', ...; 4 unanswerable) are shown no"
    " pair either way. The condition reaches the model only through the pairs shown (`_compares`, the taught"
    " filters' reading, calls `condition` without the value test), so 1 question's input changes: fewer than 3,"
    " no model run, (B) stops there and the rule is not shipped (reverted: examples.py as at 1790f9c; the rule,"
    " its tests, `v15_scope`, `other_forms_off` and `--v15-scope` are at 916f42f). A first diagnosis run matched"
    " other forms against every word of a category's value, not its one-word values as the plan says: 14 / 2"
    " (bench/results/bi_memory_scope_v15_anyword.json), the second being 'how many sub-saharan african countries"
    " are listed' shown 'How many countries are in Sub-Saharan Africa?', and 'units sold per shipping mode' read as"
    " a filter through 'united' of 'United States' (the over-firing the one-word restriction avoids).",
    "",
    "Next: (1) a misspelt or adjectival value word matters to the pairs shown only when a near pair passes every"
    " other check, which on this memory and these 788 questions happens once: leave the value test as it is"
    " unless a memory with many filtered pairs near such wording shows more; (2) 'germans plus french' reads one"
    " filter, not a comparison ('plus' is no joining word of `JOINED`): a reading to check on the scope before any"
    " run; (3) cost: what is left is one embed per new text; the"
    " `_near_names` names could be kept by the same `Remembered` (one call per question fewer), small beside a"
    " model call.",
]


ROUND16_PLAN = [
    "",
    "### round 16 (plan, written before grown_v16 or any (B) measure ran): the shipped memory on held-out #17 and"
    " #18; the prompt cache of the drafted examples",
    "",
    "(A) A measurement, no tuning (round 13's protocol). Held-out #17 and #18 were each run once with an empty memory"
    " and are development data now; no memory rule was decided on them. The memory is the shipped one (round 15's"
    " code as merged into integ, with round 33's drafted worked examples in the SQL step for both conditions).",
    "- the sample, fixed before the run (`v16_sample`, `--v16`): held-out #17's and #18's questions on the memory's"
    " databases (`later`, one from each set in turn, each in its file's order: 46 questions, 27 + 19, 14 of them"
    " unanswerable), each answered with an empty memory and with the grown memory (`approved_pairs` as in earlier"
    " rounds), side by side, primed (bench/bi_memory_primed.py), `nice -n 10 timeout 900` (cut at 15 minutes of"
    " model time; the questions answered are the ones reported, in the sample's order).",
    "- reported: right with an empty memory against with the memory (answerable questions run), right -> wrong and"
    " wrong -> right, each unanswerable question declined with an empty memory and answered with the memory"
    " (answered because of the memory), and seconds per question with the memory on (median / mean) against empty,"
    " with the 1-minute load.",
    "- read as: the memory helps on new wording when wrong -> right exceeds right -> wrong; it is safe there when"
    " right -> wrong is at most 2% of the questions run and no unanswerable question is answered because of it."
    " Whatever the numbers, nothing is changed on them in this round.",
    "",
    "(B) The cost of round 33's drafted examples as a user meets it (bench/bi_r16_cache.py): one process, one"
    " database, several questions in a row, the ordinary (unprimed) embedded model with its prompt cache, main"
    " (b95f0b0, a detached checkout) against integ (this branch's code), back to back, the same questions in the"
    " same order. Per model call it counts the prompt's tokens and those llama.cpp processed anew (the prompt less"
    " the cached prefix it reused: round 33's count), and the seconds per question. Reported per code: median"
    " seconds per question from the second question on (the first pays the load and the cold cache in both), the"
    " mean prompt tokens processed anew per SQL-step call and per call, and whether each question's SQL and status"
    " are the same under both codes (the answers are not expected to be: main shows the file's examples). The"
    " sample, fixed before the runs: the no-key development set's first 8 answerable questions on `world` (a"
    " database with a number year column, so the drafted year example is its own), `--db world --n 8`. A third"
    " run, this code with the drafted examples off (`--shots-off`: the file's examples, all else the same), tells"
    " the examples' share from the rest of what changed between b95f0b0 and integ. Added at 09:59 UTC, after the"
    " world runs and before this one: the same two codes on a second database, `--db store --n 8` (the no-key set's"
    " first 8 answerable questions on `store`, a database with a date column), to see whether world's reading holds.",
    "- a reordering (only if the SQL call's messages let the shared part come first without changing what the model"
    " is shown) is measured the same way against integ, and shipped only when every question's SQL and status are"
    " identical to integ's and the median seconds and tokens anew are down; else reported, not shipped.",
]


ROUND17_PLAN = [
    "",
    "### round 17 (plan, written before grown_v17 or any (B) measure ran): the shipped memory on more new wording;"
    " 'plus' as a joining word",
    "",
    "(A) A measurement, no tuning (rounds 13's and 16's protocol). The memory is the shipped one (main at 63d5f7b:"
    " round 15's code, round 33's drafted examples in the SQL step for both conditions); held-out #19 was run once"
    " with an empty memory and is development data now; no memory rule was decided on it.",
    "- the sample, fixed before the run (`v17_sample`, `--v17`): round 16's sample less the questions grown_v16 and"
    " grown_v16b answered (13: 10 of held-out #17, 3 of #18, 11 unanswerable [counted again after the run: 10]),"
    " then held-out #19's questions on the"
    " memory's databases (`later`, its file's order: 25, 8 unanswerable [counted again after the run: 9]): 38 questions, 19 unanswerable, each"
    " answered with an empty memory and with the grown memory (`approved_pairs` as in earlier rounds), side by side,"
    " primed (bench/bi_memory_primed.py), `nice -n 10 timeout 900` (cut at 15 minutes of model time; the questions"
    " answered are the ones reported, in the sample's order); one run, a second (`--exclude grown_v17`, its own"
    " row) only if the first ends before 12:20 UTC.",
    "- reported: right with an empty memory against with the memory (answerable questions run), right -> wrong and"
    " wrong -> right, each unanswerable question declined with an empty memory and answered with the memory"
    " (answered because of the memory), and seconds per question with the memory on (median / mean) against empty,"
    " with the 1-minute load.",
    "- read as: the memory helps on new wording when wrong -> right exceeds right -> wrong; it is safe there when"
    " right -> wrong is at most 2% of the questions run and no unanswerable question is answered because of it."
    " Whatever the numbers, nothing is changed on them in this round.",
    "",
    "(B) Round 15's next step (2): 'germans plus french - total customer count' reads one value, not a comparison:"
    " `JOINED` (examples.py, the words between two values of one kind that make `compares` true) has 'and', 'or'"
    " and the comma, not 'plus'. The reading: 'plus' joins two values as 'and' does; also checked, each on its own:"
    " '&' (left out on purpose, `COMPARING`'s comment: a value's own name holds it, 'Europe & Central Asia'), 'as well as',"
    " 'along with'. A 'plus' not between two values of one kind ('plus tax', 'two plus three', a value's own"
    " 'plus') changes nothing, since `compares` only reads the words between two mentions.",
    "- diagnosis first, no model (`--v17-scope`): over every development question on the memory's databases"
    " (`v17_scope`: round 15's `v15_scope` with held-out #19 added: sets #1..#19, each question once), for each"
    " joining word, how many questions' condition reading (`condition` with the agent's value test) changes and on"
    " which the pairs shown (`shown`) change.",
    "- fewer than 3 questions whose pairs shown change (for the words shipped together): no model run; the reading"
    " is shipped only if every condition change is a right reading (each said below) and a test fails without it,"
    " with counter-example tests ('plus tax', 'two plus three', a 'plus' inside a value). A word with a wrong"
    " reading among its changes is left out.",
    "- 3 or more: a sample fixed before its run (the questions whose pairs shown change, in `v17_scope`'s order, at"
    " most 16), each answered with the grown memory and the reading off (the baseline) and on, primed, `nice -n 10"
    " timeout 900`; shipped only when (1) with it at least as much of the sample is right as without it and at least"
    " one answer goes wrong -> right, (2) right -> wrong at most 2% of the questions run, and (3) no unanswerable"
    " question answered because of it; else reverted, the numbers kept.",
]


ROUND18_PLAN = [
    "",
    "### round 18 (plan, written and committed before corrected_v18 ran: d852dcd, 14:08:31 UTC; the run began"
    " 14:08:37): corrections, leave-one-out",
    "",
    "Round 17's reading: the memory grown from the development sets' right answers is safe and gives almost nothing"
    " (0 right -> wrong, 1 wrong -> right in 90 questions of new wording): its pairs sit near questions the model"
    " already answers. The case the issue asks approvals to help is a person correcting a wrong answer (approving"
    " the right SQL) and a later question of other wording on the same need. Measured here, before changing"
    " anything.",
    "- the memory (`_corrected_memory`, `CORRECTIONS`): for each answerable question of sets #1..#20 on the memory's"
    " 8 databases whose newest stored answer was wrong (`newest_answers`: per set, this checkout's result files in"
    " bench/results/, STORED's and bi_nokeys_<set>_here*.json, newest first by their date; `corrections`), its gold"
    " SQL approved as a person's correction, through `open_examples(store).approve(connection, question, sql)`, the"
    " call `orrery bi approve` and the web app's Right make once they have read the pair from the run (the product"
    " has no path yet to approve SQL the agent did not write: the CLI and the web app approve the run's own query,"
    " so a correction goes through the Python API). 195 corrections (chinook 40, movies 33, tpch 26, counties 23,"
    " world 20, flights 20, store 18, cars 15). Leave-one-out: a question never sees a correction of its own text"
    " (`ExampleMemory(leave_one_out=True)`); the memory's rules as shipped (shape + condition + direction, show"
    " floor 0.6, reuse, taught layer, decline evidence).",
    "- the reach, no model (`--v18-scope`, results/bi_memory_scope_v18.json, read before the run): of the 834"
    " questions on those databases with a stored answer (each once), 421 have a correction of another question"
    " near (`near`: MiniLM cosine >= 0.6, the show floor, whatever its shape; or an approved query whose values swap"
    " into it). Of the 195 corrected questions, 127 have another's correction near; the shape rules show one to"
    " the plan and SQL steps for 20 of them, a value swap reuses one for 1. Of the 577 questions right in their"
    " stored run, 284 have a correction near, 84 are shown one, 4 reuse one.",
    "- the sample, fixed before the run (`v18_sample`, `--v18`): the corrected questions with another's correction"
    " near, nearest first (the cosine of the nearest; a swap counts 1.0), at most 16 (`V18_EACH`); as many guards,"
    " questions right in their stored run with a correction near, answerable and unanswerable (declined) in turn,"
    " each nearest first; then a corrected question and a guard in turn (32: 16 corrected, 16 guards of which 8"
    " unanswerable). Each answered with an empty memory and with the corrections memory, side by side, primed"
    " (bench/bi_memory_primed.py), `nice -n 10 timeout 900` (cut at 15 minutes of model time; the questions"
    " answered, a prefix of the sample's order, are the ones reported); a second run (`--exclude corrected_v18`,"
    " tag corrected_v18b) only if the first ends before 15:00 UTC.",
    "- reported: right with an empty memory against with the corrections (answerable, and per part), right ->"
    " wrong, wrong -> right, each unanswerable question declined empty and answered with the memory (answered"
    " because of the memory), the pairs shown and near for each question whose answer changed or that was a"
    " corrected question, seconds per question both ways with the 1-minute load.",
    "- read as: corrections help the same need in other wording when the corrected part's wrong -> right exceeds"
    " the sample's right -> wrong; they are safe when right -> wrong is at most 2% of the questions run and no"
    " unanswerable question is answered because of them. Whatever the numbers, nothing is changed on them in this"
    " round. Each corrected question still wrong with the memory is classed from its row: a correction shown and"
    " not used (wrong SQL, or declined before the SQL step), a correction near but not shown (the shape rules or"
    " the pool), or a swap refused. A code change only where a class has a clear general cause, with a test that"
    " fails without it, and no model re-run fitted to this sample.",
]


ROUND18_DIAGNOSIS = [
    "",
    "Round 18's diagnosis and criterion, written after corrected_v18's 13 questions and before any change was"
    " measured: the two corrections shown near a question of the same need were not used the way their SQL says."
    " 'How many flights leave from Houston's airports?' was shown 'how many flights leave from Denver' (its"
    " correction counts `routes` joined to `airports`) and wrote the empty memory's count of airports; 'Which region"
    " has the most suppliers?' (right empty) was shown 'Which nation has the most suppliers?' and selected"
    " `region.r_regionkey` (wrong). The SQL step is shown a pair in its parts format (`sql_parts`: select, where,"
    " group_by, having, order_by, limit; no FROM, the joins being derived from the layer), and a person's SQL names"
    " its tables by aliases: the parts shown were `select COUNT(*)`, `where a.City = 'Denver'` and `select"
    " n.n_name`, `group_by n.n_name`, names that exist nowhere in the schema the step is shown (its own parts and"
    " the layer write `airports.City`, `nation.n_name`). The grown memory never met this: its pairs were the"
    " agent's own SQL, written with table names. The general cause: a pair's parts keep aliases whose FROM they"
    " drop. The change (examples.py, `sql_parts`): each column qualified by an alias of one table is written with"
    " that table's name; a table read under two aliases (a self-join) keeps them (which one is meant is the"
    " alias's to say). Criterion, no model (no re-run on this sample, by the brief): (1) the parts of the 175"
    " grown pairs are identical with and without the change (175 of 175; the agent's SQL has no aliases to"
    " resolve); (2) of the 195 corrections, those whose parts name an alias before the change name none after it,"
    " self-joins aside (each counted below); (3) a test fails without it and a counter-example test (a self-join"
    " keeps its aliases) passes with it. Shipped only if (1)-(3) hold; its effect on answers is for a later"
    " round's sample, not this one. What it cannot do: the parts have no FROM, so the table a COUNT(*) counts"
    " (`routes` in Denver's correction) is still the slice's first table (compose.py, not this helper's file).",
]


ROUND18_AFTER = [
    "",
    "The result (corrected_v18 + corrected_v18b, their rows and lines above; the whole sample of 32 was answered:"
    " 16 corrected questions, 16 guards of which 8 unanswerable; nothing was tuned on it):",
    "- answerable: 11 -> 12 right of 24 (+4.2 points); corrected part 4 -> 4 of 16, answerable guards 7 -> 8 of 8."
    " Right -> wrong 2 of 32 (6.2%, over the 2% bound): 'Which region has the most suppliers?' (corrected, right"
    " with an empty memory) after the shown correction 'Which nation has the most suppliers?' (it selected"
    " `region.r_regionkey`), and the unanswerable 'How many passengers flew from JFK?' declined empty ('no field or"
    " value for 'passengers flew'') and answered with the memory (`COUNT(*)` of JFK's airports: answered because of"
    " the memory). Wrong -> right 2: 'How many shipments arrived after their commit date?' (corrected; declined empty"
    " 'no field for 'shipment number'', answered right: the decline evidence of its near correction 'How many line"
    " items shipped by MAIL arrived after their commit date?', not shown to the SQL step) and the guard 'profit in the"
    " West vs the East region?' (right in its stored run, wrong empty now: `orders.profit` not summed; shown the"
    " correction 'Profit in the West region compared to the East?' at 0.978, right with it: the case the round asks"
    " about, a correction helping the same need in other words). Unanswerable: 8 declined empty, 7 with the memory.",
    "- by the plan's reading: the corrected part's wrong -> right (1) does not exceed the sample's right -> wrong"
    " (2), and right -> wrong (6.2%) and one unanswerable answered break the safety bound: on this sample a memory of"
    " corrections neither helps nor is safe. Thin evidence: 24 answerable questions, one answer is 4.2 points.",
    "- reuse: 4 guards reused an approved query with values swapped (ASIA <- EUROPE, Queen and AC/DC <- Pearl Jam,"
    " 2022 <- 2023), 4 right (right empty too). The memory changed a request on 14 of 32; it showed a pair to 13.",
    "- seconds per question, empty / with the memory: corrected_v18 median 58.0 / 46.5, mean 48.7 / 39.1 (load"
    " 6.8-10.4); corrected_v18b median 33.0 / 34.7, mean 25.0 / 26.3 (load 3.0-8.4); the reuses skip the SQL-step"
    " call (80.2 -> 25.2 s for 'How many tracks does Queen have?'). Approving one correction: 36-44 ms, embedding"
    " included.",
    "",
    "The 12 corrected questions wrong with the memory, classed from their rows:",
    "- a correction shown, not used (4): 'How many flights leave from Houston's airports?' shown 'how many flights"
    " leave from Denver' (its correction counts `routes` joined to `airports`), the same count of airports as empty;"
    " its value swap refused ('Denver' aligned with \"Houston's airports\", no City of that name); 'large airports"
    " in the us, count em' shown 'count of the big airports, the ones classed large', whose correction has no US"
    " filter, the same SQL as empty; 'count of the big airports, the ones classed large' shown 'large airports in"
    " the us, count em' and declined before any model call ('no value 'big airports'': the shown pair's words say"
    " 'large airports', not 'big'); and 'Which region has the most suppliers?' (right -> wrong above).",
    "- a correction near (MiniLM >= 0.6), not shown by the shape rules (8): 'what percentage of line items went by"
    " AIR or REG AIR' and 'How many line items went by air compared with regular air?' (each other's: shape [] vs"
    " count + group), 'suppliers per region' ('Which region has the most suppliers?': group vs extreme), 'Did"
    " Canadian or French customers spend more with us overall?' and 'Did our customers in Canada spend more than the"
    " ones in France? Give me both totals.' ('what did canadian and french customers spend altogether, per country':"
    " compare / threshold vs group + sum; 'more than the ones in France' is read as a threshold with no number),"
    " 'How many line items shipped by MAIL arrived after their commit date?' (filter vs none: right by the rules),"
    " 'What is the average number of critic reviews for movies from 1999?' ('number of' read as a count beside the"
    " average) and 'worst county jobless rate in Michigan in 2009?' ('which county in ohio had the worst jobless"
    " rate?': a year vs none; 'worst' is no extreme word). Over the whole scope (`--v18-refusals`,"
    " results/bi_memory_refusals_v18.json, no model): of the 127 corrected questions with another's correction"
    " near, 20 are shown one and 107 are not: the shape 83, the condition 17, the SQL's condition 5, the direction"
    " 1, the SQL's shape 1.",
    "",
    "The diagnosis above (written before its measure) and its measure (no model, 14:27 UTC): (1) the grown memory's"
    " 175 pairs' parts identical with and without the change: 174 of 175, failed: the agent's own 'What are the"
    " total sales per region?' is written `T2.region`, `SUM(T1.sales)` and the change resolves it as designed (so"
    " the agent's SQL is not alias-free, as (1) assumed); (2) of the 195 corrections, 103 named an alias in their"
    " parts before and 1 after (the self-join 'how many routes are there from Denver to Chicago?', `s` / `d`):"
    " held; (3) tests/bi/test_examples_parts.py, 3 of its 4 failing without it (the fourth reads a query with table"
    " names as written), the self-join counter-example passing: held. By the rule it is not shipped: 2a7a3ed"
    " (the change, its tests, test_approved_examples's parts written with table names) is reverted by e594580. The"
    " criterion's (1) was written wrong (it assumed what the data did not hold); a next round that wants it writes"
    " the criterion it means (every changed part is an alias resolved to its one table) and measures its effect on"
    " answers on a sample this round did not read.",
    "",
    "The unanswerable answered, read after the run (no model, 14:38-14:46 UTC): its decline is lifted by round 10's"
    " column evidence (`_reads`): 'passengers' lies 0.64 (MiniLM) from the name 'airline', which a near correction"
    " reads ('delta out of atlanta - how many routes'), over COLUMN_MEANING (0.6): topical relatedness, not"
    " meaning; `shape_decline` alone reproduces it (declined empty, None with the memory). Over the scope"
    " (`--v18-lifted`, results/bi_memory_lifted_v18.json): of the 834 questions, `shape_decline` declines 213 with"
    " an empty memory (190 unanswerable, 23 answerable); the corrections memory lifts 7 of the 190 (right declines"
    " lost: 'How many passengers flew from JFK?', 'Which customer bought the most?', 'how many porsches are in the"
    " data?', 'which clients left a bad review last month?', 'how many of each model were sold in 1975?', 'thinking"
    " of moving abroad ...: which nation has the friendliest people?', 'For 1991 models, what fuel economy did they"
    " get on average?') and 4 of the 23 (wrong declines lifted: 'clients' in Canada and the USA, 'babies' and"
    " 'nation' per woman, 'puerto rican airprots, number of each size'); the grown memory lifts 3 and 2 (its 3"
    " among the corrections' 7). A lifted decline may still be declined by a later step (a year the data lacks,"
    " 'last month'): this counts the decline judgment alone. On this reading the decline evidence lifts more right"
    " declines than wrong ones with either memory; nothing was changed on it. By the term the empty decline names"
    " (the corrections' 11, read at 14:47 UTC): a near question says it (`_says`) for 4 ('clients', 'model', 'fuel"
    " economy', 'babies'), a near query's column name lies near it (`_reads`) for 3 ('porsches', 'nation' twice),"
    " and for 4 neither holds that term ('passengers flew', 'customer bought', 'clients left', 'size'): the memory"
    " changed which term was judged (the taught layer or a shorter term: 'passengers' alone is held by `_reads`).",
    "",
    "What shipped in round 18: the measurement and its scripts (bench/bi_memory.py `--v18-scope`, `--v18`,"
    " `--v18-refusals`, `--v18-lifted`, `newest_answers`, `corrections`, `_corrected_memory`, `near`, `v18_sample`,"
    " `refusal`; `run_primed` takes the memory to measure); no change to orrery. Next: (1) the decline evidence"
    " (`ExampleMemory.covers`: `_says` and `_reads`) lifts 7 right declines for 4 wrong ones with the corrections"
    " memory (3 for 2 with the grown one): split the 11 by which of the two lifted each and the word -> name cosines"
    " of `_reads`, then decide a rule (a higher COLUMN_MEANING, or `_reads` only for a word the layer does not"
    " already decline as absent) with its criterion written before it is measured on every development question;"
    " (2) a person's SQL uses aliases:"
    " resolve them in `sql_parts` under a criterion written for it (above); (3) the parts format has no FROM, so a"
    " correction whose fix is the table counted ('flights' = `routes`, not `airports`) cannot be taught in parts"
    " mode (compose.py counts the slice's first table; its owner's); (4) the shape reading misses wording that"
    " corrections of the same need use: 'worst' as an extreme, 'more than the ones in France' (no number) as a"
    " comparison not a threshold, 'number of' inside 'average number of'; each to be counted on every development"
    " question (as round 17 did for 'plus') before a run; (5) the product has no way to approve SQL the agent did"
    " not write (the CLI and the web app approve the run's own query): a correction needs `orrery bi approve RUN"
    " --sql` or the app's edit-then-approve, which the issue's 'a person correcting a wrong answer' implies.",
]


ROUND16_AFTER = [
    "",
    "(A), the result (grown_v16, its row and lines above; nothing was tuned on it): on the 14 questions run (the cut"
    " at 15 minutes, the load 2 -> 9), the answerable 4 -> 4 right of 12 (+0.0 points), right -> wrong 0 of 14,"
    " wrong -> right 0; unanswerable: 2 of 2 declined both ways, none answered because of the memory. Seconds per"
    " question, empty / with the memory: median 48.8 / 45.9, mean 50.1 / 51.3. The memory changed a request on 2 of"
    " the 14 (the primed protocol's count): 'japanese life expectancy back in 1964 and in 2010' was shown 'how's life"
    " expectancy in Japan compared to India in 2000?' (right both ways; the SQL with it adds `countries.name` and"
    " writes `IN ('Japan')`), and 'DEN outbound route total' was given taught filters (airports.IATA = 'ORD', ...),"
    " the same wrong SQL both ways (`SUM(routes.Stops * airports.Longitude)`, 79 -> 104 s: its calls decoded anew)."
    " The 8 answerable misses are the SQL step's (6 wrong SQL, 1 error: 'sub saharan africa avg lifespan in 2005',"
    " round 33's `indicators.lifespan`) and one decline ('furniture: total units sold in the west', declined both"
    " ways): none is a miss a shown pair lifted.",
    "",
    "What it says, with round 13 (held-out #16: +6.2 points, 1 wrong -> right, 0 right -> wrong on 24): on new wording"
    " the shipped memory is safe (0 right -> wrong in 38 questions over the two rounds, no unanswerable answered"
    " because of it) and rarely reached (it changed a request on 5 of 24 and 2 of 14); its gain on this sample is"
    " nil. Thin evidence: 14 questions, 12 answerable, one answer is 8.3 points.",
    "",
    "A continuation, decided at 10:05 UTC after that result and (B)'s runs, before its own run: the same sample's next"
    " questions (`--v16 --exclude grown_v16`, from the same detached checkout of dc2c1af), cut at 12 minutes, reported"
    " as its own row, grown_v16b; the same reading, nothing tuned on it.",
    "",
    "Its result (grown_v16b): 19 questions, the answerable 3 -> 3 right of 17 (+0.0), right -> wrong 0, wrong ->"
    " right 0; unanswerable 1 of 2 declined both ways ('list canadian airports' answered both ways, the same SQL: not"
    " the memory's). The memory changed a request on 7 of 19 (pairs shown on 2: 'large airports in the us, count em',"
    " 'order lines shipped same day, how many', the same SQL both ways; taught filters on 4; one decline lifted:"
    " 'in 1990 which nation in south asia had the highest births per woman', declined with an empty memory, answered"
    " with it, wrong: the fertility ranking dropped). Seconds, empty / memory: median 23.0 / 24.4, mean 24.4 / 27.2"
    " (the requests it changed decoded anew: 'mean runtime, horror pics' 28.4 -> 51.5 s). Both parts together, 33 of"
    " 46 questions: 7 -> 7 right of 29 answerable, 0 right -> wrong, 0 wrong -> right, unanswerable 3 of 4 declined"
    " both ways and none answered because of the memory. By the plan's reading: safe on this new wording (0% right"
    " -> wrong), no gain; with round 13, 1 wrong -> right and 0 right -> wrong in 57 questions of new wording.",
    "",
    "(B), the result (bench/bi_r16_cache.py, 09:51-10:05 UTC, results/bi_r16_cache_{main,here}_{w8,s8}.json and"
    " `_here_{w8off,s8off}`: the drafted examples off; main = a detached checkout of b95f0b0, here = 3a8170b's"
    " orrery, i.e. integ's). One process per run, 8 questions in a row on one database, the ordinary prompt cache;"
    " 1-minute load per run: world main 8.4-8.8, here 6.8-7.5, off 6.8-7.1; store main 6.1-6.8, here 4.9-6.0, off"
    " 2.5-3.8 (other helpers' runs: seconds across runs at different loads are not comparable; tokens are).",
    "",
    "| database | code | right | s, first question | s / question after it (median / mean) | SQL-parts call:"
    " prompt tokens (mean) | of them read anew (mean) | s per SQL-parts call (mean) |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
    "| world | main b95f0b0 | 8 / 8 | 51.8 | 11.4 / 10.4 | 1207 | 151.7 | 7.28 |",
    "| world | integ | 8 / 8 | 48.1 | 12.2 / 11.4 | 1527 | 151.7 | 8.14 |",
    "| world | integ, drafted examples off | 8 / 8 | 50.0 | 11.6 / 10.2 | 1207 | 151.7 | 7.19 |",
    "| store | main b95f0b0 | 8 / 8 | 40.2 | 6.4 / 9.2 | 1288 | 136.9 | 4.67 |",
    "| store | integ | 7 / 8 | 26.7 | 4.3 / 4.6 | 1135 | 136.9 | 2.70 |",
    "| store | integ, drafted examples off | 8 / 8 | 28.2 | 3.8 / 6.9 | 1288 | 136.9 | 3.44 |",
    "",
    "- the tokens read anew: after the first question the SQL-parts call reads anew exactly the same tokens under"
    " the three codes, question by question (world 302, 40, 295, 38, 39, 196, 152; store likewise): the drafted"
    " block (world +320 tokens over the file's examples, store -153: its schemas are shorter than the file's) is read"
    " once, on the first question of the database, and then comes from llama.cpp's cache like the file's block did."
    " Round 33's doubling (guards' median 12.9 -> 27.5 s, 544 -> 1050 tokens anew) is its bench's: bench/bi_nokeys.py"
    " changes database every question. A user asking one database pays the block once per database in a process.",
    "- what is left of the cost: the longer context. On world, the one pair of runs at the same load (integ against"
    " integ with the examples off, 6.8-7.5), the SQL-parts call took +0.7 s (median of the 7 paired questions after"
    " the first; +0.95 s on the mean, one of 7 faster) for its 320 more prompt tokens; on store the drafted block is"
    " shorter than the file's. No reordering changes that: the context is the same whatever the order.",
    "- the reordering: the SQL call's messages are the system prompt (one per dialect, shared by every database),"
    " then the worked examples (one block per database), then the approved pairs (per question) and the question (per"
    " question): the shared part is already first and each part sits before every part that changes more often, so no"
    " order of the same messages gives a longer shared prefix, on one database or across databases. Nothing was"
    " reordered or measured for it; nothing proposed for tools.py's write_sql.",
    "- the answers: integ with the drafted examples off wrote main's SQL on all 16 questions but one (world's 8th: the"
    " same conditions in another order, right both ways), so what integ changes on these questions is the drafted"
    " examples'. With them: store's 'Which state has the highest sales?' right -> wrong (`ORDER BY orders.state` after"
    " a join to `states`, the `SUM(orders.sales)` lost; the drafted top-1 example ranks by `COUNT(*)`), and store's"
    " 'What are the total sales per region?' right both ways but in one SQL-parts call where main's parts failed and"
    " fell back to the SQL call (24.8 -> 9.1 s). One right -> wrong in 16 is a guard result round 33's 12 guards did"
    " not have: worth a look by whoever owns shots.py's shapes (below).",
    "",
    "What shipped in round 16: the measurements and their scripts (bench/bi_memory.py `--v16`, bench/bi_r16_cache.py);"
    " no change to orrery. Next: (1) the bench's cost of the drafted examples is its interleaving; a time comparison"
    " between codes should run each database's questions in a row (bench/bi_r16_cache.py does) or report tokens anew"
    " per database switch; (2) 'Which state has the highest sales?' against the drafted top-1-by-count example: the"
    " shape picked by the question ('highest sales' a SUM, 'most X' a COUNT), round 33's own next step, checked on"
    " every set's top-1 questions before any run; (3) (A) ran 33 of its 46 questions (grown_v16 + grown_v16b): the last 13"
    " (`--v16 --exclude grown_v16 --exclude grown_v16b`) when an hour allows.",
]


ROUND14_AFTER = [
    "",
    "The result (grown_v14, its row and lines above; the baseline is the memory with the rule off): right 1 -> 0 of 3"
    " (-33.3 points), right -> wrong 1 ('brazillian buyers - typical invoice amount (mean)': shown 'What is the"
    " average invoice total?', the model wrote `AVG(Invoice.Total)` as the pair does but joined InvoiceLine and"
    " Track and filtered `Track.Name = 'Love Don''t Mean a Thing'` (the question's 'mean' taken for a title) in"
    " place of the Brazil filter it wrote without the pair), wrong -> right 0: 'kids per woman' and 'births per"
    " woman' were declined both ways before any pair could be read ('no field for 'kids per woman'', 'no field or"
    " value for 'births''), so the shown pair never reached them. No unanswerable question in the sample. All three"
    " criteria: (1) fails, (2) fails (1 of 3 > 2%), (3) holds. Not shipped: the rule is reverted (examples.py as at"
    " df555f9; the rule, its tests, `shape_words_off`, `v14_scope`, `v14_sample` and `--v14` are at commit"
    " 0c182c1), the numbers kept.",
    "",
    "What it says: of the 10 held-out #16 questions near a pair and shown none, the shape rules left out 6 pairs"
    " rightly, and of the 4 misread wordings only one pair could have turned a wrong answer right, on a question the"
    " decline judgment stops before the pair is read (the diagnosis did not ask whether the question reached the SQL"
    " step: it should have). The one pair the rule let through to a question that reached the SQL step turned a right"
    " answer wrong: a shown pair is copied for its shape, and the 0.5B model then lost the question's own filter"
    " ('brazillian', a misspelt adjective the condition reads as no filter, so the pair without a filter fitted).",
    "",
    "Next: (1) a diagnosis of near-but-not-shown pairs should keep only questions that reach the SQL step (here"
    " 2 of the 4 misread wordings were declined first); for 'kids per woman' the lever is the decline, i.e."
    " `ExampleMemory.covers` reading a near pair's column for a term ('kids per woman' / `fertility`: MiniLM puts"
    " them apart, round 10's COLUMN_MEANING check fails), not the shown pairs; (2) a pair should not fit a question"
    " whose condition is read as 'none' only because its value word is misspelt or an adjective ('brazillian',"
    " 'nigerian'): a demonym or near-spelling of a stored value read as a filter would have kept the pair out and"
    " is the safer direction; (3) the 'avg' / 'per'-unit / 'invoice total' readings are each right as readings, but"
    " reach 3 of 520 development questions: not worth a change that the only measured case turned wrong.",
]


ROUND13_DELETED = [
    "",
    "Deleted in round 13, not adopted: the placing (rounds 11 / 11b, `ExampleMemory.placing`, `placements`,"
    " `stored_words`, `_key_column`; `--v11`, `--v11b`, `--v11c`) and the filter values (round 12,"
    " `ExampleMemory.filter_values`, `_filter_values`; `--v12`, `--reach12`, `--kinds12`) with their tests"
    " (tests/bi/test_examples_placed.py, tests/bi/test_examples_filters.py). Their rows and text above stay; the code"
    " is at commit 6705ebe. `_near_names` (the cache of the near pairs' names, measured in round 11) stays: `covers`"
    " reads it.",
]


ROUND13_AFTER = [
    "",
    "The result (grown_v13, its row and lines above; nothing was tuned on it): on held-out #16's 24 questions on the"
    " memory's databases, the answerable 8 -> 9 right of 16 (+6.2 points), wrong -> right 1 ('line items going by AIR"
    " versus RAIL, give me both counts': declined with an empty memory, 'no field for 'line item count'', answered"
    " right with it: an approved question near it says 'line items'), right -> wrong 0 of 24. Unanswerable: 4 of 8"
    " declined both ways; none answered because of the memory (the other 4 were answered or failed with an empty"
    " memory too: 'any service from reykjavik?', 'beyonce songs we carry?', 'where did they shoot titanic',"
    " 'what were sales like in 2003'). Seconds per question, empty / with the memory: median 17.4 / 17.4, mean"
    " 24.9 / 26.8 (one question, 'any service from reykjavik?', 28.0 -> 58.1 s: a pair was shown, its request"
    " decoded anew, the same kind of answer). The memory changed a request on 5 of the 24 questions (the primed"
    " protocol's count) and showed a pair to the plan and SQL steps on 2; read after the run (no model), 20 of the 24"
    " have an approved pair above the floor (0.3, decline evidence) and 12 one at 0.6 or more, so the shape rules, not"
    " the distance, kept most near pairs from being shown on this wording.",
    "",
    "What it says: on wording it was not built on, the shipped memory helped once (a decline it lifted) and hurt"
    " none: safe by the plan's reading (right -> wrong 0%, no unanswerable answered because of it), with a small gain"
    " (1 question of 16 answerable; thin evidence). Its time: +1.9 s per question on the mean, nearly all of it one"
    " question (+30 s); a question whose requests it leaves the same costs nothing (replayed). What it does not reach:"
    " 5 of the 8 answerable misses were declined both ways (the memory lifted none of them), and 12 questions with a"
    " near pair (0.6 or more) were shown none.",
    "",
    "The `nearest` cache (`ExampleMemory._scored`, `--nearest-replay`, no model): the 57 distinct questions of"
    " grown_v10..grown_v12 asked of the grown memory as the agent asks before its model calls (`teach`, the decline"
    " judgment `shape_decline`, the plan and SQL steps' `shown`, the reuse `candidates`), after a warm pass, the cache"
    " off and on (round 11's `_near_names` cache cleared before each pass): the memory's embed calls 349 -> 225"
    " (-36%), texts embedded 1451 -> 851 (-41%), 509 -> 451 ms per question (1-minute load 4-5, beside other"
    " helpers: not quiet-machine times), the same declines, pairs shown and reuse candidates both ways. The cache"
    " is checked against the connection's stored pair ids on every ask (one read of the store, no embedding), so an"
    " approval or a removal made anywhere between two asks is seen (tests/bi/test_examples_nearest_cache.py). What"
    " is left per question: the store's search embeds the question once per k asked (3, 9, and 5 for the reuse"
    " candidates) and `_cosines` embeds it again with its pairs, whose vectors the store already holds; reading"
    " those stored vectors needs a method of orrery/recall (not this round's file).",
]


ROUND12_AFTER = [
    "",
    "The result (grown_v12, its row and lines above): the rule decided one term in the whole run, 'medium-sized' of"
    " 'How many medium-sized airports are in the United States?' (a term the planner named, covered through"
    " 'large_airport'), and that question was wrong three ways with the same SQL (`COUNT(*) ... WHERE Country ="
    " 'United States'`: the type filter dropped; with an empty memory it was not declined either, so the decline was"
    " not what stood in its way). On the 12 guard questions and the 2 unanswerable ones it decided nothing (every"
    " answer the same as the memory's: guard 12 of 12 right both ways, the two unanswerable declined both ways);"
    " right -> wrong 0 of 15. Criterion (1) is not met (no question gained): not shipped; `ExampleMemory.filter_values`"
    " defaults to False (`filter_values=True` measures it; the code, `--reach12`, `--v12` and the tests kept).",
    "",
    "What it says: over every development question of the memory's sets and held-out #13-#15 on its databases, approved filter values reach one"
    " declined term that names a value word (two more only by a band's name, which the lower-case restriction drops)."
    " The value words that are declined ('big airports') are declined by decline.py's `missing_kinds` /"
    " `_modifier_held`, which asks no approved pair, not by `covers`. Next: the hook there (bi27's file):"
    " `_modifier_held` asking `approved_covers(bi, word, question)` with `filter_values` on, then a run on the"
    " questions it reaches. What it would reach, read after grown_v12 (`--kinds12`, no model, decline.py unchanged):"
    " in the same scope `missing_kinds` declines 3 questions, all answerable ('outbound routes', 'diff parts', 'big"
    " airports'); the memory covers none of the three modifiers without the rule and 'big' of 'count of the big"
    " airports, the ones classed large' with it (the one question, held-out #14's, that round 11 named); no"
    " unanswerable question is declined there, so the hook risks none of this scope's declines; and for 'medium-sized' the miss is the SQL's (the filter on `Type` dropped), where a shown"
    " pair filtering 'large_airport' is the lever, not the decline.",
]


ROUND11C_AFTER = [
    "",
    "The guard's result (grown_v11c, its row and lines above): over its 8 questions, with the placing against"
    " without it, 'How many shipments arrived after their commit date?' declined -> right (placed on `supplier`, a"
    " wrong placement; the join it added does not change the count) and the unanswerable 'What is the bitrate of"
    " each track?' declined -> answered (`Track.UnitPrice`: 'bitrate' placed on `Bytes` at 0.60, field mapping then"
    " let it through), the other 6 the same. The guard fired: an unanswerable question declined without the"
    " placing is answered with it. `ExampleMemory.placing` is back to False (not shipped; `placing=True` measures"
    " it). Over the 13 questions it fires on (grown_v11b and grown_v11c), with the placing 6 right against 5 without"
    " it, one of them a right -> wrong. What would make it shippable: the placing of a word at the floor (0.60) is"
    " what answered 'bitrate'; a word placed on a table should name its rows (a noun of the table, not of a measure:"
    " 'tomatometer'); and the table-synonym hook in compose (below) instead of the key column.",
    "",
    "Hooks asked of the files other helpers own (not edited here): (1) compose.py's `_counted_table` reads a table's"
    " name and its columns' synonyms only; reading a table's own `synonyms` too (and `Semantic.from_dict` keeping"
    " that key) would let a placed word name a table's rows without making it a synonym of the key column (which"
    " field mapping then maps: 'tomatometer' -> the model invented `tomatoes.Name`). (2) decline.py's value check,"
    " `missing_values` (a capitalised name no column holds: 'SupportRep', 'TPC-H'), asks no approved pair: one"
    " line, `or approved_covers(bi, words(name), question)` beside `value_held(bi, name)`, as `_missing` asks for a"
    " field ('SupportRep' is spelt by `SupportRepId`, read by a near approved query). A lower-case value word ('big'"
    " of 'big airports') needs no decline.py change: `ExampleMemory.covers` would have to read the words of the"
    " literals the near approved queries compare ('large_airport'), this file's next candidate.",
    "",
    "Record: round 11b's plan and its guard were committed in bench/bi_memory.py before their runs (commits e1ce481"
    " and 44bc1c0, `ROUND11B_PLAN`, `ROUND11B_AFTER`'s guard paragraph) but `report` did not list them, so they"
    " reached this file only at 04:36 UTC, unchanged.",
]


# The realistic memory (`--grown`): the answers that were right in the stored runs of every development set,
# approved per database. Per set, its result files newest first: a question's answer is taken from the newest
# file that holds it (held-out #1's newest run answered 30 of its 65 questions). Only this checkout's code ("here"
# runs of bench/bi_nokeys.py), never the `main` anchor's.
STORED = {
    "dev": ("bi_memory_dev_shape.json", "bi_nokeys_dev_here_r7rules.json", "bi_dev_r2.json"),
    "heldout": ("bi_heldout1_r2.json", "bi_heldout.json"),
    "heldout2": ("bi_nokeys_heldout2_here_r5.json",),
    "heldout3": ("bi_nokeys_heldout3_here_r5.json",),
    "heldout4": ("bi_nokeys_heldout4_here_r6.json",),
    "heldout5": ("bi_nokeys_heldout5_here_r8.json",),
    "heldout6": ("bi_nokeys_heldout6_here.json",),
    "nokeys": ("bi_nokeys_nokeys_here_r8.json",),
}

# What the ceiling's and the reach's tables say (bench/bi_memory.md, "round 8: the ceiling").
ROUND8_CEILING = [
    "",
    "### round 8: the ceiling of approved examples (no model run)",
    "",
    "Every answerable question wrong with an empty memory in grown, grown_v2..grown_v6 (grown_v5r and grown_v5x "
    "are grown_v5 answered again), read against the grown memory's 175 approved pairs of its database, its own "
    "question aside, mechanically (`python bench/bi_memory.py --ceiling`, bench/bi_memory_ceiling.py: sqlglot "
    "qualifies each query against its database's schema, so a column is read with its table): (a) template, an "
    "approved query (its SQL, or its gold: the approved SQL gave the gold's rows) is the miss's gold with literals "
    "abstracted (aliases and output names dropped, each equality's sides in one order): a value swap could "
    "answer it; (b) parts, every table, join condition (an equality of two tables' columns) and column the gold "
    "uses is in approved SQL of that database, in brackets when one approved query holds them all; (c) neither. "
    "The ceilings are the misses of a class over the run's answerable questions: (a) is what reuse could give; "
    "(a)+(b) an upper bound that needs the model to combine approved parts (values, the SQL's logic and the "
    "decline step aside: a miss declined before any SQL, in brackets in the second column, reaches the SQL step "
    "only if the decline is turned too).",
    "",
]
ROUND8_READING = [
    "",
    "So +10 points is out of reach by reuse alone on every sample (a: 0-9.7 points, 14 of 163 misses, 4 of them "
    "declined before any SQL) and within reach only if the model combines approved parts: (b) is 90 of the 163 "
    "misses (30 of them declined), 57 of them held whole by one approved query; (c) 59 (a word, a table or a "
    "column no approved query of the database uses: 'BoxOffice', 'Tomatometer' as `tomatoes.Meter`, a second "
    "join path). grown_v3's sample (83.9% empty) leaves +8.5 at most. The parts check is generous (it ignores "
    "values and logic): an upper bound, not a forecast.",
    "",
    "What the show rules give these misses (`--reach`: the (a)+(b) misses of grown_v4, grown_v5 and grown_v6, "
    "`ExampleMemory.shown` with the value test the agent uses, run at 23:09 UTC on commit e75fe57; useful: a shown pair is the gold's template or "
    "uses a column or join the gold needs and the empty answer lacked):",
    "",
]

ROUND8_AFTER = [
    "",
    "The shape rules (`fits`), not the show floor, keep these pairs from the model: at 0.6 with any shape, 8 of "
    "grown_v6's 19 (a)+(b) misses are shown a useful pair, against 1 with the shape rules; lowering the floor "
    "with the shape rules reaches 3 at 0.3. The lever measured (grown_v8ab, its row and lines above): any shape "
    "at 0.6, +10.3 points over the whole sample (6 -> 10 of 39 answerable; by construction half of it is misses "
    "the memory holds) and +5.0 on held-out #13's part, none turned wrong; criterion met, but its held-out gain "
    "comes with the shape rules too (grown_v8s), and the sample had few right answers to lose. Next: the decisive "
    "comparison, any shape against the shape rules on a sample with many right answers (a held-out set's "
    "questions whole, not misses), primed; and for the (b) misses declined before any SQL (30 of 90), approved "
    "parts as decline evidence for a field (decline.py's `missing_fields` reads `ExampleMemory.covers`, which "
    "matches a term's words in an approved question, not the columns its SQL used).",
]


def round8() -> list[str]:
    """The ceiling's and the reach's tables from their stored results, with what they say."""
    ceil, far = RESULTS / "bi_memory_ceiling.json", RESULTS / "bi_memory_reach.json"
    if not ceil.exists() or not far.exists():
        return []
    rows = json.loads(ceil.read_text())["rows"]
    lines = json.loads(far.read_text())["lines"]
    return [*ROUND8_CEILING, *ceiling_table(rows), *ROUND8_READING, *lines, *ROUND8_AFTER]


def stored_answers() -> list[dict[str, Any]]:
    """Every development question of every set with its newest stored answer: set, db, question, gold, sql,
    correct, file (None when no stored run answered it)."""
    from bi_nokeys import items

    out = []
    for which, files in STORED.items():
        runs = [(f, {(q["db"], q["question"]): q for q in _stored_rows(RESULTS / f)}) for f in files]
        for item in items(which):
            key = (item["db"], item["question"])
            f, got = next(((f, run[key]) for f, run in runs if key in run), (None, {}))
            out.append(item | {"set": which, "sql": got.get("sql"), "correct": bool(got.get("correct")), "file": f})
    return out


def _stored_rows(path: Path) -> list[dict[str, Any]]:
    return _stored_rows_of(json.loads(path.read_text()))


def _stored_rows_of(result: dict[str, Any]) -> list[dict[str, Any]]:
    """A result's answers in one form: a bi_memory run's empty-memory pass, else the run's own rows."""
    return [r | r["off"] if "off" in r else r for r in result.get("questions", [])]


def approved_pairs(stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pairs a user approved: the stored answers that were right, to answerable questions, once per
    (db, question, SQL)."""
    seen, out = set(), []
    for r in stored:
        key = (r["db"], r["question"], r["sql"])
        if r["gold"] is not None and r["correct"] and r["sql"] and key not in seen:
            seen.add(key)
            out.append(r)
    return out


def grown_sample(stored: list[dict[str, Any]], answerable: int, unanswerable: int) -> list[dict[str, Any]]:
    """The questions a `--grown` run answers, chosen before any is run: strata (set, database) in STORED's set
    order then by database name; within a stratum, questions ordered by the SHA-1 of their text; taken round-robin
    over the strata (one from each, then a second from each, ...) until `answerable` answerable and
    `unanswerable` unanswerable questions; a question already taken for its database (another set asks it too)
    is skipped. The unanswerable ones are spread among the answerable ones (`_interleaved`)."""
    picked: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    seen: set[tuple[str, str]] = set()
    for want, gold in ((answerable, True), (unanswerable, False)):
        strata: dict[tuple[int, str], list[dict[str, Any]]] = {}
        for r in stored:
            if (r["gold"] is not None) == gold:
                strata.setdefault((list(STORED).index(r["set"]), r["db"]), []).append(r)
        queues = [
            sorted(q, key=lambda r: hashlib.sha1(r["question"].encode()).hexdigest()) for _, q in sorted(strata.items())
        ]
        taken = 0
        while taken < want and any(queues):
            for q in queues:
                while q and (q[0]["db"], q[0]["question"].lower()) in seen:
                    q.pop(0)
                if q and taken < want:
                    r = q.pop(0)
                    seen.add((r["db"], r["question"].lower()))
                    picked[gold].append({k: r[k] for k in ("set", "db", "question", "gold")})
                    taken += 1
    return _interleaved(picked[True], picked[False])


def later(sets: list[str], asked: set[tuple[str, str]]) -> list[dict[str, Any]]:
    """The questions of `sets` (development sets the grown memory does not hold) whose database the memory holds,
    none asked before: one from each set in turn, each in its file's order."""
    from bi_nokeys import items

    held = {p["db"] for p in approved_pairs(stored_answers())}
    queues = [
        [q | {"set": s} for q in items(s) if q["db"] in held and (q["db"], q["question"]) not in asked] for s in sets
    ]
    out = []
    while any(queues):
        out += [q.pop(0) for q in queues if q]
    return [{k: q[k] for k in ("set", "db", "question", "gold")} for q in out]


def targets() -> list[dict[str, Any]]:
    """TARGETS as grown_v4 asked them (its set, database and gold), each marked with its part."""
    rows = {r["question"]: r for r in json.loads((RESULTS / "bi_memory_grown_v4.json").read_text())["questions"]}
    return [
        {k: rows[q][k] for k in ("set", "db", "question", "gold")} | {"part": part}
        for part, questions in TARGETS.items()
        for q in questions
    ]


def _alternated(first: list[Any], second: list[Any]) -> list[Any]:
    """One from each part in turn, then what is left of the longer."""
    out = [x for pair in zip(first, second, strict=False) for x in pair]
    n = min(len(first), len(second))
    return out + first[n:] + second[n:]


def _interleaved(many: list[Any], few: list[Any]) -> list[Any]:
    """`few` spread evenly among `many`, so that a run cut short still has some of each."""
    every = len(many) // max(1, len(few)) + 1
    out, rest = [], list(few)
    for i, x in enumerate(many, 1):
        out.append(x)
        if i % (every - 1 or 1) == 0 and rest:
            out.append(rest.pop(0))
    return out + rest


def touched(memory: Any, item: dict[str, Any], engine: Any) -> bool:
    """Whether the memory can change anything for this question: a pair above the floor near it (shown to the
    plan and SQL steps when it fits, and read by the decline judgment), an approved query its values swap
    into, or a phrase the other approved pairs of its database teach its layer (`taught`). When none, every
    hook returns what it does with no memory: the same prompts, the same answer."""
    from orrery.bi.examples import value_swap

    db, question = item["db"], item["question"]
    if memory.nearest(db, question) or taught_phrases(memory, item, engine):
        return True
    return any(value_swap(e.question, e.sql, question, engine.dialect) for e in memory.candidates(db, question))


_LAYERS: dict[str, Any] = {}


def taught_phrases(memory: Any, item: dict[str, Any], engine: Any) -> dict[str, list[str]]:
    """'table.column' -> the phrases and the value comparisons the approved pairs of the question's database
    (its own aside) teach it."""
    from orrery.bi.examples import TAUGHT, TAUGHT_FILTERS, taught

    got = taught(_layer(engine), memory, item["db"], item["question"], engine.dialect)
    return {
        f"{t}.{c}": [*info.get(TAUGHT, []), *info.get(TAUGHT_FILTERS, [])]
        for t, c, info in got.columns()
        if TAUGHT in info or TAUGHT_FILTERS in info
    }


def _layer(engine: Any) -> Any:
    from orrery.bi.semantic import load

    return _LAYERS.setdefault(engine.name, load(engine.name, engine))


_VALUED: dict[str, Any] = {}


def shown(memory: Any, item: dict[str, Any], engine: Any) -> list[str]:
    """The approved questions the plan and SQL steps are shown for this question (`ExampleMemory.shown`, with
    the value test the agent uses)."""
    from orrery.bi.context import BIContext
    from orrery.bi.examples import value_test

    test = _VALUED.setdefault(engine.name, value_test(BIContext(engine, _layer(engine), None)))
    return [e.question for e in memory.shown(item["db"], item["question"], engine.dialect, test)]


def answer(
    model: Any, engine: Any, item: dict[str, Any], sessions: str, key: str, memory: Any = None
) -> dict[str, Any]:
    from orrery.bi.agent import BIAgent

    agent = BIAgent(model, engine, store=f"{sessions}/s.db", session_id=key, clarify=False, prose=False)
    agent.bi.approved = memory
    t0 = time.perf_counter()
    try:
        got = agent.ask(item["question"])
        status, sql, rows = got.status, got.sql, got.rows
        why = got.answer[:200] if got.status != "completed" else ""
    except Exception as exc:  # noqa: BLE001 - a crash is scored as a miss and named, the run goes on
        status, sql, rows, why = "crash", None, [], f"{type(exc).__name__}: {exc}"[:200]
    seconds = time.perf_counter() - t0
    build = [t for t in (got.todos if status != "crash" else []) if t["tool"] == "query_builder" and t["result"]]
    reused = next((json.loads(t["result"]).get("reused") for t in build if t["result"].startswith("{")), None)
    return {
        "status": status,
        "sql": sql,
        "reused": reused,
        "correct": scored(item, engine, status, sql, rows),
        "seconds": round(seconds, 1),
        "why": why,
    }


def items_of(which: str, unanswerable: bool) -> list[dict[str, Any]]:
    if which == "nokeys":
        from bi_nokeys import items

        return [q for q in items("nokeys") if unanswerable or q["gold"] is not None]
    return [q for q in questions(which) if unanswerable or q["gold"] is not None]


def run(llm: str | None, items: list[dict[str, Any]], out: Path, floor: float | None) -> dict[str, Any]:
    from bi_nokeys import engine_for

    from orrery.bi.examples import ExampleMemory
    from orrery.llm import resolve_model
    from orrery.recall import ApprovedExamples
    from orrery.recall.embed import default_embedder

    model = resolve_model(llm or "local")
    commit = _commit()  # the code this run imports now, not the checkout's HEAD when it ends
    engines = {db: engine_for(db) for db in dict.fromkeys(r["db"] for r in items)}
    sessions = tempfile.mkdtemp(prefix="bi-memory-bench-")
    rows: list[dict[str, Any]] = [dict(item) for item in items]
    for i, row in enumerate(rows):
        row["off"] = answer(model, engines[row["db"]], row, sessions, f"off{i}")
        _progress("off", i, rows)
        _write(out, {"partial": "memory off only", "questions": rows[: i + 1]})  # a cut run keeps what it did
    examples = ApprovedExamples(f"{sessions}/memory.db", embedder=default_embedder())
    t0 = time.perf_counter()
    approved = [
        examples.approve(r["db"], r["question"], r["off"]["sql"])
        for r in rows
        if r["off"]["correct"] and r["gold"] is not None
    ]
    approve_s = (time.perf_counter() - t0) / max(1, len(approved))
    memory = ExampleMemory(examples, K, leave_one_out=True, floor=floor)
    for i, row in enumerate(rows):
        row["retrieved"] = shown(memory, row, engines[row["db"]])
        row["on"] = answer(model, engines[row["db"]], row, sessions, f"on{i}", memory)
        _progress("on ", i, rows)
        done = summarize(rows[: i + 1], model.name, len(rows), len(approved), approve_s)
        _write(out, done | {"floor": floor, "commit": commit})
    return summarize(rows, model.name, len(rows), len(approved), approve_s) | {"floor": floor, "commit": commit}


VERIFY = 3  # questions the memory cannot touch that are answered with it anyway, to show the answer is the same


def run_grown(llm: str | None, items: list[dict[str, Any]], out: Path, floor: float | None) -> dict[str, Any]:
    """Each question answered with an empty memory and, right after or right before (alternately: the embedded
    model's prompt cache speeds whichever comes second), with the grown memory:
    every right stored answer of every set approved for its database (`approved_pairs`), leave-one-out by
    question text. A question the memory cannot touch (`touched`) carries its empty-memory answer, except the
    first VERIFY of them, answered again to show that."""
    from bi_nokeys import engine_for

    from orrery.llm import resolve_model

    model = resolve_model(llm or "local")
    commit = _commit()
    engines = {db: engine_for(db) for db in dict.fromkeys(r["db"] for r in items)}
    sessions, memory, pairs, approve_s = _grown_memory(floor)
    rows: list[dict[str, Any]] = [dict(item) for item in items]
    verify = VERIFY
    for i, row in enumerate(rows):
        engine = engines[row["db"]]
        row["retrieved"] = shown(memory, row, engine)
        row["taught"] = taught_phrases(memory, row, engine)
        row["touched"] = touched(memory, row, engine)
        with_memory = row["touched"] or verify > 0
        verify -= not row["touched"]
        for on in (True, False) if with_memory and i % 2 else (False, True):  # the model's prompt cache: both first
            if on and not with_memory:
                row["on"] = row["off"] | {"carried": True}
            else:
                row["on" if on else "off"] = answer(
                    model, engine, row, sessions, f"{'on' if on else 'off'}{i}", memory if on else None
                )
        row["load_1min"] = round(os.getloadavg()[0], 1)
        _progress("off", i, rows)
        _progress("on ", i, rows)
        done = summarize(rows[: i + 1], model.name, len(rows), len(pairs), approve_s)
        _write(out, done | {"floor": floor, "commit": commit, "memory": _memory_of(pairs)})
    return summarize(rows, model.name, len(rows), len(pairs), approve_s) | {
        "floor": floor,
        "commit": commit,
        "memory": _memory_of(pairs),
    }


ANY_SHAPE = "; any shape (no `fits`)"  # the steps of a run whose pairs are shown whatever their shape


def _answer_on(model: Any, engine: Any, rows: list[dict[str, Any]], i: int, sessions: Any, memory: Any) -> None:
    """The primed protocol's second answer of row i, with `memory`: a request the memory left alike is replayed, its
    seconds charged as decoded; then both answers' progress lines."""
    row = rows[i]
    before, calls, replays = model.replayed_s, model.calls, model.replays
    row["on"] = answer(model, engine, row, sessions, f"on{i}", memory)
    row["on"]["seconds"] = round(row["on"]["seconds"] + model.replayed_s - before, 1)
    row["on"] |= {"calls": model.calls - calls, "replayed": model.replays - replays}
    row["load_1min"] = round(os.getloadavg()[0], 1)
    _progress("off", i, rows)
    _progress("on ", i, rows)


def run_primed(
    llm: str | None,
    items: list[dict[str, Any]],
    out: Path,
    floor: float | None,
    shaped: bool = True,
    memory_of: Any = None,
) -> dict[str, Any]:
    """Each question answered with an empty memory, then with the grown memory (as `run_grown`), by the embedded
    model primed before every call (bench/bi_memory_primed.py): both conditions start each call from the same
    cache state, and the memory's condition replays the empty one's reply to a request the memory left the same
    (its seconds charged as decoded). Every question is answered both ways: nothing is carried. `memory_of(floor)`:
    another memory than the grown one (`_corrected_memory`)."""
    from bi_memory_primed import Primed
    from bi_nokeys import engine_for

    if llm not in (None, "local"):
        raise SystemExit("--primed: the embedded model only")
    model = Primed()
    commit = _commit()
    engines = {db: engine_for(db) for db in dict.fromkeys(r["db"] for r in items)}
    sessions, memory, pairs, approve_s = (memory_of or _grown_memory)(floor)
    memory.shaped = shaped
    rows: list[dict[str, Any]] = [dict(item) for item in items]
    extra = {"floor": floor, "commit": commit, "memory": _memory_of(pairs), "protocol": "primed", "shaped": shaped}
    extra |= {} if shaped else {"steps": STEPS + ANY_SHAPE}
    extra["memory"] |= {"what": CORRECTIONS} if memory_of is _corrected_memory else {}
    for i, row in enumerate(rows):
        engine = engines[row["db"]]
        row |= {"touched": True, "retrieved": shown(memory, row, engine), "near": near(memory, row, engine)}
        row["taught"] = taught_phrases(memory, row, engine)
        model.forget()
        row["off"] = answer(model, engine, row, sessions, f"off{i}")
        _answer_on(model, engine, rows, i, sessions, memory)
        _write(out, summarize(rows[: i + 1], model.name, len(rows), len(pairs), approve_s) | extra)
    return summarize(rows, model.name, len(rows), len(pairs), approve_s) | extra


def determinism() -> None:
    from bi_memory_primed import check_determinism
    from bi_nokeys import engine_for

    v5 = {
        (q["db"], q["question"]): q for q in json.loads((RESULTS / "bi_memory_grown_v5.json").read_text())["questions"]
    }
    items = [{k: v5[key][k] for k in ("set", "db", "question", "gold")} for key in DETERMINISM]
    got = check_determinism(items, 3, answer, engine_for)
    _write(RESULTS / "bi_memory_determinism.json", got | {"commit": _commit(), "load_1min": os.getloadavg()[0]})


def v6_sample() -> list[dict[str, Any]]:
    """grown_v6's sample, fixed before its run (bench/bi_memory.md, "grown_v6 (plan)"): grown_v5's 41 questions
    in its order and held-out #12's questions on the memory's databases in `later`'s order, one from each part
    in turn."""
    keys = ("set", "db", "question", "gold")
    v5 = json.loads((RESULTS / "bi_memory_grown_v5.json").read_text())["questions"]
    first = [{k: q[k] for k in keys} | {"part": "grown_v5"} for q in v5]
    second = [q | {"part": "heldout12"} for q in later(["heldout12"], {(q["db"], q["question"]) for q in v5})]
    return _alternated(first, second)


def _questions_of(tag: str) -> list[dict[str, Any]]:
    return json.loads((RESULTS / f"bi_memory_{tag}.json").read_text())["questions"]


def joined(tags: list[str]) -> dict[str, Any]:
    """Runs of one sample continued one after another (`--exclude`), as one run: their rows in order, their
    commits."""
    runs = [json.loads((RESULTS / f"bi_memory_{tag}.json").read_text()) for tag in tags]
    first = runs[0]
    rows = [q for r in runs for q in r["questions"]]
    got = summarize(rows, first["model"], first["questions_planned"], first["examples_approved"], 0.0)
    keep = ("floor", "memory", "protocol", "shaped", "set", "approve_seconds_each", "date")
    steps = first["steps"] + ("" if first.get("shaped", True) or first["steps"].endswith(ANY_SHAPE) else ANY_SHAPE)
    return (
        got
        | {k: first[k] for k in keep if k in first}
        | {
            "set": "all (grown memory)",
            "commit": "+".join(dict.fromkeys(r["commit"] for r in runs)),
            "steps": steps,
            "load_average_1min_at_end": runs[-1]["load_average_1min_at_end"],
            "joined": tags,
        }
    )


def shaped_shown(tag: str) -> list[str]:
    """For each question of run `tag`: its answers empty / with the memory, and what the memory with the shape
    rules (`ExampleMemory.shaped`) would show it, against what the run showed."""
    from bi_nokeys import engine_for

    _, memory, _, _ = _grown_memory(FLOOR)
    out = []
    for r in _questions_of(tag):
        got = shown(memory, r, engine_for(r["db"]))
        out.append(
            f"{int(r['off']['correct'])} -> {int(r['on']['correct'])} {r['question']} | shape rules: {got} | run: {r['retrieved']}"
        )
    return out


def v8_sample() -> list[dict[str, Any]]:
    """grown_v8's sample, fixed before its run (bench/bi_memory.md, "round 8"): grown_v6's answerable misses
    of class template / parts (`ceiling`) in its order, and held-out #13's questions on the memory's databases in
    `later`'s order, one from each part in turn."""
    keys = ("set", "db", "question", "gold")
    held = {(r["db"], r["question"]) for r in ceiling(("grown_v6",)) if r["class"] in ("template", "parts")}
    v6 = json.loads((RESULTS / "bi_memory_grown_v6.json").read_text())["questions"]
    first = [{k: q[k] for k in keys} | {"part": "grown_v6_ab"} for q in v6 if (q["db"], q["question"]) in held]
    second = [q | {"part": "heldout13"} for q in later(["heldout13"], {(q["db"], q["question"]) for q in v6})]
    return _alternated(first, second)


def v9_sample() -> list[dict[str, Any]]:
    """grown_v9's sample, fixed before its run (bench/bi_memory.md, "round 9"): held-out #14's questions on the
    memory's databases (development data since its one run, never used for a memory rule), in `later`'s order."""
    return [q | {"part": "heldout14"} for q in later(["heldout14"], set())]


def v16_sample() -> list[dict[str, Any]]:
    """grown_v16's sample, fixed before its run (bench/bi_memory.md, "round 16"): held-out #17's and #18's
    questions on the memory's databases (development data, never used for a memory rule), one from each in turn."""
    return [q | {"part": q["set"]} for q in later(["heldout17", "heldout18"], set())]


def v17_sample() -> list[dict[str, Any]]:
    """grown_v17's sample, fixed before its run (bench/bi_memory.md, "round 17"): round 16's sample less the
    questions grown_v16 and grown_v16b answered, then held-out #19's questions on the memory's databases
    (development data, never used for a memory rule), in its file's order."""
    asked = {(r["db"], r["question"]) for tag in ("grown_v16", "grown_v16b") for r in _questions_of(tag)}
    rest = [q for q in v16_sample() if (q["db"], q["question"]) not in asked]
    return rest + [q | {"part": "heldout19"} for q in later(["heldout19"], set())]


def v13_sample() -> list[dict[str, Any]]:
    """grown_v13's sample, fixed before its run (bench/bi_memory.md, "round 13"): held-out #16's questions on the
    memory's databases (development data since its one run, never used for a memory rule), in `later`'s order."""
    return [q | {"part": "heldout16"} for q in later(["heldout16"], set())]


def v17_scope() -> list[dict[str, Any]]:
    """Every development question on the memory's databases (sets #1..#19): held-out #16's, the stored sets',
    held-out #13-#15's, then every other set of bench/bi_nokeys.py's SETS, each question once."""
    from bi_nokeys import SCORED

    keys = ("set", "db", "question", "gold")
    held = {p["db"] for p in approved_pairs(stored_answers())}
    rest = [{k: q[k] for k in keys} for q in stored_answers() if q["db"] in held]
    every = [*v13_sample(), *rest, *later(["heldout13", "heldout14", "heldout15"], set()), *later(list(SCORED), set())]
    seen: set[tuple[str, str]] = set()
    return [q for q in every if (q["db"], q["question"]) not in seen and not seen.add((q["db"], q["question"]))]


def newest_answers(kept: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Every question of sets #1..#20 (bench/bi_nokeys.py's SETS) with its newest stored answer of this checkout's
    code: per set, its result files (STORED's and results/bi_nokeys_<set>_here*.json) newest first by their date,
    each question's answer from the newest file that holds it; `file` None where none answered it. `kept`: more
    keys of the stored answer (e.g. its status and its text)."""
    from bi_nokeys import SCORED, items

    out = []
    for which in SCORED:
        paths = {RESULTS / f for f in STORED.get(which, ())} | set(RESULTS.glob(f"bi_nokeys_{which}_here*.json"))
        dated = sorted(((json.loads(f.read_text()), f.name) for f in paths), key=lambda x: -_stamp(x[0]))
        runs = [(name, {(q["db"], q["question"]): q for q in _stored_rows_of(d)}) for d, name in dated]
        for item in items(which):
            key = (item["db"], item["question"])
            f, got = next(((f, run[key]) for f, run in runs if key in run), (None, {}))
            answer = {"sql": got.get("sql"), "correct": bool(got.get("correct")), "file": f}
            out.append(item | {"set": which} | answer | {k: got.get(k) for k in kept})
    return out


def _stamp(result: dict[str, Any]) -> float:
    """A result file's date ('2026-11-27 12:07 UTC' or '2026-11-22') as seconds, for ordering."""
    date = str(result.get("date", "1970-01-01"))
    return time.mktime(time.strptime(date[:16], "%Y-%m-%d %H:%M" if len(date) > 10 else "%Y-%m-%d"))


def corrections(answers: list[dict[str, Any]], dbs: set[str]) -> list[dict[str, Any]]:
    """The corrections a person made (round 18): each answerable question on `dbs` whose newest stored answer was
    wrong, with its gold SQL as the SQL approved for it, once per (db, question)."""
    seen, out = set(), []
    for r in answers:
        key = (r["db"], _plain(r["question"]))
        if r["db"] in dbs and r["gold"] is not None and r["file"] and not r["correct"] and key not in seen:
            seen.add(key)
            out.append(r | {"sql": r["gold"]})
    return out


def _plain(question: str) -> str:
    return " ".join(question.lower().rstrip("?").split())


def _memory_dbs() -> set[str]:
    return {p["db"] for p in approved_pairs(stored_answers())}


def _corrected_memory(floor: float | None) -> tuple[str, Any, list[dict[str, Any]], float]:
    """A fresh store holding round 18's corrections, approved as a person approves a pair (`open_examples(store)
    .approve(connection, question, sql)`, what `orrery bi approve` and the web app call), and the `ExampleMemory` a
    measured question reads (leave-one-out); as `_grown_memory`."""
    from orrery.bi.examples import ExampleMemory, open_examples
    from orrery.recall.embed import default_embedder

    sessions = tempfile.mkdtemp(prefix="bi-memory-bench-")
    examples = open_examples(f"{sessions}/memory.db", default_embedder())
    pairs = corrections(newest_answers(), _memory_dbs())
    t0 = time.perf_counter()
    for p in pairs:
        examples.approve(p["db"], p["question"], p["sql"])
    approve_s = (time.perf_counter() - t0) / max(1, len(pairs))
    return sessions, ExampleMemory(examples, K, leave_one_out=True, floor=floor), pairs, approve_s


CORRECTIONS = (
    "corrections: the gold SQL of each answerable question whose newest stored answer (sets #1..#20, this"
    " checkout's runs in bench/results/, newest first by date) was wrong, approved as `orrery bi approve` does"
)
V18_EACH = 16  # round 18: corrected questions sampled, and as many guards (one or two 15-minute primed runs)


def near(memory: Any, item: dict[str, Any], engine: Any) -> dict[str, Any]:
    """What the memory holds near a question: the pairs at the show floor or nearer whatever their shape (question,
    MiniLM cosine), those shown to the plan and SQL steps (`shown`), and whether an approved query's values swap
    into it (`reuse`)."""
    from orrery.bi.examples import POOL, value_swap

    db, question = item["db"], item["question"]
    scored = memory._scored(db, question, POOL * memory.k)
    close = [(e.question, round(c, 3)) for e, c in scored if c is not None and c >= (memory.show_floor or 0.0)]
    swaps = [
        e.question for e in memory.candidates(db, question) if value_swap(e.question, e.sql, question, engine.dialect)
    ]
    return {"near": close, "shown": shown(memory, item, engine), "reuse": swaps}


def v18_scope() -> list[dict[str, Any]]:
    """Round 18's no-model reading: every question of sets #1..#20 on the memory's databases with a stored answer,
    each once, with what the corrections memory holds near it (`near`) and whether it is corrected itself."""
    from bi_nokeys import engine_for

    _, memory, pairs, _ = _corrected_memory(FLOOR)
    corrected = {(p["db"], _plain(p["question"])) for p in pairs}
    dbs, seen, out = _memory_dbs(), set(), []
    for r in newest_answers():
        key = (r["db"], _plain(r["question"]))
        if r["db"] in dbs and r["file"] and key not in seen:
            seen.add(key)
            got = near(memory, r, engine_for(r["db"]))
            keep = {k: r[k] for k in ("set", "db", "question", "gold", "correct", "file")}
            out.append(keep | got | {"corrected": key in corrected})
    return out


def refusal(question: str, example: Any, dialect: str, valued: Any) -> str:
    """Which check of `fits` keeps an approved pair from being shown for `question` ('' when it fits): the first
    that fails, in `fits`'s order."""
    import sqlglot

    from orrery.bi import examples as ex

    checks = (
        ("shape", lambda: ex.shape(question) == ex.shape(example.question)),
        ("condition", lambda: ex.condition(question, valued) == ex.condition(example.question, valued)),
        ("direction", lambda: ex.direction(question) == ex.direction(example.question)),
        ("measured", lambda: ex.measured(question) == ex.measured(example.question)),
        ("sql shape", lambda: ex.shape(example.question) <= (ex.sql_shape(example.sql, dialect) or frozenset({"?"}))),
        (
            "sql condition",
            lambda: (
                ex.sql_condition(sqlglot.parse_one(example.sql, read=dialect or None))
                == ex.condition(example.question, valued)
            ),
        ),
    )
    failed = next((name for name, ok in checks if not ok()), "")
    return failed or ("" if ex.fits(question, example, dialect, valued) else "sql direction")


def v18_refusals() -> dict[str, Any]:
    """Round 18's no-model reading of 'near but not shown': for each corrected question of `v18_scope` with
    another's correction near and none shown, its nearest correction, its cosine and the check of `fits` that
    refuses it (`refusal`), with both questions' shape and condition as `fits` reads them."""
    from bi_nokeys import engine_for

    from orrery.bi.context import BIContext
    from orrery.bi.examples import POOL, condition, shape, value_test

    _, memory, _, _ = _corrected_memory(FLOOR)
    rows = []
    for r in _v18_scope_stored():
        if not (r["corrected"] and r["near"] and not r["shown"]):
            continue
        engine = engine_for(r["db"])
        test = _VALUED.setdefault(engine.name, value_test(BIContext(engine, _layer(engine), None)))
        scored = memory._scored(r["db"], r["question"], POOL * memory.k)
        e, cos = max(((e, c) for e, c in scored if c is not None), key=lambda ec: ec[1])
        why = refusal(r["question"], e, engine.dialect, test)
        read = {q: [sorted(shape(q)), condition(q, test)] for q in (r["question"], e.question)}
        rows.append(
            {k: r[k] for k in ("set", "db", "question")}
            | {"pair": e.question, "cosine": round(cos, 3), "why": why, "read": list(read.values())}
        )
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["why"]] = counts.get(row["why"], 0) + 1
    return {"near_not_shown": len(rows), "by_check": counts, "rows": rows}


def v18_lifted() -> dict[str, Any]:
    """Round 18's no-model reading of the decline judgment: each question of `v18_scope` that `shape_decline`
    declines with an empty memory, judged again with the corrections memory and with the grown memory (its layer
    taught by each, as the agent does): the declines each lifts, answerable (a wrong decline lifted) and
    unanswerable (a right one lifted)."""
    from bi_nokeys import engine_for

    from orrery.bi.context import BIContext
    from orrery.bi.decline import shape_decline
    from orrery.bi.examples import teach

    memories = {"corrections": _corrected_memory(FLOOR)[1], "grown": _grown_memory(FLOOR)[1]}
    rows = []
    for r in _v18_scope_stored():
        engine = engine_for(r["db"])
        reason = shape_decline(BIContext(engine, _layer(engine), None), r["question"])
        if reason is None:
            continue
        row = {k: r[k] for k in ("set", "db", "question")} | {"unanswerable": r["gold"] is None, "empty": reason}
        for name, memory in memories.items():
            bi = BIContext(engine, _layer(engine), None, approved=memory)
            teach(bi, r["question"])
            row[name] = shape_decline(bi, r["question"])
        rows.append(row)
    lifted = {
        f"{name}, {kind}": sum(row[name] is None and row["unanswerable"] == (kind == "unanswerable") for row in rows)
        for name in memories
        for kind in ("answerable", "unanswerable")
    }
    return {"declined_empty": len(rows), "lifted": lifted, "rows": rows}


def _v18_scope_stored() -> list[dict[str, Any]]:
    """`v18_scope` as committed before round 18's run (results/bi_memory_scope_v18.json, `--v18-scope`)."""
    return json.loads((RESULTS / "bi_memory_scope_v18.json").read_text())["rows"]


def v18_sample(scope: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Round 18's sample, fixed before its run (bench/bi_memory.md, "round 18"): the corrected questions with a
    correction of another question near them (`near`: at the show floor whatever its shape, or a value swap),
    nearest first (the cosine of their nearest such correction; a swap counts 1.0), at most V18_EACH; as many
    guards, questions whose stored answer was right with a correction near them, answerable ones and unanswerable
    ones (declined) in turn, each ordered the same way; then a corrected question and a guard in turn."""
    rows = v18_scope() if scope is None else scope

    def closeness(r: dict[str, Any]) -> tuple[float, str]:
        best = max([c for _, c in r["near"]] + [1.0] * bool(r["reuse"]))
        return -best, hashlib.sha1(r["question"].encode()).hexdigest()

    reached = [r for r in rows if r["near"] or r["reuse"]]
    wrong = sorted((r for r in reached if r["corrected"]), key=closeness)[:V18_EACH]
    right = [sorted((r for r in reached if r["correct"] and (r["gold"] is None) == u), key=closeness) for u in (0, 1)]
    guard = _alternated(*right)[: len(wrong)]
    keys = ("set", "db", "question", "gold")
    return _alternated(
        [{k: r[k] for k in keys} | {"part": "corrected"} for r in wrong],
        [{k: r[k] for k in keys} | {"part": "guard"} for r in guard],
    )


JOINING = ("plus", "&", "as well as", "along with")  # round 17's joining words, each read on its own


@contextlib.contextmanager
def joined_by(*extra: str) -> Iterator[None]:
    """`JOINED` with `extra` joining words beside 'and' / 'or' (none: as shipped)."""
    from orrery.bi import examples

    saved = examples.JOINED
    words = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in ("and", "or", *extra))
    examples.JOINED = re.compile(rf"\s*(?:,\s*(?:(?:{words})\s+)?|(?:{words})\s+)(?:(?:in|for|from|of|the)\s+)*", re.I)
    try:
        yield
    finally:
        examples.JOINED = saved


def v17_diagnosis() -> dict[str, Any]:
    """Round 17's diagnosis (no model): over `v17_scope`, for each joining word of JOINING, the questions whose
    condition (`condition` with the agent's value test), taught-filter kinds (`_compares`) or pairs shown
    (`shown`) change with the word joining."""
    from bi_nokeys import engine_for

    from orrery.bi.context import BIContext
    from orrery.bi.examples import _compares, condition, value_test

    _, memory, _, _ = _grown_memory(FLOOR)
    scope, out = v17_scope(), {}
    for word in JOINING:
        changed = []
        for q in scope:
            if not re.search(rf"(?<!\w){re.escape(word)}(?!\w)", q["question"], re.I):
                continue  # the word absent, nothing can change
            engine = engine_for(q["db"])
            test = _VALUED.setdefault(engine.name, value_test(BIContext(engine, _layer(engine), None)))
            read = []
            for extra in ((), (word,)):
                with joined_by(*extra):
                    got = condition(q["question"], test), sorted(_compares(q["question"])), shown(memory, q, engine)
                read.append(got)
            if read[0] != read[1]:
                changed.append(q | {"off": read[0], "on": read[1], "unanswerable": q["gold"] is None})
                print(word, "|", q["db"], q["question"], read[0], "->", read[1], flush=True)
        shown_changed = [c for c in changed if c["off"][2] != c["on"][2]]
        out[word] = {"changed": len(changed), "shown_changed": len(shown_changed), "questions": changed}
    return {"scope": len(scope)} | out


class _Counted:
    """The memory's embedder, counting its calls and the texts it embeds."""

    def __init__(self, embedder: Any):
        self.embedder, self.calls, self.texts = embedder, 0, 0

    def embed(self, texts: Any) -> Any:
        self.calls, self.texts = self.calls + 1, self.texts + len(texts)
        return self.embedder.embed(texts)


class _Forgetting(dict):
    """A cache that keeps nothing: `ExampleMemory.nearest` as it was before round 13 (every ask searched and
    embedded anew)."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


REPLAY_RUNS = ("grown_v10", "grown_v11", "grown_v12")


class _Unremembered:
    """`ExampleMemory`'s kept vectors switched off: every text embedded anew, as before round 15 (the search
    embedded the question itself, `_cosines` the question and its pairs)."""

    def __init__(self, embedder: Any):
        self.embedder = embedder

    def embed(self, texts: Any) -> Any:
        return self.embedder.embed(texts)


def _replay_setup(tags: tuple[str, ...]) -> tuple[Any, _Counted, list[dict[str, Any]], dict[str, Any]]:
    """The grown memory with a counted embedder, the distinct questions of `tags` and a context per database."""
    from bi_nokeys import engine_for

    from orrery.bi.context import BIContext

    _, memory, _, _ = _grown_memory(FLOOR)
    counted = memory.examples.store.embedder = _Counted(memory.examples.store.embedder)
    qs = list({(q["db"], q["question"]): q for tag in tags for q in _questions_of(tag)}.values())
    contexts = {
        db: BIContext(engine_for(db), _layer(engine_for(db)), None, approved=memory) for db in {q["db"] for q in qs}
    }
    return memory, counted, qs, contexts


def _replay_pass(memory: Any, counted: _Counted, qs: list[dict[str, Any]], contexts: dict[str, Any]) -> tuple:
    """Each question asked of the memory as the agent asks before its model calls (`teach`, the decline judgment
    `shape_decline`, the plan and SQL steps' `shown`, the reuse `candidates`): the embed calls, texts embedded and
    milliseconds per question, and what each ask answered."""
    from orrery.bi.decline import shape_decline
    from orrery.bi.examples import _near_names, teach, value_test

    counted.calls, counted.texts = 0, 0
    _near_names.cache_clear()  # each pass from the same state of the names' cache (round 11's)
    t0, seen = time.perf_counter(), []
    for q in qs:
        bi = contexts[q["db"]]
        teach(bi, q["question"])
        reason = shape_decline(bi, q["question"])
        shown = [memory.shown(q["db"], q["question"], bi.engine.dialect, value_test(bi)) for _ in range(2)]
        reuse = memory.candidates(q["db"], q["question"])
        seen.append([reason, [[e.id for e in s] for s in shown], [e.id for e in reuse]])
    ms = 1000 * (time.perf_counter() - t0) / max(1, len(qs))
    return {"embed_calls": counted.calls, "texts": counted.texts, "ms_per_question": round(ms)}, seen


def nearest_replay(tags: tuple[str, ...] = REPLAY_RUNS) -> dict[str, Any]:
    """Round 13's measure of the `nearest` cache (no model): the questions of `tags` (one per database and question)
    asked of the grown memory (`_replay_pass`) without the cache (`_Forgetting`) and with it, every text embedded
    anew in both (as round 13 ran): the memory's embed calls and texts embedded, and milliseconds per question; the
    same answers both ways. A first pass (`warm`) fills the layers' and value indexes' caches, so the two measured
    passes differ by the cache alone."""
    memory, counted, qs, contexts = _replay_setup(tags)
    out: dict[str, Any] = {"runs": list(tags), "questions": len(qs)}
    for label, near in (("warm", _Forgetting()), ("before", _Forgetting()), ("after", {})):
        memory._near, memory._embedded = near, _Unremembered(counted)
        out[label], out[f"{label}_answers"] = _replay_pass(memory, counted, qs, contexts)
        print(label, out[label], flush=True)
    out["same_answers"] = out.pop("before_answers") == out.pop("after_answers")
    del out["warm"], out["warm_answers"]
    return out


def remembered_replay(tags: tuple[str, ...] = REPLAY_RUNS) -> dict[str, Any]:
    """Round 15's measure of the kept vectors (`Remembered`, no model): round 13's replay with the `nearest` cache
    on in every pass, the vectors not kept (`_Unremembered`, the code before round 15) and kept (emptied before the
    pass); the same answers both ways, and the 1-minute load."""
    memory, counted, qs, contexts = _replay_setup(tags)
    out: dict[str, Any] = {"runs": list(tags), "questions": len(qs)}
    for label, kept in (("warm", _Unremembered(counted)), ("before", _Unremembered(counted)), ("after", None)):
        memory._near, memory._embedded = {}, kept
        out[label], out[f"{label}_answers"] = _replay_pass(memory, counted, qs, contexts)
        out[label]["load_1min"] = round(os.getloadavg()[0], 1)
        print(label, out[label], flush=True)
    out["same_answers"] = out.pop("before_answers") == out.pop("after_answers")
    del out["warm"], out["warm_answers"]
    return out


def v10_sample() -> list[dict[str, Any]]:
    """grown_v10's sample, fixed before its run (bench/bi_memory.md, "round 10"): the distinct questions of
    `ceiling`'s class (b) with no SQL with an empty memory, in its order, and held-out #14's questions on the
    memory's databases (`v9_sample`), one from each part in turn."""
    stored = {(q["db"], q["question"]): q for tag in CEILING_RUNS for q in _questions_of(tag) if q["gold"] is not None}
    declined = [(r["db"], r["question"]) for r in ceiling() if r["class"] == "parts" and r["declined"]]
    keys = ("set", "db", "question", "gold")
    first = [{k: stored[q][k] for k in keys} | {"part": "b_declined"} for q in dict.fromkeys(declined)]
    return _alternated(first, v9_sample())


# The determinism check of the primed protocol, fixed before it ran: grown_v5's three answers that changed
# between its conditions, each asked three times in a row primed, then with the ordinary cache.
DETERMINISM = (
    ("movies", "average runtime, PG-13 versus R"),
    ("world", "lifespan figures for Nigeria and Kenya back in 1990"),
    ("tpch", "order count for the two years 1995-1996 combined"),
)


def _grown_memory(floor: float | None) -> tuple[str, Any, list[dict[str, Any]], float]:
    """A fresh store holding the grown memory (`approved_pairs`): its folder, the `ExampleMemory` a measured
    question reads (leave-one-out), the pairs and the seconds one approval took."""
    from orrery.bi.examples import ExampleMemory
    from orrery.recall import ApprovedExamples
    from orrery.recall.embed import default_embedder

    sessions = tempfile.mkdtemp(prefix="bi-memory-bench-")
    examples = ApprovedExamples(f"{sessions}/memory.db", embedder=default_embedder())
    pairs = approved_pairs(stored_answers())
    t0 = time.perf_counter()
    for p in pairs:
        examples.approve(p["db"], p["question"], p["sql"])
    approve_s = (time.perf_counter() - t0) / max(1, len(pairs))
    return sessions, ExampleMemory(examples, K, leave_one_out=True, floor=floor), pairs, approve_s


AGAIN = {  # which questions of a run `run_again` answers again
    "in": lambda row: any(" IN (" in lesson for lessons in row["taught"].values() for lesson in lessons),
    "changed": lambda row: row["off"]["correct"] != row["on"]["correct"],
}


def run_again(
    llm: str | None, source: str, out: Path, floor: float | None, pick: str = "in", exact: bool = False
) -> dict[str, Any]:
    """Run `source` (a grown run) again: its questions AGAIN[pick] selects ('in': an `IN` comparison in their
    taught layer, what the reverted `IN` description touched; 'changed': right in one condition only) answered
    again both ways, the empty memory first; every other question's two answers carried from `source`. `exact`:
    the embedded model with no prompt cache (`cache_prompt=False`), so that two answers of one prompt are the
    same whatever was asked before (with the cache, a second back-to-back answer can differ: grown_v5r)."""
    from bi_nokeys import engine_for

    from orrery.llm import resolve_model
    from orrery.llm.local import LocalModel

    before = json.loads((RESULTS / f"bi_memory_{source}.json").read_text())
    model = LocalModel(cache_prompt=False) if exact and llm in (None, "local") else resolve_model(llm or "local")
    commit = _commit()
    sessions, memory, pairs, approve_s = _grown_memory(floor)
    rows: list[dict[str, Any]] = []
    engines: dict[str, Any] = {}
    for i, old in enumerate(before["questions"]):
        row = dict(old)
        if AGAIN[pick](old):
            engine = engines.setdefault(row["db"], engine_for(row["db"]))
            row |= {"retrieved": shown(memory, row, engine), "taught": taught_phrases(memory, row, engine)}
            for on in (False, True):
                got = answer(model, engine, row, sessions, f"{'on' if on else 'off'}{i}", memory if on else None)
                row["on" if on else "off"] = got
            row["again"], row["load_1min"] = True, round(os.getloadavg()[0], 1)
            _progress("off", len(rows), [*rows, row])
            _progress("on ", len(rows), [*rows, row])
        rows.append(row)
        done = summarize(rows, model.name, len(before["questions"]), len(pairs), approve_s)
        extra = {"floor": floor, "commit": commit, "memory": _memory_of(pairs), "again": source, "exact": exact}
        _write(out, done | extra)
    return done | extra


def _memory_of(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    by_db: dict[str, int] = {}
    for p in pairs:
        by_db[p["db"]] = by_db.get(p["db"], 0) + 1
    return {"pairs": len(pairs), "by_db": by_db, "files": {s: list(f) for s, f in STORED.items()}}


def _progress(label: str, i: int, rows: list[dict[str, Any]]) -> None:
    r = rows[i]
    got = r["off" if label == "off" else "on"]
    print(
        f"{label} [{i + 1}/{len(rows)}] {'OK ' if got['correct'] else 'BAD'} {got['seconds']:5.1f}s {r['db']:8} "
        f"{r['question']} -> {got['status']} {got['sql'] or got['why']}",
        flush=True,
    )


def summarize(rows: list[dict[str, Any]], model: str, planned: int, approved: int, approve_s: float) -> dict[str, Any]:
    """Execution accuracy over the answerable questions; the unanswerable ones (scored right when declined) apart."""
    answerable = [r for r in rows if r["gold"] is not None]
    n = max(1, len(answerable))
    off, on = (sum(r[k]["correct"] for r in answerable) for k in ("off", "on"))
    worse = [r["question"] for r in rows if r["off"]["correct"] and not r["on"]["correct"]]
    better = [r["question"] for r in rows if not r["off"]["correct"] and r["on"]["correct"]]
    unanswerable = [r for r in rows if r["gold"] is None]

    def secs(k: str) -> dict[str, float]:
        s = [r[k]["seconds"] for r in rows]
        return {"median": round(statistics.median(s), 1), "mean": round(statistics.mean(s), 1)}

    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "model": model,
        "commit": _commit(),
        "k": K,
        "steps": STEPS,
        "questions_planned": planned,
        "questions_run": len(rows),
        "answerable_run": len(answerable),
        "examples_approved": approved,
        "approve_seconds_each": round(approve_s, 3),
        "accuracy_off": round(off / n, 3),
        "accuracy_on": round(on / n, 3),
        "points": round(100 * (on - off) / n, 1),
        "right_to_wrong": len(worse),
        "right_to_wrong_share": round(len(worse) / len(rows), 3),
        "wrong_to_right": len(better),
        "right_to_wrong_questions": worse,
        "wrong_to_right_questions": better,
        "reused": sum(bool(r["on"].get("reused")) for r in rows),
        "reused_right": sum(bool(r["on"].get("reused")) and r["on"]["correct"] for r in rows),
        "unanswerable_run": len(unanswerable),
        "unanswerable_declined_off": sum(r["off"]["correct"] for r in unanswerable),
        "unanswerable_declined_on": sum(r["on"]["correct"] for r in unanswerable),
        "seconds_off": secs("off"),
        "seconds_on": secs("on"),
        "load_average_1min_at_end": round(os.getloadavg()[0], 1),
        "questions": rows,
    }


def _write(path: Path, result: dict[str, Any]) -> None:
    _write_json(path, result)


def report(runs: dict[str, dict[str, Any]]) -> str:
    lines = [
        "## BI: approved examples (bench/bi_memory.py)",
        "",
        "Development questions with gold SQL, the embedded model; each run answers its questions twice, side by "
        "side: first with an empty memory (the anchor), then with a memory holding that run's answers that were "
        "right, approved per database (MiniLM vectors + full text, fused), each question given the k=3 nearest "
        "approved pairs of its database, never its own (leave-one-out). `dev`: bench/bi_questions.py's dev set "
        "(Chinook and TPC-H interleaved, as bench/bi.py orders it); `nokeys`: the no-key development set "
        "(bench/bi_nokeys_questions.py, four SQLite databases with drafted layers). Steps: where the examples "
        "were given (`sql` in the first two runs; `plan, decline, sql` since). Execution accuracy is over the "
        "answerable questions; right -> wrong is a share of all questions run. Subsets for the shared 2-core "
        "machine; every set is development data. Since `nokeys_shape` / `dev_shape` (steps `...; shape; reuse`): "
        "a pair is shown to the plan and SQL steps only for a question of its shape, and an approved query is "
        "reused with its values swapped for the same question with other values (orrery/bi/README.md). `grown`: "
        "a realistic memory (every right answer of every set's newest stored run, per database) on a sample of "
        "every set and database; steps `...; shape + condition; reuse`: the pair's condition (threshold / filter / "
        "none) must be the question's too, the k shown the nearest that fit among 3k. `grown_v2`: the same memory and "
        "sample order, two rules decided on `grown`'s 74 questions (a pair shown to the plan and SQL steps only at "
        "cosine >= 0.6; the decline evidence needs the term's words as whole words), measured on the sample's next "
        "questions, none of `grown`'s. `grown_v4`: the same memory; its sample, fixed before the run: the grown "
        "sample's 15 questions no earlier run asked, then held-out #9's and #10's questions on the memory's "
        "databases (38 and 40; development data, never used to choose a rule), one from each set in turn, cut at "
        "40 minutes; its rules decided from grown_v3's answers read again (below): a ranking's direction and a "
        "threshold's thing must match, a lower-case word of a category's value is a filter, a phrase is taught "
        "by two approved questions, and how approved queries compared a column with a value is in its "
        "description for a question comparing a value of that kind.",
        "",
        "| run | set | questions (answerable) | steps | floor | empty memory | approved examples | points "
        "| right -> wrong | wrong -> right | unanswerable declined, empty / examples "
        "| s / question, empty (median / mean) | s / question, examples | load at end |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in runs.items():
        n = r["questions_run"]
        una = (
            f"{r['unanswerable_declined_off']} / {r['unanswerable_declined_on']} of {r['unanswerable_run']}"
            if r.get("unanswerable_run")
            else "-"
        )
        lines.append(
            f"| {name} | {r.get('set', 'dev')} | {n} ({r.get('answerable_run', n)}) from #{r.get('start', 0) + 1} "
            f"| {r.get('steps', 'sql')} | {r.get('floor') or 'none'} | {100 * r['accuracy_off']:.1f}% "
            f"| {100 * r['accuracy_on']:.1f}% | {r['points']:+.1f} | {r['right_to_wrong']} "
            f"({100 * r['right_to_wrong_share']:.1f}%) | {r['wrong_to_right']} | {una} "
            f"| {r['seconds_off']['median']:.1f} / {r['seconds_off']['mean']} "
            f"| {r['seconds_on']['median']:.1f} / {r['seconds_on']['mean']} | {r['load_average_1min_at_end']} |"
        )
    lines.append("")
    for name, r in runs.items():
        lines += _details(name, r)
    return (
        "\n".join(
            [
                *lines,
                *DIAGNOSIS,
                *ROUND8_PLAN,
                *round8(),
                *ROUND9_PLAN,
                *ROUND10_PLAN,
                *ROUND10_AFTER,
                *ROUND11_PLAN,
                *ROUND11_AFTER,
                *ROUND11B_PLAN,
                *ROUND11B_AFTER,
                *ROUND11C_AFTER,
                *ROUND12_PLAN,
                *ROUND12_AFTER,
                *ROUND13_PLAN,
                *ROUND13_AFTER,
                *ROUND13_DELETED,
                *ROUND14_PLAN,
                *ROUND14_AFTER,
                *ROUND15_PLAN,
                *ROUND15_AFTER,
                *ROUND16_PLAN,
                *ROUND16_AFTER,
                *ROUND17_PLAN,
                *ROUND17_AFTER,
                *ROUND18_PLAN,
                *ROUND18_DIAGNOSIS,
                *ROUND18_AFTER,
                *ROUND19,
                *ROUND20_PLAN,
                *ROUND20_AFTER,
                *ROUND20B_PLAN,
                *ROUND20B_AFTER,
                *ROUND20C_PLAN,
                *ROUND20C_AFTER,
            ]
        ).rstrip()
        + "\n"
    )


ROUND19 = [  # round 19's write-up (branch bimem19), kept here so that --report writes it again
    "",
    "### round 19 (product, no model run): a person's correction, approved through the one approval path",
    "",
    "Round 18's item (5): the product could only approve the SQL the agent wrote, so the case issue 26 is about (a person fixes a wrong answer; a later question of other wording on the same need is shown the fix) could not happen. Built (branch bimem19), on the one approval path (`ApprovedExamples.approve`; no second store, no bench shortcut):",
    '- `orrery.bi.examples.correction(engine, sql)`: the one check every path uses. The SQL is stripped, at most `recall.examples.MAX_SQL` (20,000) characters, passes the read-only guard and plans on the run\'s own connection (`engine.explain`: `guard.check` then EXPLAIN, i.e. `tools.dry_run(probe=False)`; not imported from tools.py, which imports examples.py: a cycle; no one-row probe, as a right correction may find nothing), and is kept as the guard reads it (sqlglot, no comments). Otherwise `BadCorrection` (a `DataError`: one line, "... give one SELECT that runs on <db>"), nothing stored.',
    "- Python: `examples.approve(agent, examples=None, *, sql=None)`: with `sql`, the agent's question is kept with the checked correction on the agent's connection instead of its SQL.",
    '- CLI: `orrery bi approve RUN --sql "SELECT ..."` or `--sql-file PATH` (a regular file, read once, at most 64 KiB; not both), checked on the run\'s database (by its name; `--db` when `ask --db` was a file or URL, refused unless it is the run\'s database); prints "approved example N for DB, corrected: QUESTION", the agent\'s SQL and the kept one. The hint after an answer names `--sql`.',
    '- Server: `POST /threads/{t}/runs/{r}/approve` takes an optional `{"sql": "..."}` (parsed by the server\'s `parse_json`, under `max_body_bytes`: 413 above it); the question is still the run\'s; the correction is checked on the run\'s database (`open_engine(connection)`, closed after); 400 with the reason for a non-object body, a non-string `sql`, or a refused correction; the reply adds `sql` (what was kept) and `corrected`. Token and Origin as every route (the guarded router).',
    '- Web app: Wrong posts `reject` (nothing kept, as before), then opens the answer\'s SQL in a text box (`correctionForm`); \'Keep corrected SQL\' posts `approve` with `{"sql"}` and shows the SQL the server kept, or "Not kept: <reason>" with the box left open to try again.',
    "",
    "Tests (each fails without the code; checked by running them on 7b2f79d's orrery with these tests: tests/bi/test_r19_corrections.py does not import there (`BadCorrection`, `SQL_FILE_BYTES`), and 11 of tests/serve/test_feedback.py + the browser test fail):",
    "- the measure the brief asks (no model): a correction stored through Python (`approve(agent, sql=...)`), the CLI (`--sql` and `--sql-file`) and the server (over real HTTP) is exactly the pair `ExampleMemory.shown` returns for a paraphrase of its question ('What is the number of nations?' for 'How many nations are there?', whose agent counted regions; 'What number of shipments went to customers in United during 1995?' for the served scenario), never the agent's SQL; the browser test keeps a correction through the page and finds it in `GET /examples/tpch` and in the page.",
    "- attacks, each refused with nothing stored: Python, 14 (a write, two statements, a write after a UNION or after a comment, a write in a CTE, another database's table, another catalog, `read_csv`, a file as a table, ATTACH, an unknown column, not SQL, empty, over 20,000 characters); CLI, a write / two statements / another database's table (non-zero exit, one line), a file over 64 KiB, `--db` of another database, `--sql` with `--sql-file`, a run on a SQLite file corrected without `--db` (told to name it again) and then with it (kept, checked in SQLite's dialect); HTTP, 7 bodies (a write, several statements, chinook's tables, a file read, a non-string, empty, too long) as 400, a 2 MiB body as 413, a body that is not an object as 400, another thread's run as 404, a cross-origin request as 403; the browser, a DELETE typed in the box (\"Not kept: ...\", nothing stored) before the fix.",
    '- tests/serve/test_feedback.py\'s first test changed: it sent `{"sql": "DROP TABLE nation"}` expecting it ignored; a body `sql` is now a correction (a DROP is refused: in the attack test), so it sends `{"question": "x"}` (ignored) and checks `corrected` is false.',
    "",
    "What is left: (1) a correction of a declined or failed run (no query ran): the answer records no connection (`BIAnswer` has no engine; the server's run keeps no inputs after it ends), so all three paths refuse it as before (409 / `NotApprovable`); recording the run's database in the answer (agent.py) would allow it; (2) a person's SQL usually names tables by aliases, and the parts shown to the SQL step drop the FROM (round 18's diagnosis): the served test's correction (`o.o_orderkey`, `n.n_name`) is shown with aliases the schema does not have; either the correction is kept with each single-table alias written as its table (a stored-form choice, measured on round 18's 195 corrections: same rows before and after, self-joins untouched) or round 18's `sql_parts` change comes back under the criterion it meant; (3) the web app's box is a plain textarea (no SQL highlighting, no preview of the correction's rows before keeping it: a `POST .../preview` running it under the guard's row cap would let a person see the fix's answer first); (4) whether corrections help answers is round 18's question, unchanged: no model run here.",
    "",
    'README lines for orrery/bi/README.md "Approved examples" (not this branch\'s file; for the lead): in the command block, after `orrery bi approve ID`:',
    "```",
    'orrery bi approve ID --sql "SELECT ..."  # a correction: the run\'s question kept with your SQL (or --sql-file PATH; --db FILE for a run on a file)',
    "```",
    'and after "Python: `orrery.bi.examples.approve(agent)` (its last answer)": "`approve(agent, sql="SELECT ...")` (a person\'s correction). A correction (`examples.correction`) is kept only when it passes the read-only guard and plans (EXPLAIN) on the run\'s own database, as the guard reads it (no comments); otherwise `BadCorrection`, one line, nothing stored. Served: `approve` with `{"sql": ...}` (400 with the reason when refused); the web app\'s Wrong opens the answer\'s SQL to correct (\'Keep corrected SQL\')."',
]


ROUND20_PLAN = [
    "",
    "### round 20 (plan, written and committed before any of its measures ran; the commit that adds it, its time"
    " in `git log`): an approved query's parts shown with the schema's names, not its aliases",
    "",
    "Round 18's diagnosis holds unchanged: the SQL step is shown an approved pair as parts (`sql_parts`: select,"
    " where, group_by, having, order_by, limit) with no FROM, so a column qualified by an alias (`a.City`,"
    " `n.n_name`, `T1.sales`) names nothing the step's schema shows; 103 of round 18's 195 corrections are shown so."
    " Round 18's change (2a7a3ed) failed a criterion that forbade what it does (the agent's own SQL uses aliases"
    " too: 'What are the total sales per region?', `T1` / `T2`). This round writes the criterion for what the"
    " change does. The change (examples.py, rewritten smaller than 2a7a3ed, same rule): a column qualified by an"
    " alias of one table that the query reads once is qualified by that table's name, and that table's alias is"
    " dropped where it is read (so a subquery inside a part, `... IN (SELECT ... FROM t AS b WHERE b.x ...)`,"
    " stays a query that runs); a table read twice or more (a self-join, or the same table in a subquery) and an"
    " alias naming two tables keep their aliases (which one is meant is the alias's to say).",
    "Criterion (`--v20-parts`, results/bi_memory_parts_v20.json, no model), over round 18's 195 corrections"
    " (`corrections(newest_answers(), _memory_dbs())`) and the 175 grown pairs (`approved_pairs(stored_answers())`),"
    " each pair's parts before (the resolution off) and after, as shown (its database's dialect and row cap):",
    "- (1) every part is identical, or differs only in column qualifiers: written again with every qualifier"
    " removed, before and after are the same text; and each column whose qualifier changed was qualified before"
    " by the alias of a table read once in the query and is qualified after by that table's name. Every change is"
    " listed (pair, alias -> table); any change of another kind fails (0 allowed).",
    "- (2) self-joins keep their aliases: every column qualified by an alias of a table read twice or more is"
    " unchanged (counted; round 18 found one, 'how many routes are there from Denver to Chicago?').",
    "- (3) the aim: the parts naming a single-table alias, before -> after, counted over the 195 and the 175"
    " (round 18: 103 -> 1 corrections, the 1 the self-join); after, no part names an alias of a table read once.",
    "- (4) the parts still make the query: for every pair whose parts changed, its parts after the change put back"
    " in place of its query's clauses (the select list, WHERE and HAVING as the AND of their items, GROUP BY, ORDER"
    " BY, LIMIT), in the query whose resolved tables are read under their own names, run on its database (the"
    " bench's engine, the guard's row cap) return the same rows as the approved SQL as stored (as a multiset; in"
    " order when it orders): all of them, pairs whose own SQL fails on its database listed and not counted. The"
    " method's check: the parts before the change, put back into the query as written, return the same rows too"
    " (a mismatch there is the re-assembly's, listed, not the change's).",
    "- (5) tests (tests/bi/test_r20m_aliases.py) that fail without the change (run against integ's examples.py,"
    " 5ba73d1): an alias of one table written as the table in every part; a subquery in WHERE aliasing its own"
    " table re-assembles into SQL that runs (SQLite); and counter-examples passing both ways: a self-join keeps"
    " its aliases, a query with table names is read as written, one alias naming two tables in two scopes is"
    " kept. tests/bi/test_approved_examples.py's parts expectation (`g.Name`) becomes the table's name, as in"
    " 2a7a3ed.",
    "Shipped only if (1)-(5) all hold; otherwise reverted and the numbers kept. A model run only if shipped and"
    " started before 15:40 UTC (else none): its sample fixed here, the questions of round 18's sample (corrected_v18,"
    " corrected_v18b) that were shown (`retrieved`) a correction whose parts the change alters, primed, empty vs"
    " the corrections memory with the change (`--v20`), `nice -n 10 timeout 900`; read beside their round 18"
    " answers with the memory (without the change; other code merged since, so only a changed SQL-step request can"
    " explain a changed answer); too few questions to decide anything but a right -> wrong, each listed.",
]


ROUND20_AFTER = [
    "",
    "Round 20's measure (`--v20-parts`, results/bi_memory_parts_v20.json, no model, 15:06 UTC on ebea6f2; the plan"
    " committed at cdfacdd, 15:03:56 UTC, the change at ebea6f2, 15:06:01 UTC):",
    "- the pairs: 195 corrections and 175 grown pairs, every one a plain SELECT (all 370 shown as parts). Changed"
    " by the rule: 102 corrections (305 column qualifiers, each an alias written as its table: 28 distinct, `a ->"
    " airports`, `n -> nation`, `il -> InvoiceLine`, `u -> unemployment`, ...) and 1 grown pair ('What are the total"
    " sales per region?': `T1 -> orders`, `T2 -> states`, 3 qualifiers).",
    "- (1) failed as written: 1 change of another kind (0 allowed). In 'how many customers have never bought a"
    " single classical track?' the WHERE part's subquery reads its tables without their aliases (`NOT CustomerId IN"
    " (SELECT i.CustomerId FROM Invoice AS i JOIN InvoiceLine AS il ... WHERE g.Name = 'Classical')` -> `(SELECT"
    " Invoice.CustomerId FROM Invoice JOIN InvoiceLine ... WHERE Genre.Name = 'Classical')`): the alias dropped where"
    " the table is read, as the plan's change paragraph describes it, but (1)'s check (the part written again with"
    " its column qualifiers removed must be the same text) does not admit it. Every other changed part differs only"
    " in qualifiers, each an alias of a table read once written as that table.",
    "- (2) held: 5 pairs read a table twice (the self-join 'how many routes are there from Denver to Chicago?',"
    " `airports` as `s` / `d`; 4 grown pairs reading `nation`, `supplier` or `omdb` twice); none of their aliases"
    " changed.",
    "- (3) held: pairs whose parts name an alias of a table read once, before -> after: corrections 102 -> 0 (299"
    " part items -> 0), grown 1 -> 0 (3 -> 0); with the self-join, round 18's 103.",
    "- (4) held: of the 103 changed pairs, the parts after the change put back into the resolved query return the"
    " approved SQL's rows for 103 (the method's check, the parts before put back into the query as written: 103);"
    " no pair's own SQL failed.",
    "- (5) held: tests/bi/test_r20m_aliases.py (7): on integ's examples.py (5ba73d1) 4 fail, the 3 counter-examples"
    " (a self-join keeps its aliases, table names read as written, an alias naming a derived table and a table kept)"
    " pass; on 2a7a3ed's examples.py 2 fail, the two defects this version does not have: a subquery in a part kept"
    " `FROM orders AS o` while its columns read `orders.cid` (SQL that does not run), and an outer `T1` naming a"
    " derived table was renamed `orders`. With tests/bi/test_approved_examples.py's expectation written with table"
    " names, tests/bi/test_r20m_aliases.py, test_approved_examples.py, test_r33_shots.py, test_r19_corrections.py"
    " and test_examples*.py: 153 passed.",
    "By the rule, not shipped: ebea6f2 reverted by 5929e22 (the change, its tests, test_approved_examples's"
    " expectation); no model run (the plan allowed one only if shipped). What the numbers say, deciding nothing:"
    " the one failing item is the designed behaviour (without it the part would read `FROM Invoice AS i` beside"
    " columns named `Invoice.CustomerId`, which does not run: 2a7a3ed's defect), and every changed pair keeps its"
    " rows; the check was written narrower than the change. As round 18's (1), the criterion, not the data, was"
    " wrong; `--v20-parts` measures the change again once ebea6f2 is picked (it refuses to run without it).",
]


ROUND20B_PLAN = [
    "",
    "### round 20b (plan, written and committed after round 20's result and before any of its measures ran; the"
    " commit that adds it, its time in `git log`): the same change, the criterion it meant, on SQL round 20 did not"
    " read",
    "",
    "Round 20's (1) was written narrower than the change it measured (the alias dropped where a table is read, inside"
    " a subquery of a part, is what keeps that part runnable). Writing the wider check and reading it on the same 370"
    " pairs would be fitting the criterion to the data; so it is measured on SQL this branch has not read: the gold"
    " SQL of every answerable question of sets #1..#21 (bench/bi_nokeys.py's SETS, held-out #21 included: its"
    " `equities` database is new to every rule), once per (database, SQL), leaving out every SQL text of round 20's"
    " 370 pairs (gold SQL stands for a person's query: the sets' authors wrote it, aliases and all). The change is"
    " ebea6f2's, unchanged (picked again to measure it). `--v20b-parts`, results/bi_memory_parts_v20b.json, no"
    " model; the same measure as `--v20-parts` but for (1'):",
    "- (1') every part is identical, or differs only by aliases of tables read once: written again with every column"
    " qualifier removed and every alias of a table read once in the query removed where that table is read, before"
    " and after are the same text; and each column whose qualifier changed was qualified before by the alias of a"
    " table read once and after by that table's name. Every change listed; any change of another kind fails (0"
    " allowed).",
    "- (2) every column qualified by an alias of a table read twice or more (a self-join) is unchanged (counted).",
    "- (3) after the change, no part names an alias of a table read once (0), before -> after counted.",
    "- (4) for every pair whose parts changed, its parts after the change put back into the resolved query (as round"
    " 20) return the gold SQL's rows on its database (as a multiset; in order when it orders): all of them, pairs"
    " whose gold SQL fails listed and not counted; the method's check (the parts before, put back into the query as"
    " written) reported beside.",
    "- (5) round 20's tests (tests/bi/test_r20m_aliases.py), which fail without the change, pass with it, with"
    " tests/bi and test_examples*.py's touched tests.",
    "Shipped only if (1')-(5) all hold: ebea6f2 applied again at the branch's tip in one commit (the lead keeps it or"
    " drops it by that commit); otherwise not, the numbers kept. No model run in this round (after 15:40 UTC for"
    " any result).",
]


ROUND20B_AFTER = [
    "",
    "Round 20b's measure (`--v20b-parts`, results/bi_memory_parts_v20b.json, no model, 15:08 UTC, on 9e92fd4's"
    " bench with ebea6f2's change picked again; round 20's `--v20-parts` re-run on the same checkout first gave its"
    " stored result byte for byte):",
    "- the pairs: 516 gold queries (20 databases, held-out #21's `equities` 4 of them), every one a plain SELECT;"
    " 291 changed by the rule, 770 column qualifiers, each an alias of a table read once written as that table (64"
    " distinct, `a -> inv_annual`, `p -> eod_px`, `v -> exch_venues`, `s -> sochi14_tally`, ...); changed pairs per"
    " database from chinook 37, tpch 29, elements 27, penguins 25 to titanic 2.",
    "- (1') held: 0 changes of another kind.",
    "- (2) held: 1 query reads a table twice under an alias ('What percentage of all the Sochi medals did the"
    " Netherlands take?': `sochi14_tally t` in one subquery, `sochi14_tally` in the other); `t` kept, its other"
    " alias (`l -> lkp_cntry`) resolved.",
    "- (3) held: queries whose parts name an alias of a table read once 291 -> 0 (757 part items -> 0).",
    "- (4) held: the 291 changed queries' parts put back into the resolved query return the gold rows for 291 (the"
    " method's check, before: 291); no gold query failed, none of the 291 returns no row.",
    "- (5) held: tests/bi/test_r20m_aliases.py with the change: 7 passed; with tests/bi/test_approved_examples.py,"
    " test_bi_approve.py, test_r19_corrections.py, test_r33_shots.py, test_r38_shots.py, test_examples*.py,"
    " test_memory_ceiling.py, test_data_declines.py, tests/serve/test_feedback.py and tests/memory/test_examples.py,"
    " test_served_examples.py: 198 passed.",
    "Shipped: ebea6f2 applied again at 89bdfbb (one commit, with its tests and test_approved_examples's expectation"
    " written with table names). What it does not do: it changes only what the SQL step is shown (the stored"
    " pair keeps the person's SQL as written; a reused query is the stored SQL); whether a correction shown with the"
    " schema's names is used better by the model is not measured here (round 18's two corrections shown and not"
    " used, `a.City` and `n.n_name`, are the case).",
]


ROUND20C_PLAN = [
    "",
    "### round 20c (plan, written and committed before its run; the commit that adds it, its time in `git log`):"
    " does the model use a correction shown with the schema's names?",
    "",
    "Rounds 20 and 20b measured what the SQL step is shown, not what the model does with it. The brief allows a"
    " model run once the criterion is met and time is left: one small run, primed, the same corrections memory"
    " (round 18's 195, leave-one-out) both ways, the only difference the alias resolution: off (`unaliased` patched"
    " to return the query as written, i.e. integ's parts) against on (89bdfbb). Every request the change leaves"
    " alike is replayed (bench/bi_memory_primed.py), so only a SQL-step request showing a changed correction costs a"
    " second call, and only it can change an answer.",
    "- the sample (`v20_sample`, fixed here): the questions of round 18's scope (results/bi_memory_scope_v18.json, 834"
    " questions, each once) whose `shown` pairs include a correction whose parts the change alters"
    " (results/bi_memory_parts_v20.json), ordered by the SHA-1 of their text, the first `V20_EACH` (10); `--v20`"
    " (tag corrected_v20), `nice -n 10 timeout 900`: the questions answered before the cut are the ones reported.",
    "- read as: the change stays unless right -> wrong (off right, on wrong) exceeds wrong -> right on the questions"
    " answered (then 89bdfbb is reverted); reported: right off / on (answerable), each changed answer with the pair"
    " shown, the SQL-step requests the change altered (calls not replayed), seconds and load. Ten questions decide"
    " nothing else.",
]

ROUND20C_AFTER = [
    "",
    "Round 20c's run (`--v20`, results/bi_memory_corrected_v20.json, 15:11:49-15:19 UTC on 73f6a9d, all 10 questions"
    " answered before the cut; 1-minute load 3.7-6.3, other helpers' work beside it; nothing tuned on it):",
    "- answerable: right 7 -> 8 of 8 (+12.5 points), right -> wrong 0, wrong -> right 1: 'Which region has the most"
    " suppliers?', shown 'Which nation has the most suppliers?' (and 'which country's suppliers hold the largest"
    " combined account balance?'): with the aliases it selected `region.r_regionkey` (wrong; round 18's right ->"
    " wrong answer, reproduced), with the correction's parts written `nation.n_name` it selected `region.r_name`"
    " (right). Unanswerable: 2 of 2 declined both ways (before any SQL step).",
    "- the SQL-step request the change altered: 7 of 10 questions (one call each decoded again, the others"
    " replayed); one other answer's SQL changed, right both ways ('Which customer has spent the most with us"
    " overall?': off joined `Employee` and grouped by `Employee.EmployeeId`, after the pair \"which support rep's"
    " customers spent the most w/ us? name\" shown with aliases; on grouped by `Customer.CustomerId`); 'List the"
    " names of the nations in ASIA.' reused its correction with EUROPE -> ASIA both ways (the stored SQL, aliases"
    " and all, runs as written).",
    "- seconds per question, off / on: median 30.7 / 26.1, mean 29.8 / 27.0 (the on pass charged the replayed calls"
    " as decoded).",
    "By the plan's reading the change stays (right -> wrong 0 does not exceed wrong -> right 1). Ten questions, one"
    " answer is 12.5 points: it shows the mechanism round 18 diagnosed at work on one question, not a rate.",
    "",
    "What shipped in round 20: `examples.unaliased`, used by `sql_parts` (89bdfbb: an approved query's parts name a"
    " table read once under an alias by its own name; self-joins and aliases naming two sources kept), its tests"
    " (tests/bi/test_r20m_aliases.py; tests/bi/test_approved_examples.py's expectation), and the measures"
    " (`--v20-parts`, `--v20b-parts`, `--v20`). Round 20's own criterion failed as written and the change was"
    " reverted (5929e22); it came back only under round 20b's criterion, measured on data not read before. README"
    ' line for orrery/bi/README.md "Approved examples" (not this branch\'s file; for the lead): "An approved query'
    " is shown to the SQL step as its parts, with each table it reads once under an alias named by the table (a"
    " person's `n.n_name` is shown `nation.n_name`); a self-join keeps its aliases; the stored SQL is kept as"
    ' written." What is left: (1) the parts still carry no FROM, so the table a correction counts (`routes` in'
    " 'how many flights leave from Denver') is not taught (compose.py's, round 18's item 3); (2) a self-join's"
    " aliases (`s.City`, `d.City`) still name nothing the step's schema shows: writing them needs the FROM, i.e."
    " (1); (3) round 18's items 1 and 4 (the decline evidence lifting right declines; wording the shape reading"
    " misses) are untouched; (4) a larger run of corrections shown with aliases (round 18's scope: every question"
    " shown such a correction, not 10) would say whether +1 of 8 holds.",
]

ROUND17_AFTER = [
    "",
    "(A), the result (grown_v17 and grown_v17b, their rows and lines above; nothing was tuned on them): 33 of the 38"
    " questions run in two 15-minute runs (the load 1 -> 11; the 5 not run are held-out #19's last 5, all"
    " unanswerable). The answerable: 6 -> 6 right of 19 (+0.0 points; grown_v17 3 -> 3 of 8, grown_v17b 3 -> 3 of"
    " 11), right -> wrong 0 of 33, wrong -> right 0. Unanswerable: 10 of 14 declined both ways, none answered because"
    " of the memory (the other 4 failed or were answered with an empty memory too, the same SQL and status both"
    " ways: 'msrp for fords in 1975' and 'alaska revenue all time' errors, 'cook co. households, what do they make"
    " per year' and 'what year did led zeppelin form' answered). Seconds per question, empty / with the memory:"
    " grown_v17 median 40.4 / 40.5, mean 40.7 / 41.3 (load 1.4-11.4); grown_v17b median 46.7 / 46.5, mean 45.0 /"
    " 44.7 (load 7.4-11.5). The memory changed a request on 5 of the 33 (the primed protocol's count), each with the"
    " same SQL and status both ways: pairs shown on 2 ('jane peacock looks after how many customers' shown 'How"
    " many customers does Jane Peacock support?', 46.9 -> 54.1 s; 'whats the typical discount corporate buyers get"
    " (mean)' shown 'What is the average discount for the Corporate segment?', 43.8 -> 45.2 s; both right both"
    " ways), taught filters on 3 ('good date night movie from the 90s, what would u pick', declined both ways, 98.5"
    " -> 112.4 s; '# of orders flagged urgent in calendar 95', right both ways, 54.6 -> 50.1 s; 'fuel economy by"
    " number of cylinders, '80 to '82 model years only', wrong both ways, 120.9 -> 107.5 s: the seconds of a"
    " request decoded anew at another load). The 13 answerable misses: 5 declined both ways ('DL and UA, number of"
    " routes for each carrier', 'pg13 flicks from the nineties, avg lenght in mins?', 'MENA - no. of nations in the"
    " list', 'which european model weighs the most', 'state whose counties averaged the worst jobless numbers'), 1"
    " error ('mean jobless rate, southeast states vs the southwest ones'), 7 wrong SQL; none had a pair shown.",
    "",
    "What it says, with rounds 13 and 16: on new wording the shipped memory is safe (0 right -> wrong in 90"
    " questions over the three rounds: 24 + 33 + 33; no unanswerable question answered because of it) and rarely"
    " reached (a request changed on 5 of 24, 9 of 33 and 5 of 33; a pair shown on 2, 3 and 2); its gain is 1 wrong"
    " -> right in those 90 (round 13's), none in rounds 16 and 17. Where it reaches, it reaches questions the model"
    " already gets right or wrong anyway (of the 7 questions shown a pair over the three rounds, 5 right both ways, 2"
    " wrong both ways, none changed); the misses it would have to lift are declines and"
    " SQL of wording no approved pair is near. Thin evidence: 19 answerable questions here, one answer is 5.3"
    " points.",
    "",
    "(B), the diagnosis (no model; `--v17-scope`, bench/results/bi_memory_scope_v17.json, at 2952c10): of the 813"
    " development questions on the memory's databases (`v17_scope`, sets #1..#19), each joining word read on its"
    " own (`joined_by`):",
    "- 'plus': in 1 question, 'germans plus french - total customer count' (held-out #15), and it changes nothing:"
    " neither 'germans' nor 'french' is a mention (`_mentions`: no named value, no word of a stored value; the"
    " demonym reading was round 15's rule, not shipped), so 'plus' has no two values to join. Condition readings"
    " changed 0, pairs shown changed 0.",
    "- 'as well as', 'along with': in no question.",
    "- '&': in 9 questions; it changes the condition reading of 3 and the pairs shown on 1. 'rock & metal tracks -"
    " avg length in mins, each' (held-out #17) filter -> compare: right (two genres), no pair shown either way. 'kids"
    " per woman across europe & central asia in 1980, avg' (held-out #16) filter -> compare: wrong (one region,"
    " 'Europe & Central Asia'), no pair either way. 'no. of middle east & north african countries in the data'"
    " (held-out #14) filter -> compare: wrong (one region), and it loses its one pair shown ('List the names of the"
    " countries in the Middle East & North Africa region.'). The other 6 read the same (a capitalised 'Europe &"
    " Central Asia' is one named value already).",
    "",
    "Decision, by the plan: fewer than 3 questions whose pairs shown change for each word, so no model run. '&' is"
    " left out (2 of its 3 changes are wrong readings: the reason it was left out of `JOINED` to begin with, now"
    " measured). 'plus' is shipped (d2e5429): its criterion (every change a right reading, a test failing without"
    " it, counter-examples) is met, but vacuously: it changes no reading of the 813 development questions, the one"
    " it was named for included, so it is a reading for wording our sets do not hold ('customer count for Germany"
    " plus France', 'revenue in 1995 plus 1996' now compare: tests/bi/test_examples_compare.py, failing without it;"
    " counter-examples that stay one value or none: 'total sales in Texas plus tax', 'what is two plus three', 'How"
    " many Google Plus users are there in France?'). A 'plus' between two capitalised column names ('Freight plus"
    " Tax') would read as a comparison, as 'and' already does there. If the lead prefers no code without a measured"
    " effect, d2e5429 reverts alone.",
    "",
    "What shipped in round 17: the measurements and their scripts (bench/bi_memory.py `--v17`, `--v17-scope`,"
    " `joined_by`, the no-model measures read from one table, `MEASURES`); 'plus' in `JOINED`. Next: (1) the last 5"
    " questions of `v17_sample` (held-out #19's last 5, all unanswerable) when an hour allows; (2) the memory's"
    " reach on new wording is the pairs shown, 7 of 90 questions over three rounds, none changed by it: a gain"
    " needs approved pairs near the wording the model gets wrong, i.e. a memory grown from the users' own"
    " approvals, not the development sets' right answers; the next measure is a leave-one-out over a memory that"
    " holds paraphrases of the wrong answers' fixes (the issue's 'approved answers that were right'); (3)"
    " 'germans plus french' and 'japanese vs south korean' meet the memory only through demonyms, which round 15"
    " measured (1 shown change in 788) and did not ship: no further work there until a memory has many filtered"
    " pairs near such wording.",
]


# The ceiling of approved examples (bench/bi_memory.md, "round 8"): for each answerable question a run got wrong
# with an empty memory, whether an approved pair of its database (its own question aside) holds what the gold
# needs, read mechanically with sqlglot: (a) `template`, a pair's SQL is the gold with literals abstracted (a value
# swap could answer it); (b) `parts`, every table, join condition and column the gold uses is in approved SQL of
# that database; (c) `neither`.
CEILING_RUNS = ("grown", "grown_v2", "grown_v3", "grown_v4", "grown_v5", "grown_v6")


def _schema(db: str) -> dict[str, dict[str, str]]:
    from bi_nokeys import engine_for

    return {t: {c.name: c.type or "TEXT" for c in cols} for t, cols in engine_for(db).tables().items()}


def ceiling(tags: tuple[str, ...] = CEILING_RUNS) -> list[dict[str, Any]]:
    """Each answerable question each run got wrong with an empty memory, classed against the grown memory's
    approved pairs of its database, its own question aside (leave-one-out): run, db, question, class, declined
    (no SQL with an empty memory), answerable (the run's count)."""
    from bi_memory_ceiling import ceiling_class, in_one_pair, pair_facts, same_question, sql_facts
    from bi_nokeys import engine_for

    pairs = approved_pairs(stored_answers())
    dbs = {p["db"] for p in pairs}
    schemas = {db: _schema(db) for db in dbs}
    dialects = {db: engine_for(db).dialect for db in dbs}
    facts = {id(p): pair_facts(p, schemas[p["db"]], dialects[p["db"]]) for p in pairs}
    out = []
    for tag in tags:
        rows = json.loads((RESULTS / f"bi_memory_{tag}.json").read_text())["questions"]
        answerable = sum(r["gold"] is not None for r in rows)
        for r in rows:
            if r["gold"] is None or r["off"]["correct"]:
                continue
            gold = sql_facts(r["gold"], schemas[r["db"]], dialects[r["db"]])
            mine = [
                f
                for p in pairs
                if p["db"] == r["db"] and not same_question(p["question"], r["question"]) and (f := facts[id(p)])
            ]
            row = {k: r[k] for k in ("db", "question")} | {"run": tag, "answerable": answerable}
            out.append(
                row
                | {
                    "class": "unread" if gold is None else ceiling_class(gold, mine),
                    "one_pair": gold is not None and in_one_pair(gold, mine),
                    "declined": not r["off"]["sql"],
                }
            )
    return out


def ceiling_table(rows: list[dict[str, Any]]) -> list[str]:
    """`ceiling`'s rows per run as bench/bi_memory.md's table: misses per class, and the implied ceilings in
    points over the run's answerable questions."""
    lines = [
        "| run | answerable | wrong, empty memory (declined) | (a) template | (b) parts (in one pair) | (c) neither "
        "| ceiling (a), points | ceiling (a)+(b), points |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for tag in dict.fromkeys(r["run"] for r in rows):
        mine = [r for r in rows if r["run"] == tag]
        n = mine[0]["answerable"]
        count = {c: sum(r["class"] == c for r in mine) for c in ("template", "parts", "neither")}
        one = sum(r["class"] == "parts" and r["one_pair"] for r in mine)
        lines.append(
            f"| {tag} | {n} | {len(mine)} ({sum(r['declined'] for r in mine)}) | {count['template']} "
            f"| {count['parts']} ({one}) | {count['neither']} | +{100 * count['template'] / n:.1f} "
            f"| +{100 * (count['template'] + count['parts']) / n:.1f} |"
        )
    return lines


def reach(tags: tuple[str, ...] = ("grown_v4", "grown_v5", "grown_v6")) -> list[str]:
    """For each run's answerable misses of class template / parts (`ceiling`): how many `ExampleMemory.shown`
    gives a pair, and a useful one (its SQL or gold is the miss's gold template, or it uses a column or join the
    gold needs and the empty answer lacked), at show floors 0.6-0.3, with and without the shape rules."""
    from bi_memory_ceiling import pair_facts, sql_facts
    from bi_nokeys import engine_for

    held = {(r["run"], r["db"], r["question"]) for r in ceiling(tags) if r["class"] in ("template", "parts")}
    _, memory, pairs, _ = _grown_memory(FLOOR)
    by_question = {(p["db"], p["question"]): p for p in pairs}
    lines = ["| run | misses (a)+(b) | floor | shown, shape rules | useful | shown, any shape | useful |"]
    lines.append("|---|---|---|---|---|---|---|")
    for tag in tags:
        rows = json.loads((RESULTS / f"bi_memory_{tag}.json").read_text())["questions"]
        rows = [r for r in rows if (tag, r["db"], r["question"]) in held]
        for floor in (0.6, 0.5, 0.4, 0.3):
            memory.show_floor, counts = floor, []
            for shaped in (True, False):
                memory.shaped, shown_n, useful_n = shaped, 0, 0
                for r in rows:
                    engine = engine_for(r["db"])
                    schema = _schema(r["db"])
                    gold = sql_facts(r["gold"], schema, engine.dialect)
                    got = sql_facts(r["off"]["sql"] or "SELECT 1", schema, engine.dialect) or {}
                    lack = (gold["columns"] - got.get("columns", set())) | (gold["joins"] - got.get("joins", set()))
                    shown_q = shown(memory, r, engine)
                    facts = [pair_facts(by_question[(r["db"], q)], schema, engine.dialect) for q in shown_q]
                    shown_n += bool(shown_q)
                    useful_n += any(
                        f and (gold["template"] in f["templates"] or (f["columns"] | f["joins"]) & lack) for f in facts
                    )
                counts += [shown_n, useful_n]
            lines.append(f"| {tag} | {len(rows)} | {floor} | " + " | ".join(map(str, counts)) + " |")
    return lines


def diagnose(tags: tuple[str, ...] = ("grown", "grown_v2")) -> None:
    """Print each answerable question a run got wrong with an empty memory, with what DIAGNOSIS was read from."""
    import sqlglot
    from sqlglot import exp

    from orrery.bi.semantic import GENERIC, stems

    def columns(sql: str) -> set[str]:
        try:
            return {c.name.lower() for c in sqlglot.parse_one(sql).find_all(exp.Column)}
        except sqlglot.errors.SqlglotError:
            return set()

    pairs = approved_pairs(stored_answers())
    for tag in tags:
        for q in json.loads((RESULTS / f"bi_memory_{tag}.json").read_text())["questions"]:
            if q["gold"] is None or q["off"]["correct"]:
                continue
            mine = {w for w in stems(q["question"]) if w not in GENERIC}
            same = [p for p in pairs if p["db"] == q["db"] and p["question"].lower() != q["question"].lower()]
            held = {
                c: [p["question"] for p in same if c in columns(p["sql"]) and mine & set(stems(p["question"]))][:2]
                for c in sorted(columns(q["gold"]) - columns(q["off"]["sql"] or ""))
            }
            print(f"[{tag}] {q['db']} | {q['question']}\n  empty: {q['off']['status']} {q['off']['why'][:100]} ")
            print(f"  {q['off']['sql']}\n  gold: {q['gold']}\n  lacking -> approved: {held}")


def _details(name: str, r: dict[str, Any]) -> list[str]:
    lines = [
        f"{name} ({r['date']}, commit {r['commit']}, {r['model']}): {r['examples_approved']} examples "
        f"approved ({1000 * r['approve_seconds_each']:.0f} ms each, embedding included); load average at "
        f"the end {r['load_average_1min_at_end']} (a shared machine: not quiet-machine times); "
        f"{sum(bool(q['retrieved']) for q in r['questions'])} of {r['questions_run']} questions were given "
        f"at least one example, {sum(len(q['retrieved']) for q in r['questions'])} in all."
    ]
    if "memory" in r:
        lines += _grown(r)
    if r.get("protocol") == "primed":
        lines += _primed(r)
    if "reused" in r:
        lines.append(
            f"- an approved query was reused (values swapped, no model call for SQL) for {r['reused']} questions, "
            f"{r['reused_right']} of them right."
        )
    for title, key in (("right -> wrong", "right_to_wrong_questions"), ("wrong -> right", "wrong_to_right_questions")):
        if r[key]:
            lines.append(f"- {title}: " + "; ".join(r[key]) + ".")
    wrong = [q for q in r["questions"] if not q["off"]["correct"] and q["gold"] is not None]
    declined = [q for q in wrong if q["off"]["status"] in DECLINED and q["on"]["status"] in DECLINED]
    lines.append(
        f"- of the {len(wrong)} answerable questions wrong with an empty memory, {len(declined)} were declined "
        "in both conditions."
        + ("" if not declined else " Declined: " + "; ".join(q["question"] for q in declined) + ".")
    )
    return [*lines, *([f"- {NOTES[name]}"] if name in NOTES else []), ""]


def _primed(r: dict[str, Any]) -> list[str]:
    """A primed run's parts, and how many of the memory's calls were decoded rather than replayed."""
    qs = r["questions"]
    lines = []
    for part in dict.fromkeys(q.get("part", "") for q in qs):
        mine = [q for q in qs if q.get("part", "") == part]
        ans = [q for q in mine if q["gold"] is not None]
        off, on = (sum(q[k]["correct"] for q in ans) for k in ("off", "on"))
        worse = sum(q["off"]["correct"] and not q["on"]["correct"] for q in mine)
        lines.append(
            f"- part {part or 'all'}: {len(mine)} questions ({len(ans)} answerable), right {off} -> {on} "
            f"({100 * (on - off) / max(1, len(ans)):+.1f} points), right -> wrong {worse}."
        )
    lines += _placing(qs)
    calls = sum(q["on"].get("calls", 0) for q in qs)
    replayed = sum(q["on"].get("replayed", 0) for q in qs)
    changed = sum(q["on"].get("calls", 0) > q["on"].get("replayed", 0) for q in qs)
    return [
        *lines,
        f"- the primed protocol: with the memory, {replayed} of {calls} model calls replayed the empty condition's "
        f"reply to the same request; {changed} of {len(qs)} questions had a request the memory changed.",
    ]


def _placing(qs: list[dict[str, Any]]) -> list[str]:
    """The placing's own effect in a stored run (`--v11`..`--v11c`, code at 6705ebe): the questions it fired on,
    answered with the memory and with the same memory without placing (`on_unplaced`)."""
    fired = [q for q in qs if "on_unplaced" in q]
    if not fired:
        return []
    with_, without = (sum(q[k]["correct"] for q in fired) for k in ("on", "on_unplaced"))
    worse = [q["question"] for q in fired if q["on_unplaced"]["correct"] and not q["on"]["correct"]]
    each = "; ".join(
        f"{q['question']!r} ({q.get('part', '')}; {', '.join(f'{k}: {v}' for k, v in q['placed'].items())}): "
        f"{_mark(q['on_unplaced'])} -> {_mark(q['on'])}"
        for q in fired
    )
    return [
        f"- the placing (its switch on against off, the same memory): fired on {len(fired)} of {len(qs)} questions,"
        f" right {without} -> {with_}, right -> wrong {len(worse)}. {each}."
    ]


def _mark(got: dict[str, Any]) -> str:
    return f"{got['status']}, {'right' if got['correct'] else 'wrong'}"


def _grown(r: dict[str, Any]) -> list[str]:
    """What a `--grown` run's memory held and which questions it could not touch."""
    qs = r["questions"]
    by_db = ", ".join(f"{db} {n}" for db, n in sorted(r["memory"]["by_db"].items()))
    files = "; ".join(f"{s}: {', '.join(f)}" for s, f in r["memory"]["files"].items())
    strata = sorted({(q["set"], q["db"]) for q in qs})
    untouched = [q for q in qs if not q["touched"]]
    verified = [q for q in untouched if not q["on"].get("carried")]
    same = sum(q["on"]["sql"] == q["off"]["sql"] and q["on"]["status"] == q["off"]["status"] for q in verified)
    loads = [q["load_1min"] for q in qs if "load_1min" in q]
    what = r["memory"].get("what") or (
        "the right answers to answerable questions in the newest stored run of each set (bench/results/, per set, "
        f"newest first; {files})"
    )
    return [
        f"- the memory: {r['memory']['pairs']} approved pairs ({by_db}), {what}.",
        f"- the sample: {len(qs)} questions ({r['answerable_run']} answerable) over {len(strata)} (set, database) "
        "strata, drawn as `grown_sample` says before the run; "
        f"{len(qs) - len(untouched)} were touched by the memory (a pair above the floor near them, or a "
        f"value swap); of the {len(untouched)} untouched, {len(verified)} were answered with the memory anyway, "
        f"the same SQL and status for {same}; the others carry their empty-memory answer."
        + (f" 1-minute load per question {min(loads)}-{max(loads)}." if loads else ""),
    ]


def reading(args: argparse.Namespace) -> list[str]:
    """The no-model readings of stored runs: `--ceiling`, `--shaped-shown`, `--reach` (the first two written to
    results/)."""
    if args.shaped_shown:
        return shaped_shown(args.shaped_shown)
    if args.ceiling:
        rows = ceiling()
        _write(RESULTS / "bi_memory_ceiling.json", {"rows": rows})
        return ceiling_table(rows)
    lines = reach()
    _write(RESULTS / "bi_memory_reach.json", {"lines": lines})
    return lines


PARTS = ("select", "where", "group_by", "having", "order_by")
PART_SQL = {  # a part's item read back in its clause
    "select": "SELECT {}",
    "where": "SELECT 1 WHERE {}",
    "group_by": "SELECT 1 GROUP BY {}",
    "having": "SELECT 1 HAVING {}",
    "order_by": "SELECT 1 ORDER BY {}",
}
PART_ARG = {"where": "where", "group_by": "group", "having": "having", "order_by": "order"}


def _item(part: str, item: str, dialect: str) -> Any:
    """A part's item parsed in its clause: the select item, the condition, the grouping or ordering term."""
    import sqlglot

    tree = sqlglot.parse_one(PART_SQL[part].format(item), read=dialect)
    if part == "select":
        return tree.expressions[0]
    node = tree.args[PART_ARG[part]]
    return node.this if part in ("where", "having") else node.expressions[0]


def _bare(node: Any, dialect: str, once: set[str] = frozenset()) -> str:
    """An item written again with no column qualifier, and no alias in `once` where its table is read."""
    from sqlglot import exp

    node = node.copy()
    for col in node.find_all(exp.Column):
        col.set("table", None)
    for t in node.find_all(exp.Table):
        if t.alias.lower() in once:
            t.set("alias", None)
    return node.sql(dialect)


def _qualifier_changes(
    sql: str, before: dict[str, Any], after: dict[str, Any], dialect: str, admit_reads: bool
) -> dict[str, Any]:
    """Round 20's (1)-(3) for one pair: the qualifiers changed (alias -> table), the changes of another kind, the
    self-join columns changed, and the parts naming an alias of a table read once, before and after. With
    `admit_reads` (round 20b's (1')), such an alias dropped where its table is read is no change of another kind."""
    import sqlglot
    from sqlglot import exp

    tables = [t for t in sqlglot.parse_one(sql, read=dialect).find_all(exp.Table) if t.name]
    reads = Counter(t.name.lower() for t in tables)
    alias = {t.alias.lower(): t.name for t in tables if t.alias and t.alias.lower() != t.name.lower()}
    once = {a for a, name in alias.items() if reads[name.lower()] == 1}
    out: dict[str, Any] = {"changed": [], "other": [], "self_join_changed": [], "aliased": [0, 0]}
    for part in PARTS:
        for b, a in zip(before[part], after[part], strict=True):
            nb, na = _item(part, b, dialect), _item(part, a, dialect)
            for i, node in enumerate((nb, na)):
                out["aliased"][i] += any(c.table.lower() in once for c in node.find_all(exp.Column))
            if b == a:
                continue
            dropped = once if admit_reads else set()
            if _bare(nb, dialect, dropped) != _bare(na, dialect, dropped):
                out["other"].append([part, b, a])
                continue
            for cb, ca in zip(nb.find_all(exp.Column), na.find_all(exp.Column), strict=True):
                if cb.table == ca.table:
                    continue
                key = cb.table.lower()
                right = key in once and ca.table.lower() == alias[key].lower()
                out["changed" if right else "other"].append([part, cb.table, ca.table])
                out["self_join_changed"] += [[part, cb.table]] if key in alias and key not in once else []
    return out


def _assembled(sql: str, parts: dict[str, Any], dialect: str, resolve: bool) -> str:
    """`parts` put back in place of the query's clauses (the select list, WHERE and HAVING as the AND of their
    items, GROUP BY, ORDER BY, LIMIT), in the query as written or with its tables resolved (`unaliased`)."""
    import sqlglot
    from sqlglot import exp

    from orrery.bi.examples import unaliased

    tree = sqlglot.parse_one(sql, read=dialect)
    tree = unaliased(tree) if resolve else tree
    items = {part: [_item(part, x, dialect) for x in parts[part]] for part in PARTS}
    tree.set("expressions", items["select"])
    tree.set("where", exp.Where(this=exp.and_(*items["where"])) if items["where"] else None)
    tree.set("group", exp.Group(expressions=items["group_by"]) if items["group_by"] else None)
    tree.set("having", exp.Having(this=exp.and_(*items["having"])) if items["having"] else None)
    tree.set("order", exp.Order(expressions=items["order_by"]) if items["order_by"] else None)
    return (tree.limit(parts["limit"]) if parts["limit"] is not None else tree).sql(dialect)


def _rows(engine: Any, sql: str, ordered: bool) -> Any:
    """The rows a query returns, in order when it orders, else as a multiset; the error's text when it fails."""
    from orrery.bi.engines import QueryError
    from orrery.bi.guard import UnsafeQuery

    try:
        rows = engine.execute(sql).rows
    except (QueryError, UnsafeQuery) as e:
        return f"error: {e}"
    return [repr(r) for r in rows] if ordered else sorted(repr(r) for r in rows)


def _same_rows(engine: Any, p: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Round 20's (4) for a pair whose parts changed: the approved SQL's rows against its parts re-assembled,
    after the change into the resolved query, before it into the query as written (the method's check)."""
    import sqlglot

    dialect = engine.dialect
    ordered = sqlglot.parse_one(p["sql"], read=dialect).args.get("order") is not None
    own = _rows(engine, p["sql"], ordered)
    if isinstance(own, str):
        return {"own_fails": own}
    after_sql = _assembled(p["sql"], after, dialect, resolve=True)
    before_sql = _assembled(p["sql"], before, dialect, resolve=False)
    got = {"after": _rows(engine, after_sql, ordered) == own, "before": _rows(engine, before_sql, ordered) == own}
    return got | ({} if got["after"] else {"assembled": after_sql})


def _round20_pairs() -> list[tuple[str, dict[str, Any]]]:
    """Round 20's pairs: round 18's corrections and the grown memory's pairs."""
    pairs = [("correction", p) for p in corrections(newest_answers(), _memory_dbs())]
    return pairs + [("grown", p) for p in approved_pairs(stored_answers())]


def gold_pairs() -> list[tuple[str, dict[str, Any]]]:
    """Round 20b's pairs: the gold SQL of every answerable question of sets #1..#21, once per (database, SQL),
    less every SQL text of round 20's pairs."""
    from bi_nokeys import SCORED, items

    seen = {(p["db"], p["sql"].strip()) for _, p in _round20_pairs()}
    out = []
    for which in SCORED:
        for item in items(which):
            key = (item["db"], (item["gold"] or "").strip())
            if item["gold"] and key not in seen:
                seen.add(key)
                out.append(("gold", item | {"sql": item["gold"], "set": which}))
    return out


def v20_parts(admit_reads: bool = False, pairs_of: Any = _round20_pairs) -> dict[str, Any]:
    """Round 20's measure (no model): over `pairs_of()` (round 20's: round 18's corrections and the grown pairs),
    each pair's parts before (the resolution off) and after `unaliased`, as shown (its dialect, its row cap), read
    by the criterion ((1') with `admit_reads`)."""
    from unittest import mock

    from bi_nokeys import engine_for

    from orrery.bi import examples as ex

    if not hasattr(ex, "unaliased"):
        raise SystemExit(
            "round 20's change is not in this checkout (not shipped): git cherry-pick ebea6f2 to measure it"
        )
    pairs = pairs_of()
    engines: dict[str, Any] = {}
    rows = []
    for kind, p in pairs:
        engine = engines.setdefault(p["db"], engine_for(p["db"]))
        with mock.patch.object(ex, "unaliased", lambda tree: tree):
            before = ex.sql_parts(p["sql"], engine.dialect, engine.limits.max_rows)
        after = ex.sql_parts(p["sql"], engine.dialect, engine.limits.max_rows)
        row = {"kind": kind, "db": p["db"], "question": p["question"], "sql": p["sql"], "shown": after is not None}
        if before is not None and after is not None:
            row |= _qualifier_changes(p["sql"], before, after, engine.dialect, admit_reads)
            row |= _same_rows(engine, p, before, after) if before != after else {}
        rows.append(row)
    return {"rows": rows, "summary": _v20_summary(rows)}


def _v20_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Round 20's criterion counted per kind of pair (corrections, grown)."""
    out = {}
    for kind in dict.fromkeys(r["kind"] for r in rows):
        rs = [r for r in rows if r["kind"] == kind]
        changed = [r for r in rs if "after" in r or "own_fails" in r]
        out[kind] = {
            "pairs": len(rs),
            "shown_as_parts": sum(r["shown"] for r in rs),
            "parts_changed": len(changed),
            "qualifiers_changed": sum(len(r.get("changed", [])) for r in rs),
            "other_changes": [[r["question"], c] for r in rs for c in r.get("other", [])],
            "self_join_pairs_changed": [r["question"] for r in rs if r.get("self_join_changed")],
            "pairs_naming_a_once_alias": [sum(bool(r.get("aliased", [0, 0])[i]) for r in rs) for i in (0, 1)],
            "parts_naming_a_once_alias": [sum(r.get("aliased", [0, 0])[i] for r in rs) for i in (0, 1)],
            "same_rows_after": sum(bool(r.get("after")) for r in changed),
            "same_rows_before": sum(bool(r.get("before")) for r in changed),
            "own_sql_fails": [r["question"] for r in changed if "own_fails" in r],
            "rows_differ_after": [r["question"] for r in changed if r.get("after") is False],
            "changes": sorted({f"{c[1]} -> {c[2]}" for r in rs for c in r.get("changed", [])}),
        }
    return out


V20_EACH = 10  # round 20c: questions shown a correction whose parts the change alters


def v20_sample() -> list[dict[str, Any]]:
    """Round 20c's sample, fixed before its run: round 18's scope questions shown a correction whose parts round
    20's change alters, ordered by the SHA-1 of their text, the first V20_EACH."""
    scope = json.loads((RESULTS / "bi_memory_scope_v18.json").read_text())["rows"]
    parts = json.loads((RESULTS / "bi_memory_parts_v20.json").read_text())["rows"]
    changed = {(r["db"], r["question"]) for r in parts if r["kind"] == "correction" and "after" in r}
    hit = [r for r in scope if any((r["db"], q) in changed for q in r["shown"])]
    hit.sort(key=lambda r: hashlib.sha1(r["question"].encode()).hexdigest())
    return [{k: r[k] for k in ("set", "db", "question", "gold")} for r in hit[:V20_EACH]]


def run_ab(llm: str | None, items: list[dict[str, Any]], out: Path, floor: float | None) -> dict[str, Any]:
    """Round 20c: each question answered with the corrections memory, primed, the alias resolution off (`off`:
    `unaliased` returns the query as written) then on; a request the change leaves alike is replayed."""
    from unittest import mock

    from bi_memory_primed import Primed
    from bi_nokeys import engine_for

    from orrery.bi import examples as ex

    if llm not in (None, "local"):
        raise SystemExit("--v20: the embedded model only")
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    model, commit = Primed(), _commit()
    engines = {db: engine_for(db) for db in dict.fromkeys(r["db"] for r in items)}
    sessions, memory, pairs, approve_s = _corrected_memory(floor)
    rows: list[dict[str, Any]] = [dict(item) for item in items]
    extra = {"floor": floor, "commit": commit, "memory": _memory_of(pairs) | {"what": CORRECTIONS}}
    extra |= {"protocol": "primed; off = the alias resolution off, on = on (round 20c)"}
    for i, row in enumerate(rows):
        engine = engines[row["db"]]
        row |= {"touched": True, "retrieved": shown(memory, row, engine)}
        model.forget()
        with mock.patch.object(ex, "unaliased", lambda tree: tree):
            row["off"] = answer(model, engine, row, sessions, f"off{i}", memory)
        _answer_on(model, engine, rows, i, sessions, memory)
        _write(out, summarize(rows[: i + 1], model.name, len(rows), len(pairs), approve_s) | extra)
    return summarize(rows, model.name, len(rows), len(pairs), approve_s) | extra


FIELD_DECLINE = "no field"  # a stored answer declined for a field the data lacks ('the data has no field for X')


def field_corrections(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Round 22's corrections: each answerable question whose newest stored answer (`newest_answers` with its
    status and text) declined it for a field the data lacks, once per (db, question), its gold SQL as the SQL a
    person corrected it with."""
    seen, out = set(), []
    for r in answers:
        key = (r["db"], _plain(r["question"]))
        declined = r["status"] == "declined" and FIELD_DECLINE in str(r["answer"])
        if r["gold"] is not None and r["file"] and declined and key not in seen:
            seen.add(key)
            out.append({k: r[k] for k in ("set", "db", "question")} | {"sql": r["gold"], "answer": r["answer"]})
    return out


def _field_memory(pairs: list[dict[str, Any]]) -> Any:
    """A fresh store holding `pairs`, each approved as a person's correction (`corrected=True`, the marker
    `examples.approve(agent, sql=...)` keeps), read leave-one-out."""
    from orrery.bi.examples import ExampleMemory, open_examples
    from orrery.recall.embed import default_embedder

    examples = open_examples(f"{tempfile.mkdtemp(prefix='bi-memory-bench-')}/memory.db", default_embedder())
    for p in pairs:
        examples.approve(p["db"], p["question"], p["sql"], corrected=True)
    return ExampleMemory(examples, K, leave_one_out=True, floor=FLOOR)


def corrected_columns(engine: Any, question: str, sql: str) -> set[tuple[str, str]]:
    """The columns a correction's SQL reads that its question does not name (`_aligned`'s reading): the columns
    the correction says the question's words meant."""
    import sqlglot

    from orrery.bi.examples import _named, _used_columns
    from orrery.bi.names import singular

    layer = _layer(engine)
    tokens = {singular(w) for w in re.findall(r"[a-z0-9]+", question.lower())}
    tree = sqlglot.parse_one(sql, read=engine.dialect or None)
    return {c for c in _used_columns(layer, tree) if not _named(layer, c, tokens)}


def _gold_columns(engine: Any, sql: str | None) -> set[tuple[str, str]]:
    import sqlglot
    from sqlglot.errors import SqlglotError

    from orrery.bi.examples import _used_columns

    try:
        return _used_columns(_layer(engine), sqlglot.parse_one(sql, read=engine.dialect or None)) if sql else set()
    except SqlglotError:
        return set()


def taught_by(memory: Any, engine: Any, pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per correction: the phrases `_aligned` gives it (to one column, or none), and for each what `lessons` does
    with the database's pairs: taught, held back by SUPPORT alone (one pair), or ambiguous (two columns)."""
    from orrery.bi.examples import _aligned

    layer = _layer(engine)
    stored = memory.examples.list(engine.name)
    where: dict[str, dict[tuple[str, str], set[str]]] = {}
    for e in stored:
        for phrase, column in _aligned(layer, e.question, e.sql, engine.dialect):
            where.setdefault(phrase, {}).setdefault(column, set()).add(_plain(e.question))
    rows = []
    for p in pairs:
        aligned = _aligned(layer, p["question"], p["sql"], engine.dialect)
        fate = {
            phrase: "ambiguous" if len(where[phrase]) > 1 else "support" if len(where[phrase][col]) < 2 else "taught"
            for phrase, col in aligned
        }
        rows.append({"question": p["question"], "aligned": [[ph, ".".join(c)] for ph, c in aligned], "lessons": fate})
    return rows


def _judged(engine: Any, question: str, memory: Any, evidence: bool, layer: bool) -> str | None:
    """`shape_decline` of `question` with `memory` read as decline evidence and/or teaching the layer."""
    from orrery.bi.context import BIContext
    from orrery.bi.decline import shape_decline
    from orrery.bi.examples import taught

    base = _layer(engine)
    semantic = taught(base, memory, engine.name, question, engine.dialect) if layer else base
    return shape_decline(BIContext(engine, semantic, None, approved=memory if evidence else None), question)


def v22_scope(pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every stored question of sets #1..#22 on a database with a correction, each once (db, plain text)."""
    dbs, seen, out = {p["db"] for p in pairs}, set(), []
    for r in newest_answers():
        key = (r["db"], _plain(r["question"]))
        if r["db"] in dbs and r["file"] and key not in seen:
            seen.add(key)
            out.append({k: r[k] for k in ("set", "db", "question", "gold")})
    return out


def v22_taught() -> dict[str, Any]:
    """Round 22's measure (no model): every question of `v22_scope` judged by `shape_decline` with an empty memory
    and with the field corrections' memory (taught layer and decline evidence, as the agent reads it); each lifted
    decline judged again by the evidence alone and by the layer alone; per correction, what it aligns and teaches
    (`taught_by`)."""
    from bi_nokeys import engine_for

    pairs = field_corrections(newest_answers(("status", "answer")))
    memory = _field_memory(pairs)
    corrected = {(p["db"], _plain(p["question"])): p for p in pairs}
    columns = {
        db: set().union(*(corrected_columns(engine_for(db), p["question"], p["sql"]) for p in pairs if p["db"] == db))
        for db in {p["db"] for p in pairs}
    }
    rows = []
    for r in v22_scope(pairs):
        engine = engine_for(r["db"])
        empty = _judged(engine, r["question"], None, False, False)
        row = r | {
            "unanswerable": r["gold"] is None,
            "corrected": (r["db"], _plain(r["question"])) in corrected,
            "same_need": bool(_gold_columns(engine, r["gold"]) & columns[r["db"]]),
            "empty": empty,
            "memory": _judged(engine, r["question"], memory, True, True),
        }
        if empty is not None and row["memory"] is None:
            row["evidence_alone"] = _judged(engine, r["question"], memory, True, False)
            row["layer_alone"] = _judged(engine, r["question"], memory, False, True)
        with _corrections_alone_off():
            row["memory_off"] = _judged(engine, r["question"], memory, True, True)
        rows.append(row)
    teach = [
        t | {"db": db}
        for db in sorted(columns)
        for t in taught_by(memory, engine_for(db), [p for p in pairs if p["db"] == db])
    ]
    return {
        "corrections": len(pairs),
        "by_db": dict(Counter(p["db"] for p in pairs)),
        "scope": len(rows),
        "summary": _v22_summary(rows, "memory"),
        "summary_off": _v22_summary(rows, "memory_off"),
        "change": _v22_change(rows),
        "grown": _v22_grown(rows),
        "held_by_support": sum("support" in t["lessons"].values() for t in teach),
        "aligned_none": sum(not t["aligned"] for t in teach),
        "teach": teach,
        "rows": rows,
    }


@contextlib.contextmanager
def _corrections_alone_off() -> Iterator[None]:
    """Round 22's change off: no correction teaches a phrase alone (`_taught_alone`), as before it. The change was
    not shipped (bench/bi_memory.md, round 22): its measures run on a checkout with 707a986 picked."""
    from unittest import mock

    from orrery.bi import examples

    if not hasattr(examples, "_taught_alone"):
        raise SystemExit("round 22's change (examples._taught_alone) is not in this checkout: pick 707a986 first")
    with mock.patch.object(examples, "_taught_alone", lambda *_: False):
        yield


def _v22_change(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The questions whose judgment the change alters (off -> on), by kind."""
    moved = [r for r in rows if r["memory"] != r["memory_off"]]

    def kind(r: dict[str, Any]) -> str:
        what = "lifted" if r["memory"] is None else "added" if r["memory_off"] is None else "changed"
        return f"{what}, {'unanswerable' if r['unanswerable'] else 'answerable'}"

    return {
        "counts": dict(Counter(kind(r) for r in moved)),
        "rows": [
            {k: r[k] for k in ("db", "question", "corrected", "memory_off", "memory")} | {"kind": kind(r)}
            for r in moved
        ],
    }


def _v22_grown(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Criterion (d): the grown memory (agent answers, no correction) gives every question of the scope the same
    `shape_decline` and the same taught layer with the change as without."""
    from bi_nokeys import engine_for

    from orrery.bi.examples import taught

    memory = _grown_memory(FLOOR)[1]
    differ = []
    for r in rows:
        engine = engine_for(r["db"])
        got = {}
        for name, off in (("on", False), ("off", True)):
            with _corrections_alone_off() if off else contextlib.nullcontext():
                layer = taught(_layer(engine), memory, engine.name, r["question"], engine.dialect)
                got[name] = (layer.to_dict(), _judged(engine, r["question"], memory, True, True))
        if got["on"] != got["off"]:
            differ.append({k: r[k] for k in ("db", "question")})
    return {"questions": len(rows), "differ": len(differ), "rows": differ}


QUOTED_TERM = "'[^']*'|\"[^\"]*\""  # a term as Python's repr quotes it
DECLINED_FOR = re.compile(f"no field(?: or value)? for ((?:{QUOTED_TERM})(?:, (?:{QUOTED_TERM}))*)")


def declined_terms(answer: str) -> list[str]:
    """The terms a stored field decline names ('the data has no field or value for 'clients', 'babies'')."""
    import ast

    m = DECLINED_FOR.search(answer)
    return [ast.literal_eval(t) for t in re.findall(QUOTED_TERM, m.group(1))] if m else []


def _field_judged(engine: Any, question: str, terms: list[str], memory: Any) -> list[str]:
    """The plan step's field judgment (`BIAgent.judge_decline`) of the planner's `terms`: what it finds missing,
    the layer taught by `memory` first and `memory` read as decline evidence, as the agent does."""
    from orrery.bi.context import BIContext
    from orrery.bi.decline import missing_asked, missing_fields, read_typos
    from orrery.bi.examples import teach

    bi = BIContext(engine, _layer(engine), None, approved=memory)
    if memory is not None:
        teach(bi, question)
    question = read_typos(bi, question)
    return list(dict.fromkeys([*missing_fields(bi, terms, question), *missing_asked(bi, question)]))


def v22_replay() -> dict[str, Any]:
    """Round 22's measure 1b (no model): the plan step's field judgment replayed on each stored field decline of
    `v22_scope`, empty, with the corrections memory (change off) and with it (change on)."""
    from bi_nokeys import engine_for

    answers = newest_answers(("status", "answer"))
    pairs = field_corrections(answers)
    memory = _field_memory(pairs)
    dbs, seen, rows = {p["db"] for p in pairs}, set(), []
    for r in answers:
        key = (r["db"], _plain(r["question"]))
        terms = declined_terms(str(r["answer"])) if r["status"] == "declined" else []
        if r["db"] not in dbs or not r["file"] or key in seen or not terms:
            continue
        seen.add(key)
        engine = engine_for(r["db"])
        row = {k: r[k] for k in ("set", "db", "question")} | {"unanswerable": r["gold"] is None, "terms": terms}
        row["empty"] = _field_judged(engine, r["question"], terms, None)
        with _corrections_alone_off():
            row["off"] = _field_judged(engine, r["question"], terms, memory)
        row["on"] = _field_judged(engine, r["question"], terms, memory)
        rows.append(row)

    def lifted(sel: list[dict[str, Any]], key: str) -> dict[str, int]:
        gone = [r for r in sel if r["empty"] and not r[key]]
        return {
            "declined_empty": sum(bool(r["empty"]) for r in sel),
            "wrong_lifted": sum(not r["unanswerable"] for r in gone),
            "right_lifted": sum(r["unanswerable"] for r in gone),
            "added": sum(not r["empty"] and bool(r[key]) for r in sel),
        }

    by_db = {db: {k: lifted([r for r in rows if r["db"] == db], k) for k in ("off", "on")} for db in sorted(dbs)}
    return {"questions": len(rows), "off": lifted(rows, "off"), "on": lifted(rows, "on"), "by_db": by_db, "rows": rows}


def _v22_summary(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """Declines lifted / added by the memory read under `key`, answerable and unanswerable, corrected questions
    (their own correction left out), the others, and the others of the same need; per database."""

    def count(sel: list[dict[str, Any]]) -> dict[str, int]:
        lifted = [r for r in sel if r["empty"] is not None and r[key] is None]
        added = [r for r in sel if r["empty"] is None and r[key] is not None]
        return {
            "declined_empty": sum(r["empty"] is not None for r in sel),
            "wrong_lifted": sum(not r["unanswerable"] for r in lifted),
            "right_lifted": sum(r["unanswerable"] for r in lifted),
            "added_answerable": sum(not r["unanswerable"] for r in added),
            "added_unanswerable": sum(r["unanswerable"] for r in added),
        }

    parts = {
        "all": rows,
        "corrected (own left out)": [r for r in rows if r["corrected"]],
        "others": [r for r in rows if not r["corrected"]],
        "others, same need": [r for r in rows if not r["corrected"] and r["same_need"]],
    }
    out = {name: count(sel) for name, sel in parts.items()}
    out["by_db"] = {db: count([r for r in rows if r["db"] == db]) for db in sorted({r["db"] for r in rows})}
    return out


def placed(
    layer: Any, question: str, sql: str, terms: list[str], dialect: str = ""
) -> tuple[str, tuple[str, str]] | None:
    """Round 23's placement (measured, not shipped): the one term a corrected decline named, on the one column the
    correction returns or ranks by (`returned_columns`). Two terms or two such columns place nothing: one column
    answers one term at most."""
    found = returned_columns(layer, question, sql, dialect) if len(terms) == 1 else set()
    return (terms[0].strip().lower(), next(iter(found))) if len(found) == 1 else None


def returned_columns(layer: Any, question: str, sql: str, dialect: str = "") -> set[tuple[str, str]]:
    """The layer's columns the query's outermost SELECT returns (inside an aggregate or an expression too) or its
    ORDER BY ranks by, but keys and the columns the question names. A filter's column names a value, not a word of
    the question; a `COUNT(*)` returns no column."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    from orrery.bi.examples import _named, _resolved
    from orrery.bi.names import key_like, singular

    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except SqlglotError:
        return set()
    if not isinstance(tree, exp.Select):
        return set()
    order = tree.args.get("order")
    parts = [*tree.expressions, *(order.expressions if order else [])]
    returned = [c for p in parts for c in p.find_all(exp.Column) if c.find_ancestor(exp.Select) is tree]
    asked = {singular(w) for w in re.findall(r"[a-z0-9]+", question.lower())}
    return {c for c in _resolved(layer, tree, returned) if not key_like(c[1]) and not _named(layer, c, asked)}


def v23_placements() -> list[dict[str, Any]]:
    """Round 23: per field correction (round 22's), the terms its stored decline named, the columns its SQL returns
    or ranks by (`returned_columns`) and the placement `placed` makes (None: why not)."""
    from bi_nokeys import engine_for

    rows = []
    for p in field_corrections(newest_answers(("status", "answer"))):
        engine = engine_for(p["db"])
        layer, terms = _layer(engine), declined_terms(str(p["answer"]))
        columns = returned_columns(layer, p["question"], p["sql"], engine.dialect)
        got = placed(layer, p["question"], p["sql"], terms, engine.dialect)
        why = None if got else f"{len(terms)} terms" if len(terms) != 1 else f"{len(columns)} columns"
        row = {k: p[k] for k in ("set", "db", "question", "sql")} | {"terms": terms, "why_not": why}
        rows.append(
            row | {"columns": sorted(".".join(c) for c in columns), "placed": got and [got[0], ".".join(got[1])]}
        )
    return rows


# Round 23's judge, by hand from each placement's row (the question, the term, the column, the gold SQL), before
# the share was computed: (db, question) -> (the term means the column, why).
V23_JUDGED: dict[tuple[str, str], tuple[bool, str]] = {
    ("movies", "which 3 films from 2010 made the most money at the box office?"): (
        False,
        "'money' is the box office, not the title",
    ),
    ("cars", "What percentage of the cars have a 4-cylinder engine?"): (
        False,
        "'percentage' is the share computed, not the cylinders",
    ),
    ("store", "Which sub-category lost us the most money?"): (True, "money lost is the profit"),
    ("counties", "jobless % for Maricopa County"): (True, "the unemployment rate"),
    ("olympics", "Germany vs Canada at the 2014 Winter Games: which won more medals in total?"): (
        False,
        "'won more' is a verb of the comparison, not the country's name",
    ),
    ("counties", "mean jobless % over all Texan counties"): (True, "the unemployment rate"),
    ("penguins", "for each island, how many of the birds were sampled there"): (
        False,
        "'birds' are the observations' rows, not the island's name",
    ),
    ("cars", "count of ford, chevrolet and plymouth models from '75, per make"): (True, "the make is the manufacturer"),
    ("world", "Which South Asian country had the most inhabitants in 1970?"): (True, "inhabitants are the population"),
    ("penguins", "how many birds were recorded on Dream island and how many on Biscoe"): (
        False,
        "'birds' are the observations' rows, not the island's name",
    ),
    ("store", "For home office buyers, which shiping option gets picked most often?"): (
        True,
        "the shipping option is the ship mode",
    ),
    ("dairy", "avg butterfat for jersey and guernsey, each breed"): (True, "butterfat is bf_pct"),
    ("elements", "halogens vs noble gasses, how many elements in each family"): (
        True,
        "an element's family is its category",
    ),
    ("chinook", "classical and opera, track count for each pls"): (
        False,
        "'pls' is no word for a genre (the genres are the values named)",
    ),
    ("counties", "calif. counties, their avg jobless %"): (True, "the unemployment rate"),
    ("elements", "halogens, average electronegativity"): (True, "'elec' of electronegativity is en"),
    ("movies", "biggest earner at the box office among 2010 releases"): (
        False,
        "'earner' is a film (the rows), not its title",
    ),
    ("world", "kids per woman across europe & central asia in 1980, avg"): (
        True,
        "kids per woman is the fertility rate",
    ),
    ("dairy", "the scottish breed vs the dutch one: avg fat content of each"): (True, "fat content is bf_pct"),
    ("glass", "headlight glass - mean silica"): (True, "silica is si_wt ('mean' carried)"),
    ("abx", "share of the gram positive bugs that streptomycin inhibits below 1 ug/ml"): (
        False,
        "a value and a threshold, not a name of the MIC",
    ),
    ("capex", "sum of GE capital spending 1935 through 1945"): (
        True,
        "capital spending is gross investment ('ge' carried)",
    ),
    ("abx", "typical penicillin dose needed across the gram + bugs (mean)"): (
        True,
        "the dose needed is the MIC ('penicillin' carried)",
    ),
    ("flights", "puerto rican airprots, number of each size"): (True, "an airport's size is its type"),
    ("flights", "DL and UA, number of routes for each carrier"): (True, "the carrier is the airline"),
    ("election", "strong republicans: clinton vs dole headcount"): (
        False,
        "a value and a count, not the vote preference",
    ),
    ("glass", "tally of tableware bits and of container bits"): (
        False,
        "'bits' are the fragments' rows, not the class",
    ),
    ("dairy", "top butterfat reading from a jersey"): (True, "butterfat is bf_pct"),
    ("store", "units of chairs bought by corporate clients in the southern region"): (
        True,
        "units are the quantity ('chairs' carried)",
    ),
    ("equities", "facebook in 2012: % of trading days it closed under its open"): (
        False,
        "trading days are the price rows, not the close",
    ),
    ("equities", "ibm mean closing price over 2005-2007"): (
        True,
        "the closing price is cls_px ('ibm', 'mean' carried)",
    ),
    ("abx", "neomycin vs staphylococci - mean inhibitory concentration"): (
        True,
        "the inhibitory concentration is the MIC",
    ),
    ("movies", "tomatometer % for the godfather?"): (True, "the tomatometer is Meter"),
    ("carbon", "aussie emissions per person averaged across the seventies"): (
        False,
        "'person averaged' is a fragment, not a name of emissions per person",
    ),
}


def v23_placed() -> dict[str, Any]:
    """Round 23's measure 1 (no model): the placements of round 22's corrections and the share the judge holds right."""
    rows = v23_placements()
    made = [r for r in rows if r["placed"]]
    for r in made:
        judged = V23_JUDGED.get((r["db"], r["question"]))
        r["right"], r["judged"] = judged if judged else (None, "not judged")
    right = sum(r["right"] is True for r in made)
    for r in made:
        r["numeric"] = _numeric_column(r["db"], r["placed"][1])
    return {
        "corrections": len(rows),
        "placed": len(made),
        "not_placed": dict(Counter(r["why_not"] for r in rows if not r["placed"])),
        "judged": sum(r["right"] is not None for r in made),
        "right": right,
        "share_right": round(right / len(made), 3) if made else None,
        "by_column_kind (read after the share)": {
            kind: Counter(str(r["right"]) for r in made if r["numeric"] == numeric)
            for kind, numeric in (("numeric", True), ("text", False))
        },
        "replay_reach (read after the share)": _v23_reach(made),
        "rows": rows,
    }


def _numeric_column(db: str, column: str) -> bool:
    """Whether the layer's column ('table.column') has a numeric type."""
    from bi_nokeys import engine_for

    table, name = column.split(".", 1)
    info = _layer(engine_for(db)).tables[table]["columns"][name]
    return bool(re.search(r"int|real|float|double|num|dec", str(info.get("type")).lower()))


def _v23_reach(made: list[dict[str, Any]]) -> dict[str, Any]:
    """What change 2 could lift at most on round 22's replay: the field declines today's corrections memory still
    declines (results/bi_memory_replay_v22.json, 'off') that name a term sharing a word with another correction's
    placed term (the layer path teaches a placed term; a term sharing no word with one is no synonym of it)."""
    replay = json.loads((RESULTS / "bi_memory_replay_v22.json").read_text())["rows"]
    said = lambda t: set(re.findall(r"[a-z]{3,}", t.lower()))  # noqa: E731 - a word test read twice below
    out: dict[str, Any] = {}
    for kind in ("answerable", "unanswerable"):
        left = [r for r in replay if r["unanswerable"] == (kind == "unanswerable") and r["empty"] and r["off"]]
        hits = [
            {
                "db": r["db"],
                "question": r["question"],
                "still_declined": r["off"],
                "placed": p["placed"],
                "right": p["right"],
            }
            for r in left
            for p in made
            if p["db"] == r["db"]
            and _plain(p["question"]) != _plain(r["question"])
            and any(said(p["placed"][0]) & said(t) for t in r["off"])
        ]
        out[kind] = {
            "still_declined": len(left),
            "reachable": len({(h["db"], h["question"]) for h in hits}),
            "rows": hits,
        }
    return out


PRIMED_SAMPLES = {  # the flag of a primed run, empty vs a memory -> its sample, fixed before its run
    "v18": lambda: v18_sample(_v18_scope_stored()),
    "v17": v17_sample,
    "v16": v16_sample,
    "v13": v13_sample,
    "v10": v10_sample,
    "v9": v9_sample,
    "v8": v8_sample,
    "v6": v6_sample,
}

MEASURES = {  # results/bi_memory_NAME.json -> (the flag, the measure): no model, but round 20c's A/B
    "nearest_replay": ("nearest_replay", nearest_replay),
    "replay_v15": ("v15_replay", remembered_replay),
    "scope_v17": ("v17_scope", v17_diagnosis),
    "scope_v18": ("v18_scope", lambda: {"rows": v18_scope()}),
    "refusals_v18": ("v18_refusals", v18_refusals),
    "lifted_v18": ("v18_lifted", v18_lifted),
    "taught_v22": ("v22_taught", v22_taught),
    "replay_v22": ("v22_replay", v22_replay),
    "placed_v23": ("v23_placed", v23_placed),
    "parts_v20": ("v20_parts", v20_parts),
    "parts_v20b": ("v20b_parts", lambda: v20_parts(admit_reads=True, pairs_of=gold_pairs)),
    "corrected_v20": ("v20", lambda: run_ab(None, v20_sample(), RESULTS / "bi_memory_corrected_v20.json", FLOOR)),
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llm", default=None, help="model spec (default: the embedded model)")
    p.add_argument("--set", dest="which", choices=("dev", "nokeys", "grown"), default="dev")
    p.add_argument("--answerable", type=int, default=68, help="--set grown: answerable questions sampled")
    p.add_argument("--declinable", type=int, default=6, help="--set grown: unanswerable questions sampled")
    p.add_argument("--unanswerable", action="store_true", help="the set's unanswerable questions too")
    p.add_argument("--start", type=int, default=0, help="skip the first N questions")
    p.add_argument("--limit", type=int, default=None, help="then take N (default: all)")
    p.add_argument("--floor", type=float, default=FLOOR, help="the similarity floor (MiniLM cosine; 0: none)")
    p.add_argument("--tag", default="run", help="results/bi_memory_TAG.json")
    p.add_argument("--exclude", action="append", default=[], help="--set grown, --v8: leave out run TAG's questions")
    p.add_argument(
        "--then", action="append", default=[], help="--set grown: then SET's questions on the memory's databases"
    )
    p.add_argument("--targets", action="store_true", help="--set grown: then TARGETS (grown_v4's comparisons)")
    p.add_argument("--again", default=None, help="answer run TAG's questions --pick selects again (`run_again`)")
    p.add_argument("--pick", choices=tuple(AGAIN), default="in", help="--again: which questions")
    p.add_argument("--exact", action="store_true", help="--again: the embedded model with no prompt cache")
    p.add_argument("--primed", action="store_true", help="--set grown: every call primed (bi_memory_primed.py)")
    p.add_argument("--v6", action="store_true", help="--set grown: grown_v6's sample (`v6_sample`)")
    p.add_argument("--ceiling", action="store_true", help="class each empty-memory miss (`ceiling`); no model")
    p.add_argument("--join", nargs="+", default=None, help="runs of one sample continued, as run --tag")
    p.add_argument("--shaped-shown", default=None, help="run TAG's questions: what the shape rules would show")
    p.add_argument("--reach", action="store_true", help="what the show rules give `ceiling`'s (a)/(b) misses")
    p.add_argument("--v8", action="store_true", help="--set grown: grown_v8's sample (`v8_sample`), primed")
    p.add_argument("--v9", action="store_true", help="--set grown: grown_v9's sample (`v9_sample`), primed")
    p.add_argument("--v10", action="store_true", help="--set grown: grown_v10's sample (`v10_sample`), primed")
    p.add_argument("--v13", action="store_true", help="grown_v13's sample (`v13_sample`), primed, empty vs memory")
    p.add_argument("--v16", action="store_true", help="grown_v16's sample (`v16_sample`), primed, empty vs memory")
    p.add_argument("--v17-scope", action="store_true", help="round 17's diagnosis: what joining words change")
    p.add_argument("--v17", action="store_true", help="grown_v17's sample (`v17_sample`), primed, empty vs memory")
    p.add_argument("--v18-scope", action="store_true", help="round 18: what the corrections memory holds near")
    p.add_argument("--v18-refusals", action="store_true", help="round 18: why a near correction is not shown")
    p.add_argument("--v18-lifted", action="store_true", help="round 18: declines a memory lifts (no model)")
    p.add_argument("--v22-taught", action="store_true", help="round 22: declines field corrections lift (no model)")
    p.add_argument("--v22-replay", action="store_true", help="round 22: the plan's field judgment replayed")
    p.add_argument("--v23-placed", action="store_true", help="round 23: corrections' terms placed on a column")
    p.add_argument("--v20-parts", action="store_true", help="round 20: parts before/after resolving aliases")
    p.add_argument("--v20", action="store_true", help="round 20c: v20_sample, corrections, resolution off vs on")
    p.add_argument("--v20b-parts", action="store_true", help="round 20b: the same on the sets' other gold SQL")
    p.add_argument("--v18", action="store_true", help="round 18's sample (`v18_sample`), primed, empty vs corrections")
    p.add_argument("--nearest-replay", action="store_true", help="round 13: texts the memory embeds, cache off/on")
    p.add_argument("--v15-replay", action="store_true", help="round 15: texts the memory embeds, vectors kept off/on")
    p.add_argument("--any-shape", action="store_true", help="--v6/--v8/--v9: pairs shown whatever their shape")
    p.add_argument("--determinism", action="store_true", help="DETERMINISM asked 3 times each, primed and cached")
    p.add_argument("--report", action="store_true", help="only write bi_memory.md and results/bi_memory.json")
    p.add_argument(
        "--diagnose", action="store_true", help="list a run's empty-memory misses (--tag; default grown's, grown_v2's)"
    )
    args = p.parse_args()
    if args.ceiling or args.shaped_shown or args.reach:
        return print("\n".join(reading(args)))
    if name := next((n for n, (flag, _) in MEASURES.items() if getattr(args, flag)), None):  # a measure, no model
        return _write(RESULTS / f"bi_memory_{name}.json", MEASURES[name][1]())
    if args.diagnose:
        return diagnose((args.tag,) if args.tag != "run" else ("grown", "grown_v2"))
    if args.join:  # then the report, with the joined run in it
        _write(RESULTS / f"bi_memory_{args.tag}.json", joined(args.join))
        args.report = True
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    if args.determinism:
        return determinism()
    if sampled := PRIMED_SAMPLES.get(next((f for f in PRIMED_SAMPLES if getattr(args, f)), "")):
        out = RESULTS / f"bi_memory_{args.tag}.json"
        asked = {(r["db"], r["question"]) for tag in args.exclude for r in _questions_of(tag)}  # a run continued
        sample = [q for q in sampled() if (q["db"], q["question"]) not in asked]
        v18 = args.v18  # round 18: the corrections memory, not the grown one
        got = run_primed(
            args.llm,
            sample,
            out,
            args.floor or None,
            shaped=not args.any_shape,
            memory_of=_corrected_memory if v18 else None,
        )
        _write(out, got | {"set": "corrections (leave-one-out)" if v18 else "all (grown memory)"})
    elif args.again:
        out = RESULTS / f"bi_memory_{args.tag}.json"
        again = run_again(args.llm, args.again, out, args.floor or None, args.pick, args.exact)
        _write(out, again | {"set": "all (grown memory)"})
    elif not args.report and args.which == "grown":
        out = RESULTS / f"bi_memory_{args.tag}.json"
        items = grown_sample(stored_answers(), args.answerable, args.declinable)
        # another run's questions: a rule decided on them is measured on the others
        asked = {(r["db"], r["question"]) for tag in args.exclude for r in _questions_of(tag)}
        items = [q for q in items if (q["db"], q["question"]) not in asked] + later(args.then, asked)
        items += targets() if args.targets else []
        _write(out, run_grown(args.llm, items, out, args.floor or None) | {"set": "all (grown memory)"})
    elif not args.report:
        every = items_of(args.which, args.unanswerable)
        items = every[args.start : None if args.limit is None else args.start + args.limit]
        out = RESULTS / f"bi_memory_{args.tag}.json"
        _write(out, run(args.llm, items, out, args.floor or None) | {"start": args.start, "set": args.which})
    found = {
        name: json.loads((RESULTS / f"bi_memory_{name}.json").read_text())
        for name in RUNS
        if (RESULTS / f"bi_memory_{name}.json").exists()
    }
    runs = {name: r for name, r in found.items() if "questions_run" in r}  # not a run still in its first pass
    _write(RESULTS / "bi_memory.json", runs)
    (HERE / "bi_memory.md").write_text(report(runs))


if __name__ == "__main__":
    main()
