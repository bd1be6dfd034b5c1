#!/usr/bin/env bash
# A mixed load with and without an abusive client beside it (issue 25): pgbench runs point
# selects by primary key on orders, single-row INSERTs into orders and point reads of the view
# per_customer (one script each, equal weights, -M prepared), at 50 and then 200 clients, each
# phase once alone and once while one abusive client runs in parallel; on Tributary's server and
# on a PostgreSQL 15 server, phase by phase, on the same data.
#
#   jmh/abuse-compare.sh [--rows 1000000] [--seconds 20] [--clients 50,200] [--tributary-only]
#                        [--subscribe-buffer-rows 5000] [--stall-sockets 50] [--logs DIR]
#
# The abusive client loops, from the start of a phase to its end, through what a careless user or
# an attacker does, each thing bounded in time so that the script never hangs:
#   a  SELECT count(*) FROM generate_series(1,10000000) a, generate_series(1,1000) b
#   b  CREATE MATERIALIZED VIEW junk AS SELECT a.id FROM orders a, orders b, then DROP it
#   b2 the same with both ids (SELECT a.id AS a, b.id AS b ...): a view of 10^12 distinct rows
#   c  COPY (SUBSCRIBE orders) TO STDOUT from a client that never reads (Tributary only): the
#      server is to disconnect it past --subscribe-buffer-rows rows waiting
#   d  --stall-sockets connections that send 8 bytes of a start-up packet and stall for 10 s
#   e  SELECT of a numeric literal of a million digits
#   p  a fresh connection's SELECT 1, which must answer within 1 s (while the rest goes on)
# c and d run in the background, started again when they end; a, b, b2, e and p in turn. Each
# answer is counted by its SQLSTATE ("ok" for success, "timeout" when the script's own bound,
# 60 s, ended it). On both servers the abusive client sets statement_timeout=5s (PGOPTIONS), as
# an administrator would for such a role (ALTER ROLE ... SET is not there yet in Tributary),
# without which a and b would run for hours on PostgreSQL, and for minutes on Tributary.
#
# Per phase it prints transactions/s, failed transactions and aborted clients, and p50/p99 of
# each script from pgbench's per-transaction logs (-l); the abusive client's answers; the
# server log's errors and warnings meanwhile; and, after the phase, whether a fresh connection
# answers SELECT 1 within 1 s and whether count(*) of orders is the rows loaded plus the INSERTs
# committed. Then a summary table. Both servers get an index on per_customer (customer_id): without
# it Tributary answers a point read of the view by scanning its arrangement (~8 ms at 100k groups).
# PostgreSQL's per_customer is a plain materialized view,
# computed by CREATE and never refreshed: its reads are of a stale index, where Tributary's are
# of a view kept up to date with every INSERT.
#
# Starts a throw-away PostgreSQL cluster (initdb into a temporary directory, run as user postgres
# when started as root, loopback port $PG_PORT, default 15453, max_connections=260, fsync,
# synchronous_commit and full_page_writes off: Tributary's server keeps everything in memory)
# and Tributary's server (--in-memory --max-connections 260 --subscribe-buffer-rows N, on a free
# port, from jmh/target/benchmarks.jar, built when older than the sources; $TRIBUTARY_JAVA_OPTS,
# default -Xmx2g); stops both and removes the directory at the end, also on failure. --logs DIR
# keeps both servers' logs there. Exit status 1 when a check after a phase failed.
# Environment: PG_BIN (default /usr/lib/postgresql/15/bin), PG_PORT, JAVA (a JDK >= 21 java),
# TRIBUTARY_JAVA_OPTS, MVN_FLAGS (e.g. -o). Needs psql, pgbench and python3.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
pg_port="${PG_PORT:-15453}"
jar="$root/jmh/target/benchmarks.jar"
jfr=""

rows=1000000
seconds=20
clients="50,200"
tributary_only=""
subscribe_buffer_rows=5000
stall_sockets=50
logs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --tributary-only) tributary_only=yes; shift ;;
    --subscribe-buffer-rows) subscribe_buffer_rows="$2"; shift 2 ;;
    --stall-sockets) stall_sockets="$2"; shift 2 ;;
    --logs) logs="$(realpath -m "$2")"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "abuse-compare: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done

me=abuse-compare
# shellcheck source=jmh/side-by-side.sh
. "$root/jmh/side-by-side.sh"
java="$(pick_java)"
side_by_side_prepare
[ -n "$tributary_only" ] || start_postgres "-c max_connections=260 -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
start_tributary "-Xmx2g" --in-memory --max-connections 260 --subscribe-buffer-rows "$subscribe_buffer_rows"
servers=(tributary)
[ -n "$tributary_only" ] || servers+=(postgres)

# target NAME: sets port, user, db and log for one server
target() {
  case "$1" in
    tributary) port="$tributary_port"; user=tributary; db=tributary; log="$work/tributary.log" ;;
    postgres) port="$pg_port"; user=postgres; db=postgres; log="$work/postgres.log" ;;
  esac
}
psql_() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$user" -d "$db" "$@"; }

mixed_load_scripts "$work" "$rows"
python3 -c "print('SELECT ' + '9' * 1000000 + ' AS big;')" >"$work/big-numeric.sql"
scripts=(select insert view)

declare -A loaded inserted
for s in "${servers[@]}"; do
  target "$s"
  echo "$me: loading $rows rows and per_customer into $s" >&2
  psql_ -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS orders CASCADE" \
    -c "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, qty int)" \
    -c "INSERT INTO orders SELECT i, i % 100000, i % 10 FROM generate_series(1, $rows) AS s(i)" \
    -c "CREATE MATERIALIZED VIEW per_customer AS SELECT customer_id, count(*), sum(qty) FROM orders GROUP BY customer_id" \
    -c "CREATE INDEX per_customer_customer_id ON per_customer (customer_id)" >/dev/null
  if [ "$s" = postgres ]; then psql_ -c "VACUUM ANALYZE" >/dev/null; fi
  loaded[$s]=$rows
  inserted[$s]=0
  # a warm-up, not counted but for its INSERTs: the JIT compiler's and the caches' first minutes
  (cd "$work" && pgbench -n -h 127.0.0.1 -p "$port" -U "$user" -M prepared -c 8 -j 2 -T 5 -l --log-prefix=warm \
    -f select.sql@1 -f insert.sql@1 -f view.sql@1 "$db" >"$work/pgbench-warm.out" 2>&1) || true
  inserted[$s]=$(cat "$work"/warm.* 2>/dev/null | awk '$4 == 1 && $3 ~ /^[0-9]+$/ { n++ } END { print n + 0 }')
  rm -f "$work"/warm.*
done

# ----------------------------------------------------------------- the abusive client

# seconds since $1 (a date +%s.%N)
since() { awk -v now="$(date +%s.%N)" -v then="$1" 'BEGIN { printf "%.2f", now - then }'; }

# one psql statement of the abusive client: records "ACTION SQLSTATE SECONDS" in $work/abuse.log
abuse_sql() {
  local action="$1" started code rc
  shift
  started=$(date +%s.%N)
  rc=0
  PGOPTIONS="$abuse_pgoptions" timeout 60 psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -h 127.0.0.1 -p "$port" -U "$user" -d "$db" \
    "$@" >/dev/null 2>"$work/abuse.err" || rc=$?
  if [ $rc = 0 ]; then code=ok
  elif [ $rc = 124 ]; then code=timeout
  else code="$(sed -n 's/^\(psql:[^ ]* \)\{0,1\}\(ERROR\|FATAL\):  \([0-9A-Z]\{5\}\):.*/\3/p' "$work/abuse.err" | head -n1)"; code="${code:-rc$rc}"
  fi
  echo "$action $code $(since "$started")" >>"$work/abuse.log"
}

# the abusive client of one phase, until $work/abuse.stop exists
abuse_loop() {
  local bg_stall="" bg_sub="" phase_end=$(($(date +%s) + seconds))
  while [ ! -e "$work/abuse.stop" ]; do
    if [ -z "$bg_stall" ] || ! kill -0 "$bg_stall" 2>/dev/null; then
      python3 "$root/jmh/abuse-client.py" stall 127.0.0.1 "$port" "$stall_sockets" 10 >>"$work/abuse.bg" 2>&1 &
      bg_stall=$!
    fi
    if [ "$server" = tributary ] && { [ -z "$bg_sub" ] || ! kill -0 "$bg_sub" 2>/dev/null; }; then
      local hold=$((phase_end - $(date +%s)))
      [ "$hold" -lt 5 ] && hold=5
      python3 "$root/jmh/abuse-client.py" subscribe 127.0.0.1 "$port" "$user" "$db" "COPY (SUBSCRIBE orders) TO STDOUT" "$log" "$hold" \
        >>"$work/abuse.bg" 2>&1 &
      bg_sub=$!
    fi
    abuse_sql a -c "SELECT count(*) FROM generate_series(1,10000000) a, generate_series(1,1000) b"
    [ -e "$work/abuse.stop" ] && break
    abuse_sql b -c "CREATE MATERIALIZED VIEW junk AS SELECT a.id FROM orders a, orders b"
    abuse_sql b-drop -c "DROP MATERIALIZED VIEW IF EXISTS junk"
    [ -e "$work/abuse.stop" ] && break
    abuse_sql b2 -c "CREATE MATERIALIZED VIEW junk2 AS SELECT a.id AS a, b.id AS b FROM orders a, orders b"
    abuse_sql b2-drop -c "DROP MATERIALIZED VIEW IF EXISTS junk2"
    [ -e "$work/abuse.stop" ] && break
    abuse_sql e -f "$work/big-numeric.sql"
    local t0 rc=0
    t0=$(date +%s.%N)
    timeout 1 psql -X -q -h 127.0.0.1 -p "$port" -U "$user" -d "$db" -c "SELECT 1" >/dev/null 2>&1 || rc=$?
    echo "p $([ $rc = 0 ] && echo ok || echo "NOT-ANSWERED-IN-1s") $(since "$t0")" >>"$work/abuse.log"
  done
  # the background parts end on their own bounds (10 s; the phase's end plus at most 20 s)
  wait
}

abuse_report() {
  echo "  abusive client: action, answer: count (median seconds)"
  sort "$work/abuse.log" | awk '{ k = $1 " " $2; n[k]++; t[k, n[k]] = $3 }
    END { for (k in n) { m = t[k, int((n[k] + 1) / 2)]; printf "    %-8s %-20s %4d  (%.2f s)\n", substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1), n[k], m } }' | sort
  [ -s "$work/abuse.bg" ] && sed 's/^/    /' "$work/abuse.bg"
  return 0
}

# the server log's errors and warnings since line $1, by kind (time stamps, pids and statements' text cut)
log_report() {
  echo "  $server's log meanwhile (errors, warnings, disconnections of streaming clients; count, kind):"
  tail -n +"$1" "$log" | grep -aE '(ERROR|FATAL|PANIC|WARN|WARNING):|disconnecting it|OutOfMemoryError' | grep -av '^\s*at ' \
    | sed -E 's/^[0-9-]+ [0-9:.]+ [A-Z]+ \[[^]]*\] //; s/[0-9]+ rows unread/N rows unread/; s/(connection) [0-9]+:/\1 N:/; s/session time: .*//' \
    | cut -c1-150 | sort | uniq -c | sort -rn | head -n 15 | sed 's/^/   /' || true
  return 0
}

# ----------------------------------------------------------------- the phases

# p50 and p99 (ms) of each script from pgbench's per-transaction logs (field 4: the script's number)
percentiles() {
  cat "$work"/log.* | awk '$3 ~ /^[0-9]+$/ { print $4, $3 / 1000.0 }' | sort -k1,1n -k2,2g | awk '
    { n[$1]++; v[$1, n[$1]] = $2 }
    END { for (s = 0; s <= 2; s++) { c = n[s]; if (!c) { print s, 0, "-", "-"; continue }
            p99 = int(c * 0.99) + 1; if (p99 > c) p99 = c
            printf "%d %d %.3f %.3f\n", s, c, v[s, int(c * 0.50) + 1], v[s, p99] } }'
}

failed=0
declare -A tps p99 fails
for c in ${clients//,/ }; do
  for server in "${servers[@]}"; do
    target "$server"
    for how in alone beside; do
      key="$server,$c,$how"
      echo "== $server, $c clients, $how$([ "$how" = beside ] && echo " an abusive client")"
      from=$(($(wc -l <"$log") + 1))
      rm -f "$work"/log.* "$work"/abuse.*
      abuse_pid=""
      if [ "$how" = beside ]; then
        abuse_pgoptions="-c statement_timeout=5s"
        abuse_loop &
        abuse_pid=$!
      fi
      rc=0
      (cd "$work" && pgbench -n -h 127.0.0.1 -p "$port" -U "$user" -M prepared -c "$c" -j 2 -T "$seconds" -l --log-prefix=log \
        -f select.sql@1 -f insert.sql@1 -f view.sql@1 "$db" >"$work/pgbench.out" 2>&1) || rc=$?
      if [ -n "$abuse_pid" ]; then
        touch "$work/abuse.stop"
        wait "$abuse_pid" || true
      fi
      tps[$key]="$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$work/pgbench.out")"
      tps[$key]="${tps[$key]:-0}"
      fails[$key]="$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$work/pgbench.out")"
      aborted=$(grep -c 'aborted' "$work/pgbench.out" || true)
      printf "  %s transactions/s, %s failed, %d clients aborted (pgbench exit %d)\n" "${tps[$key]}" "${fails[$key]:-?}" "$aborted" "$rc"
      grep -a 'aborted\|ERROR' "$work/pgbench.out" | sed -E 's/client [0-9]+/client N/; s/script [0-9]+/script N/' | sort | uniq -c | head -n 5 | sed 's/^/   /' || true
      while read -r s n p50 p; do
        printf "  %-22s %8d done, p50 %8s ms, p99 %9s ms\n" "${scripts[$s]}" "$n" "$p50" "$p"
        p99[$key,$s]="$p"
        [ "$s" = 1 ] && inserted[$server]=$((inserted[$server] + n))
      done < <(percentiles)
      if [ -n "$abuse_pid" ]; then abuse_report; fi
      log_report "$from"
      # after the phase: a fresh connection answers at once, and no acknowledged INSERT is lost
      t0=$(date +%s%N)
      if timeout 1 psql -X -q -h 127.0.0.1 -p "$port" -U "$user" -d "$db" -c "SELECT 1" >/dev/null 2>&1; then
        echo "  after: SELECT 1 on a fresh connection in $((($(date +%s%N) - t0) / 1000000)) ms"
      else
        echo "  after: CHECK FAILED: a fresh connection's SELECT 1 did not answer within 1 s"; failed=1
      fi
      expected=$((loaded[$server] + inserted[$server]))
      got="$(timeout 60 psql -X -At -h 127.0.0.1 -p "$port" -U "$user" -d "$db" -c "SELECT count(*) FROM orders" 2>&1 || true)"
      if [ "$got" = "$expected" ]; then
        echo "  after: count(*) of orders = $got = $rows loaded + ${inserted[$server]} INSERTs committed"
      else
        echo "  after: CHECK FAILED: count(*) of orders is '$got', not $expected ($rows loaded + ${inserted[$server]} INSERTs committed)"; failed=1
      fi
      kill -0 "$tributary_pid" 2>/dev/null || { echo "  CHECK FAILED: Tributary's server exited"; failed=1; break 3; }
    done
  done
done

echo
echo "Summary: transactions/s and p99 (ms) of each script, alone and beside the abusive client, $seconds s a phase"
echo "(PostgreSQL's per_customer is a materialized view never refreshed; Tributary's is maintained)"
printf "%-10s %7s | %9s %9s %6s | %19s | %19s | %19s\n" server clients "tps alone" "beside" ratio "p99 select" "p99 insert" "p99 view read"
for c in ${clients//,/ }; do
  for server in "${servers[@]}"; do
    a="$server,$c,alone"; b="$server,$c,beside"
    [ -n "${tps[$a]:-}" ] || continue
    ratio="$(awk -v x="${tps[$b]:-0}" -v y="${tps[$a]}" 'BEGIN { printf (y > 0 ? "%.2f" : "-"), x / y }')"
    printf "%-10s %7s | %9.0f %9.0f %6s |" "$server" "$c" "${tps[$a]}" "${tps[$b]:-0}" "$ratio"
    for s in 0 1 2; do printf " %8s / %8s |" "${p99[$a,$s]:--}" "${p99[$b,$s]:--}"; done
    echo
  done
done
if [ -n "$logs" ]; then
  mkdir -p "$logs"
  cp "$work/tributary.log" "$logs/"
  [ -f "$work/postgres.log" ] && cp "$work/postgres.log" "$logs/"
  echo "$me: the servers' logs are in $logs" >&2
fi
exit $failed
