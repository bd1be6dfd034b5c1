"""psycopg 3 against Tributary, as a new user's first steps: connect, create, insert with every
parameter type (text and binary), read back, transactions with savepoints (nested
transaction blocks), server-side cursors, COPY, upserts. Usage: psycopg_client.py PORT.
Prints one line per check and exits non-zero at the first that fails."""
import datetime, decimal, sys, uuid
import psycopg

port = sys.argv[1]
conn = psycopg.connect(f"host=127.0.0.1 port={port} user=tributary dbname=tributary")

def check(what, got, want):
    if got != want:
        print(f"FAIL {what}: got {got!r}, want {want!r}")
        sys.exit(1)
    print(f"ok {what}")

with conn.cursor() as cur:
    cur.execute("CREATE TABLE p (id int PRIMARY KEY, name text, price numeric(10,2), at timestamptz, d date,"
                " ok boolean, tags text[], f float8, b bytea, big bigint, t time, iv interval, u uuid)")
    row = (1, "a'b\"c", decimal.Decimal("1.50"), datetime.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.timezone.utc),
           datetime.date(2026, 12, 5), True, ["x", "y", None], 1.25, b"\x00\x01\xff", 2**40, datetime.time(12, 30), datetime.timedelta(days=1, seconds=5),
           uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
    cur.execute("INSERT INTO p VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", row)
    conn.commit()
    for binary in (False, True):
        with conn.cursor(binary=binary) as c:
            c.execute("SELECT * FROM p WHERE id = %s", (1,))
            check(f"every type round trip (binary={binary})", c.fetchone(), row)
    cur.executemany("INSERT INTO p (id, name) VALUES (%s, %s)", [(i, f"n{i}") for i in range(2, 102)])
    conn.commit()
    cur.execute("SELECT count(*) FROM p WHERE id = ANY(%s)", ([1, 2, 3, 500],))
    check("= ANY(array parameter)", cur.fetchone(), (3,))
    # nested transaction blocks are savepoints
    with conn.transaction():
        cur.execute("UPDATE p SET name = 'z' WHERE id = 2")
        try:
            with conn.transaction():
                cur.execute("INSERT INTO p (id) VALUES (2)")
        except psycopg.errors.UniqueViolation as e:
            check("inner block fails with 23505", e.sqlstate, "23505")
    cur.execute("SELECT name FROM p WHERE id = 2")
    check("outer block kept its update", cur.fetchone(), ("z",))
    conn.commit()
    # upserts
    cur.execute("INSERT INTO p (id, name) VALUES (%s, %s) ON CONFLICT (id) DO UPDATE SET name = excluded.name RETURNING id, name", (3, "up"))
    check("ON CONFLICT DO UPDATE ... RETURNING", cur.fetchone(), (3, "up"))
    conn.commit()
# a server-side (named) cursor
with conn.cursor(name="walk") as c:
    c.execute("SELECT id FROM p ORDER BY id")
    check("server-side cursor fetchmany", [r[0] for r in c.fetchmany(5)], [1, 2, 3, 4, 5])
conn.commit()
with conn.cursor() as c:
    with c.copy("COPY p (id, name) FROM STDIN") as cp:
        for i in range(200, 210):
            cp.write_row((i, f"c{i}"))
    conn.commit()
    c.execute("SELECT count(*) FROM p")
    check("COPY FROM STDIN rows", c.fetchone(), (111,))
conn.commit()
conn.autocommit = True
with conn.cursor() as c:
    c.execute("CREATE TABLE s (id serial PRIMARY KEY, v text)")
    c.execute("INSERT INTO s (v) VALUES (%s) RETURNING id", ("first",))
    check("serial id via RETURNING", c.fetchone(), (1,))
    # json: a dict through psycopg's Json adapter (OID 114), back as a dict
    from psycopg.types.json import Json
    c.execute("CREATE TABLE j (id int, doc json)")
    c.execute("INSERT INTO j VALUES (%s, %s)", (1, Json({"a": [1, 2], "b": None})))
    c.execute("SELECT doc, json_build_object('n', id) FROM j")
    check("json round trip", c.fetchone(), ({"a": [1, 2], "b": None}, {"n": 1}))
conn.close()
print("psycopg done")
