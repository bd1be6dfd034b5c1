#!/usr/bin/env bash
# Nexmark results against Flink's (issue 26): the Flink harness (../shared/nexmark-flink, or
# FLINK_HARNESS) generates the events and prints each query's changelog (run --collect); the
# nexmark module's FlinkResultTest sums each changelog and compares it with the query run in
# Tributary over the same events.
#
#   jmh/nexmark-flink-check.sh [--events 100000] [--queries "q0 q1 q2 q3 q4 q5 q7 q8 q9 q20"]
#
# Environment: FLINK_HARNESS, MVN_FLAGS (e.g. -o). The harness must be built (its run-all.sh builds it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
events=100000
queries="q0 q1 q2 q3 q4 q5 q7 q8 q9 q20"
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --queries) queries="$2"; shift 2 ;;
    *) echo "nexmark-flink-check: unknown option $1" >&2; exit 2 ;;
  esac
done
harness="${FLINK_HARNESS:-$root/../shared/nexmark-flink}"
# shellcheck source=side-by-side.sh
source "$root/jmh/side-by-side.sh"
java="$(pick_java)"
if [ ! -f "$harness/target/classpath.txt" ]; then
  echo "nexmark-flink-check: build the harness first (its run-all.sh), at $harness" >&2
  exit 1
fi
work="$(mktemp -d)"
cp="$harness/target/classes:$(cat "$harness/target/classpath.txt")"
"$java" -cp "$cp" nexmark.Main gen --events "$events" --out "$work/events" > /dev/null
mkdir -p "$work/out"
for q in $queries; do
  echo "flink $q..." >&2
  "$java" -Xmx4g -cp "$cp" nexmark.Main run --query "$q" --data "$work/events" --parallelism 2 --collect 1000000000 > "$work/out/$q.out" 2> "$work/out/$q.err"
  tail -1 "$work/out/$q.out" >&2
done
# shellcheck disable=SC2086
(cd "$root" && mvn -q -B ${MVN_FLAGS:-} -pl nexmark test -Dtest=FlinkResultTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtributary.flink.results="$work/out" -Dtributary.flink.events="$events")
echo "nexmark-flink-check: every query equals Flink's result on $events events ($work)"
