#!/usr/bin/env bash
# What a block I/O capture costs the run it measures: the same MariaDB scenario with and
# without --capture, PAIRS pairs in alternating order, on a directory of the system disk.
#
# Prints per run the recorded phase's TPS, the whole run's CPU-seconds (user + system of
# drivebench and the servers it started, from /usr/bin/time), the requests captured, the
# trace reader thread's own CPU-seconds (from result.json: its reads of the kernel's buffer
# included) and the capture's bytes on disk; then the median TPS of each side and their ratio
# (the budget: within 3 %), and the reader's CPU-seconds and the bytes per million captured
# requests. The kernel's tracing work in the tasks that issue the I/O is inside the TPS
# figure. On a host whose CPU the run saturates, the whole-run CPU-seconds are the same on
# both sides whatever the capture costs, so the reader's own figure is the one to read.
#
# Env: PAIRS (default 3), SCENARIO (default scenarios/ci-sysbench-mariadb.toml), PRE / SAMPLE
# (default 10s / 30s), DIR (default /var/tmp), CARGO_TARGET_DIR. Needs root and tracefs.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS="${PAIRS:-3}"
SCENARIO="${SCENARIO:-scenarios/ci-sysbench-mariadb.toml}"
PRE="${PRE:-10s}"
SAMPLE="${SAMPLE:-30s}"
DIR="${DIR:-/var/tmp}"
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: apt-get install -y time" >&2; exit 2; }
cargo build --release -q
DB="$(pwd)/${CARGO_TARGET_DIR:-target}/release/drivebench"
work="$(mktemp -d "$DIR/capture-cost.XXXXXX")"
trap 'rm -rf "$work"' EXIT
one() { # $1 = on|off, $2 = run number
    local flag=() out="$work/$1-$2"
    [ "$1" = on ] && flag=(--capture)
    /usr/bin/time -f "%U %S %e" -o "$out.time" "$DB" run "$SCENARIO" --quiet "${flag[@]}" \
        --target "$work/target" --out "$out" --set "phase[0].duration=$PRE" \
        --set "phase[1].duration=$SAMPLE" > "$out.log" 2>&1 || { tail -5 "$out.log"; exit 1; }
}
one off 0 # load the tables once; every measured run reuses them
for i in $(seq 1 "$PAIRS"); do
    if [ $((i % 2)) -eq 1 ]; then one on "$i"; one off "$i"; else one off "$i"; one on "$i"; fi
done
python3 - "$work" "$PAIRS" <<'PY'
import json, os, statistics, sys
work, pairs = sys.argv[1], int(sys.argv[2])
def run(kind, i):
    user, sys_, wall = map(float, open(f"{work}/{kind}-{i}.time").read().split())
    r = json.load(open(f"{work}/{kind}-{i}/result.json"))
    rec = [p for p in r["phases"] if p["recorded"]][-1]
    reqs, size, reader = 0, 0, 0.0
    if kind == "on":
        reqs = r["capture"]["requests"]
        reader = r["capture"]["reader_cpu_s"]
        d = f"{work}/{kind}-{i}/capture"
        size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    return dict(tps=rec["summary"]["tps"], cpu=user + sys_, reqs=reqs, size=size, reader=reader)
on = [run("on", i) for i in range(1, pairs + 1)]
off = [run("off", i) for i in range(1, pairs + 1)]
for i, (a, b) in enumerate(zip(on, off), 1):
    print(f"pair {i}: capture {a['tps']:8.1f} TPS {a['cpu']:6.2f} CPU-s {a['reqs']:>9} requests "
          f"reader {a['reader']:5.2f} CPU-s {a['size'] / 1e6:7.2f} MB | none {b['tps']:8.1f} TPS {b['cpu']:6.2f} CPU-s")
t_on, t_off = statistics.median(r["tps"] for r in on), statistics.median(r["tps"] for r in off)
reader = statistics.median(r["reader"] for r in on)
reqs = statistics.median(r["reqs"] for r in on)
size = statistics.median(r["size"] for r in on)
spread = (max(r["tps"] for r in off) - min(r["tps"] for r in off)) / t_off * 100
print(f"median TPS: capture {t_on:.1f}, none {t_off:.1f}, ratio {t_on / t_off:.4f} "
      f"({(t_on / t_off - 1) * 100:+.2f} %; spread without capture {spread:.2f} %)")
if reqs:
    print(f"per million captured requests: {reader / reqs * 1e6:.2f} CPU-s of the trace reader, "
          f"{size / reqs:.1f} MB on disk ({size / reqs:.1f} bytes each)")
PY
