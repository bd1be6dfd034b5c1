#!/usr/bin/env bash
# Durable writes over the wire: Tributary's server with a data directory against a PostgreSQL 15
# server with its default settings (fsync and synchronous_commit on), side by side, by the same
# JDBC client (DurableWriteHarness): single-row INSERT commits at 1, 4 and 16 connections, a COPY
# of 10M generated rows, the bytes on disk after it, and (Tributary only) the latency from a
# commit to a subscriber reading the row.
#
#   jmh/durable-compare.sh [--jfr FILE] [--connections 1,4,16] [--warmup 5] [--seconds 10]
#                          [--copy-rows 10000000] [--seed 7] [--settle-seconds 5]
#                          [--subscribe-rate 200] [--phase-timeout-seconds 1800]
#   jmh/durable-compare.sh --help      this text and the harness's options
#
# A quick run: jmh/durable-compare.sh --copy-rows 200000 --seconds 3 --warmup 1 --settle-seconds 2
#
# Builds jmh/target/benchmarks.jar when it is missing or older than the sources, starts a
# throw-away PostgreSQL cluster (initdb into a temporary directory, run as user postgres when
# started as root, loopback port $PG_PORT, default 15452, default settings) and Tributary's server
# (`tributary serve` from the same jar, on a free port, durable in the temporary directory's
# tributary-data, with $TRIBUTARY_JAVA_OPTS, default -Xmx8g), so both keep their data on the same
# disk; runs the harness, which sums the files under tributary-data for Tributary's bytes on disk;
# and stops both servers and removes the directory at the end, also on failure. The exit status
# is 1 when any measurement failed (a server error, a phase past its timeout, a wrong answer:
# e.g. a table not holding every acknowledged commit).
# --jfr FILE records a JFR profile (settings=profile) of Tributary's server into FILE.
# Environment: PG_BIN (default /usr/lib/postgresql/15/bin), PG_PORT, JAVA (a JDK >= 21 java),
# TMPDIR (where both servers' data go), TRIBUTARY_JAVA_OPTS, MVN_FLAGS (e.g. -o), POSTGRES_FIRST=1
# (PostgreSQL's run of each phase first: run both orders to see what the other's leftovers cost).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
pg_port="${PG_PORT:-15452}"
jar="$root/jmh/target/benchmarks.jar"

jfr=""
help=""
harness_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) help=yes; shift ;;
    --jfr) [ $# -ge 2 ] || { echo "durable-compare: --jfr needs a file" >&2; exit 2; }; jfr="$(realpath -m "$2")"; shift 2 ;;
    --tributary-data) echo "durable-compare: the script gives --tributary-data itself" >&2; exit 2 ;;
    *) harness_args+=("$1"); shift ;;
  esac
done

me=durable-compare
# shellcheck source=jmh/side-by-side.sh
. "$root/jmh/side-by-side.sh"
java="$(pick_java)"
if [ -n "$help" ]; then
  sed -n '2,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
  if [ -f "$jar" ]; then echo; "$java" -cp "$jar" dev.tributary.bench.DurableWriteHarness --help; fi
  exit 0
fi
side_by_side_prepare
start_postgres ""
start_tributary "-Xmx8g" --data "$work/tributary-data"

targets=(--target "tributary=jdbc:postgresql://127.0.0.1:$tributary_port/tributary?user=tributary"
         --target "postgres=jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=postgres")
# each phase runs the targets in this order; the one that goes second runs beside what the first
# left behind (Tributary's workers applying and merging a COPY, PostgreSQL's checkpoint of its WAL)
[ "${POSTGRES_FIRST:-0}" = 1 ] && targets=("${targets[@]:2:2}" "${targets[@]:0:2}")
"$java" -cp "$jar" dev.tributary.bench.DurableWriteHarness \
  "${targets[@]}" \
  --tributary-data "$work/tributary-data" \
  ${harness_args[@]+"${harness_args[@]}"}
