#!/usr/bin/env bash
# An order-processing workload (RealisticWorkload): bulk load by COPY, four materialized views,
# single-row and 1000-row transactions timed until the views show them, dimension updates, point
# selects by key and SELECT 1, and memory, run by the same JDBC client against Tributary's server
# and a PostgreSQL 15 server on this machine, phase by phase, on the same generated data; after
# each phase that changes the views, both servers' views are read in full and compared.
#
#   jmh/realistic-compare.sh [--jfr FILE] [--orders 1000000] [--customers 100000] [--products 10000]
#                            [--single 2000] [--batches 50] [--dimension 200] [--seed 7]
#                            [--pg-refreshes 20] [--phase-timeout-seconds 1800] [...]
#   jmh/realistic-compare.sh --help      this text and the harness's options
#
# Every option but --jfr goes to the harness (RealisticWorkload --help lists them). How
# PostgreSQL's side is measured: its views are materialized views, computed by CREATE and not
# maintained; in the single-row phase the first --pg-refreshes INSERTs are each followed by a full
# REFRESH MATERIALIZED VIEW v1 and timed until visible, the rest are timed as INSERTs alone; the
# 1000-row phase times the transactions to COMMIT and the dimension phase the UPDATEs alone. After each of those
# three phases PostgreSQL refreshes all four views (the "catch-up" figure), and then both sides'
# views are compared row by row: a difference prints the rows and the exit status is 1, as it
# is when either side fails (a wrong answer, an error, a hang past twice the phase timeout).
#
# Builds jmh/target/benchmarks.jar when it is missing or older than the sources, starts a
# throw-away PostgreSQL cluster (initdb into a temporary directory, run as user postgres when
# started as root, loopback port $PG_PORT, default 15451, with fsync, synchronous_commit and
# full_page_writes off and shared_buffers=1GB: durability costs nothing on either side, since
# Tributary's server keeps everything in memory) and Tributary's server (`tributary serve` from
# the same jar, on a free port, with $TRIBUTARY_JAVA_OPTS, default -Xmx8g), runs the harness,
# and stops both servers and removes the directory at the end, also on failure. Tributary's
# memory is its live heap after a full GC, read by jcmd (GC.run, then the used figure of
# GC.heap_info's heap line); PostgreSQL's is pg_total_relation_size over its tables, indexes
# and views.
# --jfr FILE records a JFR profile (settings=profile) of Tributary's server into FILE.
# Environment: PG_BIN (default /usr/lib/postgresql/15/bin), PG_PORT, JAVA (a JDK >= 21 java, with
# jcmd beside it), TRIBUTARY_JAVA_OPTS, MVN_FLAGS (e.g. -o).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
pg_port="${PG_PORT:-15451}"
jar="$root/jmh/target/benchmarks.jar"

jfr=""
help=""
harness_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) help=yes; shift ;;
    --jfr) [ $# -ge 2 ] || { echo "realistic-compare: --jfr needs a file" >&2; exit 2; }; jfr="$(realpath -m "$2")"; shift 2 ;;
    *) harness_args+=("$1"); shift ;;
  esac
done

me=realistic-compare
# shellcheck source=jmh/side-by-side.sh
. "$root/jmh/side-by-side.sh"
java="$(pick_java)"
if [ -n "$help" ]; then
  sed -n '2,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
  if [ -f "$jar" ]; then echo; "$java" -cp "$jar" dev.tributary.bench.RealisticWorkload --help; fi
  exit 0
fi
jcmd="$(dirname "$java")/jcmd"
[ -x "$jcmd" ] || { echo "realistic-compare: no jcmd beside $java (a JDK, not a JRE, is needed)" >&2; exit 1; }
side_by_side_prepare
start_postgres "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=1GB"
start_tributary "-Xmx8g" --in-memory  # PostgreSQL runs without fsync here too

# Live heap after a full GC, in bytes: G1's heap line reads "garbage-first heap   total reserved
# 8388608K, committed 528384K, used 301234K [...]" (ZGC's "ZHeap used 10M, ..." also matches).
heap_awk='/[Hh]eap/ && match($0, /used [0-9]+[KMG]/) { u = substr($0, RSTART + RLENGTH - 1, 1); printf "%.0f\n", substr($0, RSTART + 5, RLENGTH - 6) * (u == "K" ? 1024 : u == "M" ? 1048576 : 1073741824); exit }'
memory_cmd="'$jcmd' $tributary_pid GC.run >/dev/null && '$jcmd' $tributary_pid GC.heap_info | awk '$heap_awk'"

"$java" -cp "$jar" dev.tributary.bench.RealisticWorkload \
  --target "tributary=jdbc:postgresql://127.0.0.1:$tributary_port/tributary?user=tributary" \
  --target "postgres=jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=postgres" \
  --memory-cmd "tributary=$memory_cmd" \
  ${harness_args[@]+"${harness_args[@]}"}
