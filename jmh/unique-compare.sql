-- Unique constraints and upserts at a million rows, the same script against Tributary and PostgreSQL:
--   bin/tributary serve --in-memory --port 6999 & psql -X -h 127.0.0.1 -p 6999 -d tributary -f jmh/unique-compare.sql
--   psql -X -h /tmp -p 5499 -U postgres -f jmh/unique-compare.sql      (a throw-away PostgreSQL 15)
-- Figures in docs/BENCHMARKS.md ("Unique constraints and upserts at a million rows").
\timing on
DROP TABLE IF EXISTS u;
CREATE TABLE u (id int PRIMARY KEY, email text, n int);
INSERT INTO u SELECT i, 'user' || i || '@x', i % 1000 FROM generate_series(1, 1000000) AS s(i);
CREATE UNIQUE INDEX u_email ON u (email);
INSERT INTO u SELECT i, 'user' || i || '@y', 0 FROM generate_series(1000001, 1100000) AS s(i);
INSERT INTO u VALUES (5, 'dup@x', 0) ON CONFLICT (id) DO UPDATE SET n = u.n + 1;
INSERT INTO u SELECT i, 'user' || i || '@x', 7 FROM generate_series(1, 100000) AS s(i) ON CONFLICT (id) DO UPDATE SET n = excluded.n;
INSERT INTO u VALUES (2000000, 'user1@x', 0);
SELECT count(*), sum(n) FROM u;
