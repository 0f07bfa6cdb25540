#!/usr/bin/env bash
# Round 75's model sample (fixed before any model call): stored errors whose composed or model-written SQL named a
# column no table has (12: 10 answerable, 2 unanswerable guards). Usage: bench/bi_r75_sample.sh main|here [tag]
set -u
code=$1
for spec in heldout11:34 heldout20:14,45,50 heldout25:61 heldout24:29 heldout21:23 heldout17:3,18 heldout18:48 \
  heldout16:16 heldout22:7; do
  nice -n 5 python bench/bi_nokeys.py --code "$code" --set "${spec%%:*}" --only "${spec#*:}" --tag "${2:-bi75}"
done
