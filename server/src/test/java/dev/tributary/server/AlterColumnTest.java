package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ALTER TABLE's in-place changes (ALTER COLUMN SET/DROP DEFAULT, SET/DROP NOT NULL, ADD and DROP
 * of a CHECK) as migration tools send them: kept over a restart, seen by prepared statements and
 * by views over the table, which keep their rows.
 */
class AlterColumnTest {
    @Test
    void changesSurviveARestartAndViewsKeepTheirRows(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 2)) {
            db.execute("CREATE SEQUENCE s");
            db.execute("CREATE TABLE t (id int PRIMARY KEY, name text, n int CHECK (n < 100), CHECK (n > -100))");
            db.execute("INSERT INTO t VALUES (1, 'a', 1)");
            db.execute("CREATE MATERIALIZED VIEW v AS SELECT name, sum(n) AS total FROM t GROUP BY name");
            db.execute("ALTER TABLE t ALTER COLUMN n SET DEFAULT nextval('s') + 10");
            db.execute("ALTER TABLE t ALTER COLUMN name SET NOT NULL");
            db.execute("ALTER TABLE t ADD CONSTRAINT not7 CHECK (n <> 7)");
            db.execute("ALTER TABLE t DROP CONSTRAINT t_n_check");
            db.execute("INSERT INTO t (id, name) VALUES (2, 'b')");
            assertThat(rows(db, "SELECT * FROM t ORDER BY id")).containsExactly("1|a|1", "2|b|11");
            SqlRows.fails("2BP01", () -> db.execute("DROP SEQUENCE s"));
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(2_000), 2)) {
            db.execute("INSERT INTO t (id, name) VALUES (3, 'c')");
            // a sequence may skip values over a restart, as PostgreSQL's may after a crash
            assertThat(rows(db, "SELECT id, name, n > 11 FROM t ORDER BY id")).containsExactly("1|a|f", "2|b|f", "3|c|t");
            SqlRows.fails("23502", () -> db.execute("INSERT INTO t (id) VALUES (4)"));
            SqlRows.fails("23514", () -> db.execute("INSERT INTO t VALUES (4, 'd', 7)"));
            SqlRows.fails("23514", () -> db.execute("INSERT INTO t VALUES (4, 'd', -101)"));
            db.execute("INSERT INTO t VALUES (4, 'd', 101)"); // the dropped check is gone
            assertThat(rows(db, "SELECT conname FROM pg_constraint WHERE contype = 'c' ORDER BY conname")).containsExactly("not7", "t_n_check1");
            assertThat(rows(db, "SELECT name, total FROM v ORDER BY name")).containsExactly("a|1", "b|11", "c|" + rows(db, "SELECT n FROM t WHERE id = 3").get(0), "d|101");
            db.execute("ALTER TABLE t ALTER COLUMN n DROP DEFAULT");
            db.execute("ALTER TABLE t ALTER COLUMN name DROP NOT NULL");
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(3_000), 2)) {
            db.execute("INSERT INTO t (id) VALUES (5)");
            assertThat(rows(db, "SELECT * FROM t WHERE id = 5")).containsExactly("5|NULL|NULL");
            db.execute("DROP SEQUENCE s"); // the default that read it is gone
        }
    }

    @Test
    void preparedInsertsSeeTheNewDefault() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, status text)");
            Tributary.Connection c = db.session();
            Prepared ins = c.prepare("INSERT INTO t (id) VALUES ($1)", List.of(dev.tributary.sql.types.SqlType.INTEGER));
            c.execute(ins, List.of(1L));
            db.execute("ALTER TABLE t ALTER COLUMN status SET DEFAULT 'new'");
            c.execute(ins, List.of(2L));
            assertThat(rows(db, "SELECT * FROM t ORDER BY id")).containsExactly("1|NULL", "2|new");
            SqlRows.fails("0A000", () -> db.execute("ALTER TABLE t ALTER COLUMN status TYPE varchar(3)"));
            SqlRows.fails("0A000", () -> db.execute("ALTER TABLE t ALTER COLUMN status SET DEFAULT 'x', ALTER COLUMN id DROP NOT NULL"));
        }
    }

    /** COMMENT ON's descriptions are kept over a restart, and go with their object (a new one of that name has none). */
    @Test
    void commentsSurviveARestartAndGoWithTheirObject(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, name text)");
            db.execute("CREATE TABLE gone (id int)");
            db.execute("COMMENT ON TABLE t IS 'kept'");
            db.execute("COMMENT ON COLUMN t.name IS 'a name'");
            db.execute("COMMENT ON TABLE gone IS 'dropped with it'");
            db.execute("DROP TABLE gone");
            db.execute("CREATE TABLE gone (id int)");
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(2_000), 1)) {
            assertThat(rows(db, "SELECT obj_description('t'::regclass, 'pg_class'), col_description('t'::regclass, 2), obj_description('gone'::regclass, 'pg_class')"))
                    .containsExactly("kept|a name|NULL");
            assertThat(rows(db, "SELECT count(*) FROM pg_description WHERE classoid = 1259")).containsExactly("2");
        }
    }
}
