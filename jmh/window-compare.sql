-- Window functions over one 1M-row partition (issue 27): a materialized running sum, one insert
-- at a time until the view shows it, and the same query run once (as PostgreSQL would answer it).
-- Run by psql against `bin/tributary serve --in-memory` and against PostgreSQL (which has no
-- maintained view: there the one-off query is what a reader would run after each insert).
\timing on
DROP TABLE IF EXISTS ticks CASCADE;
CREATE TABLE ticks (id bigint PRIMARY KEY, t bigint, v int);
INSERT INTO ticks SELECT i, i, i % 100 FROM generate_series(1, 1000000) i;
SELECT max(s) FROM (SELECT sum(v) OVER (ORDER BY t) AS s FROM ticks) x;
SELECT max(s) FROM (SELECT sum(v) OVER (ORDER BY t) AS s FROM ticks) x;
CREATE MATERIALIZED VIEW running AS SELECT id, sum(v) OVER (ORDER BY t) AS s FROM ticks;
SELECT s FROM running WHERE id = 1000000;
INSERT INTO ticks VALUES (1000001, 1000001, 7);
SELECT s FROM running WHERE id = 1000001;
INSERT INTO ticks VALUES (1000002, 1000002, 7);
SELECT s FROM running WHERE id = 1000002;
INSERT INTO ticks VALUES (1000003, 1000003, 7);
SELECT s FROM running WHERE id = 1000003;
