#!/usr/bin/env bash
# Run the property-based tests (tests/props/) again and again, each round with new random
# inputs and CASES cases per property, until DURATION has passed (the round under way is
# finished); then print a summary: rounds, properties, cases run, failures. The smallest input
# of each failure is saved under tests/data/fuzz/, where tests/props/regressions.rs replays it
# once its expected typed error has a row in that test's table.
#
#   bench/fuzz.sh            # 30 minutes
#   bench/fuzz.sh 10m        # DURATION: 90s, 10m, 2h (a bare number is seconds)
#   CASES=500 bench/fuzz.sh 5m
#
# The debug profile is used on purpose: integer overflow panics there, as a finding should.
set -euo pipefail
cd "$(dirname "$0")/.."

duration_s() {
    local d=$1
    case "$d" in
        *h) echo $((${d%h} * 3600)) ;;
        *m) echo $((${d%m} * 60)) ;;
        *s) echo "${d%s}" ;;
        *[!0-9]*|'') echo "bench/fuzz.sh: DURATION must be like 90s, 10m or 2h, got '$d'" >&2; exit 2 ;;
        *) echo "$d" ;;
    esac
}

limit=$(duration_s "${1:-30m}")
cases=${CASES:-2000}
found=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$found" "$log"' EXIT

cargo test --quiet --test tests --no-run 2>/dev/null
start=$(date +%s)
rounds=0
failed_rounds=0
declare -A passed=()
declare -A failures=()
while (($(date +%s) - start < limit)); do
    rounds=$((rounds + 1))
    if ! PROPTEST_CASES=$cases DRIVEBENCH_FUZZ_FAILURES=$found \
        cargo test --quiet --test tests -- props:: --skip props::regressions --nocapture >"$log" 2>&1; then
        failed_rounds=$((failed_rounds + 1))
    fi
    while read -r name n; do
        passed[$name]=$((${passed[$name]:-0} + n))
    done < <(sed -n 's/.*property \([a-z_]*\): \([0-9]*\) cases passed.*/\1 \2/p' "$log")
    while read -r name; do
        failures[$name]=$((${failures[$name]:-0} + 1))
        grep -A3 "property $name FAILED" "$log" | sed 's/^/    /' >&2
    done < <(sed -n 's/.*property \([a-z_]*\) FAILED.*/\1/p' "$log")
    echo "round $rounds: $(grep -c ' cases passed' "$log") properties passed, $(grep -c 'property [a-z_]* FAILED' "$log") failed ($(($(date +%s) - start)) s)" >&2
done

elapsed=$(($(date +%s) - start))
total=0
nfail=0
echo "fuzz summary: $rounds rounds in ${elapsed}s, $cases cases per property per round"
for name in $(printf '%s\n' "${!passed[@]}" "${!failures[@]}" | sort -u); do
    total=$((total + ${passed[$name]:-0}))
    nfail=$((nfail + ${failures[$name]:-0}))
    printf '  %-18s %9d cases passed, %d failed rounds\n' "$name" "${passed[$name]:-0}" "${failures[$name]:-0}"
done
names=$(printf '%s\n' "${!passed[@]}" "${!failures[@]}" | sort -u | grep -c .)
echo "  properties: $names; cases run: $total (plus those of failed rounds); failures: $nfail"
if compgen -G "$found/*" >/dev/null; then
    mkdir -p tests/data/fuzz
    cp "$found"/* tests/data/fuzz/
    echo "  kept in tests/data/fuzz/: $(cd "$found" && ls | tr '\n' ' ')"
    echo "  fix the panic, then add each file's expected error to CASES in tests/props/regressions.rs"
fi
((failed_rounds == 0))
