#!/usr/bin/env bash
# Medians of bench/ops rows for two or more daemon binaries, run in turn so that each sees the
# same load on a shared machine (a before/after of a change: build each, copy the binaries):
#   bench/ops/compare.sh ROUNDS FILTER BINARY...
# Prints one line per row and binary: our median ms and NumPy's (measured in the same runs).
set -euo pipefail
if (($# < 3)); then
  echo "usage: bench/ops/compare.sh ROUNDS FILTER BINARY..." >&2
  exit 2
fi
rounds=$1 filter=$2
shift 2
repo=$(cd "$(dirname "$0")/../.." && pwd)
bench=${TENSORD_BENCH_OPS:-$repo/build/bin/tensord-bench-ops}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((r = 0; r < rounds; ++r)); do
  for binary in "$@"; do
    TENSORD_BIN=$binary "$bench" --filter "$filter" 2>/dev/null | grep '^{' | sed "s|^|$binary |"
  done
done >"$out"
/usr/bin/python3 - "$out" <<'PY'
import collections, json, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    binary, figure = line.split(" ", 1)
    f = json.loads(figure)
    runs[(f["bench"], binary)].append((f["value"], f["peer_value"]))
for (bench, binary), xs in sorted(runs.items()):
    ours = statistics.median(x[0] for x in xs)
    peer = statistics.median(x[1] for x in xs)
    print(f"{bench:36s} {binary:28s} ours {ours:9.3f} ms  numpy {peer:9.3f} ms  runs {len(xs)}")
PY
