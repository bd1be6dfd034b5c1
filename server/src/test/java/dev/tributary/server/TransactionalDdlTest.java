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
 * does; and stays when it commits, over a restart too.
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
}
