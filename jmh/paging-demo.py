"""Paging demo (issue 24): a join + GROUP BY materialized view whose arrangements hold several times
the heap. Loads customers and orders with COPY in chunks, keeps a model of per-customer count and
sum, and checks the view against it; changes rows and checks again; after a restart (phase
"restart") checks again. Run by jmh/paging-demo.sh.
usage: paging-demo.py PORT CUSTOMERS ORDERS CHUNK NOTE_BYTES [load|restart]
(VIEW_AFTER_LOAD=1: the view is created over the loaded tables, a hydration, instead of before.)
"""
import io, os, sys, time, psycopg2

port, ncust, norders, chunk, note_bytes = (int(a) for a in sys.argv[1:6])
phase = sys.argv[6] if len(sys.argv) > 6 else "load"

def connect():
    c = psycopg2.connect(host="127.0.0.1", port=port, user="tributary", dbname="tributary")
    c.autocommit = True
    return c

def amount(i):
    return (i * 7919) % 100000  # cents

def model(n, changed):
    cnt = [0] * ncust
    tot = [0] * ncust
    for i in range(1, n + 1):
        if i in changed["deleted"]:
            continue
        c = i % ncust
        cnt[c] += 1
        tot[c] += amount(i) + (100 if i % 1000 == 7 and changed["updated"] else 0)
    return cnt, tot

def check(cur, n, changed, label):
    t0 = time.time()
    cur.execute("SELECT id, n, total FROM per_customer")
    rows = cur.fetchall()
    cnt, tot = model(n, changed)
    seen = 0
    bad = 0
    for cid, k, total in rows:
        seen += 1
        cents = int(round(float(total) * 100))
        if cnt[cid] != k or tot[cid] != cents:
            bad += 1
            if bad < 5:
                print("  MISMATCH customer", cid, (k, cents), "expected", (cnt[cid], tot[cid]))
    expected_rows = sum(1 for x in cnt if x > 0)
    ok = bad == 0 and seen == expected_rows
    print(f"{label}: {seen} rows of per_customer, expected {expected_rows}, mismatches {bad} -> {'RIGHT' if ok else 'WRONG'} ({time.time() - t0:.1f} s)", flush=True)
    return ok

def create_view(cur):
    cur.execute("""CREATE MATERIALIZED VIEW per_customer AS
        SELECT c.id, c.name, count(*) AS n, sum(o.amount) AS total
        FROM customers c JOIN orders o ON o.customer = c.id GROUP BY c.id, c.name""")

conn = connect()
cur = conn.cursor()
changed = {"deleted": set(), "updated": False}
pad = "x" * note_bytes
if phase == "load":
    cur.execute("CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, region text)")
    cur.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer int, amount numeric(10,2), note text)")
    view_after = os.environ.get("VIEW_AFTER_LOAD") == "1"
    if not view_after:
        create_view(cur)
    buf = io.StringIO()
    for c in range(ncust):
        buf.write(f"{c}\tcustomer {c}\tr{c % 7}\n")
    buf.seek(0)
    cur.copy_expert("COPY customers FROM STDIN", buf)
    t0 = time.time()
    for lo in range(1, norders + 1, chunk):
        hi = min(norders, lo + chunk - 1)
        buf = io.StringIO()
        for i in range(lo, hi + 1):
            buf.write(f"{i}\t{i % ncust}\t{amount(i) // 100}.{amount(i) % 100:02d}\t{pad}{i}\n")
        buf.seek(0)
        t1 = time.time()
        cur.copy_expert("COPY orders FROM STDIN", buf)
        print(f"  orders {hi}: COPY {time.time() - t1:.1f} s, total {time.time() - t0:.0f} s", flush=True)
    if view_after:
        t1 = time.time()
        create_view(cur)
        print(f"  view created over the loaded tables in {time.time() - t1:.1f} s", flush=True)
    check(cur, norders, changed, "after loading")
    # changes: 0.1% of orders updated, 0.02% deleted, some inserted
    t1 = time.time()
    cur.execute("UPDATE orders SET amount = amount + 1 WHERE id % 1000 = 7")
    cur.execute("DELETE FROM orders WHERE id % 5000 = 3")
    print(f"  update + delete {time.time() - t1:.1f} s", flush=True)
    changed = {"deleted": {i for i in range(3, norders + 1, 5000)}, "updated": True}
    check(cur, norders, changed, "after changes")
    cur.execute("CHECKPOINT")
    print("checkpoint taken", flush=True)
else:
    changed = {"deleted": {i for i in range(3, norders + 1, 5000)}, "updated": True}
    check(cur, norders, changed, "after restart")
    cur.execute("DELETE FROM orders WHERE id % 5000 = 4")
    changed["deleted"] |= {i for i in range(4, norders + 1, 5000)}
    check(cur, norders, changed, "after restart and more deletes")
