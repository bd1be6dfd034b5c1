#!/usr/bin/env python3
"""Fills in a sqllogictest file's expected results from a real PostgreSQL.

Usage: slt-expected-from-postgres.py TEMPLATE.slt OUT.slt [psql connection flags...]

The template is an .slt file whose `query` records may leave out their `----` results and whose
`statement error` records may leave out the SQLSTATE: each statement runs on PostgreSQL in
order, in one session (so tables persist), each query's rows are rendered as the harness renders
them (NULL, booleans as 1/0, the empty string as (empty); under rowsort sorted by value strings)
and written after `----`, and each error record gets PostgreSQL's SQLSTATE. A statement that
succeeds or fails on PostgreSQL other than the template says stops the script: the corpus holds
only what PostgreSQL itself does. Only I and T column letters are supported, and no booleans
(the harness shows them as 1/0).
"""
import subprocess, sys

def records(text):
    blocks, cur = [], []
    for line in text.split("\n"):
        if line.strip() == "":
            if cur:
                blocks.append(cur)
                cur = []
        else:
            cur.append(line)
    if cur:
        blocks.append(cur)
    return blocks

def run(flags, sql):
    # one statement per call; the session's state is kept by replaying the setup (see below)
    p = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose",
                        "-P", "null=\x01NULL"] + flags, input=sql, capture_output=True, text=True)
    return p

def main():
    template, out, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    setup = ["DROP SCHEMA public CASCADE; CREATE SCHEMA public;"]
    result = []
    for block in records(open(template).read()):
        head = block[0]
        if head.startswith("#") or head.startswith("hash-threshold"):
            result.append("\n".join(block))
            continue
        sql_lines = [l for l in block[1:] if l != "----"]
        if "----" in block:
            sql_lines = block[1:block.index("----")]
        sql = "\n".join(sql_lines)
        script = "\n".join(setup) + "\n\\set VERBOSITY verbose\n" + sql + ";\n"
        p = run(flags, script)
        if head.startswith("statement ok"):
            if p.returncode != 0:
                sys.exit("PostgreSQL refused a statement the template says is ok:\n" + sql + "\n" + p.stderr)
            setup.append(sql + ";")
            result.append("\n".join([head] + sql_lines))
        elif head.startswith("statement error"):
            if p.returncode == 0:
                sys.exit("PostgreSQL accepted a statement the template says fails:\n" + sql)
            code = [l for l in p.stderr.split("\n") if "ERROR:" in l][0].split("ERROR:")[1].split(":")[0].strip()
            result.append("\n".join(["statement error " + code] + sql_lines))
        elif head.startswith("query"):
            if p.returncode != 0:
                sys.exit("PostgreSQL failed a query:\n" + sql + "\n" + p.stderr)
            parts = head.split()
            letters = parts[1]
            rows = []
            for line in p.stdout.split("\n"):
                if line == "":
                    continue
                vals = line.split("\x1f")
                r = []
                for v in vals:
                    if v == "\x01NULL":
                        r.append("NULL")
                    elif v == "":
                        r.append("(empty)")
                    else:
                        r.append("".join(c if " " <= c <= "~" else "@" for c in v))
                if len(r) != len(letters):
                    sys.exit("query returned %d columns, template says %d:\n%s" % (len(r), len(letters), sql))
                rows.append(r)
            if "rowsort" in parts:
                rows.sort()
            result.append("\n".join([head] + sql_lines + ["----"] + [" ".join(r) for r in rows]))
        else:
            sys.exit("unknown record: " + head)
    open(out, "w").write("\n\n".join(result) + "\n")

main()
