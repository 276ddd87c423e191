#!/usr/bin/env bash
# What telemetry costs: drivebench's CPU per transaction, and the transactions per second, with
# and without it, side by side. Telemetry here is all of it: the drive's and the host's
# figures and the engine's own I/O counters (a sampling session per instance, one reading per
# interval).
# Env: ENGINE (sqlite, the default, or mariadb), PAIRS (default 5), TIME_SCALE (default 0.5
# for sqlite: a 22 s quickstart; 1 for mariadb: 10 s, then a 20 s recorded sample),
# DRIVEBENCH (a binary to measure instead of this checkout's release build).
#
# sqlite runs the quickstart (embedded SQLite, so the process's CPU includes the engine's
# work); mariadb runs scenarios/ci-sysbench-mariadb.toml (a private MariaDB, 8 clients, a
# flush per commit), both with a 1 s report interval, PAIRS pairs in alternating order, once
# sampling telemetry and once with --no-telemetry. Prints each run's CPU-seconds per 1,000
# transactions (user + system, from /usr/bin/time, drivebench's own process and, for SQLite,
# the engine in it) and its recorded TPS, the medians of both sets, their difference in %
# (the TPS one as the median of the pairs' ratios), and the run-to-run spread of the runs
# without telemetry (the noise the difference is judged against). Then, for sqlite, the cost
# of one telemetry tick on its own (benches/telemetry_sample.rs) as % of one core at a 1 s
# interval.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS="${PAIRS:-5}"
ENGINE="${ENGINE:-sqlite}"
case "$ENGINE" in
    sqlite) SCENARIO=scenarios/quickstart.toml ;;
    mariadb) SCENARIO=scenarios/ci-sysbench-mariadb.toml ;;
    *) echo "ENGINE must be sqlite or mariadb" >&2; exit 2 ;;
esac
SCALE="${TIME_SCALE:-$([ "$ENGINE" = sqlite ] && echo 0.5 || echo 1)}"
DB="${DRIVEBENCH:-./target/release/drivebench}"
[ -n "${DRIVEBENCH:-}" ] || cargo build --release -q
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: apt-get install -y time" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/var/tmp}/telemetry-cost.XXXXXX")"
trap 'rm -rf "$work"' EXIT
one() { # $1 = on|off, $2 = run number
    local flag=() out="$work/$1-$2"
    [ "$1" = off ] && flag=(--no-telemetry)
    /usr/bin/time -f "%U %S %e" -o "$out.time" "$DB" run "$SCENARIO" --quiet \
        --time-scale "$SCALE" --set report_interval=1s --out "$out" --target "$work/target" \
        "${flag[@]}" > /dev/null
}
for i in $(seq 1 "$PAIRS"); do
    if [ $((i % 2)) -eq 1 ]; then one on "$i"; one off "$i"; else one off "$i"; one on "$i"; fi
done
python3 - "$work" "$PAIRS" <<'PY'
import json, statistics, sys
work, pairs = sys.argv[1], int(sys.argv[2])
def runs(kind):
    out = []
    for i in range(1, pairs + 1):
        user, sys_, wall = map(float, open(f"{work}/{kind}-{i}.time").read().split())
        r = json.load(open(f"{work}/{kind}-{i}/result.json"))
        tx = sum(p["summary"]["transactions"] for p in r["phases"])
        rec = [p["summary"] for p in r["phases"] if p.get("recorded")]
        tps = sum(s["transactions"] for s in rec) / sum(s["seconds"] for s in rec)
        out.append(((user + sys_) / tx * 1000, (user + sys_) / wall, tps))
    return out
on, off = runs("on"), runs("off")
for kind, rs in (("telemetry", on), ("no telemetry", off)):
    cells = ", ".join(f"{c:.3f}" for c, _, _ in rs)
    tps = ", ".join(f"{t:.1f}" for _, _, t in rs)
    print(f"{kind:>13}: CPU-s per 1000 tx {cells}; TPS {tps}")
m_on = statistics.median(c for c, _, _ in on)
m_off = statistics.median(c for c, _, _ in off)
core_on = statistics.median(w for _, w, _ in on)
core_off = statistics.median(w for _, w, _ in off)
spread = (max(c for c, _, _ in off) - min(c for c, _, _ in off)) / m_off * 100
ratios = [a[2] / b[2] for a, b in zip(on, off)]
tps_off = [t for _, _, t in off]
tps_spread = (max(tps_off) - min(tps_off)) / statistics.median(tps_off) * 100
print(f"median CPU-s per 1000 tx: telemetry {m_on:.4f}, none {m_off:.4f}, "
      f"difference {(m_on / m_off - 1) * 100:+.2f} % (spread without telemetry {spread:.2f} %)")
print(f"median CPU per wall second: telemetry {core_on * 100:.1f} %, none {core_off * 100:.1f} % "
      f"of a core; difference {(core_on - core_off) * 100:+.2f} % of a core")
print("TPS ratio telemetry / none per pair: " + ", ".join(f"{r:.4f}" for r in ratios)
      + f"; median {statistics.median(ratios):.4f} "
      f"({(statistics.median(ratios) - 1) * 100:+.2f} %; spread without telemetry {tps_spread:.2f} %)")
PY
if [ "$ENGINE" = sqlite ]; then
    cargo bench -q --bench telemetry_sample 2>/dev/null | grep "telemetry tick"
fi
