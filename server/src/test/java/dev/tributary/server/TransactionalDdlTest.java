package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a transaction block creates (tables, their indexes and sequences, views, indexes,
 * constraints) goes again when the block rolls back, by ROLLBACK, a failed COMMIT, ROLLBACK TO
 * SAVEPOINT or the session's end, as PostgreSQL's transactional DDL
 * does; and stays when it commits, over a restart too. What it drops, alters, comments, grants
 * and owns comes back as it was, rows and maintained views included, and a dropped name stays
 * taken for other sessions until the block ends.
 */
class TransactionalDdlTest {
    @Test
    void aRolledBackBlockTakesWhatItCreatedWithIt(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE kept (id int PRIMARY KEY)");
            s.execute("BEGIN");
            s.execute("CREATE TABLE t (id serial PRIMARY KEY, code text UNIQUE, k int REFERENCES kept)");
            s.execute("INSERT INTO t (code) VALUES ('a')");
            s.execute("CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n FROM t");
            s.execute("CREATE INDEX kept_id ON kept (id)");
            assertThat(rows(db, "SELECT n FROM v")).as("another session sees the new objects already (DDL is not isolated)").containsExactly("0");
            s.execute("ROLLBACK");
            assertThat(rows(db, "SELECT relname FROM pg_class WHERE relname IN ('t', 'v', 't_pkey', 't_code_key', 't_id_seq', 'kept_id')")).isEmpty();
            assertThat(rows(db, "SELECT count(*) FROM pg_constraint WHERE contype = 'f'")).containsExactly("0");

            // committed: stays, over a restart
            s.execute("BEGIN");
            s.execute("CREATE TABLE u (id int PRIMARY KEY)");
            s.execute("INSERT INTO u VALUES (1)");
            s.execute("COMMIT");

            // a failed block: COMMIT answers ROLLBACK and the table goes
            s.execute("BEGIN");
            s.execute("CREATE TABLE w (id int)");
            SqlRows.fails("22012", () -> s.execute("SELECT 1 / 0"));
            assertThat(s.execute("COMMIT").get(0).tag()).isEqualTo("ROLLBACK");
            SqlRows.fails("42P01", () -> s.execute("SELECT * FROM w"));

            // savepoints: what came after the one rolled back to goes; what came before stays
            s.execute("BEGIN");
            s.execute("CREATE TABLE x1 (id int)");
            s.execute("SAVEPOINT sp");
            s.execute("CREATE TABLE x2 (id int)");
            s.execute("ROLLBACK TO SAVEPOINT sp");
            s.execute("COMMIT");
            assertThat(rows(db, "SELECT relname FROM pg_class WHERE relname LIKE 'x_' ORDER BY 1")).containsExactly("x1");

            // a session that ends inside its block
            Tributary.Connection gone = db.session();
            gone.execute("BEGIN");
            gone.execute("CREATE TABLE z (id int)");
            gone.close();
            SqlRows.fails("42P01", () -> s.execute("SELECT * FROM z"));
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(2_000), 2)) {
            assertThat(rows(db, "SELECT * FROM u")).containsExactly("1");
            assertThat(rows(db, "SELECT relname FROM pg_class WHERE relname IN ('t', 'v', 'w', 'x1', 'x2', 'y', 'z') ORDER BY 1")).containsExactly("x1");
        }
    }

    @Test
    void aRolledBackBlockBringsBackWhatItDroppedOrAltered(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 2)) {
            Tributary.Connection s = db.session();
            Tributary.Connection other = db.session();
            s.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
            s.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
            s.execute("CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n FROM t");
            s.execute("CREATE INDEX t_v ON t (v)");
            s.execute("COMMENT ON TABLE t IS 'orig'");
            s.execute("CREATE SCHEMA s");
            s.execute("CREATE TABLE s.u (a int)");
            s.execute("INSERT INTO s.u VALUES (7)");
            s.execute("CREATE ROLE reader");

            s.execute("BEGIN");
            s.execute("DROP TABLE t CASCADE");
            assertThat(s.execute("SELECT count(*) FROM pg_class WHERE relname IN ('t', 'mv')").get(0).rows().get(0)[0]).isEqualTo(0L);
            SqlRows.fails("42P07", () -> other.execute("CREATE TABLE t (x int)"));
            s.execute("CREATE TABLE t (x text)"); // the dropping block may take the name
            s.execute("INSERT INTO t VALUES ('new')");
            s.execute("DROP SCHEMA s CASCADE");
            SqlRows.fails("42P06", () -> other.execute("CREATE SCHEMA s"));
            s.execute("ROLLBACK");
            assertThat(rows(db, "SELECT id, v FROM t ORDER BY id")).containsExactly("1|a", "2|b");
            s.execute("INSERT INTO t VALUES (3, 'c')");
            assertThat(rows(db, "SELECT n FROM mv")).as("the view was maintained all along").containsExactly("3");
            assertThat(rows(db, "SELECT obj_description('t'::regclass)")).containsExactly("orig");
            assertThat(rows(db, "SELECT indexname FROM pg_indexes WHERE tablename = 't' ORDER BY 1")).containsExactly("t_pkey", "t_v");
            assertThat(rows(db, "SELECT * FROM s.u")).containsExactly("7");
            SqlRows.fails("23505", () -> s.execute("INSERT INTO t VALUES (1, 'again')"));

            // alterations, comments, privileges and roles
            s.execute("BEGIN");
            s.execute("ALTER TABLE t ALTER COLUMN v SET DEFAULT 'dflt'");
            s.execute("ALTER TABLE t ADD CONSTRAINT positive CHECK (id > 0)");
            s.execute("COMMENT ON TABLE t IS 'changed'");
            s.execute("GRANT SELECT ON t TO reader");
            s.execute("CREATE ROLE writer");
            s.execute("ALTER TABLE t OWNER TO reader");
            s.execute("ROLLBACK");
            s.execute("INSERT INTO t (id) VALUES (-4)");
            assertThat(rows(db, "SELECT v IS NULL FROM t WHERE id = -4")).containsExactly("t");
            assertThat(rows(db, "SELECT obj_description('t'::regclass)")).containsExactly("orig");
            assertThat(rows(db, "SELECT relacl IS NULL, pg_get_userbyid(relowner) FROM pg_class WHERE relname = 't'")).containsExactly("t|tributary");
            assertThat(rows(db, "SELECT count(*) FROM pg_roles WHERE rolname = 'writer'")).containsExactly("0");

            // savepoints: a drop after the one rolled back to comes back; one before it stays dropped at COMMIT
            s.execute("BEGIN");
            s.execute("DROP MATERIALIZED VIEW mv");
            s.execute("SAVEPOINT sp");
            s.execute("DROP TABLE t");
            s.execute("ROLLBACK TO SAVEPOINT sp");
            s.execute("INSERT INTO t VALUES (5, 'e')");
            s.execute("COMMIT");
            SqlRows.fails("42P01", () -> s.execute("SELECT * FROM mv"));
            assertThat(rows(db, "SELECT count(*) FROM t")).containsExactly("5");

            // the session ends inside its block: as a rollback
            Tributary.Connection gone = db.session();
            gone.execute("BEGIN");
            gone.execute("DROP TABLE t");
            gone.close();
            assertThat(rows(db, "SELECT count(*) FROM t")).containsExactly("5");

            // committed drops are gone for good, and their names free
            s.execute("BEGIN");
            s.execute("DROP SCHEMA s CASCADE");
            s.execute("COMMIT");
            other.execute("CREATE SCHEMA s");
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(2_000), 2)) {
            assertThat(rows(db, "SELECT count(*) FROM t")).containsExactly("5");
            assertThat(rows(db, "SELECT obj_description('t'::regclass)")).containsExactly("orig");
            assertThat(rows(db, "SELECT relname FROM pg_class WHERE relname IN ('mv', 'u') ORDER BY 1")).isEmpty();
            assertThat(rows(db, "SELECT count(*) FROM pg_roles WHERE rolname = 'writer'")).containsExactly("0");
            db.execute("INSERT INTO t VALUES (0, 'x')"); // no CHECK: its ADD was rolled back
            assertThat(rows(db, "SELECT count(*) FROM t")).containsExactly("6");
        }
    }
}
