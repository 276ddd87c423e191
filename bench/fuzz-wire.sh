#!/usr/bin/env bash
# Fuzz the MySQL wire parsers (crates/mysql-wire: greeting, OK, ERR, column definition,
# length-encoded fields) with libFuzzer through cargo-fuzz, for DURATION (default 10 minutes);
# then print libFuzzer's last status line: runs, coverage, corpus. A crash stops the run and
# leaves its input under crates/mysql-wire/fuzz/artifacts/ (exit 1).
#
#   bench/fuzz-wire.sh          # 10 minutes
#   bench/fuzz-wire.sh 60       # DURATION in seconds
#
# Needs a nightly toolchain (`rustup toolchain install nightly`) and cargo-fuzz
# (`cargo install cargo-fuzz`); the property tests in that crate run the same parsers on
# stable with `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/../crates/mysql-wire"

seconds=${1:-600}
case "$seconds" in
    ''|*[!0-9]*) echo "bench/fuzz-wire.sh: DURATION must be a number of seconds, got '$seconds'" >&2; exit 2 ;;
esac
export PATH="$PATH:$HOME/.cargo/bin:${DRIVEBENCH_CI_CACHE:-$HOME/.cache/drivebench-ci}/bin"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    echo "bench/fuzz-wire.sh: cargo-fuzz is not installed (cargo install cargo-fuzz)" >&2
    exit 2
fi
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "bench/fuzz-wire.sh: no nightly toolchain (rustup toolchain install nightly)" >&2
    exit 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo +nightly fuzz run server_packets -- -max_total_time="$seconds" -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
grep -E '^#[0-9]+.*(DONE|pulse|NEW)' "$log" | tail -1
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" || true
if ((status != 0)); then
    grep -E 'panicked|ERROR|artifact' "$log" >&2 || tail -20 "$log" >&2
    exit 1
fi
echo "fuzz-wire: no crash in ${seconds}s"
