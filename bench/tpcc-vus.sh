#!/usr/bin/env bash
# Spec-paced TPC-C virtual users (15,000 by default) against private MariaDB instances on shared
# connection pools, all from one drivebench process: client RSS, client CPU (drivebench alone,
# the servers apart) and start lateness.
# Targets: client RSS peak under 1 GiB with one instance, 2 GiB with more (RSS_TARGET_MIB),
# start-lateness p99 under 10 ms. The reviews' 60,000 (4 instances x 15,000):
#   INSTANCES=4 WAREHOUSES=10 BUFFER_POOL=1GiB VARIANTS="60000:64:2" bench/tpcc-vus.sh
#
# Env:
#   VARIANTS      runs as VUS:CONNECTIONS:FLUSH entries (FLUSH = innodb_flush_log_at_trx_commit),
#                 default "15000:64:1 15000:200:1 15000:64:2"; VUS counts every instance's
#                 terminals together, CONNECTIONS is per instance
#   INSTANCES     private MariaDB instances side by side (default 1), each with VUS / INSTANCES
#                 terminals on its own WAREHOUSES
#   WAREHOUSES    default 50 per instance; each run puts VUS / INSTANCES / WAREHOUSES terminals
#                 on a warehouse
#   RSS_TARGET_MIB  default 1024 with one instance, 2048 with more
#   PRECONDITION  seconds, not recorded (default 60: every terminal's first keying starts within
#                 12 s and lasts at most 18 s, so all terminals are in their cycle after 30 s)
#   SAMPLE        seconds, recorded (default 120)
#   BUFFER_POOL   innodb buffer pool per instance (default 6GiB: ~100 MB per warehouse, all in
#                 memory)
#   LOG_FILE_SIZE innodb redo log (default 1GiB)
#   FLUSH_METHOD  innodb_flush_method (default fsync: data pages through the OS page cache, so a
#                 restarted server warms its buffer pool from RAM rather than from the disk; this
#                 benchmark measures the client, not the drive)
#   CLIENT_THREADS  the scenario's workload.client_threads (default: drivebench's, one per core)
#   WORKDIR       directory kept between invocations: the private instance with its loaded data
#                 (WORKDIR/target, reused by the next invocation) and each invocation's run
#                 directories and /proc samples (WORKDIR/results-TIMESTAMP); without it all is
#                 temporary and removed at exit
#
# NON-SPEC: the spec has 10 terminals per warehouse, so 15,000 terminals need 1,500 warehouses
# (~150 GB), which this machine cannot load. The runs use terminals_per_warehouse = VUS /
# WAREHOUSES instead (300 at the defaults); result.json lists it under tpcc.deviations. The
# terminals' pacing (keying and think times, ~21 s mean cycle, ~715 tx/s for 15,000) and thus
# the client's work are as in the spec; the data is 30x smaller and much hotter.
#
# The data is loaded once (a short throughput-mode run) and reused by every variant. Each run is
# measured by bench/lib/proc-sample.py from /proc, not with /usr/bin/time: drivebench starts
# mariadbd as its child and reaps it, and wait4() adds a reaped child's CPU to the parent's and
# reports the larger of the two peak RSS, so `time` would mostly show the server. Client CPU is
# drivebench's own utime+stime over the recorded sample window; server CPU is every mariadbd's over the
# same window. Other work on the machine (builds) shows up in lateness and CPU figures: the load
# average is printed with each run.
set -euo pipefail
cd "$(dirname "$0")/.."
VARIANTS="${VARIANTS:-15000:64:1 15000:200:1 15000:64:2}"
WAREHOUSES="${WAREHOUSES:-50}"
INSTANCES="${INSTANCES:-1}"
if [ "$INSTANCES" -gt 1 ]; then RSS_TARGET_MIB="${RSS_TARGET_MIB:-2048}"; else RSS_TARGET_MIB="${RSS_TARGET_MIB:-1024}"; fi
PRECONDITION="${PRECONDITION:-60}"
SAMPLE="${SAMPLE:-120}"
BUFFER_POOL="${BUFFER_POOL:-6GiB}"
LOG_FILE_SIZE="${LOG_FILE_SIZE:-1GiB}"
FLUSH_METHOD="${FLUSH_METHOD:-fsync}"
cargo build --release -q
DB="${CARGO_TARGET_DIR:-./target}/release/drivebench"
if [ -n "${WORKDIR:-}" ]; then
    work="$WORKDIR/results-$(date +%Y%m%d-%H%M%S)"
    target="$WORKDIR/target"
    mkdir -p "$work"
    echo "results kept in $work"
else
    work="$(mktemp -d "${TMPDIR:-/var/tmp}/tpcc-vus.XXXXXX")"
    target="$work/target"
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$target"

scenario() { # file pacing clients_or_tpw connections flush precondition_s sample_s
    local clients_line
    if [ "$2" = spec ]; then
        clients_line="terminals_per_warehouse = $3
connections = $4"
    else
        clients_line="clients = $3"
    fi
    cat > "$1" <<TOML
name = "tpcc-vus"
report_interval = "10s"
[[instance]]
engine = "mariadb"
count = $INSTANCES
keep_data = true
[instance.config]
buffer_pool = "$BUFFER_POOL"
log_file_size = "$LOG_FILE_SIZE"
flush_method = "$FLUSH_METHOD"
flush_log_at_trx_commit = $5
[workload]
benchmark = "tpcc"
warehouses = $WAREHOUSES
pacing = "$2"
$clients_line
${CLIENT_THREADS:+client_threads = $CLIENT_THREADS}
[[phase]]
name = "precondition"
duration = "${6}s"
record = false
[[phase]]
name = "sample"
duration = "${7}s"
record = true
TOML
}

echo "== load: $INSTANCES x $WAREHOUSES warehouses (reused if $target already holds them)"
scenario "$work/load.toml" none 2 0 2 1 1
"$DB" run "$work/load.toml" --quiet --out "$work/load" --target "$target" >/dev/null
python3 - "$work/load/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for i in r["instances"]:
    l = i.get("load") or {}
    if l.get("reused"):
        print(f"{i['name']}: finished load reused")
    else:
        print(f"{i['name']}: {l.get('rows', '?')} rows in {l.get('seconds', 0):.1f} s ({l.get('rows_per_s', 0):.0f} rows/s)")
PY

rows="$work/rows.jsonl"
: > "$rows"
for v in $VARIANTS; do
    IFS=: read -r vus conns flush <<<"$v"
    if [ $((vus % (WAREHOUSES * INSTANCES))) -ne 0 ]; then
        echo "VUS $vus is not a multiple of INSTANCES x WAREHOUSES ($INSTANCES x $WAREHOUSES)" >&2
        exit 2
    fi
    tpw=$((vus / INSTANCES / WAREHOUSES))
    name="vus${vus}-i${INSTANCES}-c${conns}-f${flush}"
    echo
    echo "== $name: $vus spec-paced terminals on $INSTANCES instance(s) ($tpw per warehouse, NON-SPEC), $conns connections per instance, flush_log_at_trx_commit = $flush, ${PRECONDITION} s + ${SAMPLE} s"
    scenario "$work/$name.toml" spec "$tpw" "$conns" "$flush" "$PRECONDITION" "$SAMPLE"
    rc=0
    python3 bench/lib/proc-sample.py "$work/$name.proc.json" 0.5 -- \
        "$DB" run "$work/$name.toml" --out "$work/$name" --target "$target" >/dev/null || rc=$?
    python3 - "$work" "$name" "$vus" "$conns" "$flush" "$rc" "$INSTANCES" "$RSS_TARGET_MIB" >> "$rows" <<'PY'
import json, sys
work, name, vus, conns, flush, rc, instances, rss_target = sys.argv[1:]
r = json.load(open(f"{work}/{name}/result.json"))
m = json.load(open(f"{work}/{name}.proc.json"))
samples = m["samples"]
t0 = next(t for t, l in m["lines"] if "clients connected; starting" in l)
ph = next(p for p in r["phases"] if p["recorded"])
s = ph["summary"]
w0 = t0 + ph["start_offset_s"]
w1 = w0 + s["seconds"]

def at(t, f):
    """f(sample) interpolated at wall time t."""
    prev = None
    for x in samples:
        if x["t"] >= t:
            if prev is None or f(prev) is None or f(x) is None:
                return f(x)
            a = (t - prev["t"]) / (x["t"] - prev["t"])
            return f(prev) + a * (f(x) - f(prev))
        prev = x
    return f(prev)

def servers(x):
    return [c for c in x["children"] if c["name"] in ("mariadbd", "mysqld")]

client_cpu = lambda x: x["utime"] + x["stime"]
# Every server's CPU together; None until all of them run (a server missing from a sample would
# drop its CPU from the sum).
server_cpu = lambda x: (lambda cs: None if len(cs) < int(instances) else sum(c["utime"] + c["stime"] for c in cs))(servers(x))
inside = [x for x in samples if w0 <= x["t"] <= w1]
cc = at(w1, client_cpu) - at(w0, client_cpu)
sc = at(w1, server_cpu) - at(w0, server_cpu)
kinds = {k["kind"]: k for k in s["per_kind"]}
tp = ph.get("tpcc") or {}
# Mean cycle of a terminal under spec pacing: mix-weighted keying + mean think time (45/43/4/4/4
# %, keying 18/3/2/2/2 s, think 12/12/10/5/5 s) ~ 20.99 s, plus the response time.
cycle = sum(p * (k + t) for p, k, t in zip([.45, .43, .04, .04, .04], [18, 3, 2, 2, 2], [12, 12, 10, 5, 5]))
row = {
    "name": name, "rc": int(rc), "vus": int(vus), "connections": int(conns), "flush": int(flush),
    "instances": int(instances), "rss_target_mib": int(rss_target),
    "warehouses": r["plan"]["workload"]["tpcc"]["warehouses"],
    "terminals_per_warehouse": r["plan"]["workload"]["tpcc"]["terminals_per_warehouse"],
    "tps": s["tps"], "expected_tps": int(vus) / cycle, "transactions": s["transactions"],
    "tpmc": tp.get("tpmc"), "errors": s["errors"],
    "rss_peak_mib": max(x["hwm_kb"] for x in samples) / 1024,
    "rss_sample_max_mib": max((x["rss_kb"] for x in inside), default=0) / 1024,
    "threads": max(x["threads"] for x in samples),
    "client_cpu_s": cc, "client_cpu_per_1000": cc / max(s["transactions"], 1) * 1000,
    "client_sys_s": at(w1, lambda x: x["stime"]) - at(w0, lambda x: x["stime"]),
    "client_run_delay_s": at(w1, lambda x: x.get("run_delay", 0)) - at(w0, lambda x: x.get("run_delay", 0)),
    "server_cpu_s": sc,
    "server_rss_mib": max((sum(c["rss_kb"] for c in servers(x)) for x in inside), default=0) / 1024,
    "lag_p50": s["start_lag_ms"]["p50"], "lag_p99": s["start_lag_ms"]["p99"],
    "lag_max": s["start_lag_ms"]["max"],
    # The start lag's two parts (absent from older builds): the client waking late, and the
    # wait for a pooled connection (the server holding connections).
    "wake_p50": s.get("wake_lag_ms", {}).get("p50"), "wake_p99": s.get("wake_lag_ms", {}).get("p99"),
    "wake_max": s.get("wake_lag_ms", {}).get("max"),
    "pool_p50": s.get("pool_wait_ms", {}).get("p50"), "pool_p99": s.get("pool_wait_ms", {}).get("p99"),
    "p90": {k: kinds[k]["latency_ms"]["p90"] for k in kinds},
    "load_avg": [round(sum(x["load"][i] for x in inside) / max(len(inside), 1), 2) for i in range(3)],
    "load_end": inside[-1]["load"] if inside else None,
    "deviations": tp.get("deviations", []),
    "seconds": s["seconds"],
}
print(json.dumps(row))
PY
    python3 - "$rows" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print(f"exit {r['rc']}; sample {r['seconds']:.0f} s: {r['transactions']} tx, {r['tps']:.1f} tx/s "
      f"(spec pacing alone gives ~{r['expected_tps']:.0f}), errors {r['errors']}")
print(f"client: RSS peak {r['rss_peak_mib']:.0f} MiB, {r['threads']} threads, CPU {r['client_cpu_s']:.1f} s "
      f"({r['client_sys_s']:.1f} s of it in the kernel; its threads waited {r['client_run_delay_s']:.1f} s for a CPU); "
      f"server CPU {r['server_cpu_s']:.1f} s, RSS {r['server_rss_mib']:.0f} MiB; "
      f"start lateness p50 {r['lag_p50']:.2f} ms, p99 {r['lag_p99']:.2f} ms, max {r['lag_max']:.1f} ms")
if r["wake_p99"] is not None:
    print(f"start lateness parts: client wake-up p50 {r['wake_p50']:.2f} ms, p99 {r['wake_p99']:.2f} ms, "
          f"max {r['wake_max']:.1f} ms; pool wait p50 {r['pool_p50']:.2f} ms, p99 {r['pool_p99']:.2f} ms")
print(f"load average over the sample window (1/5/15 min): {r['load_avg']}")
for d in r["deviations"]:
    print(f"deviation: {d}")
PY
done

python3 - "$rows" "$(nproc)" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
kinds = ["new_order", "payment", "order_status", "delivery", "stock_level"]
short = {"new_order": "NO", "payment": "P", "order_status": "OS", "delivery": "D", "stock_level": "SL"}
print(f"\nTPC-C spec pacing, NON-SPEC terminals per warehouse; {sys.argv[2]} cores; targets: client RSS < {rows[0]['rss_target_mib'] if rows else 1024} MiB, start lateness p99 < 10 ms")
head = ["VUs", "instances", "conns", "flush", "wh", "TPS", "tpmC", "RSS MiB", "client CPU s", "CPU s/1000 tx",
        "server CPU s", "lag p50 ms", "lag p99 ms", "wake p99 ms", "pool wait p99 ms",
        "p90 ms " + "/".join(short[k] for k in kinds),
        "load avg 1m", "targets"]
print(" | ".join(head))
for r in rows:
    ok = r["rss_peak_mib"] < r["rss_target_mib"] and r["lag_p99"] < 10
    opt = lambda v: "-" if v is None else f"{v:.2f}"
    p90 = "/".join(f"{r['p90'].get(k, float('nan')):.0f}" for k in kinds)
    tpmc = f"{r['tpmc']:.0f}" if r["tpmc"] is not None else "-"
    print(" | ".join(str(x) for x in [
        r["vus"], r["instances"], r["connections"], r["flush"], r["warehouses"], f"{r['tps']:.1f}", tpmc,
        f"{r['rss_peak_mib']:.0f}", f"{r['client_cpu_s']:.1f}", f"{r['client_cpu_per_1000']:.3f}",
        f"{r['server_cpu_s']:.1f}", f"{r['lag_p50']:.2f}", f"{r['lag_p99']:.2f}", opt(r["wake_p99"]),
        opt(r["pool_p99"]), p90,
        f"{r['load_avg'][0]:.2f}", "met" if ok else "MISSED"]))
PY
