#!/usr/bin/env bash
# drivebench against sysbench 1.0 (--db-driver=pgsql) on one private PostgreSQL cluster and the
# same tables.
# Env: DURATION (s, default 30), PAIRS (default 3), CLIENTS (default "8 32"),
# DB_WORKERS (drivebench's runtime threads, default: one per core).
#
# Starts a private PostgreSQL cluster on a scratch directory, compares load speed (sysbench prepare vs
# drivebench's loader, same 8 tables x 100,000 rows), then alternates sysbench oltp_read_write and
# drivebench (external mode, prepare = "never", on sysbench's tables, rand_type special on both)
# for PAIRS pairs at 8 and 32 clients, DURATION seconds each. Prints per client count the median
# TPS ratio (drivebench / sysbench), each tool's median p99, and client CPU-seconds per 1,000
# transactions from /usr/bin/time. Needs: apt-get install -y sysbench postgresql. Run as root
# (the cluster runs as the postgres user) or as a user that may run initdb.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-30}"
PAIRS="${PAIRS:-3}"
CLIENTS="${CLIENTS:-8 32}"
TABLES=8
ROWS=100000
command -v sysbench >/dev/null || { echo "sysbench missing: apt-get install -y sysbench" >&2; exit 2; }
command -v psql >/dev/null || { echo "psql missing: apt-get install -y postgresql-client" >&2; exit 2; }
cargo build --release -q
DB=./target/release/drivebench
work="$(mktemp -d "${TMPDIR:-/var/tmp}/vs-sysbench-pg.XXXXXX")"
port=$((20000 + RANDOM % 20000))
PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
    as_pg "$PGBIN/pg_ctl" -D "$work/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
[ "$(id -u)" = 0 ] && chown postgres "$work"
as_pg "$PGBIN/initdb" -D "$work/data" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
cat >> "$work/data/postgresql.conf" <<CNF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
shared_buffers = 1GB
max_connections = 300
CNF
as_pg "$PGBIN/pg_ctl" -D "$work/data" -l "$work/server.log" -w start >/dev/null
psql() { command psql -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 -q "$@"; }
psql -c 'CREATE DATABASE sbtest' -c 'CREATE DATABASE dbload'
SB=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$port" --pgsql-user=postgres --pgsql-db=sbtest
    --tables=$TABLES --table-size=$ROWS --rand-type=special)

scenario() { # clients duration prepare db
    cat > "$work/db.toml" <<TOML
name = "vs-sysbench"
report_interval = "10s"
[[instance]]
engine = "postgres"
provision = "external"
url = "postgres://postgres@127.0.0.1:$port/$4"
[workload]
benchmark = "sysbench"
test = "oltp_read_write"
tables = $TABLES
table_size = $ROWS
clients = $1
rand_type = "special"
prepare = "$3"
[[phase]]
name = "sample"
duration = "${2}s"
TOML
}

echo "== load: $TABLES tables x $ROWS rows"
start=$(date +%s.%N)
sysbench oltp_read_write "${SB[@]}" --threads=$TABLES prepare >/dev/null
sb_load=$(echo "$(date +%s.%N) - $start" | bc)
scenario 1 1 always dbload
"$DB" run "$work/db.toml" --quiet --out "$work/load" --target "$work/t" >/dev/null
read -r db_load db_rows_s < <(python3 -c "import json;l=json.load(open('$work/load/result.json'))['instances'][0]['load'];print(l['seconds'], round(l['rows_per_s']))")
printf "sysbench prepare: %.2f s   drivebench load: %.2f s (%s rows/s)   speed-up %.2fx\n" \
    "$sb_load" "$db_load" "$db_rows_s" "$(echo "$sb_load / $db_load" | bc -l)"

results="$work/results.tsv"
: > "$results"
for c in $CLIENTS; do
    for p in $(seq 1 "$PAIRS"); do
        /usr/bin/time -f "%U %S" -o "$work/sb.time" sysbench oltp_read_write "${SB[@]}" --threads="$c" \
            --time="$DURATION" --percentile=99 run > "$work/sb.out"
        python3 - "$c" "$work" >> "$results" <<'PY'
import re, sys
c, work = sys.argv[1], sys.argv[2]
out = open(f"{work}/sb.out").read()
tx, tps = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out).groups()
p99 = re.search(r"99th percentile:\s+([\d.]+)", out).group(1)
u, s = map(float, open(f"{work}/sb.time").read().split()[-2:])
print(f"sysbench\t{c}\t{tps}\t{p99}\t{(u + s) / int(tx) * 1000:.4f}")
PY
        scenario "$c" "$DURATION" never sbtest
        rm -rf "$work/db"
        TOKIO_WORKER_THREADS="${DB_WORKERS:-$(nproc)}" /usr/bin/time -f "%U %S" -o "$work/db.time" "$DB" run "$work/db.toml" --quiet --out "$work/db" --target "$work/t" >/dev/null
        python3 - "$c" "$work" >> "$results" <<'PY'
import json, sys
c, work = sys.argv[1], sys.argv[2]
s = json.load(open(f"{work}/db/result.json"))["phases"][-1]["summary"]
u, sy = map(float, open(f"{work}/db.time").read().split()[-2:])
print(f"drivebench\t{c}\t{s['tps']:.2f}\t{s['latency_ms']['p99']:.2f}\t{(u + sy) / s['transactions'] * 1000:.4f}")
PY
        tail -2 "$results" | sed "s/^/pair $p: /"
    done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
print("\nclients | TPS drivebench | TPS sysbench | ratio | p99 ms drivebench | p99 ms sysbench | CPU-s/1000 tx drivebench | CPU-s/1000 tx sysbench")
for c in sorted({r[1] for r in rows}, key=int):
    def med(tool, i):
        return statistics.median(float(r[i]) for r in rows if r[0] == tool and r[1] == c)
    d, s = med("drivebench", 2), med("sysbench", 2)
    print(f"{c} | {d:.1f} | {s:.1f} | {d / s:.3f} | {med('drivebench', 3):.2f} | {med('sysbench', 3):.2f} | {med('drivebench', 4):.3f} | {med('sysbench', 4):.3f}")
PY
