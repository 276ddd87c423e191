#!/usr/bin/env bash
# Does a replay rank drives as the database does? Three drives on this host, one MariaDB
# scenario on each (the truth), one capture, and that capture replayed on all three by
# drivebench and by fio (from the capture's iolog export), side by side.
#
# Drives: "zram" (a 4 GiB /dev/zram0 with ext4, RAM), "disk" (a directory on the system disk)
# and "throttled" (that disk limited to IOPS I/Os per second, read and write, for the run's
# processes by a cgroup-v1 blkio throttle). Everything made here is removed on exit: the zram
# device reset, the cgroup removed, the files deleted.
#
# Env: SCENARIO (default scenarios/ci-sysbench-mariadb.toml), PRE / SAMPLE (phase lengths,
# default 10s / 30s), CAPTURED (the captured sample's length, default 6s: the throttled drive
# replays it at IOPS requests per second, so a long capture takes long there), IOPS (default 200), CAPTURE_ON (the drive captured, default disk),
# DIR (a directory on the system disk, default /var/tmp), CARGO_TARGET_DIR.
# Needs root, mariadb-server, fio (apt-get install -y fio), cgroup v1 blkio, tracefs.
set -euo pipefail
cd "$(dirname "$0")/.."
SCENARIO="${SCENARIO:-scenarios/ci-sysbench-mariadb.toml}"
PRE="${PRE:-10s}"
SAMPLE="${SAMPLE:-30s}"
IOPS="${IOPS:-200}"
CAPTURE_ON="${CAPTURE_ON:-disk}"
CAPTURED="${CAPTURED:-6s}"
DIR="${DIR:-/var/tmp}"
[ "$(id -u)" = 0 ] || { echo "needs root (zram, cgroups, tracefs)" >&2; exit 2; }
command -v fio >/dev/null || { echo "fio missing: apt-get install -y fio" >&2; exit 2; }
[ -d /sys/fs/cgroup/blkio ] || { echo "no cgroup-v1 blkio hierarchy at /sys/fs/cgroup/blkio" >&2; exit 2; }
cargo build --release -q
DB="$(pwd)/${CARGO_TARGET_DIR:-target}/release/drivebench"

work="$(mktemp -d "$DIR/replay-validate.XXXXXX")"
cg=/sys/fs/cgroup/blkio/drivebench-validate-$$
cleanup() {
    set +e
    for d in "$work"/zram; do mountpoint -q "$d" && umount "$d"; done
    [ -e /sys/block/zram0/reset ] && echo 1 > /sys/block/zram0/reset
    [ -d "$cg" ] && rmdir "$cg"
    rm -rf "$work"
}
trap cleanup EXIT

# The drives: a directory each.
mkdir -p "$work/zram" "$work/disk" "$work/throttled"
echo 1 > /sys/block/zram0/reset
echo 4G > /sys/block/zram0/disksize
mkfs.ext4 -q -F /dev/zram0
mount /dev/zram0 "$work/zram"
disk_dev="$(python3 -c 'import os,sys; d=os.stat(sys.argv[1]).st_dev; print(f"{os.major(d)}:{os.minor(d)}")' "$work/disk")"
# A partition's throttle goes on its whole disk.
if [ -e "/sys/dev/block/$disk_dev/partition" ]; then
    disk_dev="$(cat "/sys/dev/block/$disk_dev/../dev")"
fi
mkdir "$cg"
echo "$disk_dev $IOPS" > "$cg/blkio.throttle.read_iops_device"
echo "$disk_dev $IOPS" > "$cg/blkio.throttle.write_iops_device"

# Run "$@" on drive $1: inside the throttle group for "throttled".
on() {
    local drive="$1"; shift
    if [ "$drive" = throttled ]; then
        sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@"
    else
        "$@"
    fi
}

echo "== drives: zram (/dev/zram0), disk ($disk_dev under $work/disk), throttled ($disk_dev at $IOPS IOPS)"
echo "== truth: $SCENARIO on each ($PRE + $SAMPLE)"
for d in zram disk throttled; do
    on "$d" "$DB" run "$SCENARIO" --quiet --target "$work/$d/db" --out "$work/truth-$d" \
        --set "phase[0].duration=$PRE" --set "phase[1].duration=$SAMPLE" > "$work/truth-$d.log" 2>&1 \
        || { echo "truth run on $d failed:"; tail -5 "$work/truth-$d.log"; exit 1; }
done
echo "== capture on $CAPTURE_ON"
on "$CAPTURE_ON" "$DB" run "$SCENARIO" --quiet --capture --target "$work/$CAPTURE_ON/db-capture" \
    --out "$work/captured" --set "phase[0].duration=$PRE" --set "phase[1].duration=$CAPTURED" \
    > "$work/captured.log" 2>&1 || { echo "capture run failed:"; tail -5 "$work/captured.log"; exit 1; }
span="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["span_bytes"])' "$work/captured/capture/capture.json")"
echo "== replays: drivebench (recorded timing) and fio (read_iolog) on each, $span bytes of target"
for d in zram disk throttled; do
    on "$d" "$DB" replay "$work/captured" --target "$work/$d/replay.dat" --out "$work/replay-$d" --quiet \
        > "$work/replay-$d.log" 2>&1 || { echo "replay on $d failed:"; tail -5 "$work/replay-$d.log"; exit 1; }
    rm -f "$work/$d/replay.dat"
    fallocate -l "$span" "$work/$d/fio.dat"
    dd if=/dev/urandom of="$work/$d/fio.dat" bs=1M count=$((span / 1048576)) conv=notrunc status=none
    on "$d" fio --name=replay --read_iolog="$work/captured/capture/replay.iolog" \
        --replay_redirect="$work/$d/fio.dat" --ioengine=io_uring --direct=1 \
        --output-format=json --output="$work/fio-$d.json" > /dev/null
    rm -f "$work/$d/fio.dat"
done

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
drives = ["zram", "disk", "throttled"]
def load(p):
    return json.load(open(p))
rows = []
for d in drives:
    t = load(f"{work}/truth-{d}/result.json")
    rec = [p for p in t["phases"] if p["recorded"]][-1]
    verdict = (rec.get("telemetry") or {}).get("verdict", {}).get("bound", "?")
    r = load(f"{work}/replay-{d}/result.json")["replay"]
    cls = r["latency_by_class_us"]
    f = load(f"{work}/fio-{d}.json")["jobs"][0]
    def fio_p99(side):
        pct = f[side]["clat_ns"].get("percentile", {})
        return pct.get("99.000000", 0) / 1e6
    rows.append(dict(drive=d, tps=rec["summary"]["tps"], p99=rec["summary"]["latency_ms"]["p99"],
        verdict=verdict,
        log=cls.get("log", {}).get("p99", 0) / 1000, data=cls.get("data", {}).get("p99", 0) / 1000,
        lag=r["lag_us"]["p99"] / 1000, rverdict=r["fidelity"]["verdict"],
        fio_w=fio_p99("write"), fio_r=fio_p99("read")))
print(f"{'drive':<10} {'DB TPS':>8} {'DB p99 ms':>9} {'limit':<9} {'replay log p99':>14} {'data p99':>9} {'lag p99':>8} {'fio write p99':>13} {'fio read p99':>12}  fidelity")
for r in rows:
    print(f"{r['drive']:<10} {r['tps']:>8.0f} {r['p99']:>9.2f} {r['verdict']:<9} {r['log']:>14.3f} {r['data']:>9.3f} {r['lag']:>8.3f} {r['fio_w']:>13.3f} {r['fio_r']:>12.3f}  {r['rverdict']}")
def order(key, reverse=False):
    return [r["drive"] for r in sorted(rows, key=lambda r: r[key], reverse=reverse)]
truth = order("tps", reverse=True)
print(f"ranking by database TPS (best first): {' > '.join(truth)}")
for key, label in (("log", "drivebench replay, log p99"), ("data", "drivebench replay, data p99"),
                   ("fio_w", "fio replay, write p99")):
    got = order(key)
    print(f"ranking by {label}: {' > '.join(got)}  {'agrees' if got == truth else 'DISAGREES'}")
PY
