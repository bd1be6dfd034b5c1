-- psql's privilege commands: \dp, \du, \dn+; their tables are what PostgreSQL 15's psql shows for this script (but its own bootstrap role)
CREATE ROLE alice LOGIN CREATEDB;
CREATE ROLE bob LOGIN NOINHERIT;
CREATE ROLE readers;
GRANT readers TO bob;
GRANT CREATE ON SCHEMA public TO alice;
SET SESSION AUTHORIZATION alice;
CREATE TABLE t (a int, b text);
CREATE VIEW v AS SELECT a FROM t;
CREATE MATERIALIZED VIEW m AS SELECT a FROM t;
GRANT SELECT ON t TO readers;
GRANT SELECT, INSERT ON v TO bob WITH GRANT OPTION;
GRANT UPDATE ON t TO PUBLIC;
RESET SESSION AUTHORIZATION;
\dp
\dp t
\du
\dn+ public
SET ROLE bob;
SELECT * FROM t;
SELECT current_user, session_user;
RESET ROLE;
SELECT has_table_privilege('bob', 'v', 'INSERT WITH GRANT OPTION'), has_table_privilege('readers', 't', 'SELECT');
