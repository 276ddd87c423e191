#!/usr/bin/env bash
# The four I/O-class verdicts on one host: MariaDB and PostgreSQL on a drive made slow to
# write (a commit flush per transaction: "drive: log flushes"), and on a drive made slow to
# read with far more data than the engine and the page cache may keep ("drive: data reads").
#
# The drive is an ext4 filesystem on a loop device over a file in /var/tmp (the system disk);
# each run's processes go into a cgroup-v1 blkio group limiting that loop device to IOPS reads
# or writes per second, and, for the read cases, a memory group of MEMORY bytes so the page
# cache cannot hold the tables (PostgreSQL reads through it; MariaDB is given O_DIRECT and an
# 8 MiB buffer pool). Prints each case's "What limited it" line from summary.md and the engine
# I/O figures of the recorded phase from result.json.
# Needs root, loop devices, cgroup-v1 blkio and memory controllers, MariaDB and PostgreSQL.
# Env: IOPS (default 150), ROWS (rows per table for the read cases, default 100000),
# MEMORY (default 112M), CASES (default all four: mariadb-log postgres-log mariadb-reads
# postgres-reads), KEEP (a directory to copy each case's results into: result.json, summary.md,
# report.html), DRIVEBENCH (a binary instead of this checkout's release build).
set -euo pipefail
cd "$(dirname "$0")/.."
IOPS="${IOPS:-150}" ROWS="${ROWS:-100000}" MEMORY="${MEMORY:-112M}"
CASES="${CASES:-mariadb-log postgres-log mariadb-reads postgres-reads}"
DB="${DRIVEBENCH:-./target/release/drivebench}"
[ -n "${DRIVEBENCH:-}" ] || cargo build --release -q
for c in blkio memory; do
    [ -d "/sys/fs/cgroup/$c" ] || { echo "no cgroup-v1 $c controller" >&2; exit 2; }
done
work="$(mktemp -d /var/tmp/io-class.XXXXXX)" && chmod 755 "$work"
group="drivebench-io-class-$$"
dev=""
cleanup() {
    set +e
    for pid in $(cat "/sys/fs/cgroup/blkio/$group/cgroup.procs" 2>/dev/null); do kill -KILL "$pid"; done
    sleep 1
    umount -l "$work/mnt" 2>/dev/null
    [ -n "$dev" ] && losetup -d "$dev"
    rmdir "/sys/fs/cgroup/blkio/$group" "/sys/fs/cgroup/memory/$group" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
truncate -s 3G "$work/disk.img"
dev="$(losetup --find --show "$work/disk.img")"
mkfs.ext4 -q -F -m 0 "$dev"
mkdir "$work/mnt" && mount "$dev" "$work/mnt" && chmod 777 "$work/mnt"
majmin="$(cat "/sys/block/$(basename "$dev")/dev")"
mkdir "/sys/fs/cgroup/blkio/$group" "/sys/fs/cgroup/memory/$group"

# $1 = case name, $2 = read IOPS, $3 = write IOPS, $4 = memory limit (or "none"), $5 = scenario,
# the rest --set values.
one() {
    local name="$1" r="$2" w="$3" mem="$4" scenario="$5"; shift 5
    local sets=() out="$work/mnt/$name"
    case " $CASES " in *" $name "*) ;; *) return 0 ;; esac
    for s in "$@"; do sets+=(--set "$s"); done
    echo "$majmin $r" > "/sys/fs/cgroup/blkio/$group/blkio.throttle.read_iops_device"
    echo "$majmin $w" > "/sys/fs/cgroup/blkio/$group/blkio.throttle.write_iops_device"
    if [ "$mem" = none ]; then echo -1 > "/sys/fs/cgroup/memory/$group/memory.limit_in_bytes"
    else echo "$mem" > "/sys/fs/cgroup/memory/$group/memory.limit_in_bytes"; fi
    sync; echo 3 > /proc/sys/vm/drop_caches
    sh -c 'echo $$ > "$0/cgroup.procs" && echo $$ > "$1/cgroup.procs" && shift && exec "$@"' \
        "/sys/fs/cgroup/blkio/$group" "/sys/fs/cgroup/memory/$group" \
        "$DB" run "$scenario" --quiet --out "$out" --target "$work/mnt/target-$name" \
        "${sets[@]}" > "$work/$name.log" 2>&1 \
        || { echo "$name: drivebench failed:"; tail -20 "$work/$name.log"; return 1; }
    echo "== $name (reads ${r}/s, writes ${w}/s, memory $mem)"
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$out" "$KEEP/$name"; fi
    grep "What limited it" "$out/summary.md" | head -1
    python3 - "$out/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = next(p for p in r["phases"] if p.get("recorded"))
f = (p.get("engine_io") or {}).get("total") or {}
keep = ["log_flushes_per_commit", "log_flush_ms", "data_reads_per_txn", "data_read_ms",
        "background_write_mib_s", "buffer_hit_pct", "log_wait_share_pct",
        "data_read_wait_share_pct"]
print("   engine I/O:", ", ".join(f"{k} {f[k]:.3g}" for k in keep if f.get(k) is not None))
s = p["summary"]
print(f"   TPS {s['transactions'] / s['seconds']:.1f}, p99 {s['latency_ms']['p99']:.2f} ms")
PY
}

free=1000000
one mariadb-log "$free" "$IOPS" none scenarios/ci-sysbench-mariadb.toml \
    workload.test=oltp_write_only workload.table_size=2000
one postgres-log "$free" "$IOPS" none scenarios/ci-sysbench-postgres.toml \
    workload.test=oltp_write_only workload.table_size=2000
one mariadb-reads "$IOPS" "$free" none scenarios/ci-sysbench-mariadb.toml \
    workload.test=oltp_read_only "workload.table_size=$ROWS" \
    'instance.0.config.buffer_pool="8MiB"' 'instance.0.config.flush_method="O_DIRECT"'
one postgres-reads "$IOPS" "$free" "$MEMORY" scenarios/ci-sysbench-postgres.toml \
    workload.test=oltp_read_only "workload.table_size=$ROWS" \
    'instance.0.config.shared_buffers="16MiB"'
