#!/usr/bin/env bash
# drivebench against sysbench 1.0 (--db-driver=pgsql) on one private PostgreSQL cluster and the
# same tables.
# Env: DURATION (s, default 30), PAIRS (default 3), CLIENTS (default "8 32"), SKIP_LOAD (1: no
# load comparison), DRIVEBENCH (a drivebench binary to measure instead of this checkout's
# release build), CLIENT_THREADS (drivebench's workload.client_threads; default its own), PGBENCH (1: after each pair also run pgbench, libpq's own C client, with
# oltp_read_write's 18 statements per transaction as prepared statements on the same tables —
# the floor of a client that waits for each answer before the next statement; its keys are
# uniform, so its server work and TPS differ from the pair's, its client CPU per transaction
# does not), SOCKET (1: every tool reaches the server through its unix socket, as drivebench's
# private instances and a local sysbench's default do; default TCP on 127.0.0.1).
#
# Starts a private PostgreSQL cluster on a scratch directory, compares load speed (sysbench prepare vs
# drivebench's loader, same 8 tables x 100,000 rows, PAIRS pairs in alternating order, each
# into an empty database after a CHECKPOINT), then alternates sysbench oltp_read_write and
# drivebench (external mode, prepare = "never", on sysbench's tables, rand_type special on both)
# for PAIRS pairs at 8 and 32 clients, DURATION seconds each. Prints per client count the median
# TPS ratio (drivebench / sysbench), each tool's median p99, and client CPU-seconds per 1,000
# transactions from /usr/bin/time; then each tool's server CPU per transaction, the host's idle
# share and the ceiling (the TPS ratio a client that cost nothing would reach). Needs: apt-get
# install -y sysbench postgresql. Run as root (the cluster runs as the postgres user) or as a
# user that may run initdb.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-30}"
PAIRS="${PAIRS:-3}"
CLIENTS="${CLIENTS:-8 32}"
TABLES=8
ROWS=100000
command -v sysbench >/dev/null || { echo "sysbench missing: apt-get install -y sysbench" >&2; exit 2; }
command -v psql >/dev/null || { echo "psql missing: apt-get install -y postgresql-client" >&2; exit 2; }
DB="${DRIVEBENCH:-./target/release/drivebench}"
[ -n "${DRIVEBENCH:-}" ] || cargo build --release -q
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
fresh_db() { PGOPTIONS=--client-min-messages=warning psql -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"; }
settle() { psql -c CHECKPOINT; sleep 1; }
# Every run gets its own copy of the freshly prepared tables: with VACUUM between runs the
# server's CPU per transaction still rose from run to run, so a later run paid for the earlier
# ones. The first call keeps sysbench's prepared database, vacuumed
# and analyzed, as the template; each call copies it and reads the copy into shared_buffers.
wear_off() {
    if [ -z "${template_kept:-}" ]; then
        psql -d sbtest -c "VACUUM ANALYZE" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm"
        psql -c "ALTER DATABASE sbtest RENAME TO sbfresh"
        template_kept=1
    fi
    PGOPTIONS=--client-min-messages=warning psql -c "DROP DATABASE IF EXISTS sbtest" \
        -c "CREATE DATABASE sbtest TEMPLATE sbfresh STRATEGY FILE_COPY"
    psql -d sbtest -At -c "SELECT sum(pg_prewarm(oid)) FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'i')" >/dev/null
}
SB_DB=--pgsql-db
if [ "${SOCKET:-0}" = 1 ]; then
    host="$work"
    url_host="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$work")"
else
    host=127.0.0.1
    url_host=127.0.0.1
fi
SB=(--db-driver=pgsql --pgsql-host="$host" --pgsql-port="$port" --pgsql-user=postgres
    --tables=$TABLES --table-size=$ROWS --rand-type=special)

# pgbench's transaction: sysbench oltp_read_write's statements in its order on one random table.
pgbench_scripts() {
    local t c="'83868641912-28773972837-60736120486-75162659906-27563526494-20381887404-41576422241-93426793964-56405065102-33518432330'"
    for t in $(seq 1 "$TABLES"); do
        {
            printf '\\set p%s random(1, %s)\n' 1 "$ROWS" 2 "$ROWS" 3 "$ROWS" 4 "$ROWS" 5 "$ROWS" \
                6 "$ROWS" 7 "$ROWS" 8 "$ROWS" 9 "$ROWS" 10 "$ROWS" u "$ROWS" v "$ROWS" d "$ROWS"
            printf '\\set r%s random(1, %s)\n' 1 $((ROWS - 99)) 2 $((ROWS - 99)) 3 $((ROWS - 99)) 4 $((ROWS - 99))
            echo "BEGIN;"
            for i in $(seq 1 10); do echo "SELECT c FROM sbtest$t WHERE id = :p$i;"; done
            echo "SELECT c FROM sbtest$t WHERE id BETWEEN :r1 AND :r1 + 99;"
            echo "SELECT SUM(k) FROM sbtest$t WHERE id BETWEEN :r2 AND :r2 + 99;"
            echo "SELECT c FROM sbtest$t WHERE id BETWEEN :r3 AND :r3 + 99 ORDER BY c;"
            echo "SELECT DISTINCT c FROM sbtest$t WHERE id BETWEEN :r4 AND :r4 + 99 ORDER BY c;"
            echo "UPDATE sbtest$t SET k = k + 1 WHERE id = :pu;"
            echo "UPDATE sbtest$t SET c = $c WHERE id = :pv;"
            echo "DELETE FROM sbtest$t WHERE id = :pd;"
            echo "INSERT INTO sbtest$t (id, k, c, pad) VALUES (:pd, :p1, $c, '67847967377-48000963322-62604785301-91415491898-96926520291');"
            echo "COMMIT;"
        } > "$work/pgbench-$t.sql"
    done
}
if [ "${PGBENCH:-0}" = 1 ]; then
    command -v pgbench >/dev/null || { echo "pgbench missing: apt-get install -y postgresql-contrib" >&2; exit 2; }
    third_tool() { # clients duration: one results row
        [ -f "$work/pgbench-1.sql" ] || pgbench_scripts
        rm -f "$work"/pgbench_log.*
        local files=()
        for t in $(seq 1 "$TABLES"); do files+=(-f "$work/pgbench-$t.sql"); done
        (cd "$work" && /usr/bin/time -f "%U %S" -o "$work/pgb.time" pgbench -h "$host" -p "$port" \
            -U postgres -M prepared -n -c "$1" -j "$1" -T "$2" -l "${files[@]}" sbtest > "$work/pgb.out" 2>&1)
        python3 - "$1" "$work" <<'PY'
import glob, re, sys
c, work = sys.argv[1], sys.argv[2]
out = open(f"{work}/pgb.out").read()
tx = int(re.search(r"actually processed: (\d+)", out).group(1))
tps = float(re.search(r"tps = ([\d.]+)", out).group(1))
lat = sorted(int(l.split()[2]) for f in glob.glob(f"{work}/pgbench_log.*") for l in open(f))
u, s = map(float, open(f"{work}/pgb.time").read().split()[-2:])
print(f"pgbench\t{c}\t{tps:.2f}\t{lat[int(len(lat) * 0.99)] / 1000:.2f}\t{(u + s) / tx * 1000:.4f}\t{tx}")
PY
    }
fi

ENGINE=postgres
SERVER_PID=$(head -1 "$work/data/postmaster.pid")
URL_PREFIX="postgres://postgres@$url_host:$port"
# shellcheck source=bench/lib/vs-sysbench-pairs.sh
source bench/lib/vs-sysbench-pairs.sh
