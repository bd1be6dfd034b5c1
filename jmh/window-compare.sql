-- Window functions over one 1M-row partition (issue 27): the same query run once (as PostgreSQL
-- would answer it), then maintained views (a running sum and a lag, each with an index to read a
-- row by id), one change at a time until the view shows it: inserts at the end (one row's value
-- changes), in the middle (half the running sums change, two lags) and a delete there.
-- Run by psql against `bin/tributary serve --in-memory` and against PostgreSQL (which has no
-- maintained view: there the one-off query is what a reader would run after each change).
\timing on
DROP TABLE IF EXISTS ticks CASCADE;
CREATE TABLE ticks (id bigint PRIMARY KEY, t bigint, v int);
INSERT INTO ticks SELECT i, 2 * i, i % 100 FROM generate_series(1, 1000000) i;
SELECT max(s) FROM (SELECT sum(v) OVER (ORDER BY t) AS s FROM ticks) x;
SELECT max(s) FROM (SELECT sum(v) OVER (ORDER BY t) AS s FROM ticks) x;
SELECT max(s) FROM (SELECT sum(v) OVER (ORDER BY t) AS s FROM ticks) x;
CREATE MATERIALIZED VIEW running AS SELECT id, sum(v) OVER (ORDER BY t) AS s FROM ticks;
CREATE INDEX running_id ON running (id);
CREATE MATERIALIZED VIEW lagged AS SELECT id, lag(v) OVER (ORDER BY t) AS before FROM ticks;
CREATE INDEX lagged_id ON lagged (id);
SELECT s FROM running WHERE id = 1000000;
-- at the end
INSERT INTO ticks VALUES (1000001, 2000002, 7);
SELECT s FROM running WHERE id = 1000001;
INSERT INTO ticks VALUES (1000002, 2000004, 7);
SELECT s FROM running WHERE id = 1000002;
INSERT INTO ticks VALUES (1000003, 2000006, 7);
SELECT s FROM running WHERE id = 1000003;
SELECT before FROM lagged WHERE id = 1000003;
-- in the middle: every later running sum changes, one lag
INSERT INTO ticks VALUES (1000004, 1000001, 7);
SELECT before FROM lagged WHERE id = 500001;
SELECT s FROM running WHERE id = 1000000;
DELETE FROM ticks WHERE id = 1000004;
SELECT before FROM lagged WHERE id = 500001;
SELECT s FROM running WHERE id = 1000000;
