#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Scale benchmark: how the cost grows with a namespace's policies and with active subjects, each measured at
# several sizes in one run, its tables printed and its plots written as PNG (gnuplot) into BUILD_DIR/scale/:
#   policies (tests/bench/policy_scale_bench.cpp): apply, publish, FUNCTION LOAD, the library's Lua memory,
#     apply of one changed policy and Redis's longest block, one exporter scrape, at 10 to 10,000 policies;
#   instructions per limiter call by policies (scale_instructions.sh), target flat within 5%;
#   Redis memory per active subject per algorithm beside the peers' scripts (scale_memory.sh).
# The spread of one global policy over a Cluster's primaries is tst_limiter_spread's.
#
# Usage: tests/bench/scale_bench.sh BUILD_DIR [--largest]
#   The suite's run: instructions to 1,000 policies, subjects 10,000 and 1,000,000 (a few minutes).
#   --largest adds 10,000 policies under callgrind and 10,000,000 subjects (about 40 minutes, 3.5 GB of memory).
# Exits non-zero only when it cannot measure, never on a figure.
set -euo pipefail
started=$SECONDS
build=$(cd "${1:?usage: scale_bench.sh BUILD_DIR [--largest]}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=$build/scale
mkdir -p "$out"
policies=(10 100 1000)
subjects=(10000 1000000)
if [ "${2:-}" = --largest ]; then
  policies+=(10000)
  subjects+=(10000000)
fi

"$build/tests/policy_scale_bench" "$out"
echo
"$here/scale_instructions.sh" "$build" "$out" 5000 "${policies[@]}"
"$here/scale_memory.sh" "$build" "$out" "${subjects[@]}"

# The plots: a picture of each table, for docs/benchmarks.md.
# A plot that cannot be drawn is said, not a failure: the figures are in the tables.
if ! command -v gnuplot >/dev/null; then
  echo "scale_bench.sh: gnuplot is missing (./dev.sh test installs gnuplot-nox): no plots written" >&2
else
  memory_columns=$(head -n1 "$out/memory.dat" | wc -w)
  gnuplot <<GNUPLOT || echo "scale_bench.sh: gnuplot failed: the plots may be missing" >&2
set terminal pngcairo size 900,560 font "DejaVu Sans,11" noenhanced
set logscale x
set key left top
set grid
set xlabel "policies in the namespace"

set output "$out/scale-policies.png"
set title "Policies: what an operator waits for, and the library's Lua memory"
set logscale y
set ylabel "ms"
set y2label "Lua MB per primary"
set logscale y2
set y2tics
plot "$out/policies.dat" using 1:4 with linespoints title "publish (wall)", \
     "" using 1:5 with linespoints title "FUNCTION LOAD (Redis)", \
     "" using 1:7 with linespoints title "apply one changed policy (wall)", \
     "" using 1:8 with linespoints title "its longest Redis block", \
     "" using 1:9 with linespoints title "one exporter scrape (wall)", \
     "" using 1:6 axes x1y2 with linespoints dashtype 2 title "Lua memory (right)"

set output "$out/scale-instructions.png"
set title "Server instructions per limiter call (callgrind)"
unset logscale y
unset logscale y2
unset y2tics
unset y2label
set ylabel "instructions per call"
set yrange [0:*]
set key left bottom
plot "$out/instructions.dat" using 1:2 with linespoints title "token bucket, admitting", \
     "" using 1:3 with linespoints title "token bucket, denying (hot key)", \
     "" using 1:4 with linespoints title "first-call window, sluice_allow"

set output "$out/scale-memory.png"
set title "Redis memory per active subject (100 per hour, one call each)"
set xlabel "active subjects"
set ylabel "bytes per subject"
set key outside right top
# Sluice's cases first, solid; the gateway's and the peers' scripts after them, dashed.
plot for [i=2:9] "$out/memory.dat" using 1:i with linespoints dashtype 1 title columnheader(i), \
     for [i=10:$memory_columns] "" using 1:i with linespoints dashtype 2 title columnheader(i)
GNUPLOT
  echo
  echo "Plots: $out/scale-policies.png, $out/scale-instructions.png, $out/scale-memory.png"
fi
echo "scale_bench.sh ran in $((SECONDS - started)) s"
