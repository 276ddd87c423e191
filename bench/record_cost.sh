#!/usr/bin/env bash
# Per-sample cost of recording a transaction into a histogram shard (target: under 50 ns).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench record_cost 2>/dev/null
