package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Schemas as PostgreSQL has them: CREATE/DROP SCHEMA, qualified names, a session's search_path
 * deciding what bare names find and where CREATE puts things; kept over a restart, where every
 * object is made again seeing its names as they were when it was first made.
 */
class SchemasTest {
    private static List<String> rowsOf(Tributary.Connection c, String sql) {
        List<String> out = new java.util.ArrayList<>();
        List<Result> results = c.execute(sql);
        for (List<String> r : results.get(results.size() - 1).text()) out.add(String.join("|", r.stream().map(v -> v == null ? "NULL" : v).toList()));
        return out;
    }

    @Test
    void objectsMadeThroughTheSearchPathKeepWhatTheirNamesFoundOverARestart(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 2)) {
            Tributary.Connection c = db.session();
            c.execute("CREATE SCHEMA a; CREATE SCHEMA b");
            c.execute("SET search_path = a, b");
            c.execute("CREATE TABLE b.t (id serial PRIMARY KEY, v text)");
            c.execute("INSERT INTO t (v) VALUES ('from b')");
            // bare t finds b.t now; a.t, made after them, must not capture them at a restart
            c.execute("CREATE VIEW v AS SELECT v FROM t");
            c.execute("CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM t");
            c.execute("CREATE TABLE child (tid int REFERENCES t (id))");
            // made in public from a path without it: what the server writes itself (a serial's default,
            // a foreign key's and a UNIQUE's ALTER TABLE) must name public, or a restart cannot make them again
            c.execute("CREATE TABLE public.p (id serial PRIMARY KEY, k int UNIQUE)");
            c.execute("CREATE TABLE public.q (pid int REFERENCES public.p (id))");
            c.execute("INSERT INTO public.p (k) VALUES (5)");
            c.execute("CREATE TABLE a.t (id int, v text)");
            c.execute("INSERT INTO a.t VALUES (1, 'from a')");
            assertThat(rowsOf(c, "SELECT * FROM t")).containsExactly("1|from a");
            assertThat(rowsOf(c, "SELECT * FROM v")).containsExactly("from b");
            assertThat(rows(db, "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('a', 'b') ORDER BY 1, 2"))
                    .containsExactly("a|child", "a|t", "a|v", "b|t");
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(2_000), 2)) {
            assertThat(rows(db, "SELECT * FROM a.v")).containsExactly("from b");
            assertThat(rows(db, "SELECT * FROM a.m")).containsExactly("1");
            db.execute("INSERT INTO b.t (v) VALUES ('again')");
            assertThat(rows(db, "SELECT * FROM a.m")).containsExactly("2");
            SqlRows.fails("23503", () -> db.execute("INSERT INTO a.child VALUES (99)"));
            SqlRows.fails("23503", () -> db.execute("INSERT INTO q VALUES (99)"));
            SqlRows.fails("23505", () -> db.execute("INSERT INTO p (k) VALUES (5)"));
            db.execute("INSERT INTO p (k) VALUES (6)");
            db.execute("INSERT INTO a.child VALUES (1)");
            assertThat(rows(db, "SELECT nspname FROM pg_namespace WHERE nspname IN ('a', 'b') ORDER BY 1")).containsExactly("a", "b");
            db.execute("DROP SCHEMA a CASCADE");
            SqlRows.fails("3F000", () -> db.execute("CREATE TABLE a.x (i int)"));
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(3_000), 2)) {
            assertThat(rows(db, "SELECT nspname FROM pg_namespace WHERE nspname IN ('a', 'b') ORDER BY 1")).containsExactly("b");
            assertThat(rows(db, "SELECT v FROM b.t ORDER BY id")).containsExactly("from b", "again");
            // a schema of a name used before starts empty
            db.execute("CREATE SCHEMA a");
            assertThat(rows(db, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'a'")).containsExactly("0");
        }
    }

    @Test
    void aBlockThatMadeASchemaRollsItBackWithWhatIsInIt() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            Tributary.Connection c = db.session();
            c.execute("BEGIN");
            c.execute("CREATE SCHEMA s");
            c.execute("CREATE TABLE s.t (a int)");
            c.execute("ROLLBACK");
            assertThat(rows(db, "SELECT count(*) FROM pg_namespace WHERE nspname = 's'")).containsExactly("0");
            SqlRows.fails("42P01", () -> db.execute("SELECT * FROM s.t"));
            c.execute("BEGIN; CREATE SCHEMA s; CREATE TABLE s.t (a int); COMMIT");
            db.execute("INSERT INTO s.t VALUES (1)");
            assertThat(rows(db, "SELECT * FROM s.t")).containsExactly("1");
        }
    }

    @Test
    void columnsAreReachedThroughTheirSchemaAndDatabaseAndShowNamesTheSchemaWhereThePathDoesNot() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE SCHEMA s; CREATE TABLE t (a int); CREATE TABLE s.t (a int); INSERT INTO t VALUES (1); INSERT INTO s.t VALUES (2)");
            assertThat(rows(db, "SELECT tributary.s.t.a, tributary.public.t.a FROM s.t, t")).containsExactly("2|1");
            SqlRows.fails("0A000", "cross-database references are not implemented: other.s.t.a", () -> db.execute("SELECT other.s.t.a FROM s.t"));
            SqlRows.fails("42601", () -> db.execute("SELECT a.b.c.d.e FROM s.t"));
            assertThat(rows(db, "SHOW TABLES")).containsExactly("s.t", "t");
            Tributary.Connection c = db.session();
            c.execute("SET search_path = s, public");
            assertThat(rowsOf(c, "SHOW TABLES")).containsExactly("public.t", "t");
        }
    }

    @Test
    void preparedStatementsFollowTheSearchPath() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE SCHEMA s; CREATE TABLE t (a text); CREATE TABLE s.t (a text); INSERT INTO t VALUES ('public'); INSERT INTO s.t VALUES ('s')");
            Tributary.Connection c = db.session();
            Prepared p = c.prepare("SELECT a FROM t", List.of());
            assertThat(c.execute(p, List.of()).text()).containsExactly(List.of("public"));
            String visible = "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 't' AND pg_table_is_visible(c.oid)";
            assertThat(rowsOf(c, visible)).containsExactly("public");
            c.execute("SET search_path = s, public");
            assertThat(c.execute(p, List.of()).text()).containsExactly(List.of("s"));
            assertThat(rowsOf(c, visible)).containsExactly("s");
            assertThat(rowsOf(c, "SELECT 't'::regclass = 's.t'::regclass, current_schema()")).containsExactly("t|s");
            c.execute("SET search_path = s, nosuch, public");
            assertThat(rowsOf(c, "SELECT current_schemas(true)::text, current_schemas(false)::text")).containsExactly("{pg_catalog,s,public}|{s,public}");
            Prepared ins = c.prepare("INSERT INTO t VALUES ($1)", List.of(dev.tributary.sql.types.SqlType.TEXT));
            c.execute(ins, List.of("s2"));
            c.execute("RESET search_path");
            c.execute(ins, List.of("public2"));
            assertThat(rows(db, "SELECT a FROM s.t ORDER BY a")).containsExactly("s", "s2");
            assertThat(rows(db, "SELECT a FROM public.t ORDER BY a")).containsExactly("public", "public2");
        }
    }

    @Test
    void creatingInASchemaNeedsItsCreatePrivilegeAndDroppingItNeedsItsOwner() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE ROLE bob LOGIN; CREATE ROLE carol LOGIN; CREATE SCHEMA s; CREATE SCHEMA bobs AUTHORIZATION bob");
            Tributary.Connection bob = db.session();
            bob.authenticatedAs("bob");
            SqlRows.fails("42501", "permission denied for schema s", () -> bob.execute("CREATE TABLE s.t (a int)"));
            bob.execute("CREATE TABLE bobs.t (a int)");
            SqlRows.fails("42501", "permission denied for database tributary", () -> bob.execute("CREATE SCHEMA mine"));
            db.execute("GRANT CREATE ON SCHEMA s TO bob");
            bob.execute("CREATE TABLE s.t (a int)");
            // without USAGE on s, bob's names cannot reach into it (the search path skips it, a qualified name is refused)
            db.execute("CREATE TABLE s.other (a int); GRANT SELECT ON s.other TO bob");
            SqlRows.fails("42501", "permission denied for schema s", () -> bob.execute("SELECT * FROM s.other"));
            SqlRows.fails("42501", "permission denied for schema s", () -> bob.execute("INSERT INTO s.other VALUES (1)"));
            bob.execute("SET search_path = s, public");
            SqlRows.fails("42P01", () -> bob.execute("SELECT * FROM other"));
            assertThat(rowsOf(bob, "SELECT current_schemas(false)::text")).containsExactly("{public}");
            db.execute("GRANT USAGE ON SCHEMA s TO bob");
            assertThat(rowsOf(bob, "SELECT count(*) FROM other")).containsExactly("0");
            bob.execute("RESET search_path");
            SqlRows.fails("42501", "must be owner of schema s", () -> bob.execute("DROP SCHEMA s CASCADE"));
            assertThat(rows(db, "SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname IN ('s', 'bobs') ORDER BY 1"))
                    .containsExactly("bobs|bob", "s|tributary");
            Tributary.Connection carol = db.session();
            carol.authenticatedAs("carol");
            SqlRows.fails("42501", "must be owner of schema bobs", () -> carol.execute("DROP SCHEMA bobs CASCADE"));
            SqlRows.fails("2BP01", () -> db.execute("DROP ROLE bob"));
            bob.execute("DROP SCHEMA bobs CASCADE");
            db.execute("ALTER SCHEMA s OWNER TO carol");
            // the schema's owner drops what is in it, though bob owns that
            SqlRows.fails("2BP01", () -> carol.execute("DROP SCHEMA s"));
            carol.execute("DROP SCHEMA s CASCADE");
        }
    }
}
