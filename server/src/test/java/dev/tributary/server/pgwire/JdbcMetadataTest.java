package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The PostgreSQL JDBC driver's DatabaseMetaData against {@link PgServer}, read from the system catalogs. */
class JdbcMetadataTest extends LocalServerTest {
    private Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary&prepareThreshold=0");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2) DEFAULT 0, placed timestamptz DEFAULT now())");
            s.execute("CREATE VIEW big AS SELECT * FROM orders WHERE amount > 100");
            s.execute("CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer");
            s.execute("CREATE INDEX per_customer_key ON per_customer (customer)");
        }
        return c;
    }

    private static List<String> rows(ResultSet rs, String... columns) throws SQLException {
        List<String> out = new ArrayList<>();
        while (rs.next()) {
            List<String> r = new ArrayList<>();
            for (String c : columns) r.add(rs.getString(c));
            out.add(String.join("|", r));
        }
        return out;
    }

    @Test
    void getTablesListsTablesViewsAndMaterializedViews() throws SQLException {
        try (Connection c = connect()) {
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getTables(null, null, "%", new String[] {"TABLE", "VIEW", "MATERIALIZED VIEW"})) {
                assertThat(rows(rs, "TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS")).containsExactly(
                        "tributary|public|per_customer|MATERIALIZED VIEW|null",
                        "tributary|public|orders|TABLE|null",
                        "tributary|public|big|VIEW|null",
                        // Tributary's own relations (builds under way, what dataflows hold) are in a schema of their own, as an extension's would be
                        "tributary|tributary_internal|arrangement_sizes|VIEW|null",
                        "tributary|tributary_internal|arrangements|VIEW|null",
                        "tributary|tributary_internal|channels|VIEW|null",
                        "tributary|tributary_internal|dataflows|VIEW|null",
                        "tributary|tributary_internal|hydration_progress|VIEW|null",
                        "tributary|tributary_internal|objects|VIEW|null",
                        "tributary|tributary_internal|operators|VIEW|null",
                        "tributary|tributary_internal|server_metrics|VIEW|null",
                        "tributary|tributary_internal|statement_log|VIEW|null",
                        "tributary|tributary_internal|streams|VIEW|null",
                        "tributary|tributary_internal|subscriptions|VIEW|null");
            }
            try (ResultSet rs = md.getTables(null, "public", "ord%", new String[] {"TABLE"})) {
                assertThat(rows(rs, "TABLE_NAME")).containsExactly("orders");
            }
            try (ResultSet rs = md.getTables(null, null, "pg_class", null)) {
                assertThat(rows(rs, "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE")).containsExactly("pg_catalog|pg_class|SYSTEM TABLE");
            }
        }
    }

    @Test
    void getColumnsGivesTypesNullabilityAndDefaults() throws SQLException {
        try (Connection c = connect()) {
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getColumns(null, "public", "orders", null)) {
                assertThat(rows(rs, "TABLE_NAME", "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE",
                        "COLUMN_DEF", "ORDINAL_POSITION", "IS_NULLABLE")).containsExactly(
                        "orders|id|4|int4|10|0|0|null|1|NO",
                        "orders|customer|12|text|2147483647|0|0|null|2|NO",
                        "orders|amount|2|numeric|10|2|1|0|3|YES",
                        "orders|placed|93|timestamptz|35|6|1|now()|4|YES");
            }
            try (ResultSet rs = md.getColumns(null, null, "per_customer", "%")) {
                assertThat(rows(rs, "COLUMN_NAME", "TYPE_NAME", "NULLABLE", "ORDINAL_POSITION")).containsExactly(
                        "customer|text|1|1", "n|int8|1|2", "total|numeric|1|3");
            }
            try (ResultSet rs = md.getColumns(null, null, "big", "c%")) {
                assertThat(rows(rs, "COLUMN_NAME", "TYPE_NAME", "ORDINAL_POSITION")).containsExactly("customer|text|2");
            }
        }
    }


    @Test
    void columnsThroughInformationSchemaAndPgAttribute() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT table_name, column_name, data_type, is_nullable, column_default, ordinal_position, numeric_precision, numeric_scale"
                    + " FROM information_schema.columns WHERE table_schema = 'public' AND table_name IN ('orders', 'per_customer') ORDER BY table_name, ordinal_position")) {
                assertThat(rows(rs, "table_name", "column_name", "data_type", "is_nullable", "column_default", "ordinal_position", "numeric_precision", "numeric_scale"))
                        .containsExactly(
                                "orders|id|integer|NO|null|1|32|0",
                                "orders|customer|text|NO|null|2|null|null",
                                "orders|amount|numeric|YES|0|3|10|2",
                                "orders|placed|timestamp with time zone|YES|now()|4|null|null");
            }
            try (ResultSet rs = s.executeQuery("SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull, a.attnum"
                    + " FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'per_customer'::regclass ORDER BY a.attnum")) {
                assertThat(rows(rs, "attname", "type", "attnotnull", "attnum")).containsExactly(
                        "customer|text|f|1", "n|bigint|f|2", "total|numeric|f|3");
            }
            try (ResultSet rs = s.executeQuery("SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull, a.atthasdef"
                    + " FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON a.attrelid = c.oid"
                    + " WHERE c.relname = 'orders' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
                assertThat(rows(rs, "attname", "type", "attnotnull", "atthasdef")).containsExactly(
                        "id|integer|t|f", "customer|text|t|f", "amount|numeric(10,2)|f|t", "placed|timestamp with time zone|f|t");
            }
        }
    }

    @Test
    void sessionSettingsAndTheConnectedUser() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            // the driver sets application_name at startup; current_user is the user it connected as
            try (ResultSet rs = s.executeQuery("SELECT current_setting('application_name') AS app, current_user AS who, current_database() AS db")) {
                assertThat(rows(rs, "app", "who", "db")).containsExactly("PostgreSQL JDBC Driver|tributary|tributary");
            }
            s.execute("SET application_name = 'metadata test'");
            try (ResultSet rs = s.executeQuery("SHOW application_name")) {
                assertThat(rows(rs, "application_name")).containsExactly("metadata test");
            }
        }
    }

    @Test
    void getPrimaryKeysGivesKeyColumnsInOrder() throws SQLException {
        try (Connection c = connect()) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE lines (order_id int, line int, item text, PRIMARY KEY (line, order_id))");
            }
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "orders")) {
                assertThat(rows(rs, "TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME"))
                        .containsExactly("tributary|public|orders|id|1|orders_pkey");
            }
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "lines")) {
                assertThat(rows(rs, "COLUMN_NAME", "KEY_SEQ", "PK_NAME")).containsExactly("line|1|lines_pkey", "order_id|2|lines_pkey");
            }
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "big")) {
                assertThat(rs.next()).isFalse();
            }
        }
    }

    /** pgjdbc's getIndexInfo expands pg_index.indkey (an int2vector) with _pg_expandarray: unique and plain indexes, key columns in order. */
    @Test
    void getIndexInfoListsUniqueAndPlainIndexesWithTheirColumns() throws SQLException {
        try (Connection c = connect()) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE people (id int PRIMARY KEY, email text UNIQUE, a int, b int)");
                s.execute("CREATE INDEX people_ba ON people (b, a)");
            }
            try (ResultSet rs = c.getMetaData().getIndexInfo(null, "public", "people", false, false)) {
                assertThat(rows(rs, "INDEX_NAME", "NON_UNIQUE", "ORDINAL_POSITION", "COLUMN_NAME"))
                        .containsExactlyInAnyOrder("people_pkey|f|1|id", "people_email_key|f|1|email", "people_ba|t|1|b", "people_ba|t|2|a");
            }
            try (ResultSet rs = c.getMetaData().getIndexInfo(null, "public", "people", true, false)) {
                assertThat(rows(rs, "INDEX_NAME")).containsExactlyInAnyOrder("people_pkey", "people_email_key");
            }
        }
    }

    @Test
    void primaryKeysThroughPgConstraintAndPgIndex() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE lines (order_id int, line int, item text, PRIMARY KEY (line, order_id))");
            try (ResultSet rs = s.executeQuery("SELECT ct.relname, con.conname, con.conkey, i.indkey, i.indisprimary, pg_catalog.pg_get_constraintdef(con.oid, true) AS def"
                    + " FROM pg_catalog.pg_constraint con JOIN pg_catalog.pg_class ct ON con.conrelid = ct.oid"
                    + " JOIN pg_catalog.pg_index i ON i.indexrelid = con.conindid WHERE con.contype = 'p' ORDER BY 1")) {
                assertThat(rows(rs, "relname", "conname", "conkey", "indkey", "indisprimary", "def")).containsExactly(
                        "lines|lines_pkey|{2,1}|2 1|t|PRIMARY KEY (line, order_id)",
                        "orders|orders_pkey|{1}|1|t|PRIMARY KEY (id)");
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_catalog.pg_constraint con JOIN pg_catalog.pg_class c ON con.conrelid = c.oid WHERE c.relname = 'big'")) {
                assertThat(rows(rs, "count")).containsExactly("0");
            }
        }
    }
}
