#!/usr/bin/env bash
# drivebench against sysbench 1.0 (--db-driver=pgsql) on one private PostgreSQL cluster and the
# same tables.
# Env: DURATION (s, default 30), PAIRS (default 3), CLIENTS (default "8 32"), SKIP_LOAD (1: no
# load comparison), DRIVEBENCH (a drivebench binary to measure instead of this checkout's
# release build).
#
# Starts a private PostgreSQL cluster on a scratch directory, compares load speed (sysbench prepare vs
# drivebench's loader, same 8 tables x 100,000 rows, PAIRS pairs in alternating order, each
# into an empty database after a CHECKPOINT), then alternates sysbench oltp_read_write and
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
SB_DB=--pgsql-db
SB=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$port" --pgsql-user=postgres
    --tables=$TABLES --table-size=$ROWS --rand-type=special)

ENGINE=postgres
SERVER_PID=$(head -1 "$work/data/postmaster.pid")
URL_PREFIX="postgres://postgres@127.0.0.1:$port"
# shellcheck source=bench/lib/vs-sysbench-pairs.sh
source bench/lib/vs-sysbench-pairs.sh
