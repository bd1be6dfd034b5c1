-- the basics of the protocol as psql sees them: statements, errors with positions,
-- transaction blocks, and how values print
\echo several statements on one line (psql sends each on its own)
CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(10,2), added timestamp); INSERT INTO items VALUES (1, 'apple', 1.50, '2024-01-02 03:04:05'), (2, 'pear', NULL, NULL);
SELECT id, name FROM items ORDER BY id; SELECT count(*) AS n FROM items;
\echo :ROW_COUNT row(s)

\echo one query message with several statements: every result is shown
SELECT 1 AS one \; SELECT 'two' AS two \; SELECT 3 AS three;
\echo an error ends such a message: the results before it are shown, nothing after it runs
SELECT 'before' AS b \; SELECT 1 / 0 \; SELECT 'never' AS n;
\echo :SQLSTATE

\echo errors with their position
SELECT nosuch FROM items;
SELECT * FROM items WHERE;
SELECT id,
       nosuch
FROM items;
SELECT id,
       name
FROM nowhere;
\echo :SQLSTATE
SELECT 'x'::numeric;
\echo :SQLSTATE
SELECT * FROM items WHERE id = 1; SELECT * FROM nowhere; SELECT 'after the error' AS still;

\echo a transaction block, aborted by an error
BEGIN;
INSERT INTO items VALUES (3, 'plum', 0.99, '2024-02-29 23:59:59.5');
SELECT name FROM items WHERE id = 3;
INSERT INTO items VALUES (1, 'duplicate', 0, NULL);
\echo :SQLSTATE
SELECT name FROM items WHERE id = 3;
\echo :SQLSTATE
ROLLBACK;
SELECT count(*) AS n FROM items;
\echo COMMIT of an aborted block rolls it back
BEGIN;
INSERT INTO items VALUES (3, 'plum', 0.99, NULL);
SELECT 1 / 0;
COMMIT;
SELECT count(*) AS n FROM items;
\echo a block that commits
BEGIN;
INSERT INTO items VALUES (3, 'plum', 0.99, '2024-02-29 23:59:59.5');
UPDATE items SET price = price + 1 WHERE id = 1;
COMMIT;
SELECT * FROM items ORDER BY id;

\echo NULL display
SELECT NULL AS nothing, NULL::int AS no_int, '' AS empty;
\pset null '(null)'
SELECT id, price, added FROM items ORDER BY id;
\pset null ''

\echo numbers and times
SELECT 2.50::numeric(10,2) AS scaled, 1.5 * 2 AS product, 10::numeric / 4 AS quotient,
       -0.001 AS small, 12345678901234567890 AS big, 9223372036854775807::bigint AS int8,
       32767::smallint AS int2, 0.1::float8 + 0.2 AS float8, 1.5::real AS float4, true AS t, false AS f;
SELECT date '2024-02-29' AS d, time '13:14:15.25' AS tm, timestamp '2024-02-29 23:59:59.5' AS ts,
       timestamptz '2024-01-02 03:04:05+02' AS tstz, interval '1 day 02:03:04' AS iv,
       timestamp '2024-01-31 12:00' + interval '1 month' AS next_month;
SELECT name, price * 3 AS triple, added + interval '1 day' AS next_day FROM items ORDER BY id;
\echo done
