#!/usr/bin/env python3
"""psycopg2's ways of writing many rows, timed against a running server (Tributary or PostgreSQL):

    jmh/executemany.py PORT USER DB [ROWS]
    e.g. jmh/executemany.py 6875 tributary tributary 10000;  jmh/executemany.py 5433 postgres postgres 10000

executemany sends one INSERT per row (autocommitted, then all in one transaction, psycopg2's
default); execute_values sends multi-row INSERTs of 1000 rows. It (re)creates table em
(id bigint PRIMARY KEY, customer_id int, qty int). Needs psycopg2 (Debian: python3-psycopg2).
"""
import sys, time, psycopg2, psycopg2.extras
port, user, db = int(sys.argv[1]), sys.argv[2], sys.argv[3]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 10000
c = psycopg2.connect(host="127.0.0.1", port=port, user=user, dbname=db)
c.autocommit = True
cur = c.cursor()
cur.execute("DROP TABLE IF EXISTS em")
cur.execute("CREATE TABLE em (id bigint PRIMARY KEY, customer_id int, qty int)")
rows = [(i, i % 1000, i % 10) for i in range(n)]
for mode in ["executemany, autocommit", "executemany, one transaction", "execute_values"]:
    cur.execute("DELETE FROM em")
    c.autocommit = mode.endswith("autocommit")
    t = time.perf_counter()
    if mode == "execute_values":
        psycopg2.extras.execute_values(cur, "INSERT INTO em VALUES %s", rows, page_size=1000)
    else:
        cur.executemany("INSERT INTO em VALUES (%s, %s, %s)", rows)
    if not c.autocommit: c.commit()
    c.autocommit = True
    print(f"{mode:32s} {n} rows {time.perf_counter() - t:.3f} s")
