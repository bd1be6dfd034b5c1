-- the smallest psql session: a table, a view kept up to date, an error with its position
CREATE TABLE t (a int, b text);
CREATE MATERIALIZED VIEW v AS SELECT b, count(*) AS n FROM t GROUP BY b;
INSERT INTO t VALUES (1, 'x'), (2, 'x'), (3, NULL);
SELECT * FROM v ORDER BY b;
SELECT * FROM missing;
DELETE FROM t WHERE a = 1;
SELECT * FROM v ORDER BY b;
