#!/usr/bin/env bash
# drivebench's direct-I/O engine against fio 3.x with io_uring, on the same 4 GiB file.
# Env: PAIRS (default 3), DURATION (s per run, default 10), DIR (where the file goes, default
# ${TMPDIR:-/var/tmp}; never tmpfs), CARGO_TARGET_DIR (where the release build goes), ONLY (a
# regular expression: run only the cases whose names match, e.g. ONLY=qd128).
#
# Creates and fills a 4 GiB file once (drivebench sweep --fill 1 --keep-file), then for each case runs fio
# (one job, ioengine=io_uring with fixedbufs and registerfiles — drivebench registers its
# buffers and files too — direct=1, iodepth N) and drivebench (one thread x depth N,
# io_uring, uncontrolled: --curve max) alternately, PAIRS pairs (which goes first alternates), DURATION seconds each, no
# warm-up on either side. Cases: 4K randread at depth 1, 32 and 128; 4K randwrite at 128; 64K
# seqread at 32; 64K seqwrite at 16. Prints per case the median IOPS of each tool, the median
# of the per-pair IOPS ratios (drivebench / fio), and the median CPU-µs per I/O of each (user + system time of the whole process from
# /usr/bin/time, divided by the I/Os it completed; their ratio; and the kernel's part of each,
# system time per I/O, the same io_uring and block-layer path for both: a floor no client can
# go under), and the share of each tool's I/Os the
# kernel's block layer merged into larger requests (from /sys/dev/block/M:m/stat of the device
# holding the file, device-wide, so other processes' I/O counts too; a merged pattern is a
# different load on the drive). Then drivebench's rate accuracy: a 4K
# randread depth-32 sweep at 50 % and 90 % of its measured maximum, target vs achieved.
# Needs: apt-get install -y fio.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS="${PAIRS:-3}"
DURATION="${DURATION:-10}"
DIR="${DIR:-${TMPDIR:-/var/tmp}}"
command -v fio >/dev/null || { echo "fio missing: apt-get install -y fio" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: apt-get install -y time" >&2; exit 2; }
cargo build --release -q
DB="${CARGO_TARGET_DIR:-target}/release/drivebench"
work="$(mktemp -d "$DIR/vs-fio.XXXXXX")"
trap 'rm -rf "$work"' EXIT
file="$work/bench.dat"

echo "== fio $(fio --version | sed 's/fio-//'), drivebench $("$DB" --version | cut -d' ' -f2); 4 GiB file $file"
"$DB" sweep --target "$file" --size 4GiB --fill 1 --keep-file --bs 4k --read-pct 100 --random-pct 100 \
    --curve max --warmup 0s --duration 1s --quiet --out "$work/fill" >/dev/null

# name fio-rw bs depth read-pct random-pct
CASES="randread-4k-qd1 randread 4k 1 100 100
randread-4k-qd32 randread 4k 32 100 100
randread-4k-qd128 randread 4k 128 100 100
randwrite-4k-qd128 randwrite 4k 128 0 100
seqread-64k-qd32 read 64k 32 100 0
seqwrite-64k-qd16 write 64k 16 0 0"

# Requests completed and merged so far on the device holding the file: "ios merges".
devstat="/sys/dev/block/$(python3 -c 'import os,sys; d=os.stat(sys.argv[1]).st_dev; print(f"{os.major(d)}:{os.minor(d)}")' "$file")/stat"
counts() { if [ -r "$devstat" ]; then awk '{print $1 + $5, $2 + $6}' "$devstat"; else echo "0 0"; fi; }
merged_pct() { # before after -> % of the requests the tool issued that were merged
    python3 -c 'import sys; b, a = sys.argv[1].split(), sys.argv[2].split(); ios, m = int(a[0]) - int(b[0]), int(a[1]) - int(b[1]); print(f"{100 * m / (ios + m) if ios + m else 0:.1f}")' "$1" "$2"
}

results="$work/results.tsv"
: > "$results"
run_fio() {
    local before
    before="$(counts)"
    /usr/bin/time -f "%U %S" -o "$work/fio.time" fio --name="$name" --filename="$file" --size=4g \
        --direct=1 --ioengine=io_uring --fixedbufs=1 --registerfiles=1 --rw="$rw" --bs="$bs" --iodepth="$depth" --numjobs=1 \
        --time_based --runtime="$DURATION" --norandommap --randrepeat=0 \
        --output-format=json --output="$work/fio.json" >/dev/null
    python3 - "$name" "$work" "$(merged_pct "$before" "$(counts)")" >> "$results" <<'PY'
import json, sys
name, work, merged = sys.argv[1], sys.argv[2], sys.argv[3]
job = json.load(open(f"{work}/fio.json"))["jobs"][0]
ios = job["read"]["total_ios"] + job["write"]["total_ios"]
iops = job["read"]["iops"] + job["write"]["iops"]
u, s = map(float, open(f"{work}/fio.time").read().split()[-2:])
print(f"fio\t{name}\t{iops:.1f}\t{(u + s) / ios * 1e6:.3f}\t{merged}\t{s / ios * 1e6:.3f}")
PY
}
run_drivebench() {
    local before
    rm -rf "$work/db"
    before="$(counts)"
    /usr/bin/time -f "%U %S" -o "$work/db.time" "$DB" sweep --target "$file" --fill 0 \
        --bs "$bs" --read-pct "$rpct" --random-pct "$rnd" --threads 1 --depth "$depth" \
        --io-engine io_uring --curve max --warmup 0s --duration "${DURATION}s" --quiet \
        --out "$work/db" >/dev/null
    python3 - "$name" "$work" "$(merged_pct "$before" "$(counts)")" >> "$results" <<'PY'
import json, sys
name, work, merged = sys.argv[1], sys.argv[2], sys.argv[3]
point = json.load(open(f"{work}/db/result.json"))["sweeps"][0]["points"][0]
u, s = map(float, open(f"{work}/db.time").read().split()[-2:])
print(f"drivebench\t{name}\t{point['iops']:.1f}\t{(u + s) / point['ios'] * 1e6:.3f}\t{merged}\t{s / point['ios'] * 1e6:.3f}")
PY
}
while read -r name rw bs depth rpct rnd; do
    [[ "$name" =~ ${ONLY:-.} ]] || continue
    for p in $(seq 1 "$PAIRS"); do
        # Which tool goes first alternates: a drive whose speed drifts (a virtual disk's
        # burst credits, a host's other tenants) favours neither.
        if [ $((p % 2)) = 1 ]; then run_fio; run_drivebench; else run_drivebench; run_fio; fi
        grep -P "^fio\t$name\t" "$results" | tail -1 | sed "s/^/pair $p: /"
        grep -P "^drivebench\t$name\t" "$results" | tail -1 | sed "s/^/pair $p: /"
    done
done <<< "$CASES"

rm -rf "$work/rate"
"$DB" sweep --target "$file" --fill 0 --bs 4k --read-pct 100 --random-pct 100 --threads 1 \
    --depth 32 --io-engine io_uring --curve 50,90 --warmup 1s --duration "${DURATION}s" --quiet \
    --out "$work/rate" >/dev/null

python3 - "$results" "$work/rate/result.json" <<'PY'
import json, statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
# The kernel's part of the CPU per I/O (system time) is the same path for both tools (io_uring
# submission, the block layer, the completion): the floor under any CPU ratio.
print("\ncase | IOPS drivebench | IOPS fio | IOPS ratio (median of pairs) | CPU-µs/IO drivebench | CPU-µs/IO fio | CPU ratio | of it kernel µs/IO drivebench | kernel µs/IO fio | merged % drivebench | merged % fio")
for name in dict.fromkeys(r[1] for r in rows):
    def col(tool, i):
        return [float(r[i]) for r in rows if r[0] == tool and r[1] == name]
    med = lambda tool, i: statistics.median(col(tool, i))
    ratio = statistics.median(d / f for d, f in zip(col("drivebench", 2), col("fio", 2)))
    print(f"{name} | {med('drivebench', 2):.0f} | {med('fio', 2):.0f} | {ratio:.3f} | {med('drivebench', 3):.2f} | {med('fio', 3):.2f} | {med('drivebench', 3) / med('fio', 3):.3f} | {med('drivebench', 5):.2f} | {med('fio', 5):.2f} | {med('drivebench', 4):.1f} | {med('fio', 4):.1f}")
sweep = json.load(open(sys.argv[2]))["sweeps"][0]
print(f"\nrate accuracy (4K randread, depth 32; max {sweep['max_iops']:.0f} IOPS)")
print("point | target IOPS | achieved IOPS | error")
for p in sweep["points"][1:]:
    err = (p["iops"] - p["target_iops"]) / p["target_iops"] * 100
    print(f"{p['target_pct']:.0f} % | {p['target_iops']:.0f} | {p['iops']:.0f} | {err:+.2f} %")
PY
