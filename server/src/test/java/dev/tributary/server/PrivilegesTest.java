package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.parser.Parser;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code PrivilegeMatrixTest} (the transcript against PostgreSQL) does not reach: the paths
 * only Tributary has (SUBSCRIBE, COPY, prepared point reads that skip the coordinator), where
 * Tributary is stricter than PostgreSQL 15 on purpose (the bootstrap role stays a superuser), and
 * privileges surviving a restart.
 */
class PrivilegesTest {
    private static void assertDenied(Tributary.Connection c, String sql, String state, String message) {
        assertThatThrownBy(() -> c.execute(sql)).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).isEqualTo(state);
            assertThat(e.getMessage()).isEqualTo(message);
        });
    }

    private static Tributary.Connection as(Tributary db, String role) {
        Tributary.Connection c = db.session();
        c.execute("SET SESSION AUTHORIZATION " + role);
        return c;
    }

    @Test
    void theBootstrapSuperuserCannotLoseSuperuserNorBeDropped() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE ROLE admin SUPERUSER LOGIN");
            Tributary.Connection admin = as(db, "admin");
            assertDenied(admin, "ALTER ROLE tributary NOSUPERUSER", "42501", "permission denied to alter role");
            assertDenied(admin, "DROP ROLE tributary", "2BP01", "cannot drop role tributary because it is required by the database system");
            assertDenied(db.session(), "DROP ROLE tributary", "55006", "current user cannot be dropped");
            // another superuser may lose the attribute: the bootstrap role remains one
            db.execute("ALTER ROLE admin NOSUPERUSER");
            assertThat(db.roles().isSuperuser("admin")).isFalse();
            assertThat(db.roles().isSuperuser("tributary")).isTrue();
        }
    }

    @Test
    void showAndSetKnowRoleAndSessionAuthorizationByTheirSettingNames() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE ROLE bob LOGIN; CREATE ROLE readers; GRANT readers TO bob");
            Tributary.Connection c = db.session();
            assertThat(c.execute("SHOW role").get(0).text()).containsExactly(List.of("none"));
            assertThat(c.execute("SHOW is_superuser").get(0).text()).containsExactly(List.of("on"));
            c.execute("SET session_authorization = bob");
            assertThat(c.execute("SHOW session_authorization").get(0).text()).containsExactly(List.of("bob"));
            assertThat(c.execute("SHOW is_superuser").get(0).text()).containsExactly(List.of("off"));
            c.execute("SET role TO readers");
            assertThat(c.execute("SELECT current_user, session_user").get(0).text()).containsExactly(List.of("readers", "bob"));
            assertDenied(c, "SET role = tributary", "42501", "permission denied to set role \"tributary\"");
            c.execute("SET role TO DEFAULT");
            assertThat(c.execute("SHOW role").get(0).text()).containsExactly(List.of("none"));
        }
    }

    @Test
    void subscribeCopyAndMaterializedViewsNeedSelectAndCopyFromNeedsInsert() throws Exception {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE ROLE bob LOGIN; CREATE TABLE t (a int); INSERT INTO t VALUES (1); GRANT CREATE ON SCHEMA public TO bob");
            Tributary.Connection bob = as(db, "bob");
            assertThatThrownBy(() -> bob.subscribe((dev.tributary.sql.ast.Statement.Copy) Parser.parse("COPY (SUBSCRIBE t) TO STDOUT").get(0), batch -> { }))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.getMessage()).isEqualTo("permission denied for table t"));
            assertDenied(bob, "CREATE MATERIALIZED VIEW m AS SELECT a FROM t", "42501", "permission denied for table t");
            // a view may be made without reading it, as in PostgreSQL; reading it then is refused
            bob.execute("CREATE VIEW bv AS SELECT a FROM t");
            assertDenied(bob, "SELECT * FROM bv", "42501", "permission denied for table t");
            assertThatThrownBy(() -> bob.copyIn((dev.tributary.sql.ast.Statement.Copy) Parser.parse("COPY t FROM STDIN").get(0)))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.getMessage()).isEqualTo("permission denied for table t"));
            assertDenied(bob, "EXPLAIN SELECT * FROM t", "42501", "permission denied for table t");
            assertDenied(bob, "SELECT * FROM CHANGES(t AS OF 0)", "42501", "permission denied for table t");
            db.execute("GRANT SELECT ON t TO bob");
            assertThat(bob.execute("SELECT * FROM bv").get(0).rows()).hasSize(1);
            bob.execute("CREATE MATERIALIZED VIEW m AS SELECT a FROM t");
            assertThat(bob.execute("SELECT * FROM m").get(0).rows()).hasSize(1);
            try (Subscription s = bob.subscribe((dev.tributary.sql.ast.Statement.Copy) Parser.parse("COPY (SUBSCRIBE t) TO STDOUT").get(0), batch -> { })) {
                assertThat(s).isNotNull();
            }
        }
    }

    @Test
    void aRevokeReachesPreparedStatementsThatReadWithoutTheCoordinator() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE ROLE bob LOGIN; CREATE TABLE kv (k int PRIMARY KEY, v int); INSERT INTO kv VALUES (1, 10); GRANT SELECT ON kv TO bob");
            Tributary.Connection bob = as(db, "bob");
            Prepared p = bob.prepare("SELECT v FROM kv WHERE k = $1", List.of());
            for (int i = 0; i < 3; i++) assertThat(bob.execute(p, List.of(1L)).rows()).hasSize(1);
            db.execute("REVOKE SELECT ON kv FROM bob");
            assertThatThrownBy(() -> bob.execute(p, List.of(1L)))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.getMessage()).isEqualTo("permission denied for table kv"));
            db.execute("GRANT SELECT ON kv TO bob");
            assertThat(bob.execute(p, List.of(1L)).rows()).hasSize(1);
            // another role on the same prepared statement is checked for itself
            bob.execute("SET SESSION AUTHORIZATION DEFAULT");
            db.execute("CREATE ROLE erin LOGIN");
            bob.execute("SET SESSION AUTHORIZATION erin");
            assertThatThrownBy(() -> bob.execute(p, List.of(1L))).isInstanceOf(SqlException.class);
        }
    }

    @Test
    void rolesMembershipsOwnersAndAclsSurviveARestart(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 1)) {
            db.execute("CREATE ROLE alice LOGIN CREATEDB; CREATE ROLE bob LOGIN NOINHERIT; CREATE ROLE \"odd\tname\" NOLOGIN; CREATE ROLE readers");
            db.execute("GRANT readers TO bob WITH ADMIN OPTION; GRANT \"odd\tname\" TO alice; GRANT CREATE ON SCHEMA public TO alice");
            Tributary.Connection alice = as(db, "alice");
            alice.execute("CREATE TABLE t (a int); CREATE MATERIALIZED VIEW m AS SELECT a FROM t; CREATE VIEW v AS SELECT a FROM t");
            alice.execute("GRANT SELECT ON t TO readers WITH GRANT OPTION; GRANT INSERT ON t TO PUBLIC; GRANT SELECT ON v TO \"odd\tname\"");
            db.execute("CREATE TABLE s (x int); ALTER TABLE v OWNER TO bob");
        }
        try (Tributary db = Tributary.open(dir, Clock.manual(0), 1)) {
            assertThat(db.roles().find("alice").orElseThrow().attributes().createDb()).isTrue();
            assertThat(db.roles().find("bob").orElseThrow().attributes().inherit()).isFalse();
            assertThat(db.roles().memberships()).extracting(m -> m.role() + ">" + m.member() + (m.admin() ? "*" : ""))
                    .containsExactlyInAnyOrder("readers>bob*", "odd\tname>alice");
            assertThat(SqlRows.rows(db, "SELECT relname, pg_get_userbyid(relowner), array_to_string(relacl, ' ') FROM pg_class "
                    + "WHERE relname IN ('t', 'm', 'v', 's') ORDER BY 1"))
                    .containsExactly("m|alice|NULL", "s|tributary|NULL", "t|alice|alice=arwdDxt/alice readers=r*/alice =a/alice",
                            "v|bob|bob=arwdDxt/bob \"odd\tname\"=r/bob");
            assertThat(SqlRows.rows(db, "SELECT array_to_string(nspacl, ' ') FROM pg_namespace WHERE nspname = 'public'"))
                    .containsExactly("pg_database_owner=UC/pg_database_owner =U/pg_database_owner alice=C/pg_database_owner");
            Tributary.Connection bob = as(db, "bob");
            assertDenied(bob, "SELECT * FROM t", "42501", "permission denied for table t"); // NOINHERIT: readers' SELECT is not bob's
            bob.execute("SET ROLE readers");
            assertThat(bob.execute("SELECT * FROM t").get(0).rows()).isEmpty();
        }
    }
}
