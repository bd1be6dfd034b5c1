-- Foreign keys at a million rows (issue 27): a 1M-row child referencing a 1M-row parent, single-row
-- writes, parent deletes with and without an index on the referencing column, a bulk cascade.
-- Run by psql against `bin/tributary serve --in-memory` and against PostgreSQL, side by side.
\timing on
DROP TABLE IF EXISTS child;
DROP TABLE IF EXISTS child2;
DROP TABLE IF EXISTS parent;
CREATE TABLE parent (id int PRIMARY KEY, v int);
INSERT INTO parent SELECT i, i FROM generate_series(1, 1000000) i;
CREATE TABLE child2 (id int PRIMARY KEY, pid int);
INSERT INTO child2 SELECT i, i FROM generate_series(1, 1000000) i;
CREATE TABLE child (id int PRIMARY KEY, pid int REFERENCES parent ON DELETE CASCADE);
INSERT INTO child SELECT i, i FROM generate_series(1, 1000000) i;
INSERT INTO child VALUES (1000001, 5);
INSERT INTO child VALUES (1000002, 6);
DELETE FROM parent WHERE id = 7;
DELETE FROM parent WHERE id = 8;
CREATE INDEX child_pid ON child (pid);
DELETE FROM parent WHERE id = 9;
DELETE FROM parent WHERE id = 10;
DELETE FROM parent WHERE id <= 100000 AND id > 1000;
