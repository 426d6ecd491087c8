#!/usr/bin/env bash
# How the golden files here were made: the JSON outputs of the `subledger` binary from before
# the output layer was rewritten (commit 8f49f46), on a small fixed simulation, with the wall
# clock pinned to 2027-01-15T08:00:00Z so `recordedAt` and other "now" defaults are fixed.
# The simulation's signatures (ECDSA) differ from run to run, so `evidenceBytes` is dropped
# from stats.json. GoldenOutputTests runs the same commands in process and compares bytes.
#   Tools/cli-golden/generate.sh .build/debug/subledger Tests/SubledgerCLITests/Golden
set -euo pipefail
bin=$1; out=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/cli-golden-XXXXXX)
cc -shared -fPIC -o "$work/fixclock.so" "$here/fixclock.c" -ldl
export LD_PRELOAD=$work/fixclock.so
mkdir -p "$out"
$bin simulate --customers 40 --months 4 --seed 5 --start 2026-01-01 --duplicates 0.05 --reorder 0.1 --out "$work/sim" --json >/dev/null 2>&1
$bin --data "$work/d" init --bundle-id com.example.subledger --app-apple-id 1234567890 --root "$work/sim/root.cer" --json >/dev/null
$bin --data "$work/d" ingest "$work/sim/notifications.jsonl" --json > "$out/ingest.json" 2>/dev/null
$bin --data "$work/d" report revenue --from 2026-01-01 --to 2026-04-30 --json > "$out/report-revenue.json"
$bin --data "$work/d" report revenue --from 2026-01-01 --to 2026-04-30 --by day --by-product --refunds original --json > "$out/report-revenue-by-day-by-product.json"
$bin --data "$work/d" report mrr --at 2026-03-01 --json > "$out/report-mrr.json"
$bin --data "$work/d" report churn --from 2026-01-01 --to 2026-04-30 --json > "$out/report-churn.json"
$bin --data "$work/d" report cohorts --from 2026-01 --to 2026-04 --json > "$out/report-cohorts.json"
$bin --data "$work/d" stats --json | sed -E 's/"evidenceBytes":[0-9]+,//' > "$out/stats.json"
n=0
for id in $(python3 -c "import json,sys; print(' '.join(sorted(json.load(open('$work/sim/expected.json'))['customers'])[:3]))"); do
    n=$((n+1))
    $bin --data "$work/d" customer "$id" --as-of 2026-04-30T23:59:59.999Z --json > "$out/customer-$n.json"
    $bin --data "$work/d" customer "$id" --as-of 2026-06-01 --json > "$out/customer-$n-later.json"
    $bin --data "$work/d" history "$id" --json > "$out/history-$n.json"
done
echo "$work"
