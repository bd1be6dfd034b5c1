package dev.tributary.sql.parser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.ast.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The formatter's text parses back to the same tree: formatting is a fixed point after one
 * round, over a corpus covering every statement form and expression kind.
 */
class RoundTripTest {

    static Stream<String> corpus() {
        return Stream.of(
                "SELECT 1",
                "SELECT",
                "SELECT a, b AS \"B\", c d FROM t",
                "SELECT * FROM t",
                "SELECT t.*, s.t.c FROM s.t",
                "SELECT DISTINCT a FROM t",
                "SELECT DISTINCT ON (a, b) a, b, c FROM t ORDER BY a, b, c DESC",
                "select a from t where a > 1 and b < 2 or not c",
                "SELECT a OR b AND NOT c = d",
                "SELECT (a OR b) AND c",
                "SELECT NOT (a AND b)",
                "SELECT -2 ^ 2, -(2 ^ 2), 2 ^ -2, (-x) ^ 2, -x ^ 2",
                "SELECT a || b = c, a || (b = c)",
                "SELECT 1 + 2 * 3 - 4 / 5 % 6",
                "SELECT (1 + 2) * (3 - 4)",
                "SELECT a - (b - c), (a - b) - c",
                "SELECT a=-1, b<>-2, c!=3, d<=4, e>=5, f<6, g>7",
                "SELECT - -a, +a, -(-a)",
                "SELECT a IS NULL, a IS NOT NULL, a ISNULL, a NOTNULL",
                "SELECT a IS TRUE, a IS NOT FALSE, a IS UNKNOWN, a IS NOT UNKNOWN",
                "SELECT a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b + 1",
                "SELECT (a = b) IS NULL, a = b IS NULL, (a IS NULL) = TRUE",
                "SELECT a BETWEEN 1 AND 10, a NOT BETWEEN SYMMETRIC b AND c",
                "SELECT a BETWEEN 1 AND 2 AND b",
                "SELECT (a BETWEEN 1 AND 2) = TRUE",
                "SELECT a IN (1, 2, 3), a NOT IN ('x')",
                "SELECT a IN (SELECT b FROM u), a NOT IN (SELECT b FROM u WHERE u.c = t.c) FROM t",
                "SELECT a LIKE 'x%', a NOT LIKE 'y', a ILIKE 'z' ESCAPE '!', a NOT ILIKE b",
                "SELECT a ~~ 'x', a !~~ 'x', a ~~* 'x', a !~~* 'x'",
                "SELECT a ~ '^x', a ~* 'x', a !~ 'x', a !~* 'x'",
                "SELECT (a LIKE b) || c, a LIKE (b || c)",
                "SELECT a::int, CAST(b AS text), c::varchar(10)::char(3), (a + b)::numeric(10,2)",
                "SELECT -x::int, (-x)::int",
                "SELECT x::float, x::float(10), x::real, x::double precision, x::decimal",
                "SELECT x::bool, x::int2, x::int8, x::float4, x::float8, x::bytea, x::date, x::time, x::timestamp",
                "SELECT x::timestamptz, x::timestamp with time zone, x::interval, x::character varying",
                "SELECT CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END",
                "SELECT CASE x WHEN 1 THEN 'one' WHEN 2 THEN 'two' END",
                "SELECT CASE WHEN a > 0 THEN CASE WHEN b THEN 1 END END",
                "SELECT coalesce(a, b, 0), nullif(a, 0), greatest(a, b), least(a, b)",
                "SELECT EXISTS (SELECT 1 FROM u WHERE u.a = t.a) FROM t",
                "SELECT NOT EXISTS (SELECT 1)",
                "SELECT ARRAY[[1, 2], [3, 4]], ARRAY[ARRAY[1], ARRAY[2]], ARRAY[[[1]]], ARRAY[]::int[][]",
                "SELECT a[1][2], a[1:2], a[:2], a[2:], a[:], a[1:2][2], (a[1:2])[1], (ARRAY[1, 2])[i + 1:j]",
                "SELECT (SELECT max(a) FROM u) + 1",
                "SELECT ((SELECT 1) + 1)",
                "SELECT a = ANY (SELECT b FROM u), a > ALL (SELECT b FROM u), a < SOME (SELECT 1)",
                "SELECT count(*), count(DISTINCT a), sum(a) FILTER (WHERE a > 0) FROM t",
                "SELECT string_agg(name, ',' ORDER BY name DESC NULLS LAST) FROM t",
                "SELECT array_agg(x ORDER BY y, z) FILTER (WHERE x IS NOT NULL) FROM t",
                "SELECT pg_catalog.lower(a), \"MyFunc\"(b), left(c, 2), right(c, 1)",
                "SELECT $1 + $2, $10",
                "SELECT 42, -7, 9223372036854775807, 9223372036854775808, -9223372036854775808",
                "SELECT 1.5, .5, 5., 1e10, 2.5E-3, -0.0",
                "SELECT 'abc', 'it''s', E'tab\\there', $$dollar$$, 'multi'\n'line'",
                "SELECT '', ' ', 'a\"b', E'\\\\'",
                "SELECT TRUE, FALSE, NULL",
                "SELECT DATE '2024-01-01', TIME '12:00:00', TIMESTAMP '2024-01-01 00:00:00'",
                "SELECT TIMESTAMPTZ '2024-01-01 00:00:00+00', TIMESTAMP WITH TIME ZONE '2024-01-01'",
                "SELECT INTERVAL '1 day', INTERVAL '1' DAY, INTERVAL '1-2' YEAR TO MONTH",
                "SELECT int '5', double precision '1.5', varchar(3) 'abc', numeric(5,1) '1.5'",
                "SELECT EXTRACT(year FROM d), EXTRACT(EPOCH FROM ts)",
                "SELECT SUBSTRING(s FROM 2 FOR 3), substring(s, 2), substring(s FOR 2), substring(s FROM 1)",
                "SELECT POSITION('x' IN s), TRIM(s), TRIM(LEADING 'x' FROM s), TRIM(BOTH FROM s)",
                "SELECT now(), CURRENT_TIMESTAMP, CURRENT_DATE, LOCALTIMESTAMP, CURRENT_TIME, LOCALTIME",
                "SELECT \"Select\", \"from\", \"a b\", \"x\"\"y\", \"of\", \"emit\" FROM \"T\"",
                "SELECT a AS \"select\", b AS from_, c AS x FROM t AS \"order\"",
                "SELECT a FROM t WHERE b GROUP BY a, 2 HAVING count(*) > 1",
                "SELECT a FROM t ORDER BY a ASC, b DESC NULLS FIRST LIMIT 10 OFFSET 20",
                "SELECT a FROM t LIMIT ALL",
                "SELECT a, b FROM t ORDER BY b DESC LIMIT 2 BY a LIMIT 10",
                "SELECT a, b FROM t LIMIT 1 OFFSET 1 BY a, b % 2 OFFSET 3",
                "SELECT a FROM t OFFSET 5",
                "SELECT a FROM t FETCH FIRST 5 ROWS ONLY",
                "SELECT a FROM t FETCH NEXT ROW ONLY",
                "SELECT 1 UNION SELECT 2",
                "SELECT 1 UNION ALL SELECT 2 UNION DISTINCT SELECT 3",
                "SELECT 1 UNION SELECT 2 INTERSECT SELECT 3",
                "(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3",
                "SELECT 1 EXCEPT (SELECT 2 EXCEPT SELECT 3)",
                "SELECT 1 INTERSECT ALL SELECT 2 EXCEPT ALL SELECT 3",
                "(SELECT a FROM t ORDER BY a LIMIT 1) UNION (SELECT b FROM u) ORDER BY 1",
                "((SELECT 1))",
                "VALUES (1, 'a'), (2, 'b')",
                "VALUES (1) UNION VALUES (2) ORDER BY 1",
                "SELECT * FROM (VALUES (1, 2), (3, 4)) AS v (a, b)",
                "WITH x AS (SELECT 1 AS a), y (b) AS (SELECT a FROM x) SELECT * FROM x, y",
                "WITH x AS (SELECT 1) (SELECT * FROM x)",
                "SELECT * FROM a JOIN b ON a.id = b.id",
                "SELECT * FROM a INNER JOIN b ON true LEFT JOIN c ON c.x = a.x RIGHT OUTER JOIN d ON d.y = c.y",
                "SELECT * FROM a FULL OUTER JOIN b USING (id, k)",
                "SELECT * FROM a NATURAL JOIN b NATURAL LEFT JOIN c",
                "SELECT * FROM a CROSS JOIN b, c",
                "SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.y = b.y",
                "SELECT * FROM (a JOIN b ON p) JOIN c ON q",
                "SELECT * FROM t AS x (a, b), u y",
                "SELECT * FROM (SELECT 1) AS s, LATERAL (SELECT s.x) AS l",
                "SELECT * FROM (SELECT a FROM t) sub WHERE sub.a > 0",
                "SELECT * FROM generate_series(1, 10) AS g (n)",
                "SELECT * FROM t AS OF SYSTEM TIME 100 SINCE 50 AS x",
                "SELECT * FROM t AS OF SYSTEM TIME now() SINCE TIMESTAMP '2024-01-01'",
                "SELECT * FROM CHANGES(orders AS OF 10) AS c",
                "SELECT * FROM CHANGES(s.orders AS OF TIMESTAMP '2024-01-01')",
                "SELECT a FROM t EMIT CHANGES",
                "SELECT a FROM t AS OF 1000",
                "SELECT a FROM t AS OF now() - INTERVAL '1 hour' EMIT CHANGES",
                "CREATE TABLE t (a int)",
                "CREATE SOURCE s (id bigint NOT NULL, note text) FROM KAFKA (BROKERS 'b1:9092,b2:9092', TOPIC 't', START OFFSET 'latest') "
                        + "FORMAT JSON INCLUDE KEY, PARTITION, OFFSET, TIMESTAMP ON DECODE ERROR STOP",
                "CREATE SOURCE IF NOT EXISTS s FROM KAFKA (BROKERS 'b:1', TOPIC 't') FORMAT BYTES INCLUDE key",
                "CREATE SOURCE s (id int PRIMARY KEY, v text) FROM KAFKA (BROKERS 'b:1', TOPIC 't') FORMAT JSON ENVELOPE UPSERT",
                "CREATE SOURCE s (a int NOT NULL, b text, v text, PRIMARY KEY (a, \"B\")) FROM KAFKA (BROKERS 'b:1', TOPIC 't') FORMAT JSON "
                        + "INCLUDE KEY ENVELOPE DEBEZIUM ON DECODE ERROR STOP",
                "CREATE SOURCE s (t text) FROM DIRECTORY (PATH '/x') FORMAT TEXT ENVELOPE NONE",
                "CREATE SINK k FROM s.v INTO KAFKA (BROKERS 'b:1', TOPIC 't', PROGRESS TOPIC 'p') KEY (a, \"B\") FORMAT JSON ENVELOPE UPSERT",
                "CREATE SINK IF NOT EXISTS k FROM (SELECT a, count(*) FROM t GROUP BY a) INTO KAFKA (BROKERS 'b:1', TOPIC 't') FORMAT JSON ENVELOPE DEBEZIUM",
                "CREATE SINK out FROM s.v INTO HTTP (URL 'http://localhost:8080/in')",
                "CREATE SINK p FROM v INTO KAFKA (BROKERS 'b:1', TOPIC 't') KEY (a) FORMAT PROTOBUF (MESSAGE 'shop.Order', SCHEMA '\\x0a0b') ENVELOPE UPSERT",
                "CREATE SOURCE p FROM KAFKA (BROKERS 'b:1', TOPIC 't') FORMAT PROTOBUF (MESSAGE 'shop.Order', SCHEMA FILE '/tmp/o.desc')",
                "CREATE SINK IF NOT EXISTS out FROM v INTO HTTP (URL 'http://h/x')",
                "CREATE SINK out FROM (SELECT k, count(*) FROM t GROUP BY k) INTO HTTP (URL 'http://h/x', MAX QUEUE SIZE 1024)",
                "INSERT INTO FUNCTION url('https://h/x?a=1') SELECT k, v FROM t STREAM",
                "INSERT INTO FUNCTION url('http://h/x') SELECT k FROM t WHERE k > 1",
                "ALTER SINK k PAUSE",
                "ALTER SINK k RESUME",
                "DROP SINK IF EXISTS k, out",
                "SHOW SINKS",
                "CREATE TABLE IF NOT EXISTS s.t (id bigint PRIMARY KEY, name text NOT NULL DEFAULT 'x', "
                        + "p numeric(10,2) NULL DEFAULT 0.0, ts timestamptz DEFAULT now())",
                "CREATE TABLE t (a int, b varchar(5), c char(2), PRIMARY KEY (a, b))",
                "CREATE TABLE t (a int DEFAULT -1, b int DEFAULT (1 + 2), c boolean DEFAULT (1 = 1))",
                "CREATE TABLE \"T\" (\"A\" int)",
                "INSERT INTO t VALUES (1, 'a'), (2, DEFAULT)",
                "INSERT INTO t (a, b) SELECT x, y FROM u WHERE z",
                "INSERT INTO s.t (a) VALUES ($1)",
                "INSERT INTO t (SELECT 1)",
                "INSERT INTO t VALUES (1) ORDER BY 1",
                "UPDATE t SET a = a + 1",
                "UPDATE t AS x SET a = 1, b = DEFAULT WHERE x.id = 3",
                "DELETE FROM t",
                "DELETE FROM t AS x WHERE x.a IN (SELECT a FROM u)",
                "BEGIN", "START TRANSACTION", "COMMIT", "END", "ROLLBACK",
                "CREATE VIEW v AS SELECT a FROM t",
                "CREATE OR REPLACE VIEW v (x, y) AS SELECT a, b FROM t",
                "CREATE MATERIALIZED VIEW mv AS SELECT a, count(*) FROM t GROUP BY a",
                "CREATE MATERIALIZED VIEW IF NOT EXISTS s.mv (a) AS WITH x AS (SELECT 1) SELECT * FROM x",
                "CREATE INDEX i ON t (a)",
                "CREATE INDEX IF NOT EXISTS i ON s.mv (a, lower(b), a + b)",
                "DROP TABLE t",
                "DROP VIEW IF EXISTS a, b CASCADE",
                "DROP MATERIALIZED VIEW mv RESTRICT",
                "DROP INDEX IF EXISTS s.i",
                "SHOW TABLES", "SHOW VIEWS", "SHOW MATERIALIZED VIEWS", "SHOW INDEXES", "SHOW INDEXES FROM t",
                "SHOW COLUMNS FROM s.t", "SHOW CREATE VIEW v", "SHOW CREATE MATERIALIZED VIEW mv",
                "SHOW CREATE TABLE t", "SHOW search_path", "SHOW ALL",
                "EXPLAIN SELECT 1",
                "EXPLAIN (FORMAT TEXT, VERBOSE) SELECT a FROM t",
                "EXPLAIN (format 'json') CREATE MATERIALIZED VIEW v AS SELECT 1",
                "SUBSCRIBE mv",
                "SUBSCRIBE TO s.mv AS OF 10",
                "SUBSCRIBE (SELECT a FROM t) WITH (SNAPSHOT = false, PROGRESS = true)",
                "SUBSCRIBE (SELECT a, b FROM t) WITH (PROGRESS) ENVELOPE UPSERT (KEY (a))",
                "SUBSCRIBE t UP TO 100 AS OF 10 WITH (SNAPSHOT false)",
                "CREATE TABLE t (a int) WITH (RETAIN HISTORY FOR '1 hour')",
                "CREATE MATERIALIZED VIEW mv WITH (RETAIN HISTORY = PIN AT 1788538608103) AS SELECT 1",
                "CREATE INDEX i ON t (a) WITH (RETAIN HISTORY FOR INTERVAL '2 days')",
                "ALTER TABLE t SET (RETAIN HISTORY PIN AT TIMESTAMPTZ '2026-09-05 00:00:00+00')",
                "ALTER MATERIALIZED VIEW s.mv RESET (RETAIN HISTORY)",
                "ALTER INDEX i SET (RETAIN HISTORY FOR '10 minutes')",
                "ADVANCE CLOCK BY INTERVAL '5 minutes'",
                "ADVANCE CLOCK TO TIMESTAMP '2024-01-01 00:00:00'",
                "SET search_path = public, other",
                "SET statement_timeout TO 1000",
                "SET x TO DEFAULT",
                "SET TIME ZONE 'UTC'",
                "SET a.b = 'on'");
    }

    @ParameterizedTest
    @MethodSource("corpus")
    void formattingIsAFixedPoint(String sql) {
        List<Statement> first = Parser.parse(sql);
        assertThat(first).hasSize(1);
        String once = SqlFormatter.format(first.get(0));
        String twice = SqlFormatter.format(Parser.parseStatement(once));
        assertThat(twice).as("format of %s", once).isEqualTo(once);
    }

    @ParameterizedTest
    @MethodSource("corpus")
    void formattedTreeEqualsOriginalTreeUpToPositions(String sql) {
        Statement original = Parser.parseStatement(sql);
        Statement reparsed = Parser.parseStatement(SqlFormatter.format(original));
        assertThat(Trees.withoutPositions(reparsed)).isEqualTo(Trees.withoutPositions(original));
    }
}
