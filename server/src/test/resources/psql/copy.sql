-- COPY FROM STDIN in text format, with escapes and NULLs
CREATE TABLE t (id int PRIMARY KEY, name text, score numeric(5,1) DEFAULT 0, note text);
COPY t FROM STDIN;
1	alpha	1.5	plain
2	tab\there	\N	back\\slash
3	new\nline	2	\x41\102C
\.
SELECT * FROM t ORDER BY id;
-- a column list: the other columns take their defaults
COPY t (id, name) FROM STDIN;
4	four
\.
SELECT * FROM t WHERE id = 4;
-- CSV with a header, quotes, an embedded newline and empty-versus-NULL
COPY t FROM STDIN WITH (FORMAT csv, HEADER true);
id,name,score,note
5,"comma, inside",3.5,
6,"say ""hi""",,""
7,"two
lines",4,x
\.
SELECT id, name, score, note IS NULL AS note_null FROM t WHERE id >= 5 ORDER BY id;
-- the spelling of older releases
COPY t (id, name) FROM STDIN WITH CSV HEADER DELIMITER ';';
id;name
8;eight
\.
SELECT count(*) FROM t;
-- a bad value fails the whole COPY: nothing is written
COPY t FROM STDIN;
9	nine	1	a
10	ten	x	b
\.
-- too many and too few columns
COPY t (id, name) FROM STDIN;
11	eleven	extra
\.
COPY t FROM STDIN;
12	twelve
\.
-- a duplicate key, and a NULL key
COPY t (id, name) FROM STDIN;
13	thirteen
1	again
\.
COPY t (id, name) FROM STDIN (FORMAT csv);
,nobody
\.
SELECT count(*) FROM t;
-- options PostgreSQL refuses
COPY t FROM STDIN WITH (FORMAT text, QUOTE '"');
COPY t FROM STDIN WITH (FORMAT xml);
COPY t FROM STDIN WITH (DELIMITER ',', DELIMITER ';');
COPY nosuch FROM STDIN;
COPY t (nosuch) FROM STDIN;
-- inside a transaction block the rows join the block
BEGIN;
COPY t (id, name) FROM STDIN;
20	twenty
\.
SELECT count(*) FROM t;
ROLLBACK;
SELECT count(*) FROM t WHERE id = 20;
-- and out again
COPY t TO STDOUT;
COPY (SELECT id, name FROM t WHERE id < 3 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER);
COPY t (id, note) TO STDOUT WITH CSV;
