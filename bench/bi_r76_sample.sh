#!/usr/bin/env bash
# Round 76's model sample (fixed before any model call), side by side per set (main, then here, same load).
# (a) 15 stored answerable errors (newest record, bench/bi_r76_diag.py): the 12 whose composed query and whose
#     model-written SQL both named a column no table has, and the 3 of held-out #25..#27 whose composed query
#     failed as not SQL; (b) 12 stored right answers: per held-out #16..#27 the lowest-numbered question >= 10
#     whose newest record is a completed, right answer.
# Usage: ORRERY_MAIN=/work/wt/start [SPECS=...] [CODES=here] bench/bi_r76_sample.sh [tag]
set -u
# Order (changed after heldout16's pair, the sample unchanged): the sets of (a) first, as the machine's load makes a
# question take 80-100 s and the whole sample may not end before the deadline.
for spec in ${SPECS:-heldout16:14 heldout27:13,14,15,18,25,55,58,59 heldout25:6,10,50,55,61 heldout21:13,30 \
  heldout22:7,17 heldout24:18,29 heldout26:11,61 heldout17:14 heldout18:14 heldout19:25 heldout20:21 heldout23:13}; do
  for code in ${CODES:-main here}; do
    nice -n 5 python bench/bi_nokeys.py --code "$code" --set "${spec%%:*}" --only "${spec#*:}" --tag "${1:-bi76}"
  done
done
