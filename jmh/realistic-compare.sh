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

# A JDK >= 21 (the build's own is 25): $JAVA, $JAVA_HOME, then the newest under /usr/lib/jvm.
pick_java() {
  local c v best="" best_v=0
  for c in ${JAVA:+"$JAVA"} ${JAVA_HOME:+"$JAVA_HOME/bin/java"} /usr/lib/jvm/*/bin/java; do
    [ -x "$c" ] || continue
    v="$("$c" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1)"
    if [ -n "$v" ] && [ "$v" -ge 21 ] && [ "$v" -gt "$best_v" ]; then best="$c"; best_v="$v"; fi
  done
  [ -n "$best" ] || { echo "realistic-compare: no JDK 21 or newer found (set JAVA)" >&2; exit 1; }
  echo "$best"
}
java="$(pick_java)"
if [ -n "$help" ]; then
  sed -n '2,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
  if [ -f "$jar" ]; then echo; "$java" -cp "$jar" dev.tributary.bench.RealisticWorkload --help; fi
  exit 0
fi
jcmd="$(dirname "$java")/jcmd"
[ -x "$jcmd" ] || { echo "realistic-compare: no jcmd beside $java (a JDK, not a JRE, is needed)" >&2; exit 1; }

if [ ! -x "$pg_bin/postgres" ]; then
  echo "realistic-compare: no PostgreSQL server binaries in $pg_bin (Debian: apt-get install postgresql-15; or set PG_BIN)" >&2
  exit 1
fi

if [ ! -f "$jar" ] || [ -n "$(find "$root"/*/src/main "$root"/pom.xml "$root"/*/pom.xml -newer "$jar" -print -quit)" ]; then
  echo "realistic-compare: building jmh/target/benchmarks.jar..." >&2
  # shellcheck disable=SC2086
  (cd "$root" && mvn -q -B -Dstyle.color=never ${MVN_FLAGS:-} -pl jmh -am package -DskipTests) >&2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/realistic-compare.XXXXXX")"
tributary_pid=""
pg_started=""
if [ "$(id -u)" = 0 ]; then
  chown postgres "$work"
  as_postgres() { runuser -u postgres -- "$@"; }
else
  as_postgres() { "$@"; }
fi

cleanup() {
  local rc=$?
  if [ -n "$tributary_pid" ]; then
    kill "$tributary_pid" 2>/dev/null || true
    wait "$tributary_pid" 2>/dev/null || true
  fi
  if [ -n "$pg_started" ]; then
    as_postgres "$pg_bin/pg_ctl" -D "$work/pgdata" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ $rc -ne 0 ]; then
    for log in "$work/postgres.log" "$work/tributary.log"; do
      [ -s "$log" ] && { echo "--- $log (last lines)" >&2; tail -n 20 "$log" >&2; }
    done
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "realistic-compare: starting PostgreSQL ($("$pg_bin/postgres" --version)) on 127.0.0.1:$pg_port" >&2
as_postgres "$pg_bin/initdb" -D "$work/pgdata" -U postgres --auth=trust -E UTF8 --locale=C >"$work/initdb.log" 2>&1 \
  || { cat "$work/initdb.log" >&2; exit 1; }
pg_started=yes
as_postgres "$pg_bin/pg_ctl" -D "$work/pgdata" -l "$work/postgres.log" -w -t 60 \
  -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=1GB" \
  start >/dev/null

server_opts=(--add-exports java.base/jdk.internal.misc=ALL-UNNAMED)
[ -n "$jfr" ] && server_opts+=("-XX:StartFlightRecording=filename=$jfr,settings=profile,dumponexit=true")
# shellcheck disable=SC2206
server_opts+=(${TRIBUTARY_JAVA_OPTS:--Xmx8g})
"$java" "${server_opts[@]}" -cp "$jar" dev.tributary.server.pgwire.PgServer --port 0 >"$work/tributary.log" 2>&1 &
tributary_pid=$!
tributary_port=""
for _ in $(seq 1 300); do
  tributary_port="$(sed -n 's/^tributary: listening on [^ ]*:\([0-9]*\) .*/\1/p' "$work/tributary.log")"
  [ -n "$tributary_port" ] && break
  kill -0 "$tributary_pid" 2>/dev/null || { echo "realistic-compare: tributary serve exited" >&2; exit 1; }
  sleep 0.2
done
[ -n "$tributary_port" ] || { echo "realistic-compare: tributary serve did not start listening within 60 s" >&2; exit 1; }
echo "realistic-compare: tributary serve on 127.0.0.1:$tributary_port (pid $tributary_pid, $("$java" -version 2>&1 | head -n1), ${server_opts[*]})" >&2

# Live heap after a full GC, in bytes: G1's heap line reads "garbage-first heap   total reserved
# 8388608K, committed 528384K, used 301234K [...]" (ZGC's "ZHeap used 10M, ..." also matches).
heap_awk='/[Hh]eap/ && match($0, /used [0-9]+[KMG]/) { u = substr($0, RSTART + RLENGTH - 1, 1); printf "%.0f\n", substr($0, RSTART + 5, RLENGTH - 6) * (u == "K" ? 1024 : u == "M" ? 1048576 : 1073741824); exit }'
memory_cmd="'$jcmd' $tributary_pid GC.run >/dev/null && '$jcmd' $tributary_pid GC.heap_info | awk '$heap_awk'"

"$java" -cp "$jar" dev.tributary.bench.RealisticWorkload \
  --target "tributary=jdbc:postgresql://127.0.0.1:$tributary_port/tributary?user=tributary" \
  --target "postgres=jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=postgres" \
  --memory-cmd "tributary=$memory_cmd" \
  ${harness_args[@]+"${harness_args[@]}"}
