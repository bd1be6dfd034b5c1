package dev.tributary.sql.catalog;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.CatalogItem.SystemRelation;
import dev.tributary.sql.expr.CastContext;
import dev.tributary.sql.expr.Casts;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.parser.Parser;
import dev.tributary.sql.parser.SqlFormatter;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * PostgreSQL's system catalogs ({@code pg_catalog.pg_class}, {@code pg_attribute}, ...,
 * {@code information_schema.tables} and {@code columns}) over Tributary's catalog, and the
 * catalog functions clients call with them ({@code pg_table_is_visible}, {@code format_type},
 * {@code pg_get_indexdef}, ...).
 *
 * <p>An instance is a snapshot of one catalog, taken when a statement is bound: every system
 * relation the statement reads is a constant of the rows derived from that snapshot, and every
 * catalog function answers from it, so one query sees one consistent catalog. Nothing is kept
 * between statements and nothing is maintained: a view or index over a system relation would go
 * stale, and is refused by the coordinator.
 *
 * <p>Object identifiers are stable for the life of an object: a user object with catalog id
 * {@code n} is OID {@code 16384 + 3n}, the index PostgreSQL would make for a table's primary key
 * is {@code 16384 + 3n + 1} and that constraint {@code 16384 + 3n + 2}; system relations,
 * namespaces and types have PostgreSQL's own OIDs. User objects are in schema {@code public},
 * owned by the bootstrap role {@code tributary} (OID 10).
 *
 * <p>Types are modelled on the stored ones: {@code oid} and the {@code reg*} alias types are
 * {@code bigint}, {@code name} and {@code "char"} are {@code text}, and the vector and
 * {@code pg_node_tree} columns are {@code text} holding PostgreSQL's text form of the value
 * ({@code indkey = '1 2'}); array columns ({@code conkey}, {@code polroles}) are arrays. Array-typed columns that only PostgreSQL
 * features fill (ACLs, options) are left out.
 */
public final class SystemCatalog {
    public static final long PG_CATALOG = 11;
    public static final long PUBLIC = 2200;
    public static final long INFORMATION_SCHEMA = 13000;
    /** Tributary's own relations about what the engine is doing (builds under way). */
    public static final long TRIBUTARY_INTERNAL = 14000;
    /** The bootstrap superuser, who owns every object. */
    public static final long OWNER = 10;
    public static final String OWNER_NAME = "tributary";
    public static final long DATABASE = 5;
    public static final String DATABASE_NAME = "tributary";
    private static final long HEAP_AM = 2;
    private static final long BTREE_AM = 403;
    private static final long DEFAULT_COLLATION = 100;
    private static final long FIRST_USER_OID = 16384;
    /** PostgreSQL's pg_database_owner, the role that owns schema public: whoever owns the database. */
    static final long PG_DATABASE_OWNER = 6171;
    /** The first OID of pg_auth_members rows. */
    private static final long MEMBERSHIP_OIDS = 3_000_000_000L;

    private static final Map<String, SystemRelation> RELATIONS = new LinkedHashMap<>();

    private static void rel(long oid, String schema, String name, boolean view, String columns) {
        List<Column> cols = new ArrayList<>();
        for (String c : columns.split(",")) {
            String[] nt = c.strip().split(" ");
            SqlType t = switch (nt[1]) {
                case "oid", "int8" -> SqlType.BIGINT;
                case "int4" -> SqlType.INTEGER;
                case "int2" -> SqlType.SMALLINT;
                case "bool" -> SqlType.BOOLEAN;
                case "float4" -> SqlType.REAL;
                case "float8" -> SqlType.DOUBLE;
                case "text" -> SqlType.TEXT;
                case "tstz" -> SqlType.TIMESTAMPTZ;
                case "oid[]" -> SqlType.array(SqlType.BIGINT);
                case "int2[]" -> SqlType.array(SqlType.SMALLINT);
                case "int4[]" -> SqlType.array(SqlType.INTEGER);
                case "text[]" -> SqlType.array(SqlType.TEXT);
                case "int2vector" -> SqlType.vector(SqlType.SMALLINT);
                case "oidvector" -> SqlType.vector(SqlType.BIGINT);
                default -> throw new IllegalArgumentException("type " + nt[1]);
            };
            cols.add(new Column(nt[0], t, true));
        }
        RELATIONS.put(schema + "." + name, new SystemRelation(oid, schema, name, view, cols));
    }

    static {
        rel(2615, "pg_catalog", "pg_namespace", false, "oid oid, nspname text, nspowner oid, nspacl text[]");
        rel(1259, "pg_catalog", "pg_class", false, "oid oid, relname text, relnamespace oid, reltype oid, reloftype oid, relowner oid, relam oid,"
                + " relfilenode oid, reltablespace oid, relpages int4, reltuples float4, relallvisible int4, reltoastrelid oid, relhasindex bool,"
                + " relisshared bool, relpersistence text, relkind text, relnatts int2, relchecks int2, relhasrules bool, relhastriggers bool,"
                + " relhassubclass bool, relrowsecurity bool, relforcerowsecurity bool, relispopulated bool, relreplident text, relispartition bool,"
                + " relrewrite oid, relfrozenxid oid, relminmxid oid, relacl text[], reloptions text[], relpartbound text");
        rel(1249, "pg_catalog", "pg_attribute", false, "attrelid oid, attname text, atttypid oid, attstattarget int4, attlen int2, attnum int2,"
                + " attndims int4, attcacheoff int4, atttypmod int4, attbyval bool, attalign text, attstorage text, attcompression text,"
                + " attnotnull bool, atthasdef bool, atthasmissing bool, attidentity text, attgenerated text, attisdropped bool, attislocal bool,"
                + " attinhcount int4, attcollation oid, attacl text[]");
        rel(1247, "pg_catalog", "pg_type", false, "oid oid, typname text, typnamespace oid, typowner oid, typlen int2, typbyval bool, typtype text,"
                + " typcategory text, typispreferred bool, typisdefined bool, typdelim text, typrelid oid, typsubscript text, typelem oid, typarray oid,"
                + " typinput text, typoutput text, typreceive text, typsend text, typmodin text, typmodout text, typanalyze text, typalign text,"
                + " typstorage text, typnotnull bool, typbasetype oid, typtypmod int4, typndims int4, typcollation oid, typdefaultbin text, typdefault text");
        rel(2610, "pg_catalog", "pg_index", false, "indexrelid oid, indrelid oid, indnatts int2, indnkeyatts int2, indisunique bool,"
                + " indnullsnotdistinct bool, indisprimary bool, indisexclusion bool, indimmediate bool, indisclustered bool, indisvalid bool,"
                + " indcheckxmin bool, indisready bool, indislive bool, indisreplident bool, indkey int2vector, indcollation oidvector, indclass oidvector,"
                + " indoption int2vector, indexprs text, indpred text");
        rel(2601, "pg_catalog", "pg_am", false, "oid oid, amname text, amhandler text, amtype text");
        rel(2604, "pg_catalog", "pg_attrdef", false, "oid oid, adrelid oid, adnum int2, adbin text");
        rel(2606, "pg_catalog", "pg_constraint", false, "oid oid, conname text, connamespace oid, contype text, condeferrable bool, condeferred bool,"
                + " convalidated bool, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, confupdtype text, confdeltype text,"
                + " confmatchtype text, conislocal bool, coninhcount int4, connoinherit bool, conkey int2[], confkey int2[], conbin text");
        rel(3501, "pg_catalog", "pg_enum", false, "oid oid, enumtypid oid, enumsortorder float4, enumlabel text");
        rel(2609, "pg_catalog", "pg_description", false, "objoid oid, classoid oid, objsubid int4, description text");
        rel(2611, "pg_catalog", "pg_inherits", false, "inhrelid oid, inhparent oid, inhseqno int4, inhdetachpending bool");
        rel(3456, "pg_catalog", "pg_collation", false, "oid oid, collname text, collnamespace oid, collowner oid, collprovider text,"
                + " collisdeterministic bool, collencoding int4, collcollate text, collctype text, colliculocale text, collversion text");
        rel(1262, "pg_catalog", "pg_database", false, "oid oid, datname text, datdba oid, encoding int4, datlocprovider text, datistemplate bool,"
                + " datallowconn bool, datconnlimit int4, datfrozenxid oid, datminmxid oid, dattablespace oid, datcollate text, datctype text,"
                + " daticulocale text, datcollversion text, datacl text[]");
        rel(1213, "pg_catalog", "pg_tablespace", false, "oid oid, spcname text, spcowner oid");
        // kinds of object Tributary does not have: always empty, there for the clients that ask
        rel(3256, "pg_catalog", "pg_policy", false, "oid oid, polname text, polrelid oid, polcmd text, polpermissive bool, polroles oid[],"
                + " polqual text, polwithcheck text");
        rel(3381, "pg_catalog", "pg_statistic_ext", false, "oid oid, stxrelid oid, stxname text, stxnamespace oid, stxowner oid,"
                + " stxstattarget int4, stxkeys int2[], stxkind text[], stxexprs text");
        rel(6104, "pg_catalog", "pg_publication", false, "oid oid, pubname text, pubowner oid, puballtables bool, pubinsert bool,"
                + " pubupdate bool, pubdelete bool, pubtruncate bool, pubviaroot bool");
        rel(6106, "pg_catalog", "pg_publication_rel", false, "oid oid, prpubid oid, prrelid oid, prqual text, prattrs int2[]");
        rel(6237, "pg_catalog", "pg_publication_namespace", false, "oid oid, pnpubid oid, pnnspid oid");
        rel(2224, "pg_catalog", "pg_sequence", false, "seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8, seqmax int8, seqmin int8,"
                + " seqcache int8, seqcycle bool");
        rel(2620, "pg_catalog", "pg_trigger", false, "oid oid, tgrelid oid, tgparentid oid, tgname text, tgfoid oid, tgtype int2,"
                + " tgenabled text, tgisinternal bool, tgconstrrelid oid, tgconstrindid oid, tgconstraint oid, tgdeferrable bool,"
                + " tginitdeferred bool, tgnargs int2, tgattr int2[], tgqual text, tgoldtable text, tgnewtable text");
        rel(1261, "pg_catalog", "pg_auth_members", false, "oid oid, roleid oid, member oid, grantor oid, admin_option bool");
        rel(2618, "pg_catalog", "pg_rewrite", false, "oid oid, rulename text, ev_class oid, ev_type text, ev_enabled text, is_instead bool,"
                + " ev_qual text, ev_action text");
        rel(12001, "pg_catalog", "pg_roles", true, "rolname text, rolsuper bool, rolinherit bool, rolcreaterole bool, rolcreatedb bool,"
                + " rolcanlogin bool, rolreplication bool, rolconnlimit int4, rolpassword text, rolvaliduntil tstz, rolbypassrls bool, rolconfig text[], oid oid");
        rel(12002, "pg_catalog", "pg_user", true, "usename text, usesysid oid, usecreatedb bool, usesuper bool, userepl bool, usebypassrls bool,"
                + " passwd text, valuntil tstz");
        rel(12008, "pg_catalog", "pg_stat_activity", true, "datid oid, datname text, pid int4, leader_pid int4, usesysid oid, usename text,"
                + " application_name text, client_addr text, client_hostname text, client_port int4, backend_start tstz, xact_start tstz,"
                + " query_start tstz, state_change tstz, wait_event_type text, wait_event text, state text, backend_xid text, backend_xmin text,"
                + " query_id int8, query text, backend_type text");
        rel(12003, "pg_catalog", "pg_settings", true, "name text, setting text, unit text, category text, short_desc text, extra_desc text,"
                + " context text, vartype text, source text, min_val text, max_val text, boot_val text, reset_val text, sourcefile text,"
                + " sourceline int4, pending_restart bool");
        rel(12004, "pg_catalog", "pg_tables", true, "schemaname text, tablename text, tableowner text, tablespace text, hasindexes bool,"
                + " hasrules bool, hastriggers bool, rowsecurity bool");
        rel(12005, "pg_catalog", "pg_views", true, "schemaname text, viewname text, viewowner text, definition text");
        rel(12006, "pg_catalog", "pg_matviews", true, "schemaname text, matviewname text, matviewowner text, tablespace text, hasindexes bool,"
                + " ispopulated bool, definition text");
        rel(12007, "pg_catalog", "pg_indexes", true, "schemaname text, tablename text, indexname text, tablespace text, indexdef text");
        rel(13001, "information_schema", "tables", true, "table_catalog text, table_schema text, table_name text, table_type text,"
                + " self_referencing_column_name text, reference_generation text, user_defined_type_catalog text, user_defined_type_schema text,"
                + " user_defined_type_name text, is_insertable_into text, is_typed text, commit_action text");
        rel(13002, "information_schema", "columns", true, "table_catalog text, table_schema text, table_name text, column_name text,"
                + " ordinal_position int4, column_default text, is_nullable text, data_type text, character_maximum_length int4,"
                + " character_octet_length int4, numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, datetime_precision int4,"
                + " interval_type text, interval_precision int4, character_set_catalog text, character_set_schema text, character_set_name text,"
                + " collation_catalog text, collation_schema text, collation_name text, domain_catalog text, domain_schema text, domain_name text,"
                + " udt_catalog text, udt_schema text, udt_name text, scope_catalog text, scope_schema text, scope_name text,"
                + " maximum_cardinality int4, dtd_identifier text, is_self_referencing text, is_identity text, identity_generation text,"
                + " identity_start text, identity_increment text, identity_maximum text, identity_minimum text, identity_cycle text,"
                + " is_generated text, generation_expression text, is_updatable text");
        rel(14001, "tributary_internal", "hydration_progress", true, "object_id oid, kind text, name text, phase text, rows_done int8,"
                + " rows_total int8, started_at tstz");
        rel(14002, "tributary_internal", "arrangement_sizes", true, "object_id oid, name text, part text, records int8, bytes int8, paged_bytes int8");
        rel(14003, "tributary_internal", "subscriptions", true, "id int8, pid int4, query text, records int8, late_rows int8, watermark text");
        // maintained collections (see Catalog.maintained): rows written by the server's sampler, not computed here
        rel(14004, "tributary_internal", "objects", true, "id int8, schema text, name text, kind text, since tstz, upper tstz, lag_ms int8, hydrated bool");
        rel(14005, "tributary_internal", "statement_log", true, "id int8, pid int4, usename text, query text, started_at tstz, duration_ms float8,"
                + " rows int8, sqlstate text, error text");
        rel(14006, "tributary_internal", "streams", true, "id int8, pid int4, query text, late_rows int8, watermark text, cursor text");
        // the server's counters when read (Catalog.ServerMetrics): one row, cumulative counts a client turns into rates
        rel(14020, "tributary_internal", "server_metrics", true, "sampled_at tstz, statements int8, statement_errors int8, commits int8,"
                + " committed_rows int8, latency_p50_ms float8, latency_p99_ms float8, heap_used_bytes int8, heap_committed_bytes int8,"
                + " arrangement_records int8, arrangement_bytes int8, connections int4, subscriptions int4");
        // the workers' dataflows as they run (Catalog.DataflowInfo), read one-off from every worker
        rel(14101, "tributary_internal", "dataflows", true, "dataflow_id int4, name text, object_id oid, operators int4, channels int4,"
                + " arrangements int4, records_out int8, elapsed_ns int8");
        rel(14102, "tributary_internal", "operators", true, "dataflow_id int4, operator_id int4, name text, scope text, inputs int4, outputs int4,"
                + " records_in int8, records_out int8, messages_in int8, messages_out int8, activations int8, elapsed_ns int8");
        rel(14103, "tributary_internal", "channels", true, "dataflow_id int4, from_operator int4, from_port int4, to_operator int4, to_port int4,"
                + " exchange bool");
        rel(14104, "tributary_internal", "arrangements", true, "dataflow_id int4, operator_id int4, object_id oid, name text, batches int8,"
                + " records int8, bytes int8, paged_bytes int8, shared_by int4[]");
        rel(13003, "information_schema", "schemata", true, "catalog_name text, schema_name text, schema_owner text,"
                + " default_character_set_catalog text, default_character_set_schema text, default_character_set_name text, sql_path text");
    }

    /** The system relation {@code schema.name}, if there is one. */
    public static Optional<SystemRelation> relation(String schema, String name) {
        return Optional.ofNullable(RELATIONS.get(schema + "." + name));
    }

    /**
     * Whether {@code r}'s rows exist only as a collection the server maintains
     * ({@code tributary_internal.objects}, {@code statement_log}, {@code streams}), with no form
     * computed when a query is planned: even a one-off query reads the collection.
     */
    public static boolean onlyMaintained(SystemRelation r) {
        return r.schema().equals("tributary_internal") && (r.name().equals("objects") || r.name().equals("statement_log") || r.name().equals("streams"));
    }

    /** Whether {@code schema} is one of the system schemas. */
    public static boolean isSystemSchema(String schema) {
        return schema.equals("pg_catalog") || schema.equals("information_schema") || schema.equals("tributary_internal");
    }

    /** The OID of a catalog object. */
    public static long oid(CatalogItem item) {
        return item instanceof SystemRelation r ? r.id() : oid(item.id());
    }

    /** The OID of the user object (or schema) with catalog id {@code id}. */
    public static long oid(long id) {
        return FIRST_USER_OID + 3 * id;
    }

    // ------------------------------------------------------------------ types

    /** The description of relation {@code oid}'s column {@code column} (0: the relation), or null. */
    private String description(long oid, int column) {
        Map<Integer, String> of = descriptions.get(oid);
        return of == null ? null : of.get(column);
    }

    /** A row of pg_type. */
    private record PgType(long oid, String name, int len, String category, boolean preferred, long collation, String display) {}

    private static final List<PgType> TYPES = List.of(
            new PgType(16, "bool", 1, "B", true, 0, "boolean"),
            new PgType(17, "bytea", -1, "U", false, 0, "bytea"),
            new PgType(114, "json", -1, "U", false, 0, "json"),
            new PgType(3802, "jsonb", -1, "U", false, 0, "jsonb"),
            new PgType(22, "int2vector", -1, "A", false, 0, "int2vector"),
            new PgType(30, "oidvector", -1, "A", false, 0, "oidvector"),
            new PgType(18, "char", 1, "Z", false, 0, "\"char\""),
            new PgType(19, "name", 64, "S", false, 950, "name"),
            new PgType(20, "int8", 8, "N", false, 0, "bigint"),
            new PgType(21, "int2", 2, "N", false, 0, "smallint"),
            new PgType(22, "int2vector", -1, "A", false, 0, "int2vector"),
            new PgType(23, "int4", 4, "N", false, 0, "integer"),
            new PgType(24, "regproc", 4, "N", false, 0, "regproc"),
            new PgType(25, "text", -1, "S", true, DEFAULT_COLLATION, "text"),
            new PgType(26, "oid", 4, "N", true, 0, "oid"),
            new PgType(30, "oidvector", -1, "A", false, 0, "oidvector"),
            new PgType(194, "pg_node_tree", -1, "Z", false, DEFAULT_COLLATION, "pg_node_tree"),
            new PgType(700, "float4", 4, "N", false, 0, "real"),
            new PgType(701, "float8", 8, "N", true, 0, "double precision"),
            new PgType(705, "unknown", -2, "X", false, 0, "unknown"),
            new PgType(1042, "bpchar", -1, "S", false, DEFAULT_COLLATION, "character"),
            new PgType(1043, "varchar", -1, "S", false, DEFAULT_COLLATION, "character varying"),
            new PgType(1082, "date", 4, "D", false, 0, "date"),
            new PgType(1083, "time", 8, "D", false, 0, "time without time zone"),
            new PgType(1114, "timestamp", 8, "D", false, 0, "timestamp without time zone"),
            new PgType(1184, "timestamptz", 8, "D", true, 0, "timestamp with time zone"),
            new PgType(1186, "interval", 16, "T", true, 0, "interval"),
            new PgType(1700, "numeric", -1, "N", false, 0, "numeric"),
            new PgType(2205, "regclass", 4, "N", false, 0, "regclass"),
            new PgType(2249, "record", -1, "P", false, 0, "record"),
            new PgType(2950, "uuid", 16, "U", false, 0, "uuid"),
            new PgType(2206, "regtype", 4, "N", false, 0, "regtype"),
            new PgType(4089, "regnamespace", 4, "N", false, 0, "regnamespace"));

    private static final Map<Long, PgType> TYPE_BY_OID = new HashMap<>();
    /** Element type OID to its array type's OID, and back. */
    private static final Map<Long, Long> ARRAY_OF = new HashMap<>();
    private static final Map<Long, Long> ELEMENT_OF = new HashMap<>();
    /** Every row of pg_type: the base types and their array types. */
    private static final List<PgType> ALL_TYPES;

    static {
        long[][] arrays = {{16, 1000}, {17, 1001}, {114, 199}, {3802, 3807}, {18, 1002}, {19, 1003}, {20, 1016}, {21, 1005}, {23, 1007}, {25, 1009}, {26, 1028},
                {700, 1021}, {701, 1022}, {1042, 1014}, {1043, 1015}, {1082, 1182}, {1083, 1183}, {1114, 1115}, {1184, 1185}, {1186, 1187},
                {1700, 1231}, {2249, 2287}, {2950, 2951}};
        List<PgType> all = new ArrayList<>(TYPES);
        for (long[] a : arrays) {
            ARRAY_OF.put(a[0], a[1]);
            ELEMENT_OF.put(a[1], a[0]);
        }
        for (PgType t : TYPES) TYPE_BY_OID.put(t.oid(), t);
        for (long[] a : arrays) {
            PgType e = TYPE_BY_OID.get(a[0]);
            all.add(new PgType(a[1], "_" + e.name(), -1, "A", false, e.collation(), e.display() + "[]"));
        }
        ALL_TYPES = List.copyOf(all);
        for (PgType t : ALL_TYPES) TYPE_BY_OID.put(t.oid(), t);
    }


    /** PostgreSQL's OID for a stored type, as clients see it in RowDescription. */
    /** The element type's OID of array type {@code oid}, or -1 when {@code oid} is not an array type. */
    public static long elementOid(long oid) {
        return ELEMENT_OF.getOrDefault(oid, -1L);
    }

    public static long typeOid(SqlType t) {
        return switch (t.kind()) {
            case BOOLEAN -> 16;
            case SMALLINT -> 21;
            case INTEGER -> 23;
            case BIGINT -> 20;
            case REAL -> 700;
            case DOUBLE -> 701;
            case NUMERIC -> 1700;
            case TEXT -> 25;
            case VARCHAR -> 1043;
            case CHAR -> 1042;
            case BYTEA -> 17;
            case UUID -> 2950;
            case JSON -> 114;
            case JSONB -> 3802;
            case DATE -> 1082;
            case TIME -> 1083;
            case TIMESTAMP -> 1114;
            case TIMESTAMPTZ -> 1184;
            case INTERVAL -> 1186;
            case UNKNOWN -> 705;
            case ARRAY -> t.isVector() ? (t.element().kind() == SqlType.Kind.SMALLINT ? 22 : 30) : ARRAY_OF.getOrDefault(typeOid(t.element()), 1009L);
            case RECORD -> 2249;
        };
    }

    /** PostgreSQL's type modifier: {@code n + 4} for varchar(n)/char(n), {@code (p << 16 | s) + 4} for numeric(p,s), else -1. */
    public static int typmod(SqlType t) {
        return switch (t.kind()) {
            case VARCHAR, CHAR -> t.length() >= 0 ? t.length() + 4 : -1;
            case NUMERIC -> t.length() >= 0 ? ((t.length() << 16) | Math.max(t.scale(), 0)) + 4 : -1;
            default -> -1;
        };
    }

    /** {@code format_type(oid, typmod)}: the type as PostgreSQL prints it, e.g. {@code numeric(10,2)}; NULL for a NULL OID. */
    static String formatType(Long oid, Long typmod) {
        if (oid == null) return null;
        PgType t = TYPE_BY_OID.get(oid);
        if (t == null) return "???";
        long m = typmod == null ? -1 : typmod;
        if (ELEMENT_OF.containsKey(oid)) return formatType(ELEMENT_OF.get(oid), typmod) + "[]";
        if (m >= 4) {
            if (oid == 1043 || oid == 1042) return t.display() + "(" + (m - 4) + ")";
            if (oid == 1700) return "numeric(" + ((m - 4) >> 16) + "," + ((m - 4) & 0xffff) + ")";
        }
        return t.display();
    }

    // ------------------------------------------------------------------ the snapshot

    /** A relation as pg_class sees it. */
    private record Rel(long oid, String name, long namespace, String kind, List<Column> columns, CatalogItem item) {}

    /** An index as pg_index sees it: a Tributary index, or the one PostgreSQL would have for a primary key. */
    /**
     * An index as the catalogs show it: {@code unique} when it refuses a second row per key,
     * {@code constraintOid} the oid of the PRIMARY KEY or UNIQUE constraint it is (0 if none).
     */
    private record Idx(long oid, String name, Rel on, List<String> keys, List<Integer> attnums, List<SqlType> types, boolean primary, boolean unique,
                       long constraintOid) {}

    private final List<Rel> relations = new ArrayList<>();
    /** The sequences serial and identity columns own, by {@code tableId:column}. */
    private final Map<String, CatalogItem.Sequence> ownedSequences = new HashMap<>();
    private final Map<Long, Rel> relByOid = new HashMap<>();
    private final List<Idx> indexes = new ArrayList<>();
    private final Map<Long, Idx> indexByOid = new HashMap<>();
    private final List<CatalogItem.ForeignKey> foreignKeys = new ArrayList<>();
    private final java.util.Set<Long> primaryKeyIndexes = new java.util.HashSet<>();
    private final Map<String, String> settings;
    /** The roles by name. */
    private final Map<String, Access.RoleInfo> roles = new java.util.TreeMap<>();
    private final Access access;
    private final List<Catalog.HydrationProgress> hydrations;
    /** Asked only when tributary_internal.arrangement_sizes is read: it visits every worker. */
    private final java.util.function.Supplier<List<Catalog.ArrangementPart>> arrangementSizes;
    private final java.util.function.Supplier<List<Catalog.SubscriptionState>> subscriptions;
    /** Asked only when one of tributary_internal's dataflow relations is read: it visits every worker. */
    private final java.util.function.Supplier<List<Catalog.DataflowInfo>> dataflows;
    /** Asked only when pg_stat_activity is read. */
    private final java.util.function.Supplier<List<Catalog.Activity>> activity;
    /** Asked only when tributary_internal.server_metrics is read. */
    private final java.util.function.Supplier<Catalog.ServerMetrics> serverMetrics;

    /** Descriptions (COMMENT ON) by the object's OID, then column number (0: the object). */
    private final Map<Long, Map<Integer, String>> descriptions = new HashMap<>();

    /** The user schemas (public first), by name, and their names by OID. */
    private final Map<String, Catalog.Namespace> namespaces = new java.util.LinkedHashMap<>();
    private final Map<Long, String> namespaceNames = new HashMap<>();
    /** The session's search path: the user schemas an unqualified name is looked for in (after pg_catalog). */
    private final List<String> searchPath;

    /** The session's backend pid, and where its signals to other backends go. */
    private final int backendPid;
    private final Catalog signals;

    /** A snapshot of {@code catalog}'s objects, roles and settings. */
    public SystemCatalog(Catalog catalog) {
        this.backendPid = catalog.backendPid();
        this.signals = catalog;
        this.settings = Map.copyOf(catalog.settings());
        this.access = catalog.access();
        for (Access.RoleInfo r : access.roles()) roles.put(r.name(), r);
        this.hydrations = List.copyOf(catalog.hydrationProgress());
        this.arrangementSizes = catalog::arrangementSizes;
        this.subscriptions = catalog::runningSubscriptions;
        this.dataflows = catalog::dataflows;
        this.activity = catalog::activity;
        this.serverMetrics = catalog::serverMetrics;
        for (Catalog.Namespace n : catalog.schemas()) {
            namespaces.put(n.name(), n);
            namespaceNames.put(n.oid(), n.name());
        }
        this.searchPath = List.copyOf(catalog.searchPath());
        for (SystemRelation r : RELATIONS.values()) {
            add(new Rel(r.id(), r.name(), namespaceOid(r.schema()), r.view() ? "v" : "r", r.columns(), r));
        }
        Map<Long, Map<Integer, String>> comments = catalog.comments();
        if (!comments.isEmpty()) {
            for (CatalogItem item : catalog.items()) {
                Map<Integer, String> of = comments.get(item.id());
                // a primary key's index has the OID after its table's
                if (of != null) descriptions.put(item instanceof CatalogItem.Index i && i.primaryKey() ? FIRST_USER_OID + 3 * i.on() + 1 : oid(item), of);
            }
        }
        Map<Long, Rel> userById = new HashMap<>();
        for (CatalogItem item : catalog.items()) {
            String kind = switch (item) {
                case CatalogItem.Table t -> "r";
                case CatalogItem.View v -> "v";
                case CatalogItem.MaterializedView m -> "m";
                case CatalogItem.Index i -> null;
                case CatalogItem.ForeignKey f -> null;
                case CatalogItem.Sequence q -> "S";
                case SystemRelation s -> null;
            };
            if (item instanceof CatalogItem.ForeignKey f) foreignKeys.add(f);
            if (item instanceof CatalogItem.Index i && i.primaryKey()) primaryKeyIndexes.add(i.id());
            if (item instanceof CatalogItem.Sequence q && q.owned()) ownedSequences.put(q.ownerTable() + ":" + q.ownerColumn(), q);
            if (kind == null) continue;
            Rel r = new Rel(oid(item), item.name(), namespaceOid(catalog.schemaOf(item.id())), kind, item.columns(), item);
            add(r);
            userById.put(item.id(), r);
        }
        for (CatalogItem item : catalog.items()) {
            if (item instanceof CatalogItem.Table t && !t.primaryKey().isEmpty()) {
                Rel on = userById.get(t.id());
                List<String> keys = new ArrayList<>();
                List<Integer> attnums = new ArrayList<>();
                List<SqlType> types = new ArrayList<>();
                for (int k : t.primaryKey()) {
                    keys.add(SqlFormatter.ident(t.columns().get(k).name()));
                    attnums.add(k + 1);
                    types.add(t.columns().get(k).type());
                }
                addIndex(new Idx(oid(t) + 1, pkeyName(t), on, keys, attnums, types, true, true, oid(t) + 2));
            } else if (item instanceof CatalogItem.Index i && !i.primaryKey() && userById.containsKey(i.on())) {
                // (a primary key's index is listed with its table, above, as PostgreSQL lists it)
                Rel on = userById.get(i.on());
                List<String> keys = indexKeyTexts(i, on.columns());
                List<Integer> attnums = new ArrayList<>();
                List<SqlType> types = new ArrayList<>();
                for (ScalarExpr k : i.keys()) {
                    attnums.add(k instanceof ScalarExpr.ColumnRef c ? c.index() + 1 : 0);
                    types.add(k.type());
                }
                addIndex(new Idx(oid(i), i.name(), on, keys, attnums, types, false, i.unique(), i.constraint() ? oid(i) + 1 : 0));
            }
        }
    }

    private void add(Rel r) {
        relations.add(r);
        relByOid.put(r.oid(), r);
    }

    private void addIndex(Idx x) {
        indexes.add(x);
        indexByOid.put(x.oid(), x);
        List<Column> cols = new ArrayList<>();
        for (int k = 0; k < x.keys().size(); k++) {
            int a = x.attnums().get(k);
            cols.add(new Column(a > 0 ? x.on().columns().get(a - 1).name() : k == 0 ? "expr" : "expr" + k, x.types().get(k), true));
        }
        add(new Rel(x.oid(), x.name(), x.on().namespace(), "i", cols, null));
    }

    private static String pkeyName(CatalogItem.Table t) {
        return t.name() + "_pkey";
    }

    /** The index's key expressions as written (re-read from its CREATE INDEX), each parenthesised unless a column. */
    private static List<String> indexKeyTexts(CatalogItem.Index i, List<Column> columns) {
        List<String> out = new ArrayList<>();
        List<Expr> written = null;
        try {
            if (Parser.parseStatement(i.sql()) instanceof Statement.CreateIndex ci && ci.exprs().size() == i.keys().size()) written = ci.exprs();
        } catch (SqlException e) {
            written = null; // the stored text is not a lone CREATE INDEX: describe the bound keys instead
        }
        List<String> names = columns.stream().map(Column::name).toList();
        for (int k = 0; k < i.keys().size(); k++) {
            ScalarExpr key = i.keys().get(k);
            if (key instanceof ScalarExpr.ColumnRef c) out.add(SqlFormatter.ident(names.get(c.index())));
            else out.add("(" + (written != null ? SqlFormatter.format(written.get(k)) : key.describe(names)) + ")");
        }
        return out;
    }

    /** The default expressions of a table's columns as written, by attnum; re-read from its CREATE TABLE. */
    private Map<Integer, String> defaultTexts(CatalogItem.Table t) {
        Map<Integer, String> out = new LinkedHashMap<>();
        try {
            if (Parser.parseStatement(t.sql()) instanceof Statement.CreateTable ct) {
                for (Statement.ColumnDef d : ct.columns()) {
                    for (int a = 0; a < t.columns().size(); a++) {
                        if (!t.columns().get(a).name().equals(d.name())) continue;
                        CatalogItem.Sequence serial = d.identity() == Statement.Identity.SERIAL ? ownedSequences.get(t.id() + ":" + a) : null;
                        if (serial != null) out.put(a + 1, "nextval('" + regclassText(oid(serial)).replace("'", "''") + "'::regclass)");
                        else if (d.defaultExpr() != null) out.put(a + 1, SqlFormatter.format(d.defaultExpr()));
                    }
                }
                return out;
            }
        } catch (SqlException e) {
            out.clear(); // the stored text is not a lone CREATE TABLE: fall back to the bound defaults
        }
        List<String> names = t.columns().stream().map(Column::name).toList();
        for (int a = 0; a < t.defaults().size() && a < t.columns().size(); a++) {
            ScalarExpr d = t.defaults().get(a);
            if (d != null && !(d instanceof ScalarExpr.Literal l && l.value() == null)) out.put(a + 1, d.describe(names));
        }
        return out;
    }

    /** A relation's name as regclass shows it: bare when the search path finds it so, qualified otherwise. */
    private String regclassText(long oid) {
        Rel r = relByOid.get(oid);
        if (r == null) return Long.toString(oid);
        return visible(oid) ? SqlFormatter.ident(r.name()) : SqlFormatter.ident(schemaName(r)) + "." + SqlFormatter.ident(r.name());
    }

    /** {@code t}'s identity columns by attnum: {@code a} (GENERATED ALWAYS) or {@code d} (BY DEFAULT), as pg_attribute.attidentity says. */
    private static Map<Integer, String> identities(CatalogItem.Table t) {
        Map<Integer, String> out = new HashMap<>();
        try {
            if (Parser.parseStatement(t.sql()) instanceof Statement.CreateTable ct) {
                for (Statement.ColumnDef d : ct.columns()) {
                    if (d.identity() != Statement.Identity.ALWAYS && d.identity() != Statement.Identity.BY_DEFAULT) continue;
                    int a = indexOf(t, d.name());
                    if (a >= 0) out.put(a + 1, d.identity() == Statement.Identity.ALWAYS ? "a" : "d");
                }
            }
        } catch (SqlException e) {
            out.clear(); // not a lone CREATE TABLE: no identity columns shown
        }
        return out;
    }

    private static int indexOf(CatalogItem.Table t, String column) {
        for (int a = 0; a < t.columns().size(); a++) if (t.columns().get(a).name().equals(column)) return a;
        return -1;
    }

    private static String definition(CatalogItem item) {
        String sql = switch (item) {
            case CatalogItem.View v -> v.sql();
            case CatalogItem.MaterializedView m -> m.sql();
            default -> null;
        };
        if (sql == null) return null;
        try {
            if (Parser.parseStatement(sql) instanceof Statement.CreateView cv) return " " + SqlFormatter.format(cv.query()) + ";";
        } catch (SqlException e) {
            return sql; // not a lone CREATE VIEW: show the stored text as it is
        }
        return sql;
    }

    private String indexDef(Idx x) {
        String on = x.on().item() == null ? x.on().name() : SqlFormatter.ident(schemaName(x.on())) + "." + SqlFormatter.ident(x.on().name());
        return "CREATE " + (x.unique() ? "UNIQUE " : "") + "INDEX " + SqlFormatter.ident(x.name()) + " ON " + on + " USING btree ("
                + String.join(", ", x.keys()) + ")";
    }

    // ------------------------------------------------------------------ rows

    /** The rows of {@code r} in this snapshot, as values of its columns' types. */
    public List<Object[]> rows(SystemRelation r) {
        List<Object[]> out = new ArrayList<>();
        switch (r.schema() + "." + r.name()) {
            case "pg_catalog.pg_namespace" -> {
                out.add(row(PG_CATALOG, "pg_catalog", OWNER, access.schemaAcl("pg_catalog")));
                out.add(row(INFORMATION_SCHEMA, "information_schema", OWNER, access.schemaAcl("information_schema")));
                out.add(row(TRIBUTARY_INTERNAL, "tributary_internal", OWNER, access.schemaAcl("tributary_internal")));
                for (Catalog.Namespace n : namespaces.values()) {
                    out.add(row(n.oid(), n.name(), n.oid() == PUBLIC ? PG_DATABASE_OWNER : roleOid(n.owner()), access.schemaAcl(n.name())));
                }
            }
            case "pg_catalog.pg_class" -> {
                for (Rel x : relations) {
                    boolean index = x.kind().equals("i");
                    boolean stored = x.kind().equals("r") || x.kind().equals("m");
                    boolean hasIndex = indexes.stream().anyMatch(i -> i.on() == x);
                    out.add(row(x.oid(), x.name(), x.namespace(), 0L, 0L, ownerOid(x), index ? BTREE_AM : stored ? HEAP_AM : 0L,
                            stored || index ? x.oid() : 0L, 0L, 0L, -1.0, 0L, 0L, hasIndex, false, "p", x.kind(), (long) x.columns().size(),
                            x.item() instanceof CatalogItem.Table t ? (long) t.checks().size() : 0L, false, hasForeignKeys(x), false, false, false, true, stored ? "d" : "n", false, 0L, 0L, 0L, aclOf(x), null, null));
                }
            }
            case "pg_catalog.pg_attribute" -> {
                for (Rel x : relations) {
                    Map<Integer, String> defaults = x.item() instanceof CatalogItem.Table t ? defaultTexts(t) : Map.of();
                    Map<Integer, String> identities = x.item() instanceof CatalogItem.Table t ? identities(t) : Map.of();
                    for (int a = 0; a < x.columns().size(); a++) {
                        Column c = x.columns().get(a);
                        long typeOid = typeOid(c.type());
                        PgType pt = TYPE_BY_OID.get(typeOid);
                        boolean byval = pt.len() > 0 && pt.len() <= 8;
                        out.add(row(x.oid(), c.name(), typeOid, -1L, (long) pt.len(), (long) (a + 1), 0L, -1L, (long) typmod(c.type()), byval,
                                pt.len() == 8 ? "d" : pt.len() == 2 ? "s" : pt.len() == 1 ? "c" : "i", storage(pt), "",
                                !c.nullable() && !x.kind().equals("i"), defaults.containsKey(a + 1), false, identities.getOrDefault(a + 1, ""), "", false, true, 0L,
                                pt.collation() == DEFAULT_COLLATION ? DEFAULT_COLLATION : 0L, null)); // no column privileges
                    }
                }
            }
            case "pg_catalog.pg_type" -> {
                for (PgType t : ALL_TYPES) {
                    out.add(row(t.oid(), t.name(), PG_CATALOG, OWNER, (long) t.len(), t.len() > 0 && t.len() <= 8, t.category().equals("X") ? "p" : "b",
                            t.category(), t.preferred(), true, ",", 0L, ELEMENT_OF.containsKey(t.oid()) ? "array_subscript_handler" : "-",
                            ELEMENT_OF.getOrDefault(t.oid(), 0L), ARRAY_OF.getOrDefault(t.oid(), 0L), t.name() + "in", t.name() + "out", t.name() + "recv",
                            t.name() + "send", "-", "-", "-", t.len() == 8 ? "d" : t.len() == 2 ? "s" : t.len() == 1 ? "c" : "i",
                            storage(t), false, 0L, -1L, 0L, t.collation(), null, null));
                }
            }
            case "pg_catalog.pg_index" -> {
                for (Idx x : indexes) {
                    List<Object> key = x.attnums().stream().map(a -> (Object) (long) a).toList();
                    List<Object> zeros = x.attnums().stream().map(a -> (Object) 0L).toList();
                    String exprs = x.attnums().contains(0) ? String.join(", ", x.keys()) : null;
                    out.add(row(x.oid(), x.on().oid(), (long) x.keys().size(), (long) x.keys().size(), x.unique(), false, x.primary(), false,
                            true, false, true, false, true, true, false, key, zeros, zeros, zeros, exprs, null));
                }
            }
            case "pg_catalog.pg_am" -> {
                out.add(row(HEAP_AM, "heap", "heap_tableam_handler", "t"));
                out.add(row(BTREE_AM, "btree", "bthandler", "i"));
            }
            case "pg_catalog.pg_attrdef" -> {
                for (Rel x : relations) {
                    if (!(x.item() instanceof CatalogItem.Table t)) continue;
                    for (Map.Entry<Integer, String> d : defaultTexts(t).entrySet()) {
                        out.add(row(attrdefOid(x, d.getKey()), x.oid(), (long) d.getKey(), d.getValue()));
                    }
                }
            }
            case "pg_catalog.pg_sequence" -> {
                for (Rel x : relations) {
                    if (!(x.item() instanceof CatalogItem.Sequence q)) continue;
                    out.add(row(x.oid(), typeOid(q.type()), q.start(), q.increment(), q.max(), q.min(), 1L, q.cycle()));
                }
            }
            case "pg_catalog.pg_constraint" -> {
                for (Idx x : indexes) {
                    if (x.constraintOid() == 0) continue;
                    List<Object> key = x.attnums().stream().map(a -> (Object) (long) a).toList();
                    out.add(row(x.constraintOid(), x.name(), x.on().namespace(), x.primary() ? "p" : "u", false, false, true, x.on().oid(), 0L, x.oid(), 0L, 0L, " ", " ", " ",
                            true, 0L, true, key, null, null));
                }
                for (Rel x : relations) {
                    if (!(x.item() instanceof CatalogItem.Table t)) continue;
                    for (int k = 0; k < t.checks().size(); k++) {
                        CatalogItem.Table.Check c = t.checks().get(k);
                        List<Object> key = new ArrayList<>();
                        checkColumns(c.expr(), key);
                        out.add(row(checkOid(x.oid(), k), c.name(), x.namespace(), "c", false, false, true, x.oid(), 0L, 0L, 0L, 0L, " ", " ", " ",
                                true, 0L, false, key, null, c.text()));
                    }
                }
                for (CatalogItem.ForeignKey f : foreignKeys) {
                    Rel child = relByOid.get(FIRST_USER_OID + 3 * f.table());
                    Rel parent = relByOid.get(FIRST_USER_OID + 3 * f.refTable());
                    if (child == null || parent == null) continue;
                    List<Object> key = f.referencing().stream().map(a -> (Object) (long) (a + 1)).toList();
                    List<Object> refKey = f.referenced().stream().map(a -> (Object) (long) (a + 1)).toList();
                    out.add(row(oid(f), f.name(), child.namespace(), "f", f.deferrable(), f.initiallyDeferred(), true, child.oid(), 0L, refIndexOid(f, parent), 0L, parent.oid(),
                            f.onUpdate().code(), f.onDelete().code(), f.matchFull() ? "f" : "s", true, 0L, true, key, refKey, null));
                }
            }
            case "pg_catalog.pg_description" -> {
                out.add(row(PUBLIC, 2615L, 0L, "standard public schema"));
                for (Map.Entry<Long, Map<Integer, String>> d : new java.util.TreeMap<>(descriptions).entrySet()) {
                    for (Map.Entry<Integer, String> c : new java.util.TreeMap<>(d.getValue()).entrySet()) out.add(row(d.getKey(), 1259L, (long) c.getKey(), c.getValue()));
                }
            }
            case "pg_catalog.pg_inherits", "pg_catalog.pg_policy", "pg_catalog.pg_statistic_ext",
                 "pg_catalog.pg_publication", "pg_catalog.pg_publication_rel", "pg_catalog.pg_publication_namespace",
                 "pg_catalog.pg_trigger", "pg_catalog.pg_rewrite", "pg_catalog.pg_enum" -> {
                // Tributary has no table inheritance, row security policies,
                // extended statistics, publications, triggers, rules or enum types
            }
            case "pg_catalog.pg_auth_members" -> {
                long n = 0;
                for (Access.Membership m : access.memberships()) {
                    out.add(row(MEMBERSHIP_OIDS + n++, roleOid(m.role()), roleOid(m.member()), roleOid(m.grantor()), m.admin()));
                }
            }
            case "pg_catalog.pg_collation" -> {
                out.add(row(DEFAULT_COLLATION, "default", PG_CATALOG, OWNER, "d", true, -1L, null, null, null, null));
                out.add(row(950L, "C", PG_CATALOG, OWNER, "c", true, -1L, "C", "C", null, null));
                out.add(row(951L, "POSIX", PG_CATALOG, OWNER, "c", true, -1L, "POSIX", "POSIX", null, null));
            }
            case "pg_catalog.pg_database" ->
                    out.add(row(DATABASE, DATABASE_NAME, OWNER, 6L, "c", false, true, -1L, 0L, 0L, 1663L, "C", "C", null, null, null));
            case "pg_catalog.pg_tablespace" -> {
                out.add(row(1663L, "pg_default", OWNER));
                out.add(row(1664L, "pg_global", OWNER));
            }
            case "pg_catalog.pg_roles" -> {
                for (Access.RoleInfo role : roles.values()) {
                    out.add(row(role.name(), role.superuser(), role.inherit(), role.createRole(), role.createDb(), role.login(), role.replication(), -1L,
                            "********", null, role.bypassRls(), null, roleOid(role.name())));
                }
            }
            case "pg_catalog.pg_user" -> {
                for (Access.RoleInfo role : roles.values()) {
                    if (role.login()) out.add(row(role.name(), roleOid(role.name()), role.createDb(), role.superuser(), role.replication(), role.bypassRls(), "********", null));
                }
            }
            case "pg_catalog.pg_stat_activity" -> {
                for (Catalog.Activity a : activity.get()) {
                    // as in PostgreSQL, a role sees the details of its own backends (and a superuser's, of every one)
                    boolean visible = access.hasRole(access.currentUser(), a.user(), "USAGE");
                    out.add(row(DATABASE, a.database(), (long) a.pid(), null, roleOid(a.user()), a.user(), visible ? a.applicationName() : null,
                            visible ? a.clientAddress() : null, null, visible ? (long) a.clientPort() : null, instant(visible, a.backendStart()),
                            instant(visible, a.xactStart()), instant(visible, a.queryStart()), instant(visible, a.stateChange()),
                            visible && a.state().equals("active") ? null : visible ? "Client" : null, visible && !a.state().equals("active") ? "ClientRead" : null,
                            visible ? a.state() : null, null, null, null, visible ? a.query() : "<insufficient privilege>", "client backend"));
                }
            }
            case "pg_catalog.pg_settings" -> {
                for (Settings.Setting s : Settings.all()) {
                    String value = settings.getOrDefault(s.name().toLowerCase(Locale.ROOT), s.bootValue());
                    boolean changed = settings.containsKey(s.name().toLowerCase(Locale.ROOT));
                    out.add(row(s.name(), value, Settings.inMilliseconds(s) ? "ms" : null, s.category(), s.description(), null,
                            s.context(), s.vartype(), changed ? "session" : "default", null, null, s.bootValue(), s.bootValue(), null, null, false));
                }
            }
            case "pg_catalog.pg_tables" -> {
                for (Rel x : relations) {
                    if (!x.kind().equals("r") || x.namespace() == INFORMATION_SCHEMA || x.namespace() == TRIBUTARY_INTERNAL) continue;
                    out.add(row(schemaName(x), x.name(), ownerName(x), null, indexes.stream().anyMatch(i -> i.on() == x), false, false, false));
                }
            }
            case "pg_catalog.pg_views" -> {
                for (Rel x : relations) {
                    if (x.kind().equals("v")) out.add(row(schemaName(x), x.name(), ownerName(x), x.item() == null ? null : definition(x.item())));
                }
            }
            case "pg_catalog.pg_matviews" -> {
                for (Rel x : relations) {
                    if (x.kind().equals("m")) {
                        out.add(row(schemaName(x), x.name(), ownerName(x), null, indexes.stream().anyMatch(i -> i.on() == x), true, definition(x.item())));
                    }
                }
            }
            case "pg_catalog.pg_indexes" -> {
                for (Idx x : indexes) out.add(row(schemaName(x.on()), x.on().name(), x.name(), null, indexDef(x)));
            }
            case "information_schema.tables" -> {
                for (Rel x : relations) {
                    // PostgreSQL lists neither indexes, materialized views nor sequences here
                    if (x.kind().equals("i") || x.kind().equals("m") || x.kind().equals("S")) continue;
                    boolean table = x.kind().equals("r");
                    out.add(row(DATABASE_NAME, schemaName(x), x.name(), table ? "BASE TABLE" : "VIEW", null, null, null, null, null,
                            table && x.item() != null ? "YES" : "NO", "NO", null));
                }
            }
            case "information_schema.columns" -> {
                for (Rel x : relations) {
                    if (x.kind().equals("i") || x.kind().equals("m") || x.kind().equals("S")) continue; // as in PostgreSQL
                    Map<Integer, String> defaults = x.item() instanceof CatalogItem.Table t ? defaultTexts(t) : Map.of();
                    for (int a = 0; a < x.columns().size(); a++) out.add(columnRow(x, a, defaults.get(a + 1)));
                }
            }
            case "information_schema.schemata" -> {
                for (String s : List.of("pg_catalog", "information_schema", "tributary_internal")) out.add(row(DATABASE_NAME, s, OWNER_NAME, null, null, null, null));
                for (Catalog.Namespace n : namespaces.values()) out.add(row(DATABASE_NAME, n.name(), n.owner(), null, null, null, null));
            }
            // the engine's state, computed now (EngineRows; the server's sampler writes the same rows for views over them)
            case "tributary_internal.hydration_progress" -> out.addAll(EngineRows.hydrationProgress(hydrations));
            case "tributary_internal.arrangement_sizes" -> out.addAll(EngineRows.arrangementSizes(arrangementSizes.get()));
            case "tributary_internal.dataflows" -> out.addAll(EngineRows.dataflows(dataflows.get()));
            case "tributary_internal.operators" -> out.addAll(EngineRows.operators(dataflows.get()));
            case "tributary_internal.channels" -> out.addAll(EngineRows.channels(dataflows.get()));
            case "tributary_internal.arrangements" -> out.addAll(EngineRows.arrangements(dataflows.get()));
            case "tributary_internal.subscriptions" -> out.addAll(EngineRows.subscriptions(subscriptions.get()));
            case "tributary_internal.server_metrics" -> out.addAll(EngineRows.serverMetrics(serverMetrics.get(), java.time.Instant.now()));
            // maintained collections: a catalog that maintains none (no server) shows them empty
            case "tributary_internal.objects", "tributary_internal.statement_log", "tributary_internal.streams" -> { }
            default -> throw new IllegalStateException("no rows for system relation " + r.name());
        }
        return out;
    }

    /** PostgreSQL's typstorage: plain for fixed-size types, main for numeric, extended for the other varlena types. */
    private static String storage(PgType t) {
        return t.len() > 0 ? "p" : t.oid() == 1700 ? "m" : "x";
    }

    private static long attrdefOid(Rel x, int attnum) {
        return x.oid() * 1000 + attnum; // unique among defaults, stable with the table's OID
    }

    private String schemaName(Rel x) {
        return namespaceName(x.namespace());
    }

    /** The owner of {@code x}: the bootstrap role for a system relation. */
    private String ownerName(Rel x) {
        return x.item() == null || x.item() instanceof SystemRelation ? OWNER_NAME : access.owner(userId(x));
    }

    private long ownerOid(Rel x) {
        return roleOid(ownerName(x));
    }

    /** The id the catalog knows {@code x} by: an index's is its table's for privileges, as PostgreSQL shows no ACL on indexes. */
    private static long userId(Rel x) {
        return x.item().id();
    }

    /** {@code x}'s relacl: null (the default) for system relations and indexes. */
    private List<String> aclOf(Rel x) {
        if (x.item() == null || x.item() instanceof SystemRelation || x.item() instanceof CatalogItem.Index) return null;
        return access.acl(userId(x));
    }

    /** The role the session authenticated as. */
    private String sessionUser() {
        return access.sessionUser();
    }

    /** A role's OID: the bootstrap role's is 10, {@code pg_database_owner}'s 6171, another's is derived from its name, so it is the same while the role exists. */
    private static long roleOid(String name) {
        if (name.equals("pg_database_owner")) return PG_DATABASE_OWNER;
        return name.equals(OWNER_NAME) ? OWNER : FIRST_USER_OID + 1_000_000_000L + (name.hashCode() & 0x7fffffffL);
    }

    private String roleName(long oid) {
        if (oid == PG_DATABASE_OWNER) return "pg_database_owner";
        for (String r : roles.keySet()) if (roleOid(r) == oid) return r;
        return null;
    }

    private Object[] columnRow(Rel x, int a, String dflt) {
        Column c = x.columns().get(a);
        SqlType t = c.type();
        PgType pt = TYPE_BY_OID.get(typeOid(t));
        Long charMax = (t.kind() == SqlType.Kind.VARCHAR || t.kind() == SqlType.Kind.CHAR) && t.length() >= 0 ? (long) t.length() : null;
        Long octets = t.isString() && t.kind() != SqlType.Kind.UNKNOWN ? (charMax != null ? charMax * 4 : 1073741824L) : null;
        Long precision = switch (t.kind()) {
            case SMALLINT -> 16L;
            case INTEGER -> 32L;
            case BIGINT -> 64L;
            case REAL -> 24L;
            case DOUBLE -> 53L;
            case NUMERIC -> t.length() >= 0 ? (long) t.length() : null;
            default -> null;
        };
        Long radix = null;
        if (t.kind() == SqlType.Kind.NUMERIC) radix = 10L;
        else if (precision != null) radix = 2L;
        Long scale = null;
        if (t.isInteger()) scale = 0L;
        else if (t.kind() == SqlType.Kind.NUMERIC && t.length() >= 0) scale = (long) Math.max(t.scale(), 0);
        Long datetime = switch (t.kind()) {
            case DATE -> 0L;
            case TIME, TIMESTAMP, TIMESTAMPTZ, INTERVAL -> 6L;
            default -> null;
        };
        String dataType = t.kind().pgName();
        boolean updatable = x.kind().equals("r") && x.item() != null;
        return row(DATABASE_NAME, schemaName(x), x.name(), c.name(), (long) (a + 1), dflt, c.nullable() ? "YES" : "NO", dataType, charMax, octets,
                precision, radix, scale, datetime, null, null, null, null, null, null, null, null, null, null, null, DATABASE_NAME, "pg_catalog",
                pt.name(), null, null, null, null, String.valueOf(a + 1), "NO", "NO", null, null, null, null, null, "NO", "NEVER", null,
                updatable ? "YES" : "NO");
    }

    /** A time in ms since the epoch as a timestamptz value; null when hidden or 0 (none). */
    private static java.time.Instant instant(boolean visible, long millis) {
        return visible && millis != 0 ? java.time.Instant.ofEpochMilli(millis) : null;
    }

    /** A row of values, int4 columns' values as the longs rows hold. */
    static Object[] row(Object... values) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof Integer n) values[i] = n.longValue();
        }
        return values;
    }

    // ------------------------------------------------------------------ functions

    /** The names of the functions {@link #call} resolves (without a {@code pg_catalog.} prefix). */
    public static boolean isCatalogFunction(String name) {
        return switch (name) {
            case "current_database", "current_catalog", "current_schema", "current_schemas", "current_user", "session_user", "current_role", "version",
                 "pg_table_is_visible", "pg_type_is_visible", "pg_get_userbyid", "format_type", "pg_get_indexdef", "pg_get_expr",
                 "pg_get_constraintdef", "pg_get_viewdef", "obj_description", "col_description", "shobj_description", "current_setting",
                 "pg_encoding_to_char", "regclass", "regtype", "regnamespace", "regproc", "regrole", "to_regclass", "to_regtype",
                 "pg_relation_is_publishable", "pg_get_statisticsobjdef_columns", "pg_get_triggerdef", "pg_get_serial_sequence", "pg_backend_pid",
                 "pg_cancel_backend", "pg_terminate_backend", "has_table_privilege", "has_schema_privilege", "pg_has_role",
                 "pg_table_size", "pg_relation_size", "pg_total_relation_size", "pg_indexes_size" -> true;
            default -> false;
        };
    }

    /** The server's version string, as {@code version()} returns it. */
    public static String version() {
        return "PostgreSQL 15.0 (Tributary) on " + System.getProperty("os.arch") + "-" + System.getProperty("os.name").toLowerCase(Locale.ROOT)
                + ", compiled by Java " + Runtime.version().feature() + ", 64-bit";
    }

    /**
     * {@code name(args)} for a catalog function, answered from this snapshot; 42883 when the
     * arguments fit none of its signatures (as PostgreSQL reports).
     */
    public ScalarExpr call(String name, List<ScalarExpr> args, int pos) {
        int n = args.size();
        return switch (name) {
            case "current_database", "current_catalog" -> constant(name, n, 0, DATABASE_NAME, pos);
            case "current_schema" -> {
                if (n != 0) throw noFunction(name, pos);
                yield new ScalarExpr.Literal(searchPath.isEmpty() ? null : searchPath.get(0), SqlType.TEXT);
            }
            // the search path's schemas that exist; with true, pg_catalog (searched first) too
            case "current_schemas" -> fn(name, args, pos, SqlType.array(SqlType.TEXT), x -> {
                if (x[0] == null) return null;
                List<Object> out = new ArrayList<>();
                if ((Boolean) x[0]) out.add("pg_catalog");
                out.addAll(searchPath);
                return out;
            }, SqlType.BOOLEAN);
            case "current_user", "current_role" -> constant(name, n, 0, access.currentUser(), pos);
            case "session_user" -> constant(name, n, 0, sessionUser(), pos);
            case "has_table_privilege" -> tablePrivilege(name, args, pos);
            case "has_schema_privilege" -> schemaPrivilege(name, args, pos);
            case "pg_has_role" -> {
                List<ScalarExpr> a = n == 2 ? List.of(new ScalarExpr.Literal(access.currentUser(), SqlType.TEXT), args.get(0), args.get(1)) : args;
                if (n != 2 && n != 3) throw noFunction(name, pos);
                yield fn(name, a, pos, SqlType.BOOLEAN, x -> access.hasRole(roleArg(x[0]), roleArg(x[1]), (String) x[2]), SqlType.TEXT, SqlType.TEXT, SqlType.TEXT);
            }
            case "version" -> constant(name, n, 0, version(), pos);
            // a relation's arrangements are the workers' (tributary_internal.arrangement_sizes), not files: psql's \dt+ shows 0 bytes
            case "pg_table_size", "pg_relation_size", "pg_total_relation_size", "pg_indexes_size" -> fn(name, args, pos, SqlType.BIGINT, x -> 0L, SqlType.BIGINT);
            case "pg_backend_pid" -> {
                if (n != 0) throw noFunction(name, pos);
                yield new ScalarExpr.Literal((long) backendPid, SqlType.INTEGER);
            }
            case "pg_cancel_backend", "pg_terminate_backend" -> {
                boolean terminate = name.equals("pg_terminate_backend");
                yield new ScalarExpr.Call(name, coerce(name, args, pos, SqlType.INTEGER), SqlType.BOOLEAN,
                        x -> signals.signalBackend((int) (long) (Long) x[0], terminate), true);
            }
            case "pg_table_is_visible" -> fn(name, args, pos, SqlType.BOOLEAN, x -> visible((Long) x[0]), SqlType.BIGINT);
            case "pg_type_is_visible" -> fn(name, args, pos, SqlType.BOOLEAN, x -> TYPE_BY_OID.containsKey((Long) x[0]), SqlType.BIGINT);
            case "pg_get_userbyid" -> fn(name, args, pos, SqlType.TEXT, x -> {
                String r = roleName((Long) x[0]);
                return r != null ? r : "unknown (OID=" + x[0] + ")";
            }, SqlType.BIGINT);
            case "format_type" -> new ScalarExpr.Call(name, coerce(name, args, pos, SqlType.BIGINT, SqlType.INTEGER), SqlType.TEXT,
                    x -> formatType((Long) x[0], (Long) x[1]), false);
            case "pg_get_indexdef" -> n == 1
                    ? fn(name, args, pos, SqlType.TEXT, x -> indexDef((Long) x[0], 0L), SqlType.BIGINT)
                    : fn(name, args, pos, SqlType.TEXT, x -> indexDef((Long) x[0], (Long) x[1]), SqlType.BIGINT, SqlType.INTEGER, SqlType.BOOLEAN);
            case "pg_get_expr" -> n == 2
                    ? fn(name, args, pos, SqlType.TEXT, x -> x[0], SqlType.TEXT, SqlType.BIGINT)
                    : fn(name, args, pos, SqlType.TEXT, x -> x[0], SqlType.TEXT, SqlType.BIGINT, SqlType.BOOLEAN);
            case "pg_get_constraintdef" -> n == 1
                    ? fn(name, args, pos, SqlType.TEXT, x -> constraintDef((Long) x[0]), SqlType.BIGINT)
                    : fn(name, args, pos, SqlType.TEXT, x -> constraintDef((Long) x[0]), SqlType.BIGINT, SqlType.BOOLEAN);
            case "pg_get_viewdef" -> n == 1
                    ? fn(name, args, pos, SqlType.TEXT, x -> viewDef((Long) x[0]), SqlType.BIGINT)
                    : fn(name, args, pos, SqlType.TEXT, x -> viewDef((Long) x[0]), SqlType.BIGINT, SqlType.BOOLEAN);
            // COMMENT ON's descriptions; schema public's as initdb leaves it
            case "obj_description" -> n == 1
                    ? fn(name, args, pos, SqlType.TEXT, x -> description((Long) x[0], 0), SqlType.BIGINT)
                    : fn(name, args, pos, SqlType.TEXT, x -> (Long) x[0] == PUBLIC && "pg_namespace".equals(x[1]) ? "standard public schema"
                            : "pg_class".equals(x[1]) ? description((Long) x[0], 0) : null, SqlType.BIGINT, SqlType.TEXT);
            case "col_description" -> fn(name, args, pos, SqlType.TEXT, x -> description((Long) x[0], (int) (long) (Long) x[1]), SqlType.BIGINT, SqlType.INTEGER);
            case "shobj_description" -> fn(name, args, pos, SqlType.TEXT, x -> null, SqlType.BIGINT, SqlType.TEXT);
            // no column owns a sequence (Tributary has none)
            case "pg_get_serial_sequence" -> fn(name, args, pos, SqlType.TEXT, x -> serialSequence((String) x[0], (String) x[1]), SqlType.TEXT, SqlType.TEXT);
            case "current_setting" -> n == 1
                    ? fn(name, args, pos, SqlType.TEXT, x -> setting((String) x[0], false), SqlType.TEXT)
                    : new ScalarExpr.Call(name, coerce(name, args, pos, SqlType.TEXT, SqlType.BOOLEAN), SqlType.TEXT,
                            x -> x[0] == null ? null : setting((String) x[0], Boolean.TRUE.equals(x[1])), false);
            case "pg_relation_is_publishable" -> fn(name, args, pos, SqlType.BOOLEAN, x -> {
                Rel r = relByOid.get((Long) x[0]);
                return r != null && r.item() instanceof CatalogItem.Table;
            }, SqlType.BIGINT);
            // there are no extended statistics objects to describe
            case "pg_get_statisticsobjdef_columns" -> fn(name, args, pos, SqlType.TEXT, x -> null, SqlType.BIGINT);
            // there are no triggers (pg_trigger is empty; foreign keys are enforced by the write path)
            case "pg_get_triggerdef" -> n == 1
                    ? fn(name, args, pos, SqlType.TEXT, x -> null, SqlType.BIGINT)
                    : fn(name, args, pos, SqlType.TEXT, x -> null, SqlType.BIGINT, SqlType.BOOLEAN);
            case "pg_encoding_to_char" -> fn(name, args, pos, SqlType.TEXT, x -> (Long) x[0] == 6 ? "UTF8" : "", SqlType.INTEGER);
            case "regclass", "to_regclass" -> regCast(name, args, pos, s -> relationOid(s, name.equals("regclass")));
            case "regtype", "to_regtype" -> regCast(name, args, pos, s -> typeOidByName(s, name.equals("regtype")));
            case "regnamespace" -> regCast(name, args, pos, s -> namespaceOid(s));
            case "regrole" -> regCast(name, args, pos, s -> {
                if (roles.containsKey(s) || s.equals("pg_database_owner")) return roleOid(s);
                throw new SqlException("42704", "role \"" + s + "\" does not exist");
            });
            case "regproc" -> regCast(name, args, pos, s -> {
                throw new SqlException("42883", "function \"" + s + "\" does not exist");
            });
            default -> throw new IllegalArgumentException("not a catalog function: " + name);
        };
    }

    private static ScalarExpr constant(String name, int n, int arity, String value, int pos) {
        if (n != arity) throw noFunction(name, pos);
        return new ScalarExpr.Literal(value, SqlType.TEXT);
    }

    private static SqlException noFunction(String name, int pos) {
        return new SqlException("42883", "function " + name + " does not exist", pos,
                "No function matches the given name and argument types. You might need to add explicit type casts.");
    }

    private static List<ScalarExpr> coerce(String name, List<ScalarExpr> args, int pos, SqlType... params) {
        if (args.size() != params.length) throw noFunction(name, pos);
        List<ScalarExpr> out = new ArrayList<>();
        for (int i = 0; i < params.length; i++) {
            ScalarExpr a = args.get(i);
            ScalarExpr c = a.type().equals(params[i]) ? a : Casts.tryCoerce(a, params[i], CastContext.IMPLICIT, pos);
            if (c == null) {
                List<String> types = args.stream().map(x -> x.type().toString()).toList();
                throw new SqlException("42883", "function " + name + "(" + String.join(", ", types) + ") does not exist", pos,
                        "No function matches the given name and argument types. You might need to add explicit type casts.");
            }
            out.add(c);
        }
        return out;
    }

    private static ScalarExpr fn(String name, List<ScalarExpr> args, int pos, SqlType result, ScalarExpr.Impl impl, SqlType... params) {
        return new ScalarExpr.Call(name, coerce(name, args, pos, params), result, impl, true);
    }

    /**
     * {@code has_table_privilege([user,] table, privilege)}: user a name or an OID (the current
     * user when left out), table a name or an OID; NULL for an OID that names no relation, as
     * PostgreSQL answers.
     */
    private ScalarExpr tablePrivilege(String name, List<ScalarExpr> args, int pos) {
        return privilegeInquiry(name, args, pos, x -> {
            String role = roleArg(x[0]);
            long oid = x[1] instanceof Long l ? l : relationOid((String) x[1], true);
            Rel r = relByOid.get(oid);
            if (r == null) return null;
            if (r.item() == null || r.item() instanceof SystemRelation) {
                // the system catalogs are readable by PUBLIC, and by nobody writable
                return privilegeWords((String) x[2]).stream().allMatch(p -> p.equals("select"));
            }
            return access.hasTablePrivilege(role, userId(r), (String) x[2]);
        });
    }

    /** {@code has_schema_privilege([user,] schema, privilege)}. */
    private ScalarExpr schemaPrivilege(String name, List<ScalarExpr> args, int pos) {
        return privilegeInquiry(name, args, pos, x -> {
            String schema = x[1] instanceof Long l ? namespaceName(l) : (String) x[1];
            if (schema == null) return null;
            namespaceOid(schema);
            return access.hasSchemaPrivilege(roleArg(x[0]), schema, (String) x[2]);
        });
    }

    /** A privilege inquiry {@code name([user,] object, privilege)}: user and object each a name or an OID, the current user when left out. */
    private ScalarExpr privilegeInquiry(String name, List<ScalarExpr> args, int pos, ScalarExpr.Impl answer) {
        if (args.size() != 2 && args.size() != 3) throw noFunction(name, pos);
        List<ScalarExpr> a = args.size() == 2 ? List.of(new ScalarExpr.Literal(access.currentUser(), SqlType.TEXT), args.get(0), args.get(1)) : args;
        SqlType userType = a.get(0).type().isInteger() ? SqlType.BIGINT : SqlType.TEXT;
        SqlType objectType = a.get(1).type().isInteger() ? SqlType.BIGINT : SqlType.TEXT;
        return new ScalarExpr.Call(name, coerce(name, a, pos, userType, objectType, SqlType.TEXT), SqlType.BOOLEAN, answer, true);
    }

    /** A role given by name or OID; 42704 when there is no such role. */
    private String roleArg(Object value) {
        String role = value instanceof Long oid ? roleName(oid) : (String) value;
        if (role == null) throw new SqlException("42704", "role with OID " + value + " does not exist");
        if (value instanceof String s && s.equalsIgnoreCase("public")) return "public";
        if (!roles.containsKey(role) && !role.equals("pg_database_owner")) throw new SqlException("42704", "role \"" + role + "\" does not exist");
        return role;
    }

    /** The lower-case privilege words of a privilege inquiry's list ({@code "SELECT, INSERT WITH GRANT OPTION"}). */
    public static List<String> privilegeWords(String list) {
        List<String> out = new ArrayList<>();
        for (String part : list.split(",")) out.add(part.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " "));
        return out;
    }

    private String namespaceName(long oid) {
        if (oid == PG_CATALOG) return "pg_catalog";
        if (oid == INFORMATION_SCHEMA) return "information_schema";
        if (oid == TRIBUTARY_INTERNAL) return "tributary_internal";
        return namespaceNames.get(oid);
    }

    /** A cast to an OID alias type: a name (text) is looked up, a number is taken as the OID itself. */
    private ScalarExpr regCast(String name, List<ScalarExpr> args, int pos, java.util.function.Function<String, Long> lookup) {
        if (args.size() != 1) throw noFunction(name, pos);
        ScalarExpr a = args.get(0);
        if (a.type().isInteger()) return Casts.coerce(a, SqlType.BIGINT, CastContext.EXPLICIT, pos);
        ScalarExpr text = coerce(name, args, pos, SqlType.TEXT).get(0);
        ScalarExpr call = new ScalarExpr.Call(name, List.of(text), SqlType.BIGINT, x -> {
            String s = ((String) x[0]).strip();
            if (!s.isEmpty() && s.chars().allMatch(Character::isDigit)) return Long.parseLong(s);
            return lookup.apply(s);
        }, true);
        if (text.isConstant()) {
            try {
                return new ScalarExpr.Literal(call.eval(new Object[0]), SqlType.BIGINT);
            } catch (SqlException e) {
                throw e.at(pos);
            }
        }
        return call;
    }

    /** A possibly qualified, possibly quoted relation name's OID (pg_catalog first, then the session's search path). */
    private Long relationOid(String text, boolean required) {
        List<String> parts = nameParts(text);
        String name = parts.get(parts.size() - 1);
        List<Long> path = new ArrayList<>();
        if (parts.size() == 1) {
            path.add(PG_CATALOG);
            for (String schema : searchPath) path.add(namespaceOid(schema));
        } else {
            path.add(namespaceOid(parts.get(0)));
        }
        for (long ns : path) {
            for (Rel r : relations) if (r.namespace() == ns && r.name().equals(name)) return r.oid();
        }
        if (!required) return null;
        throw new SqlException("42P01", "relation \"" + text + "\" does not exist");
    }

    private static Long typeOidByName(String text, boolean required) {
        String s = text.toLowerCase(Locale.ROOT).replace("pg_catalog.", "").strip();
        for (PgType t : TYPES) if (t.name().equals(s) || t.display().equals(s)) return t.oid();
        String alias = switch (s) {
            case "int", "integer" -> "int4";
            case "boolean" -> "bool";
            case "double precision" -> "float8";
            case "real" -> "float4";
            case "character varying" -> "varchar";
            case "character", "char" -> "bpchar";
            default -> null;
        };
        if (alias != null) for (PgType t : TYPES) if (t.name().equals(alias)) return t.oid();
        if (!required) return null;
        throw new SqlException("42704", "type \"" + text + "\" does not exist");
    }

    private long namespaceOid(String name) {
        return switch (name) {
            case "pg_catalog" -> PG_CATALOG;
            case "information_schema" -> INFORMATION_SCHEMA;
            case "tributary_internal" -> TRIBUTARY_INTERNAL;
            default -> {
                Catalog.Namespace n = namespaces.get(name);
                if (n == null) throw new SqlException("3F000", "schema \"" + name + "\" does not exist");
                yield n.oid();
            }
        };
    }

    /** {@code a.b}, {@code "A"."b"}: the parts of a written name, unquoted, unquoted parts in lower case. */
    public static List<String> nameParts(String text) {
        List<String> parts = Parser.identifiers(text, '.');
        if (parts.size() > 2) throw new SqlException("42601", "improper relation name (too many dotted names): " + text);
        return parts;
    }

    /** Whether the relation with this OID is found by its bare name (pg_catalog first, then the search path). */
    private boolean visible(long oid) {
        Rel r = relByOid.get(oid);
        if (r == null) return false;
        if (visibleByName == null) {
            visibleByName = new HashMap<>();
            for (Rel x : relations) if (x.namespace() == PG_CATALOG) visibleByName.putIfAbsent(x.name(), x.oid());
            for (String schema : searchPath) {
                long ns = namespaceOid(schema);
                for (Rel x : relations) if (x.namespace() == ns) visibleByName.putIfAbsent(x.name(), x.oid());
            }
        }
        Long found = visibleByName.get(r.name());
        return found != null && found == oid;
    }

    /** Each name's relation as a bare name finds it (pg_catalog, then the search path); made on first use. */
    private Map<String, Long> visibleByName;

    private String indexDef(long oid, long column) {
        Idx x = indexByOid.get(oid);
        if (x == null) return null;
        if (column <= 0) return indexDef(x);
        return column <= x.keys().size() ? x.keys().get((int) column - 1) : "";
    }

    /** {@code pg_get_serial_sequence(table, column)}: the qualified name of the sequence the column owns, or NULL. */
    private String serialSequence(String table, String column) {
        Rel r = relByOid.get(relationOid(table, true));
        if (!(r.item() instanceof CatalogItem.Table t)) return null;
        int a = indexOf(t, column);
        if (a < 0) throw new SqlException("42703", "column \"" + column + "\" of relation \"" + t.name() + "\" does not exist");
        CatalogItem.Sequence q = ownedSequences.get(t.id() + ":" + a);
        return q == null ? null : SqlFormatter.ident(schemaName(r)) + "." + SqlFormatter.ident(q.name());
    }

    /** The OID of the {@code k}-th CHECK constraint of the table with OID {@code table}: a range of its own, above every object's. */
    private static long checkOid(long table, int k) {
        return 1_000_000_000L + table * 64 + k;
    }

    /** The attnums a CHECK expression reads, in order, each once. */
    private static void checkColumns(ScalarExpr e, List<Object> into) {
        if (e instanceof ScalarExpr.ColumnRef c && !into.contains((long) c.index() + 1)) into.add((long) c.index() + 1);
        for (ScalarExpr child : e.children()) checkColumns(child, into);
    }

    /** Whether a foreign key references or is of relation {@code x}: PostgreSQL's relhastriggers (its foreign keys are triggers), which psql's \\d asks before it lists them. */
    private boolean hasForeignKeys(Rel x) {
        if (foreignKeyTables == null) {
            foreignKeyTables = new java.util.HashSet<>();
            for (CatalogItem.ForeignKey f : foreignKeys) {
                foreignKeyTables.add(f.table());
                foreignKeyTables.add(f.refTable());
            }
        }
        return x.item() != null && foreignKeyTables.contains(x.item().id());
    }

    /** The tables a foreign key is of or references, made on first use. */
    private java.util.Set<Long> foreignKeyTables;

    /** The OID the catalogs show for the unique index foreign key {@code f} of a table references ({@code parent}'s). */
    private long refIndexOid(CatalogItem.ForeignKey f, Rel parent) {
        // a primary key's index is listed with its table's OID + 1 (see the constructor)
        return primaryKeyIndexes.contains(f.refIndex()) ? parent.oid() + 1 : FIRST_USER_OID + 3 * f.refIndex();
    }

    /** {@code FOREIGN KEY (a) REFERENCES p(b) [MATCH FULL] [ON UPDATE x] [ON DELETE y]}, as pg_get_constraintdef shows it. */
    private String foreignKeyDef(CatalogItem.ForeignKey f) {
        Rel child = relByOid.get(FIRST_USER_OID + 3 * f.table());
        Rel parent = relByOid.get(FIRST_USER_OID + 3 * f.refTable());
        if (child == null || parent == null) return null;
        StringBuilder b = new StringBuilder("FOREIGN KEY (");
        for (int i = 0; i < f.referencing().size(); i++) b.append(i > 0 ? ", " : "").append(SqlFormatter.ident(child.columns().get(f.referencing().get(i)).name()));
        b.append(") REFERENCES ").append(regclassText(parent.oid())).append('(');
        for (int i = 0; i < f.referenced().size(); i++) b.append(i > 0 ? ", " : "").append(SqlFormatter.ident(parent.columns().get(f.referenced().get(i)).name()));
        b.append(')');
        if (f.matchFull()) b.append(" MATCH FULL");
        if (f.onUpdate() != dev.tributary.sql.ast.Statement.ReferentialAction.NO_ACTION) b.append(" ON UPDATE ").append(f.onUpdate().sql());
        if (f.onDelete() != dev.tributary.sql.ast.Statement.ReferentialAction.NO_ACTION) b.append(" ON DELETE ").append(f.onDelete().sql());
        if (f.deferrable()) b.append(" DEFERRABLE");
        if (f.initiallyDeferred()) b.append(" INITIALLY DEFERRED");
        return b.toString();
    }

    private String constraintDef(long oid) {
        for (CatalogItem.ForeignKey f : foreignKeys) if (oid(f) == oid) return foreignKeyDef(f);
        for (Rel r : relations) {
            if (!(r.item() instanceof CatalogItem.Table t)) continue;
            for (int k = 0; k < t.checks().size(); k++) if (checkOid(r.oid(), k) == oid) return "CHECK (" + t.checks().get(k).text() + ")";
        }
        for (Idx x : indexes) {
            if (x.constraintOid() == oid) return (x.primary() ? "PRIMARY KEY (" : "UNIQUE (") + String.join(", ", x.keys()) + ")";
        }
        return null;
    }

    private String viewDef(long oid) {
        Rel r = relByOid.get(oid);
        return r == null || r.item() == null ? null : definition(r.item());
    }

    private String setting(String name, boolean missingOk) {
        Optional<Settings.Setting> s = Settings.find(name);
        String v = settings.get(name.toLowerCase(Locale.ROOT));
        if (v != null) return v;
        if (s.isPresent()) return s.get().bootValue();
        if (missingOk) return null;
        throw Settings.unrecognized(name, 0);
    }
}
