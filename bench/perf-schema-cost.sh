#!/usr/bin/env bash
# What a private MariaDB's performance_schema costs: sysbench oltp_read_write's TPS with the
# file instruments drivebench turns on (src/engines/mysql/server/config.rs:
# PERFORMANCE_SCHEMA) against performance_schema = OFF, PAIRS pairs in alternating order on
# one data directory, the server restarted for each run.
# Env: PAIRS (default 3), DURATION (s, default 20), CLIENTS (default 8), TABLES (4), ROWS (10000).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS="${PAIRS:-3}" DURATION="${DURATION:-20}" CLIENTS="${CLIENTS:-8}"
TABLES="${TABLES:-4}" ROWS="${ROWS:-10000}"
MYSQLD="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
work="$(mktemp -d "${TMPDIR:-/var/tmp}/perf-schema-cost.XXXXXX")"
sock="$work/s.sock"
trap 'mariadb -S "$sock" -uroot -e shutdown 2>/dev/null || true; sleep 2; rm -rf "$work"' EXIT
# The PERFORMANCE_SCHEMA lines of src/engines/mysql/server/config.rs, read from the source.
ps_on="$(sed -n '/^const PERFORMANCE_SCHEMA/,/^];/p' src/engines/mysql/server/config.rs \
    | sed -n 's/^ *"\(.*\)",$/\1/p')"
config() { # $1 = on|off
    cat > "$work/my.cnf" <<CNF
[mysqld]
datadir=$work/data
socket=$sock
skip-networking
log-error=$work/error.log
user=root
skip-log-bin
innodb_buffer_pool_size=128M
innodb_flush_log_at_trx_commit=1
innodb_buffer_pool_load_at_startup=OFF
innodb_buffer_pool_dump_at_shutdown=OFF
max_prepared_stmt_count=100000
CNF
    if [ "$1" = on ]; then echo "$ps_on" >> "$work/my.cnf"
    else echo "performance_schema = OFF" >> "$work/my.cnf"; fi
}
start() {
    "$MYSQLD" --defaults-file="$work/my.cnf" > /dev/null 2>&1 &
    for _ in $(seq 100); do mariadb -S "$sock" -uroot -e "select 1" > /dev/null 2>&1 && return; sleep 0.2; done
    echo "mariadbd did not start: $(tail -5 "$work/error.log")" >&2; exit 1
}
stop() { mariadb -S "$sock" -uroot -e shutdown; while [ -S "$sock" ]; do sleep 0.2; done; sleep 1; }
sb=(sysbench oltp_read_write --db-driver=mysql --mysql-socket="$sock" --mysql-user=root
    --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
config off
mariadb-install-db --defaults-file="$work/my.cnf" --user=root > "$work/install.log" 2>&1
start
mariadb -S "$sock" -uroot -e "CREATE DATABASE sbtest"
"${sb[@]}" prepare > /dev/null
stop
one() { # $1 = on|off, $2 = run
    config "$1"; start
    local ps; ps="$(mariadb -S "$sock" -uroot -N -e 'select @@performance_schema')"
    "${sb[@]}" --threads="$CLIENTS" --time=5 run > /dev/null # warm the buffer pool
    "${sb[@]}" --threads="$CLIENTS" --time="$DURATION" run \
        | awk -v k="$1" -v i="$2" -v ps="$ps" '/transactions:/ {gsub("[(]", "", $3); print k, i, ps, $3}'
    stop
}
results="$work/results"
for i in $(seq 1 "$PAIRS"); do
    if [ $((i % 2)) -eq 1 ]; then one on "$i"; one off "$i"; else one off "$i"; one on "$i"; fi
done | tee "$results"
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
tps = {k: [float(r[3]) for r in rows if r[0] == k] for k in ("on", "off")}
pairs = [on / off for on, off in zip(tps["on"], tps["off"])]
m_on, m_off = statistics.median(tps["on"]), statistics.median(tps["off"])
print(f"median TPS: file instruments on {m_on:.1f}, performance_schema off {m_off:.1f}, "
      f"ratio {m_on / m_off:.4f} ({(m_on / m_off - 1) * 100:+.2f} %); "
      f"pair ratios {', '.join(f'{p:.4f}' for p in pairs)}")
PY
