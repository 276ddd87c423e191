#!/usr/bin/env bash
# The reviews' 3-hour protocol (2 h precondition + 1 h recorded sample) time-scaled on a private
# MariaDB (scenarios/ci-sysbench-mariadb.toml's instance and data), watching drivebench itself
# for leaks while it runs. Every scaled minute (one report interval: the protocol reports every
# 60 s) it samples drivebench's resident memory (VmRSS in /proc/PID/status), its open files
# (the entries of /proc/PID/fd) and the sizes of series.csv and result.json; it prints the
# series, then judges:
#   - memory and open files are flat: within 5 % of their value at the first sample taken after
#     the sample phase's first report interval, to the sample before the last series row (the
#     teardown from there, sessions closed and reports written, is not judged);
#   - series.csv and result.json are written as the run goes: both exist and grow while
#     drivebench still runs (series rows appended every interval, result.json rewritten with
#     the running phase every 10 s).
# Exit 0 when both hold, 1 when one does not, 2 on bad arguments.
#
#   bench/long-run.sh                # scale 0.11: the 3 h protocol in about 20 minutes
#   bench/long-run.sh 0.01           # about 2 minutes: a check of the script itself
#   bench/long-run.sh 0.11 --set workload.clients=32    # more --set overrides
#
# PROFILE=debug uses the debug build (default release, as a user runs it); KEEP=1 keeps the run
# directory and the target.
set -euo pipefail
cd "$(dirname "$0")/.."

scale=${1:-0.11}
shift || true
if ! python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if 0 < v <= 1 else 1)" "$scale" 2>/dev/null; then
    echo "bench/long-run.sh: TIME_SCALE must be a number in (0, 1], got '$scale'" >&2
    exit 2
fi
profile=${PROFILE:-release}
if [ "$profile" = release ]; then
    cargo build --release -q
else
    cargo build -q
fi
bin=./target/$profile/drivebench

work=$(mktemp -d /var/tmp/drivebench-long-run.XXXXXX)
chmod 755 "$work"
samples="$work/samples.tsv"
cleanup() {
    [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    if [ "${KEEP:-0}" = 1 ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# One sample: seconds since the start, the phase of the last series row, VmRSS (KiB), open
# files, series.csv and result.json bytes (0 while absent). Empty when drivebench is gone.
sample() {
    local rss fds phase series result
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || return 0
    [ -n "$rss" ] || return 0
    fds=$( (ls "/proc/$pid/fd" 2>/dev/null || true) | wc -l)
    phase=$( (tail -n 1 "$work/run/series.csv" 2>/dev/null || true) | cut -d, -f1)
    [ "$phase" = phase ] && phase=    # the header alone: no interval closed yet
    series=$(stat -c %s "$work/run/series.csv" 2>/dev/null || echo 0)
    result=$(stat -c %s "$work/run/result.json" 2>/dev/null || echo 0)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(($(date +%s) - start))" "${phase:-start}" "$rss" "$fds" \
        "$series" "$result"
}

every=$(python3 -c "import sys; print(max(0.5, 60 * float(sys.argv[1])))" "$scale")
echo "long run: scale $scale (2 h + 1 h -> $(python3 -c "import sys; print(round(10800 * float(sys.argv[1])))" "$scale") s of phases, plus the load), a sample every ${every} s, $profile build" >&2
start=$(date +%s)
"$bin" run scenarios/ci-sysbench-mariadb.toml --quiet --time-scale "$scale" \
    --out "$work/run" --target "$work/target" \
    --set 'report_interval="60s"' --set 'phase.0.duration="2h"' --set 'phase.1.duration="1h"' \
    "$@" > "$work/stdout.txt" 2> "$work/stderr.txt" &
pid=$!
: > "$samples"
while kill -0 "$pid" 2>/dev/null; do
    sample >> "$samples"
    sleep "$every"
done
wait "$pid" && code=0 || code=$?
pid=
if [ "$code" != 0 ]; then
    echo "drivebench exited $code:" >&2
    tail -n 20 "$work/stderr.txt" >&2
    exit 1
fi

python3 - "$samples" "$work/run" <<'PY'
import json, sys

rows = []
for line in open(sys.argv[1]):
    t, phase, rss, fds, series, result = line.rstrip("\n").split("\t")
    rows.append((int(t), phase, int(rss), int(fds), int(series), int(result)))
print(f"{'t_s':>6} {'phase':<13} {'rss_kib':>9} {'open_fds':>8} {'series_b':>9} {'result_b':>9}")
for r in rows:
    print(f"{r[0]:>6} {r[1]:<13} {r[2]:>9} {r[3]:>8} {r[4]:>9} {r[5]:>9}")

ok = True
# Baseline: the first sample after a sample-phase row was written (its first interval closed).
base = next((i for i, r in enumerate(rows) if r[1] == "sample"), None)
if base is None or base == len(rows) - 1:
    print("verdict: FAIL: too few samples in the sample phase to judge")
    sys.exit(1)
# The phases end with the last series row; the sample that sees it may already see the
# teardown (sessions closed, the reports written), which is not the run's steady state.
end = max(i for i in range(1, len(rows)) if rows[i][4] > rows[i - 1][4]) - 1
if end <= base:
    print("verdict: FAIL: too few samples in the sample phase to judge")
    sys.exit(1)
judged = rows[base:end + 1]
for col, name in ((2, "rss"), (3, "open files")):
    b = rows[base][col]
    dev = max(abs(r[col] - b) / b for r in judged)
    flat = dev <= 0.05
    ok &= flat
    print(f"{name}: baseline {b} at t={rows[base][0]} s, largest deviation to t={rows[end][0]} s "
          f"(the phases' end) {100 * dev:.1f} % over {len(judged)} samples: "
          f"{'flat' if flat else 'NOT flat'} (limit 5 %)")
for col, name in ((4, "series.csv"), (5, "result.json")):
    seen = [r[col] for r in rows if r[col] > 0]
    grows = len(seen) >= 2 and seen[-1] > seen[0] and len(set(seen)) >= 3
    ok &= grows
    print(f"{name}: {len(set(seen))} distinct sizes while running, {seen[0] if seen else 0} -> "
          f"{seen[-1] if seen else 0} bytes: {'written as the run goes' if grows else 'NOT written as the run goes'}")
result = json.load(open(f"{sys.argv[2]}/result.json"))
sample = [p for p in result["phases"] if p["recorded"]][0]["summary"]
print(f"run: complete={result['complete']}, sample tps {sample['tps']:.1f}, "
      f"p99 {sample['latency_ms']['p99']:.2f} ms")
print("verdict:", "PASS" if ok and result["complete"] else "FAIL")
sys.exit(0 if ok and result["complete"] else 1)
PY
