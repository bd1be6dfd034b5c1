#!/usr/bin/env bash
# Point selects by key through JDBC prepared statements: Tributary's server against a
# PostgreSQL 15 server on this machine, side by side, by the same client (PointSelectHarness).
#
#   jmh/pgbench-compare.sh [--jfr FILE] [--connections 1,4,16] [--warmup 5] [--seconds 10]
#                          [--rows 100000] [--seed 7] [--relation kv_view|kv]
#
# Builds jmh/target/benchmarks.jar when it is missing or older than the sources, starts a
# throw-away PostgreSQL cluster (initdb into a temporary directory, run as user postgres when
# started as root, loopback port $PG_PORT, default 15450, default settings) and Tributary's server
# (`tributary serve` from the same jar, on a free port), loads both, runs the harness and prints
# a table. Both servers are stopped and the directory removed at the end, also on failure.
# --jfr FILE records a JFR profile (settings=profile) of Tributary's server into FILE.
# Environment: PG_BIN (default /usr/lib/postgresql/15/bin), PG_PORT, JAVA (a JDK >= 21 java),
# TRIBUTARY_JAVA_OPTS (extra server JVM options), MVN_FLAGS (e.g. -o).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
pg_port="${PG_PORT:-15450}"
jar="$root/jmh/target/benchmarks.jar"

jfr=""
harness_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jfr) [ $# -ge 2 ] || { echo "pgbench-compare: --jfr needs a file" >&2; exit 2; }; jfr="$(realpath -m "$2")"; shift 2 ;;
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
  [ -n "$best" ] || { echo "pgbench-compare: no JDK 21 or newer found (set JAVA)" >&2; exit 1; }
  echo "$best"
}
java="$(pick_java)"

if [ ! -x "$pg_bin/postgres" ]; then
  echo "pgbench-compare: no PostgreSQL server binaries in $pg_bin (Debian: apt-get install postgresql-15; or set PG_BIN)" >&2
  exit 1
fi

if [ ! -f "$jar" ] || [ -n "$(find "$root"/*/src/main "$root"/pom.xml "$root"/*/pom.xml -newer "$jar" -print -quit)" ]; then
  echo "pgbench-compare: building jmh/target/benchmarks.jar..." >&2
  # shellcheck disable=SC2086
  (cd "$root" && mvn -q -B -Dstyle.color=never ${MVN_FLAGS:-} -pl jmh -am package -DskipTests) >&2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/pgbench-compare.XXXXXX")"
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

echo "pgbench-compare: starting PostgreSQL ($("$pg_bin/postgres" --version)) on 127.0.0.1:$pg_port" >&2
as_postgres "$pg_bin/initdb" -D "$work/pgdata" -U postgres --auth=trust -E UTF8 --locale=C >"$work/initdb.log" 2>&1 \
  || { cat "$work/initdb.log" >&2; exit 1; }
pg_started=yes
as_postgres "$pg_bin/pg_ctl" -D "$work/pgdata" -l "$work/postgres.log" -w -t 60 \
  -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work" start >/dev/null

server_opts=(--add-exports java.base/jdk.internal.misc=ALL-UNNAMED)
[ -n "$jfr" ] && server_opts+=("-XX:StartFlightRecording=filename=$jfr,settings=profile,dumponexit=true")
# shellcheck disable=SC2206
server_opts+=(${TRIBUTARY_JAVA_OPTS:-})
"$java" "${server_opts[@]}" -cp "$jar" dev.tributary.server.pgwire.PgServer --port 0 >"$work/tributary.log" 2>&1 &
tributary_pid=$!
tributary_port=""
for _ in $(seq 1 300); do
  tributary_port="$(sed -n 's/^tributary: listening on [^ ]*:\([0-9]*\) .*/\1/p' "$work/tributary.log")"
  [ -n "$tributary_port" ] && break
  kill -0 "$tributary_pid" 2>/dev/null || { echo "pgbench-compare: tributary serve exited" >&2; exit 1; }
  sleep 0.2
done
[ -n "$tributary_port" ] || { echo "pgbench-compare: tributary serve did not start listening within 60 s" >&2; exit 1; }
echo "pgbench-compare: tributary serve on 127.0.0.1:$tributary_port (pid $tributary_pid, $("$java" -version 2>&1 | head -n1))" >&2

"$java" -cp "$jar" dev.tributary.bench.PointSelectHarness \
  --target "tributary=jdbc:postgresql://127.0.0.1:$tributary_port/tributary?user=tributary" \
  --target "postgres=jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=postgres" \
  ${harness_args[@]+"${harness_args[@]}"}
