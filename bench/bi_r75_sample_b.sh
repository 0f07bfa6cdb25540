#!/usr/bin/env bash
# Round 75's sample B (section 2b of bench/bi_r75.md). Usage: bench/bi_r75_sample_b.sh main|here
set -u
for spec in heldout16:10 heldout18:33 heldout20:35 heldout23:39 heldout26:10; do
  nice -n 5 python bench/bi_nokeys.py --code "$1" --set "${spec%%:*}" --only "${spec#*:}" --tag bi75b
done
