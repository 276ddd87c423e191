# Shared by bench/vs-sysbench.sh and bench/vs-sysbench-pg.sh (sourced, not run): the load
# comparison, the alternating sysbench/drivebench pairs and the summary table. The caller has
# started the server and set: work, DB, TABLES, ROWS, CLIENTS, PAIRS, DURATION, the sysbench
# arguments SB (without the database), SB_DB (sysbench's database flag, e.g. --mysql-db),
# ENGINE / URL_PREFIX / URL_SUFFIX for drivebench's external instance (URL_PREFIX without the
# database, e.g. mysql://root@127.0.0.1:PORT; URL_SUFFIX what follows the database, e.g.
# ?socket=PATH, or empty), SERVER_PID (the server's main process: its CPU time, with
# that of exited children, is reported for each load), and two functions: `fresh_db NAME`
# (drop and create an empty database) and `settle` (return once the server has written out
# what earlier loads left dirty, so no load pays for the one before it), `wear_off` (return once
# the tables carry none of the last run's wear: old row versions the server has yet to clean up). SKIP_LOAD=1 leaves
# out the load comparison; CLIENT_THREADS sets drivebench's workload.client_threads (default:
# drivebench's own, one per core). A caller may define `third_tool CLIENTS DURATION`, run after each
# pair and printing one results row to standard output (tool, clients, TPS, p99 ms, client CPU-s per 1,000
# transactions, transactions), shown below the table.
#
# Each run also records the server's CPU per transaction and the host's idle share, and the
# table ends with each client count's ceiling: the TPS ratio drivebench would reach with a
# client that cost no CPU at all, on the same server work per transaction. Client and server
# share the host's cores, so at saturation TPS = busy cores / (server + client CPU per
# transaction): a target above the ceiling cannot be met by the client.

scenario() { # clients duration prepare db
    cat > "$work/db.toml" <<TOML
name = "vs-sysbench"
report_interval = "10s"
[[instance]]
engine = "$ENGINE"
provision = "external"
url = "$URL_PREFIX/$4${URL_SUFFIX:-}"
[workload]
benchmark = "sysbench"
test = "oltp_read_write"
tables = $TABLES
table_size = $ROWS
clients = $1
rand_type = "special"
prepare = "$3"
${CLIENT_THREADS:+client_threads = $CLIENT_THREADS}
[[phase]]
name = "sample"
duration = "${2}s"
TOML
}

server_cpu() { # CPU-seconds of the server so far (user + system, exited children included)
    awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15 + $16 + $17) / hz}' "/proc/$SERVER_PID/stat"
}
# The loads alternate which tool goes first, PAIRS pairs, each into an empty database on a
# settled server; the medians are compared.
if [ "${SKIP_LOAD:-0}" = 1 ]; then
    echo "== load comparison skipped (SKIP_LOAD=1)"
else
echo "== load: $TABLES tables x $ROWS rows, $PAIRS pairs, order alternating"
loads="$work/loads.tsv"
: > "$loads"
load_sysbench() {
    fresh_db sbload
    settle
    local cpu0 start
    cpu0=$(server_cpu)
    start=$(date +%s.%N)
    sysbench oltp_read_write "${SB[@]}" "$SB_DB=sbload" --threads=$TABLES prepare >/dev/null
    printf "sysbench\t%s\t%s\t0\n" "$(echo "$(date +%s.%N) - $start" | bc)" \
        "$(echo "$(server_cpu) - $cpu0" | bc)" >> "$loads"
}
load_drivebench() {
    fresh_db dbload
    settle
    local cpu0
    cpu0=$(server_cpu)
    scenario 1 1 always dbload
    rm -rf "$work/load"
    "$DB" run "$work/db.toml" --quiet --out "$work/load" --target "$work/t" >/dev/null
    read -r secs rows_s < <(python3 -c "import json;l=json.load(open('$work/load/result.json'))['instances'][0]['load'];print(l['seconds'], round(l['rows_per_s']))")
    printf "drivebench\t%s\t%s\t%s\n" "$secs" "$(echo "$(server_cpu) - $cpu0" | bc)" "$rows_s" >> "$loads"
}
for p in $(seq 1 "$PAIRS"); do
    if [ $((p % 2)) = 1 ]; then load_sysbench; load_drivebench; else load_drivebench; load_sysbench; fi
    printf "pair %s: sysbench prepare %.2f s, drivebench load %.2f s\n" "$p" \
        "$(grep ^sysbench "$loads" | tail -1 | cut -f2)" "$(grep ^drivebench "$loads" | tail -1 | cut -f2)"
done
python3 - "$loads" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
def med(tool, i):
    return statistics.median(float(r[i]) for r in rows if r[0] == tool)
sb, db = med("sysbench", 1), med("drivebench", 1)
print(f"sysbench prepare: {sb:.2f} s   drivebench load: {db:.2f} s ({med('drivebench', 3):.0f} rows/s)   speed-up {sb / db:.2f}x (medians)")
# drivebench's figure includes its one-second run with one client.
print(f"server CPU: {med('sysbench', 2):.2f} s during sysbench prepare, {med('drivebench', 2):.2f} s during drivebench load + 1 s run (medians)")
PY
fi
# The runs use sysbench's own tables, prepared once more (not timed).
fresh_db sbtest
sysbench oltp_read_write "${SB[@]}" "$SB_DB=sbtest" --threads=$TABLES prepare >/dev/null
settle

results="$work/results.tsv"
: > "$results"
host_ticks() { # idle (with iowait) and all ticks of the host's CPUs so far
    awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat
}
# Run one tool's command, which prints its results row, and append that row to the results
# with the server's CPU-ms per transaction and the host's idle share during the run. The
# server's CPU is read once its sessions have ended: PostgreSQL adds a backend's CPU to the
# postmaster's when the backend exits.
measured() {
    local cpu0 cpu1 idle0 all0 idle1 all1 row
    # Every run starts once the server has cleaned up the row versions the run before left, so
    # no run inherits another's wear.
    wear_off
    settle
    cpu0=$(server_cpu)
    read -r idle0 all0 < <(host_ticks)
    row=$("$@")
    read -r idle1 all1 < <(host_ticks)
    sleep 1
    cpu1=$(server_cpu)
    python3 -c 'import sys; r = sys.argv[1].split("\t"); c0, c1, i0, a0, i1, a1 = map(float, sys.argv[2:]); print("\t".join(r + [f"{(c1 - c0) / int(r[5]) * 1000:.4f}", f"{(i1 - i0) / max(a1 - a0, 1) * 100:.1f}"]))' \
        "$row" "$cpu0" "$cpu1" "$idle0" "$all0" "$idle1" "$all1" >> "$results"
}
run_sysbench() { # clients
    /usr/bin/time -f "%U %S" -o "$work/sb.time" sysbench oltp_read_write "${SB[@]}" "$SB_DB=sbtest" --threads="$1" \
        --time="$DURATION" --percentile=99 run > "$work/sb.out"
    python3 - "$1" "$work" <<'PY'
import re, sys
c, work = sys.argv[1], sys.argv[2]
out = open(f"{work}/sb.out").read()
tx, tps = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out).groups()
p99 = re.search(r"99th percentile:\s+([\d.]+)", out).group(1)
u, s = map(float, open(f"{work}/sb.time").read().split()[-2:])
print(f"sysbench\t{c}\t{tps}\t{p99}\t{(u + s) / int(tx) * 1000:.4f}\t{tx}")
PY
}
run_drivebench() { # clients
    scenario "$1" "$DURATION" never sbtest
    rm -rf "$work/db"
    /usr/bin/time -f "%U %S" -o "$work/db.time" "$DB" run "$work/db.toml" --quiet --out "$work/db" --target "$work/t" >/dev/null
    python3 - "$1" "$work" <<'PY'
import json, sys
c, work = sys.argv[1], sys.argv[2]
s = json.load(open(f"{work}/db/result.json"))["phases"][-1]["summary"]
u, sy = map(float, open(f"{work}/db.time").read().split()[-2:])
print(f"drivebench\t{c}\t{s['tps']:.2f}\t{s['latency_ms']['p99']:.2f}\t{(u + sy) / s['transactions'] * 1000:.4f}\t{s['transactions']}")
PY
}
for c in $CLIENTS; do
    for p in $(seq 1 "$PAIRS"); do
        # Each run changes the tables (PostgreSQL's dead rows, InnoDB's history), so the order
        # alternates: neither tool always runs on the tables the other has just worn.
        if [ $((p % 2)) = 1 ]; then
            measured run_sysbench "$c"
            measured run_drivebench "$c"
        else
            measured run_drivebench "$c"
            measured run_sysbench "$c"
        fi
        rows_now=2
        if declare -F third_tool >/dev/null; then measured third_tool "$c" "$DURATION"; rows_now=3; fi
        tail -"$rows_now" "$results" | sed "s/^/pair $p: /"
    done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
print("\nclients | TPS drivebench | TPS sysbench | ratio | p99 ms drivebench | p99 ms sysbench | CPU-s/1000 tx drivebench | CPU-s/1000 tx sysbench")
clients = sorted({r[1] for r in rows}, key=int)
def med(tool, c, i):
    return statistics.median(float(r[i]) for r in rows if r[0] == tool and r[1] == c)
for c in clients:
    d, s = med("drivebench", c, 2), med("sysbench", c, 2)
    print(f"{c} | {d:.1f} | {s:.1f} | {d / s:.3f} | {med('drivebench', c, 3):.2f} | {med('sysbench', c, 3):.2f} | {med('drivebench', c, 4):.3f} | {med('sysbench', c, 4):.3f}")
# Each pair's own ratio: a drift between pairs (the server's CPU per transaction moves from
# run to run) cancels within a pair.
for c in clients:
    tps = lambda tool: [float(r[2]) for r in rows if r[0] == tool and r[1] == c]
    pairs = [d / s for d, s in zip(tps("drivebench"), tps("sysbench"))]
    print(f"{c} clients, each pair's ratio: {', '.join(f'{x:.3f}' for x in pairs)} (median {statistics.median(pairs):.3f})")
# The ceiling: sysbench's CPU per transaction (server + client) over drivebench's server CPU
# alone, over sysbench's busy share: the ratio a client costing nothing, on a saturated host,
# would reach.
print("\nclients | server CPU-ms/tx drivebench | server CPU-ms/tx sysbench | host idle % drivebench | host idle % sysbench | ceiling")
for c in clients:
    sd, ss = med("drivebench", c, 6), med("sysbench", c, 6)
    idd, ids = med("drivebench", c, 7), med("sysbench", c, 7)
    ceiling = (ss + med("sysbench", c, 4)) / sd * 100 / (100 - ids)
    print(f"{c} | {sd:.3f} | {ss:.3f} | {idd:.1f} | {ids:.1f} | {ceiling:.3f}")
for tool in sorted({r[0] for r in rows} - {"drivebench", "sysbench"}):
    for c in sorted({r[1] for r in rows if r[0] == tool}, key=int):
        tps, p99, cpu, _, server, idle = (med(tool, c, i) for i in range(2, 8))
        print(f"{tool} at {c} clients: {tps:.1f} TPS, p99 {p99:.2f} ms, {cpu:.3f} CPU-s/1000 tx, server {server:.3f} CPU-ms/tx, host idle {idle:.1f} %")
PY
