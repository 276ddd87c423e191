#!/usr/bin/env bash
# CPU time per transaction of a whole drivebench process running the quickstart (embedded
# SQLite, so the engine's own work is included), measured with /usr/bin/time -v.
# Usage: bench/client_cpu.sh [TIME_SCALE]   (default 1: the full 45 s protocol)
set -euo pipefail
cd "$(dirname "$0")/.."
scale="${1:-1}"
cargo build --release -q
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/time -v -o "$work/time.txt" ./target/release/drivebench run scenarios/quickstart.toml \
    --quiet --time-scale "$scale" --out "$work/run" --target "$work/target" > "$work/stdout.txt"
python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
t = open(f"{work}/time.txt").read()
user = float(re.search(r"User time \(seconds\): ([\d.]+)", t).group(1))
sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", t).group(1))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
r = json.load(open(f"{work}/run/result.json"))
tx = sum(p["summary"]["transactions"] for p in r["phases"])
secs = sum(p["summary"]["seconds"] for p in r["phases"])
sample = [p for p in r["phases"] if p["recorded"]][0]["summary"]
print(f"transactions (all phases): {tx} in {secs:.1f} s")
print(f"sample: tps {sample['tps']:.1f}, avg {sample['latency_ms']['avg']:.3f} ms, p99 {sample['latency_ms']['p99']:.3f} ms")
print(f"cpu: user {user:.2f} s + sys {sys_:.2f} s (includes the load)")
print(f"cpu per transaction: {(user + sys_) / tx * 1e6:.1f} us (SQLite engine work included)")
print(f"max rss: {rss / 1024:.1f} MiB")
PY
