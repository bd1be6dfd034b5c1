#!/usr/bin/env bash
# Nexmark side by side (issue 26): for each query, Flink's harness (../shared/nexmark-flink,
# Flink on a local MiniCluster, parallelism 2: one fresh JVM per query) and then Tributary's
# runner (dev.tributary.nexmark.NexmarkRunner, 2 workers: one fresh JVM per query), on the same
# events (the generators are byte-identical, NexmarkGeneratorTest), each JVM with the same fixed,
# pre-touched heap. Prints each side's line, then a table of events/s, the ratio, and the
# geometric mean over the queries both ran.
#
#   jmh/nexmark-compare.sh [--events 2000000] [--queries "q0 q1 q2 q3 q4 q5 q7 q8 q9 q20"] (q5s, q7s: the
#                          streaming forms, against Flink's q5, q7)
#                          [--repeat 1] [--tributary-only] [--sink subscribe|view]
#
# Tributary's figure is the first run in its JVM (as Flink's, JIT warm-up included); with
# --repeat R it also runs R-1 more times in the same JVM and prints the best of them ("warm").
# Environment: FLINK_HARNESS (default ../shared/nexmark-flink beside the repository), JAVA_OPTS
# (both sides; default the harness's), MVN_FLAGS (e.g. -o).
set -euo pipefail
me=nexmark-compare
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=side-by-side.sh
source "$root/jmh/side-by-side.sh"

events=2000000
queries="q0 q1 q2 q3 q4 q5 q7 q8 q9 q20"
repeat=1
flink=1
sink=subscribe
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --queries) queries="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --sink) sink="$2"; shift 2 ;;
    --tributary-only) flink=0; shift ;;
    *) echo "$me: unknown option $1" >&2; exit 2 ;;
  esac
done

java="$(pick_java)"
harness="${FLINK_HARNESS:-$root/../shared/nexmark-flink}"
java_opts="${JAVA_OPTS:--Xms6g -Xmx6g -XX:+AlwaysPreTouch -XX:+UseTransparentHugePages -XX:+UseG1GC}"
jar="$root/jmh/target/benchmarks.jar"
if [ ! -f "$jar" ] || [ -n "$(find "$root"/*/src/main "$root"/pom.xml "$root"/*/pom.xml -newer "$jar" -print -quit)" ]; then
  echo "$me: building jmh/target/benchmarks.jar..." >&2
  # shellcheck disable=SC2086
  (cd "$root" && mvn -q -B -Dstyle.color=never ${MVN_FLAGS:-} -pl jmh -am package -DskipTests) >&2
fi
if [ "$flink" = 1 ] && [ ! -x "$harness/run-all.sh" ]; then
  echo "$me: no Flink harness at $harness (set FLINK_HARNESS, or --tributary-only)" >&2
  exit 1
fi

echo "# $("$java" -version 2>&1 | head -1); events=$events; java_opts=[$java_opts]; $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cpus"
declare -A flink_rate trib_rate warm_rate flink_line
for q in $queries; do
  # q5s, q7s: Tributary's streaming forms (EMIT ON WINDOW CLOSE) of q5, q7, against Flink's q5, q7 (run once)
  fq="$q"
  [[ "$q" =~ ^q[0-9]+s$ ]] && fq="${q%s}"
  if [ "$flink" = 1 ] && [ -z "${flink_line[$fq]:-}" ]; then
    flink_line[$fq]="$(EVENTS="$events" QUERIES="$fq" JAVA_HOME="$(dirname "$(dirname "$java")")" JAVA_OPTS="$java_opts" \
      bash "$harness/run-all.sh" 2>/dev/null | grep "^query=$fq " || true)"
    echo "flink     ${flink_line[$fq]}"
  fi
  if [ "$flink" = 1 ]; then
    flink_rate[$q]="$(sed -n 's/.*events_per_s=\([0-9]*\).*/\1/p' <<<"${flink_line[$fq]}")"
  fi
  # shellcheck disable=SC2086
  out="$("$java" $java_opts --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp "$jar" dev.tributary.nexmark.NexmarkRunner \
    run --query "$q" --events "$events" --repeat "$repeat" --sink "$sink" 2>&1 | grep '^query=' || true)"
  while IFS= read -r l; do echo "tributary $l"; done <<<"$out"
  trib_rate[$q]="$(head -1 <<<"$out" | sed -n 's/.*events_per_s=\([0-9]*\).*/\1/p')"
  warm_rate[$q]="$(tail -n +2 <<<"$out" | sed -n 's/.*events_per_s=\([0-9]*\).*/\1/p' | sort -n | tail -1)"
done

echo
printf '%-5s %12s %12s %12s %8s\n' query flink tributary "warm" ratio
for q in $queries; do
  f="${flink_rate[$q]:-}"; t="${trib_rate[$q]:-}"; w="${warm_rate[$q]:-}"
  ratio=""
  [ -n "$f" ] && [ -n "$t" ] && ratio="$(awk -v t="$t" -v f="$f" 'BEGIN { printf "%.2fx", t / f }')"
  printf '%-5s %12s %12s %12s %8s\n' "$q" "${f:--}" "${t:-FAILED}" "${w:--}" "$ratio"
done
if [ "$flink" = 1 ]; then
  for q in $queries; do echo "${flink_rate[$q]:-} ${trib_rate[$q]:-}"; done | awk 'NF == 2 && $1 > 0 && $2 > 0 { s += log($2 / $1); n++ }
    END { if (n) printf "geometric mean of tributary/flink over %d queries: %.2fx\n", n, exp(s / n) }'
fi
