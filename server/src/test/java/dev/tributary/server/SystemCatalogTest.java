package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;

import org.junit.jupiter.api.Test;

/**
 * pg_catalog and information_schema over the catalog, the catalog functions, regular-expression
 * operators, {@code OPERATOR()}, {@code COLLATE}, the reg* casts, and SET/SHOW.
 */
class SystemCatalogTest {
    private static Tributary withObjects() {
        Tributary db = Tributary.inMemory(Clock.manual(0));
        db.execute("CREATE TABLE orders (id int PRIMARY KEY, customer varchar(20) NOT NULL, amount numeric(10,2) DEFAULT 0)");
        db.execute("CREATE INDEX orders_by_customer ON orders (customer)");
        db.execute("CREATE VIEW big AS SELECT * FROM orders WHERE amount > 100");
        db.execute("CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n FROM orders GROUP BY customer");
        return db;
    }

    @Test
    void pgClassFollowsTheCatalogAtEveryQuery() {
        try (Tributary db = withObjects()) {
            String q = "SELECT c.relname, c.relkind, n.nspname, c.relhasindex FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE n.nspname = 'public' ORDER BY 1";
            assertThat(rows(db, q)).containsExactly("big|v|public|f", "orders|r|public|t", "orders_by_customer|i|public|f",
                    "orders_pkey|i|public|f", "per_customer|m|public|f");
            long oid = Long.parseLong(rows(db, "SELECT oid FROM pg_catalog.pg_class WHERE relname = 'orders'").get(0));
            db.execute("DROP VIEW big");
            db.execute("CREATE TABLE later (x int)");
            assertThat(rows(db, q)).containsExactly("later|r|public|f", "orders|r|public|t", "orders_by_customer|i|public|f",
                    "orders_pkey|i|public|f", "per_customer|m|public|f");
            // an object keeps its OID while it exists
            assertThat(rows(db, "SELECT oid FROM pg_class WHERE relname = 'orders'")).containsExactly(Long.toString(oid));
            assertThat(rows(db, "SELECT 'orders'::regclass, 'public.orders'::pg_catalog.regclass = " + oid)).containsExactly(oid + "|t");
        }
    }

    @Test
    void attributesIndexesConstraintsAndDefaults() {
        try (Tributary db = withObjects()) {
            assertThat(rows(db, "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid)"
                    + " FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                    + " WHERE a.attrelid = 'orders'::regclass ORDER BY a.attnum")).containsExactly(
                    "id|integer|t|NULL", "customer|character varying(20)|t|NULL", "amount|numeric(10,2)|f|0");
            assertThat(rows(db, "SELECT c.relname, i.indisprimary, i.indkey, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid ORDER BY 1"))
                    .containsExactly("orders_by_customer|f|2|CREATE INDEX orders_by_customer ON public.orders USING btree (customer)",
                            "orders_pkey|t|1|CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (id)");
            assertThat(rows(db, "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint")).containsExactly("orders_pkey|p|PRIMARY KEY (id)");
            assertThat(rows(db, "SELECT count(*) FROM pg_description WHERE classoid = 1259")).as("no relation has a description yet").containsExactly("0");
            // what SQLAlchemy's reflection asks for a column's sequence: there are none
            assertThat(rows(db, "SELECT count(*) FROM pg_catalog.pg_sequence")).containsExactly("0");
            assertThat(rows(db, "SELECT pg_get_serial_sequence('orders', 'id')")).containsExactly("NULL");
        }
    }

    /** PostgreSQL's spellings of two settings, as clients send them (SQLAlchemy asks for the isolation level so on connecting). */
    @Test
    void showSpellsTwoSettingsAsPostgreSqlDoes() {
        try (Tributary db = withObjects()) {
            assertThat(rows(db, "SHOW TRANSACTION ISOLATION LEVEL")).containsExactly(rows(db, "SHOW transaction_isolation").get(0));
            assertThat(rows(db, "SHOW TIME ZONE")).containsExactly(rows(db, "SHOW timezone").get(0));
            assertThat(db.query("SHOW TRANSACTION ISOLATION LEVEL").columns()).containsExactly("transaction_isolation");
        }
    }

    @Test
    void namesResolveInPgCatalogFirstThenPublic() {
        try (Tributary db = withObjects()) {
            db.execute("CREATE TABLE pg_type (x int)"); // a user table may take a catalog's name; pg_catalog is searched first
            db.execute("INSERT INTO public.pg_type VALUES (7)");
            assertThat(rows(db, "SELECT typname FROM pg_type WHERE oid = 23")).containsExactly("int4");
            assertThat(rows(db, "SELECT x FROM public.pg_type")).containsExactly("7");
            assertThat(rows(db, "SELECT pg_table_is_visible('public.pg_type'::regclass), pg_table_is_visible('orders'::regclass),"
                    + " pg_table_is_visible('pg_catalog.pg_type'::regclass)")).containsExactly("f|t|t");
            assertThat(rows(db, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'orders'")).containsExactly("1");
            fails("42P01", "relation \"tables\" does not exist", () -> db.query("SELECT * FROM tables"));
            fails("42P01", null, () -> db.query("SELECT * FROM pg_catalog.orders"));
            // a query naming a schema that does not exist: no such relation, as PostgreSQL answers (DDL says 3F000)
            fails("42P01", "relation \"nope.orders\" does not exist", () -> db.query("SELECT * FROM nope.orders"));
            fails("3F000", "schema \"nope\" does not exist", () -> db.execute("DROP TABLE nope.orders"));
            fails("42P01", "relation \"nosuch\" does not exist", () -> db.query("SELECT 'nosuch'::regclass"));
        }
    }

    @Test
    void catalogFunctions() {
        try (Tributary db = withObjects()) {
            assertThat(rows(db, "SELECT current_schema(), current_schema, current_database(), current_catalog, pg_catalog.pg_get_userbyid(10)"))
                    .containsExactly("public|public|tributary|tributary|tributary");
            assertThat(rows(db, "SELECT version() LIKE 'PostgreSQL 15.0 (Tributary)%'")).containsExactly("t");
            assertThat(rows(db, "SELECT format_type(1043, 24), format_type(1700, 655366), format_type(1184, -1), format_type(18, NULL),"
                    + " format_type(NULL, 4), format_type(99999, -1)")).containsExactly("character varying(20)|numeric(10,2)|timestamp with time zone|\"char\"|NULL|???");
            assertThat(rows(db, "SELECT obj_description('orders'::regclass, 'pg_class'), col_description('orders'::regclass, 1)")).containsExactly("NULL|NULL");
            assertThat(rows(db, "SELECT pg_get_indexdef(NULL), pg_table_is_visible(NULL), pg_get_userbyid(5)")).containsExactly("NULL|NULL|unknown (OID=5)");
            assertThat(rows(db, "SELECT 'int4'::regtype, 'integer'::regtype, 'pg_catalog'::regnamespace")).containsExactly("23|23|11");
            fails("42704", "type \"nosuch\" does not exist", () -> db.query("SELECT 'nosuch'::regtype"));
            fails("42883", null, () -> db.query("SELECT pg_table_is_visible('orders'::regclass, 1)"));
            fails("42883", null, () -> db.query("SELECT nosuch.version()"));
        }
    }

    @Test
    void rolesAreListed() {
        try (Tributary db = withObjects()) {
            db.execute("CREATE ROLE alice LOGIN");
            db.execute("CREATE ROLE reporting");
            assertThat(rows(db, "SELECT rolname, rolcanlogin, rolsuper FROM pg_roles ORDER BY 1")).containsExactly(
                    "alice|t|f", "reporting|f|f", "tributary|t|t", "tributary_connect|f|f");
            assertThat(rows(db, "SELECT usename FROM pg_user ORDER BY 1")).containsExactly("alice", "tributary");
            assertThat(rows(db, "SELECT pg_get_userbyid(oid) = rolname FROM pg_roles")).containsExactly("t", "t", "t", "t");
            assertThat(rows(db, "SELECT 'alice'::regrole = (SELECT oid FROM pg_roles WHERE rolname = 'alice')")).containsExactly("t");
            db.execute("DROP ROLE reporting");
            assertThat(rows(db, "SELECT count(*) FROM pg_roles")).containsExactly("3");
            fails("42704", () -> db.query("SELECT 'reporting'::regrole"));
        }
    }

    @Test
    void regularExpressionOperators() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            assertThat(rows(db, "SELECT 'orders' ~ '^ord', 'orders' ~ 'ORD', 'orders' ~* 'ORD', 'orders' !~ '^x', 'orders' !~* 'ORD', 'a.b' ~ 'a\\.b'"))
                    .containsExactly("t|f|t|t|f|t");
            assertThat(rows(db, "SELECT NULL ~ 'a', 'a' ~ NULL, 'x9' ~ '[[:digit:]]$'")).containsExactly("NULL|NULL|t");
            assertThat(rows(db, "SELECT 'orders' OPERATOR(pg_catalog.~) '^(orders)$' COLLATE pg_catalog.default, 2 OPERATOR(pg_catalog.+) 3"))
                    .containsExactly("t|5");
            assertThat(rows(db, "SELECT 'b' COLLATE \"C\" > 'a'")).containsExactly("t");
            fails("2201B", null, () -> db.query("SELECT 'a' ~ '('"));
            fails("42883", null, () -> db.query("SELECT 1 ~ 'a'"));
            fails("42883", null, () -> db.query("SELECT 1 OPERATOR(public.+) 2"));
            fails("42704", "collation \"en_US\" for encoding \"UTF8\" does not exist", () -> db.query("SELECT 'a' COLLATE \"en_US\""));
            db.execute("CREATE TABLE t (s text)");
            db.execute("INSERT INTO t VALUES ('apple'), ('banana'), (NULL)");
            db.execute("CREATE MATERIALIZED VIEW a_words AS SELECT s FROM t WHERE s ~ '^a'");
            db.execute("INSERT INTO t VALUES ('avocado')");
            assertThat(rows(db, "SELECT s FROM a_words ORDER BY s")).containsExactly("apple", "avocado");
        }
    }

    @Test
    void systemCatalogsAreNeitherMaintainedNorWritten() {
        try (Tributary db = withObjects()) {
            fails("0A000", null, () -> db.execute("CREATE MATERIALIZED VIEW m AS SELECT relname FROM pg_class"));
            fails("0A000", null, () -> db.execute("CREATE VIEW v AS SELECT current_database()"));
            fails("0A000", null, () -> db.execute("CREATE INDEX i ON pg_class (relname)"));
            fails("0A000", null, () -> db.execute("DROP TABLE pg_catalog.pg_class"));
            fails("42501", "permission denied for table pg_class", () -> db.execute("INSERT INTO pg_class (relname) VALUES ('x')"));
            fails("42501", "permission denied for table pg_namespace", () -> db.execute("DELETE FROM pg_catalog.pg_namespace"));
            fails("55000", "cannot update view \"tables\"", () -> db.execute("UPDATE information_schema.tables SET table_name = 'x'"));
            fails("55000", "cannot insert into view \"pg_settings\"", () -> db.execute("INSERT INTO pg_settings (name) VALUES ('x')"));
            fails("0A000", null, () -> db.subscribe("SUBSCRIBE (SELECT relname FROM pg_class)", batch -> { }));
        }
    }

    @Test
    void setAndShow() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            assertThat(rows(db, "SHOW search_path")).containsExactly("\"$user\", public");
            assertThat(db.query("SHOW datestyle").columns()).containsExactly("DateStyle");
            assertThat(rows(db, "SHOW server_version")).containsExactly("15.0 (Tributary)");
            db.execute("SET application_name = 'my app'");
            db.execute("SET extra_float_digits TO 3");
            db.execute("SET search_path = \"$user\", public");
            db.execute("SET TIME ZONE 'UTC'");
            db.execute("SET myext.flag = 'on'");
            assertThat(rows(db, "SHOW application_name")).containsExactly("my app");
            assertThat(rows(db, "SHOW myext.flag")).containsExactly("on");
            assertThat(rows(db, "SELECT name, setting, source FROM pg_settings WHERE name IN ('application_name', 'extra_float_digits', 'DateStyle') ORDER BY 1"))
                    .containsExactly("DateStyle|ISO, MDY|default", "application_name|my app|session", "extra_float_digits|3|session"); // code point order
            assertThat(rows(db, "SELECT current_setting('application_name'), current_setting('nosuch', true)")).containsExactly("my app|NULL");
            db.execute("SET application_name TO DEFAULT");
            assertThat(rows(db, "SHOW application_name")).containsExactly("");
            fails("42704", "unrecognized configuration parameter \"nosuch\"", () -> db.query("SHOW nosuch"));
            fails("42704", "unrecognized configuration parameter \"nosuch\"", () -> db.execute("SET nosuch = 1"));
            fails("55P02", "parameter \"server_version\" cannot be changed", () -> db.execute("SET server_version = '1'"));
            fails("22023", null, () -> db.execute("SET TimeZone = 'Europe/Paris'"));
            fails("22023", null, () -> db.execute("SET extra_float_digits = 'many'"));
            fails("42704", null, () -> db.query("SELECT current_setting('nosuch')"));
            assertThat(rows(db, "SHOW ALL").size()).isEqualTo(rows(db, "SELECT * FROM pg_settings").size());
        }
    }
}
