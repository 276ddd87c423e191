#!/usr/bin/env bash
# What telemetry costs: drivebench's CPU per transaction, and the transactions per second, with
# and without it, side by side. Telemetry here is all of it: the drive's and the host's
# figures and the engine's own I/O counters (a sampling session per instance, one reading per
# interval).
# Env: ENGINE (sqlite, the default, or mariadb), PAIRS (default 5), TIME_SCALE (default 0.5
# for sqlite: a 22 s quickstart; 1 for mariadb: 10 s, then a 20 s recorded sample),
# TARGET (the database's directory; default in the scratch directory under TMPDIR: put it on
# a RAM filesystem, e.g. /dev/shm/t, to take the drive's noise out of a MariaDB pair),
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
# interval; for mariadb, the CPU one engine I/O reading costs the server and the client,
# measured on an otherwise idle server (READINGS readings, default 2000), as % of the host at
# one reading per second: on a host the run saturates, the pairs' TPS spread is far wider
# than the 1 % budget, and this figure is what decides it.
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
        --time-scale "$SCALE" --set report_interval=1s --out "$out" --target "${TARGET:-$work/target}" \
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
    exit 0
fi

# What one engine I/O reading costs MariaDB, without the noise of a loaded host: a private
# server left running by `drivebench up` (drivebench's own settings, performance_schema with
# the file instruments), READINGS readings sent in one session by the mariadb client (every
# query of schemas/engine_io/mysql.sql but the fallbacks), the server's CPU over them from
# /proc against the same time idle, and the client's from /usr/bin/time (mariadb's text
# output costs more than drivebench's binary rows). At one reading per second per instance,
# that CPU is the share of the host the sampler can take from the transactions.
READINGS="${READINGS:-2000}"
"$DB" up "$SCENARIO" --quiet --out "$work/up" --target "${TARGET:-$work/target}-up" > /dev/null
trap '"$DB" down "$work/up" > /dev/null 2>&1; rm -rf "$work"' EXIT
read -r pid port < <(python3 -c '
import json, sys, urllib.parse
i = json.load(open(sys.argv[1]))["instances"][0]
print(i["pid"], urllib.parse.urlparse(i["url"]).port)' "$work/up/up.json")
awk '/^-- name: /{skip = ($3 ~ /_fallback$/)} !skip' schemas/engine_io/mysql.sql > "$work/reading.sql"
for _ in $(seq "$READINGS"); do cat "$work/reading.sql"; done > "$work/readings.sql"
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
t0=$(date +%s.%N); c0=$(ticks)
/usr/bin/time -f "%U %S" -o "$work/client.time" \
    mariadb -h 127.0.0.1 -P "$port" -u root < "$work/readings.sql" > /dev/null
t1=$(date +%s.%N); c1=$(ticks)
sleep "$(echo "$t1 - $t0" | bc)"
c2=$(ticks)
python3 - "$READINGS" "$c0" "$c1" "$c2" "$t0" "$t1" "$work/client.time" "$(getconf CLK_TCK)" "$(nproc)" <<'PY'
import sys
n, c0, c1, c2, t0, t1 = int(sys.argv[1]), *map(float, sys.argv[2:7])
user, sys_ = map(float, open(sys.argv[7]).read().split())
hz, cores = int(sys.argv[8]), int(sys.argv[9])
server_ms = ((c1 - c0) - (c2 - c1)) / hz * 1000 / n
client_ms = (user + sys_) * 1000 / n
per_s = server_ms + client_ms
print(f"one engine I/O reading ({n} in {t1 - t0:.1f} s, one session): server {server_ms:.3f} CPU-ms "
      f"(idle subtracted), client {client_ms:.3f} CPU-ms (the mariadb CLI)")
print(f"at one reading per second per instance: {per_s / 10:.3f} % of one core, "
      f"{per_s / 10 / cores:.3f} % of this host's {cores} cores (the TPS a CPU-bound run can lose)")
PY
