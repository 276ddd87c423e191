#!/usr/bin/env bash
# Does a replay keep up? Schedule lag at 20,000 requests per second, recorded timing: RUNS
# replays of a synthetic one-second capture (20,000 mixed 4K/16K reads and writes, 1 % flushes,
# about 40 in flight) onto a file on ext4 on a RAM-backed loop device, so the drive keeps up
# and the lag measured is the replay's own. Prints each run's lag p50/p99/max and the median
# p99 against the budget (p99 under 1 ms).
#
# Env: RUNS (default 5), CARGO_TARGET_DIR. Needs root (loop device, mount).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-5}"
[ "$(id -u)" = 0 ] || { echo "needs root (loop device)" >&2; exit 2; }
work="$(mktemp -d /var/tmp/replay-lag.XXXXXX)"
img="/dev/shm/replay-lag-$$.img"
dev=""
cleanup() {
    set +e
    mountpoint -q "$work/mnt" && umount "$work/mnt"
    [ -n "$dev" ] && losetup -d "$dev"
    rm -f "$img"
    rm -rf "$work"
}
trap cleanup EXIT
truncate -s 1G "$img"
dev="$(losetup --find --show "$img")"
mkfs.ext4 -q -F "$dev"
mkdir -p "$work/mnt"
mount "$dev" "$work/mnt"
cargo test --release -q --lib --no-run 2>/dev/null
for i in $(seq 1 "$RUNS"); do
    DRIVEBENCH_REPLAY_TEST_DIR="$work/mnt" cargo test --release -q --lib \
        replay::engine_tests::a_synthetic_capture_is_replayed_at_its_recorded_times_on_a_file \
        -- --nocapture --exact 2>/dev/null | grep "replay of 20,000" | tee -a "$work/lines"
done
python3 - "$work/lines" <<'PY'
import re, statistics, sys
p99 = [int(m.group(1)) for m in (re.search(r"p99 (\d+) µs", l) for l in open(sys.argv[1])) if m]
if not p99:
    sys.exit("no figures: the test printed nothing")
med = statistics.median(p99)
print(f"lag p99 per run (µs): {', '.join(map(str, p99))}; median {med:.0f} µs "
      f"({'within' if med < 1000 else 'OVER'} the 1 ms budget)")
PY
