#!/usr/bin/env python3
"""Fills in a sqllogictest file's expected results from a real PostgreSQL.

Usage: slt-expected-from-postgres.py TEMPLATE.slt OUT.slt [psql connection flags...]

The template is an .slt file whose `query` records may leave out their `----` results and whose
`statement error` records may leave out the SQLSTATE. The public schema is emptied, then every
record's SQL runs on PostgreSQL in order, in one session (transaction blocks, savepoints and
failed blocks behave as they will under the runner); each query's rows are rendered as the
harness renders them (NULL, the empty string as (empty); under rowsort sorted by value strings)
and written after `----`, and each error record gets PostgreSQL's SQLSTATE. A statement that
succeeds or fails on PostgreSQL other than the template says stops the script: the corpus holds
only what PostgreSQL itself does. Only I and T column letters are supported, and no booleans
(the harness shows them as 1/0).
"""
import subprocess, sys

MARK = "@@record@@"

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

def main():
    template, out, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    blocks = records(open(template).read())
    script = ["\\set VERBOSITY verbose", "DROP SCHEMA public CASCADE;", "CREATE SCHEMA public;"]
    sqls = []
    for i, block in enumerate(blocks):
        head = block[0]
        body = block[1:block.index("----")] if "----" in block else block[1:]
        sqls.append(body)
        if head.startswith("#") or head.startswith("hash-threshold"):
            continue
        script.append("\\echo " + MARK + str(i))
        script.append("\n".join(body) + ";")
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as f:
        f.write("\n".join(script) + "\n")
        f.flush()
        # from a file, psql prefixes each error with the script's line: psql:FILE:LINE: ERROR: ...
        p = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "\x1f", "-P", "null=\x01NULL", "-f", f.name] + flags,
                           capture_output=True, text=True)
    # stdout and stderr are separate streams: the markers are on stdout, so errors are matched
    # to records by psql's line numbers of the script
    outputs = {}
    current = None
    for line in p.stdout.split("\n"):
        if line.startswith(MARK):
            current = int(line[len(MARK):])
            outputs[current] = []
        elif current is not None and line != "":
            outputs[current].append(line)
    # the script's line numbers of each record's statement
    lineno = 0
    starts = []
    for entry in script:
        starts.append(lineno + 1)
        lineno += entry.count("\n") + 1
    record_of_line = {}
    for idx, entry in enumerate(script):
        if entry.startswith("\\echo " + MARK):
            rec = int(entry[len("\\echo " + MARK):])
            stmt_start = starts[idx + 1]
            stmt_end = stmt_start + script[idx + 1].count("\n")
            for l in range(stmt_start, stmt_end + 1):
                record_of_line[l] = rec
    errors = {}
    for line in p.stderr.split("\n"):
        if "ERROR:" in line and line.startswith("psql:"):
            where = int(line.split(":")[2].strip())
            code = line.split("ERROR:")[1].split(":")[0].strip()
            errors[record_of_line[where]] = code
    result = []
    for i, block in enumerate(blocks):
        head = block[0]
        body = sqls[i]
        sql = "\n".join(body)
        if head.startswith("#") or head.startswith("hash-threshold"):
            result.append("\n".join(block))
        elif head.startswith("statement ok"):
            if i in errors:
                sys.exit("PostgreSQL refused a statement the template says is ok (" + errors[i] + "):\n" + sql)
            result.append("\n".join([head] + body))
        elif head.startswith("statement error"):
            if i not in errors:
                sys.exit("PostgreSQL accepted a statement the template says fails:\n" + sql)
            result.append("\n".join(["statement error " + errors[i]] + body))
        elif head.startswith("query"):
            if i in errors:
                sys.exit("PostgreSQL failed a query (" + errors[i] + "):\n" + sql)
            parts = head.split()
            letters = parts[1]
            rows = []
            for line in outputs.get(i, []):
                r = []
                for v in line.split("\x1f"):
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
            result.append("\n".join([head] + body + ["----"] + [" ".join(r) for r in rows]))
        else:
            sys.exit("unknown record: " + head)
    open(out, "w").write("\n\n".join(result) + "\n")

main()
