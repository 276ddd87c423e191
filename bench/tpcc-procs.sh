#!/usr/bin/env bash
# TPC-C with each transaction one stored-procedure call (`procedures = true`) against the same
# transactions as client-side statements, side by side on private servers of each engine named.
# Usage: bench/tpcc-procs.sh [ENGINE...]   (postgres, mariadb; default: mariadb postgres)
# Env: PAIRS (default 3), WAREHOUSES (default 2), CLIENTS (default 8), PRECONDITION (s, default
#      5), SAMPLE (s, default 15), ISOLATION (absent: the engine's default), DRIVEBENCH (a binary
#      to measure instead of this checkout's release build), WORKDIR (kept: the loaded data is
#      reused by the next invocation; without it everything is temporary).
#
# Per engine: one load (a finished load of the same plan in WORKDIR is reused), then PAIRS pairs
# of throughput-mode runs (no keying or think time, CLIENTS terminals on WAREHOUSES warehouses)
# in alternating order, procedures on then off, off then on, all on the same kept data, which
# grows run after run (the alternation spreads that over both forms). Prints per engine and
# form the median over the runs of: tpmC, p90 per transaction kind (New-Order, Payment,
# Order-Status, Delivery, Stock-Level), and drivebench's own CPU per transaction over the
# recorded sample (its process's user + system time from the run's telemetry, result.json
# phases[].telemetry.summary.own_process; the server, a separate process, is not in it) and
# how busy the host's CPUs were over the sample (other work on a shared host shows there), then
# the on/off ratios. At the defaults an engine takes about three minutes on a 2-core host (a
# first load, and the consistency checks after each run, included), both about six. An engine
# this build has no procedures for is named and skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
ENGINES=("$@")
[ ${#ENGINES[@]} -gt 0 ] || ENGINES=(mariadb postgres)
PAIRS="${PAIRS:-3}"
WAREHOUSES="${WAREHOUSES:-2}"
CLIENTS="${CLIENTS:-8}"
PRECONDITION="${PRECONDITION:-5}"
SAMPLE="${SAMPLE:-15}"
ISOLATION="${ISOLATION:-}"
DB="${DRIVEBENCH:-./target/release/drivebench}"
for e in "${ENGINES[@]}"; do
    case "$e" in
        postgres | mariadb) ;;
        *) echo "unknown engine $e (postgres, mariadb)" >&2; exit 2 ;;
    esac
done
[ -n "${DRIVEBENCH:-}" ] || cargo build --release -q
if [ -n "${WORKDIR:-}" ]; then
    work="$WORKDIR/results-$(date +%Y%m%d-%H%M%S)"
    targets="$WORKDIR"
    mkdir -p "$work"
else
    work="$(mktemp -d "${TMPDIR:-/var/tmp}/tpcc-procs.XXXXXX")"
    targets="$work"
    trap 'rm -rf "$work"' EXIT
fi
# PostgreSQL runs as the postgres user: it must reach its data below these directories.
chmod 755 "$work" "$targets"

scenario() { # file engine procedures precondition_s sample_s
    local config isolation=""
    case "$2" in
        postgres) config='shared_buffers = "256MiB"' ;;
        mariadb) config='buffer_pool = "256MiB"
flush_log_at_trx_commit = 1' ;;
    esac
    [ -z "$ISOLATION" ] || isolation="isolation = \"$ISOLATION\""
    cat > "$1" <<TOML
name = "tpcc-procs"
report_interval = "5s"
[[instance]]
engine = "$2"
keep_data = true
[instance.config]
$config
[workload]
benchmark = "tpcc"
warehouses = $WAREHOUSES
pacing = "none"
clients = $CLIENTS
procedures = $3
$isolation
[[phase]]
name = "precondition"
duration = "${4}s"
record = false
[[phase]]
name = "sample"
duration = "${5}s"
record = true
TOML
}

one() { # engine on|off run_number
    local procs=false out="$work/$1-$2-$3"
    [ "$2" = on ] && procs=true
    scenario "$out.toml" "$1" "$procs" "$PRECONDITION" "$SAMPLE"
    "$DB" run "$out.toml" --quiet --out "$out" --target "$targets/target-$1" > /dev/null
}

# An engine this build runs no procedures on is named and left out.
runnable=()
for e in "${ENGINES[@]}"; do
    scenario "$work/$e-probe.toml" "$e" true 1 1
    if "$DB" plan "$work/$e-probe.toml" > "$work/$e-probe.txt" 2>&1; then
        runnable+=("$e")
    else
        echo "== $e skipped: $(grep -m1 -i error "$work/$e-probe.txt" || tail -1 "$work/$e-probe.txt")"
    fi
done
[ ${#runnable[@]} -gt 0 ] || exit 2
ENGINES=("${runnable[@]}")

for e in "${ENGINES[@]}"; do
    echo "== $e: load $WAREHOUSES warehouses (reused when $targets/target-$e holds them)"
    scenario "$work/$e-load.toml" "$e" false 1 1
    "$DB" run "$work/$e-load.toml" --quiet --out "$work/$e-load" --target "$targets/target-$e" > /dev/null
    for i in $(seq 1 "$PAIRS"); do
        if [ $((i % 2)) -eq 1 ]; then one "$e" on "$i"; one "$e" off "$i"; else one "$e" off "$i"; one "$e" on "$i"; fi
        echo "   pair $i of $PAIRS done"
    done
done

python3 - "$work" "$PAIRS" "$WAREHOUSES" "$CLIENTS" "$SAMPLE" "${ENGINES[@]}" <<'PY'
import json, statistics, sys
work, pairs, wh, clients, sample = sys.argv[1:6]
engines = sys.argv[6:]
kinds = ["new_order", "payment", "order_status", "delivery", "stock_level"]

def figures(path):
    r = json.load(open(path))
    ph = next(p for p in r["phases"] if p["recorded"])
    s = ph["summary"]
    tx = max(s["transactions"], 1)
    t = (ph.get("telemetry") or {}).get("summary") or {}
    own = t.get("own_process") or {}
    per_kind = {k["kind"]: k["latency_ms"]["p90"] for k in s["per_kind"]}
    return {
        "tpmc": (ph.get("tpcc") or {}).get("tpmc") or 0.0,
        "tps": s["tps"],
        "errors": s["errors"],
        "checks": all(c["passed"] for c in r.get("checks", [])),
        "p90": [per_kind.get(k, float("nan")) for k in kinds],
        "client_us": own.get("cpu_time_ms", float("nan")) * 1000 / tx,
        "host_busy": (t.get("cpu") or {}).get("busy_pct", float("nan")),
    }

med = statistics.median
print(f"\nTPC-C-like, {wh} warehouses, {clients} terminals, throughput mode, {sample} s samples, "
      f"{pairs} alternating pairs; medians")
print("engine | form | tpmC (each run) | tps | p90 ms NO/P/OS/D/SL | client CPU us/tx | host CPU busy % | errors | checks")
for e in engines:
    m = {}
    for form in ("on", "off"):
        runs = [figures(f"{work}/{e}-{form}-{i}/result.json") for i in range(1, int(pairs) + 1)]
        m[form] = {
            "tpmc": med(r["tpmc"] for r in runs), "tps": med(r["tps"] for r in runs),
            "p90": [med(r["p90"][k] for r in runs) for k in range(len(kinds))],
            "client_us": med(r["client_us"] for r in runs),
            "host_busy": med(r["host_busy"] for r in runs),
            "errors": sum(r["errors"] for r in runs),
            "checks": all(r["checks"] for r in runs),
            "each_tpmc": [round(r["tpmc"]) for r in runs],
        }
        f = m[form]
        name = "procedures" if form == "on" else "statements"
        p90 = "/".join(f"{v:.1f}" for v in f["p90"])
        print(f"{e} | {name} | {f['tpmc']:.0f} {f['each_tpmc']} | {f['tps']:.1f} | {p90} | "
              f"{f['client_us']:.0f} | {f['host_busy']:.0f} | {f['errors']} | "
              f"{'pass' if f['checks'] else 'FAIL'}")
    on, off = m["on"], m["off"]
    ratio = lambda a, b: a / b if b else float("nan")
    p90 = "/".join(f"{ratio(a, b):.2f}" for a, b in zip(on["p90"], off["p90"]))
    print(f"{e} | on/off | {ratio(on['tpmc'], off['tpmc']):.2f} | {ratio(on['tps'], off['tps']):.2f} | "
          f"{p90} | {ratio(on['client_us'], off['client_us']):.2f} | | | ")
PY
