#!/usr/bin/env bash
# drivebench against sysbench 1.0 on one private MariaDB and the same tables.
# Env: DURATION (s, default 30), PAIRS (default 3), CLIENTS (default "8 32"), SKIP_LOAD (1: no
# load comparison), DRIVEBENCH (a drivebench binary to measure instead of this checkout's
# release build), CLIENT_THREADS (drivebench's workload.client_threads; default its own),
# SOCKET (1: both tools reach the server through its unix socket, as drivebench's private
# instances and a local sysbench's default do; default TCP on 127.0.0.1).
#
# Starts a private mariadbd on a scratch directory, compares load speed (sysbench prepare vs
# drivebench's loader, same 8 tables x 100,000 rows, PAIRS pairs in alternating order, each
# into an empty database after the server has flushed every dirty page), then alternates sysbench oltp_read_write and
# drivebench (external mode, prepare = "never", on sysbench's tables, rand_type special on both)
# for PAIRS pairs at 8 and 32 clients, DURATION seconds each. Prints per client count the median
# TPS ratio (drivebench / sysbench), each tool's median p99, and client CPU-seconds per 1,000
# transactions from /usr/bin/time; then each tool's server CPU per transaction, the host's idle
# share and the ceiling (the TPS ratio a client that cost nothing would reach). Needs: apt-get
# install -y sysbench mariadb-server.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-30}"
PAIRS="${PAIRS:-3}"
CLIENTS="${CLIENTS:-8 32}"
TABLES=8
ROWS=100000
command -v sysbench >/dev/null || { echo "sysbench missing: apt-get install -y sysbench" >&2; exit 2; }
DB="${DRIVEBENCH:-./target/release/drivebench}"
[ -n "${DRIVEBENCH:-}" ] || cargo build --release -q
work="$(mktemp -d "${TMPDIR:-/var/tmp}/vs-sysbench.XXXXXX")"
port=$((20000 + RANDOM % 20000))
cleanup() {
    [ -f "$work/mysqld.pid" ] && kill "$(cat "$work/mysqld.pid")" 2>/dev/null && sleep 5
    rm -rf "$work"
}
trap cleanup EXIT
cat > "$work/my.cnf" <<CNF
[mysqld]
datadir=$work/data
socket=$work/mysqld.sock
port=$port
bind-address=127.0.0.1
pid-file=$work/mysqld.pid
log-error=$work/error.log
skip-name-resolve
skip-log-bin
innodb_buffer_pool_size=1G
max_connections=500
max_prepared_stmt_count=200000
performance_schema=OFF
CNF
mariadb-install-db --defaults-file="$work/my.cnf" --user=root --auth-root-authentication-method=normal --skip-test-db >/dev/null
mariadbd --defaults-file="$work/my.cnf" --user=root &
for _ in $(seq 1 60); do mariadb -uroot -h127.0.0.1 -P"$port" -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done
m() { mariadb -uroot -h127.0.0.1 -P"$port" "$@"; }
fresh_db() { m -e "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1"; }
settle() { # flush every dirty page (at most 120 s), then the usual flushing again
    m -e 'SET GLOBAL innodb_max_dirty_pages_pct_lwm = 0.001, GLOBAL innodb_max_dirty_pages_pct = 0'
    for _ in $(seq 1 240); do
        [ "$(m -N -e "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'" | cut -f2)" = 0 ] && break
        sleep 0.5
    done
    m -e 'SET GLOBAL innodb_max_dirty_pages_pct = 90, GLOBAL innodb_max_dirty_pages_pct_lwm = 0'
    sleep 1
}
wear_off() { # InnoDB's purge of the old row versions (at most 60 s)
    for _ in $(seq 1 120); do
        [ "$(m -N -e "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'" | cut -f2)" -lt 1000 ] && break
        sleep 0.5
    done
}
if [ "${SOCKET:-0}" = 1 ]; then
    SB_CONN=(--mysql-socket="$work/mysqld.sock")
    URL_SUFFIX="?socket=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$work/mysqld.sock")"
else
    SB_CONN=(--mysql-host=127.0.0.1 --mysql-port="$port")
fi
SB=(--db-driver=mysql "${SB_CONN[@]}" --mysql-user=root
    --tables=$TABLES --table-size=$ROWS --rand-type=special)
SB_DB=--mysql-db

ENGINE=mariadb
SERVER_PID=$(cat "$work/mysqld.pid")
URL_PREFIX="mysql://root@127.0.0.1:$port"
# shellcheck source=bench/lib/vs-sysbench-pairs.sh
source bench/lib/vs-sysbench-pairs.sh
