package dev.tributary.sql.catalog;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import java.util.List;

/**
 * A named object of the catalog. Relations have columns; views keep the plan they were bound to
 * when created (so later catalog changes do not change what they mean, as in PostgreSQL);
 * materialized views and indexes are maintained by dataflows the coordinator owns.
 */
public sealed interface CatalogItem {
    long id();

    String name();

    /** The kind as SQL names it: {@code table}, {@code view}, ... */
    String kind();

    /**
     * A table: rows written by INSERT, UPDATE and DELETE; only by INSERT (and COPY) if
     * {@code appendOnly}. {@code expires}: the server deletes its rows as they age or as newer ones
     * push them out (RETAIN ROWS), so even an append-only one does not only grow.
     */
    record Table(long id, String name, List<Column> columns, List<Integer> primaryKey, List<ScalarExpr> defaults, String sql, boolean appendOnly,
                 List<Check> checks, boolean expires) implements CatalogItem {
        public Table {
            columns = List.copyOf(columns);
            primaryKey = List.copyOf(primaryKey);
            checks = List.copyOf(checks);
        }

        /** A table whose rows do not expire. */
        public Table(long id, String name, List<Column> columns, List<Integer> primaryKey, List<ScalarExpr> defaults, String sql, boolean appendOnly,
                     List<Check> checks) {
            this(id, name, columns, primaryKey, defaults, sql, appendOnly, checks, false);
        }

        /**
         * Whether its rows are only ever inserted (append-only, never expiring): what lets a plan
         * over it keep a minimum or a top k without the rows themselves.
         */
        public boolean insertsOnly() {
            return appendOnly && !expires;
        }

        /** A table without CHECK constraints. */
        public Table(long id, String name, List<Column> columns, List<Integer> primaryKey, List<ScalarExpr> defaults, String sql, boolean appendOnly) {
            this(id, name, columns, primaryKey, defaults, sql, appendOnly, List.of());
        }

        /** An ordinary (not append-only) table. */
        public Table(long id, String name, List<Column> columns, List<Integer> primaryKey, List<ScalarExpr> defaults, String sql) {
            this(id, name, columns, primaryKey, defaults, sql, false);
        }

        /**
         * A CHECK constraint: every row written must make {@code expr} (over the row's columns)
         * true or NULL; {@code text} is its expression as written, for the catalogs.
         */
        public record Check(String name, ScalarExpr expr, String text) {}

        /**
         * {@code source} for a source's table (one its connector fills, made by CREATE SOURCE,
         * which is its statement), {@code sink} for a sink's (made by CREATE SINK: a Kafka sink's
         * cursor, or the times an HTTP sink's receiver acknowledged), {@code job} for a job's
         * relation (made by CREATE JOB),
         * {@code table} otherwise.
         */
        @Override
        public String kind() {
            return isSource() ? "source" : isSink() ? "sink" : isJob() ? "job" : "table";
        }

        /**
         * Whether this is a sink's table (whatever its connector: a Kafka sink's cursor, an HTTP
         * sink's acknowledged times): CREATE SINK made it, and only the sink writes it.
         */
        public boolean isSink() {
            return sql.startsWith("CREATE SINK ");
        }

        /** Whether this is a job's relation (its cursor): CREATE JOB made it, and only the job writes it. */
        public boolean isJob() {
            return sql.startsWith("CREATE JOB ");
        }

        /** Whether this is a source's table: CREATE SOURCE made it, and only its connector writes it. */
        public boolean isSource() {
            return sql.startsWith("CREATE SOURCE ");
        }
    }

    /** A view: a named query, expanded wherever it is read. */
    record View(long id, String name, List<Column> columns, Plan plan, String sql) implements CatalogItem {
        public View {
            columns = List.copyOf(columns);
        }

        @Override
        public String kind() {
            return "view";
        }
    }

    /** A materialized view: a query whose result is kept up to date in an arrangement. */
    record MaterializedView(long id, String name, List<Column> columns, Plan plan, String sql) implements CatalogItem {
        public MaterializedView {
            columns = List.copyOf(columns);
        }

        @Override
        public String kind() {
            return "materialized view";
        }
    }

    /**
     * An index: the rows of {@code on} arranged by the values of {@code keys}. A table's
     * {@code PRIMARY_KEY} index ({@code <table>_pkey}) is the table's own arrangement, made with
     * it and dropped with it. A unique index (a {@code UNIQUE} constraint's or a
     * {@code CREATE UNIQUE INDEX}'s) holds at most one row per key whose values are all non-NULL:
     * every write to its table is checked against it.
     */
    record Index(long id, String name, long on, List<ScalarExpr> keys, String sql, Uniqueness uniqueness) implements CatalogItem {
        public Index {
            keys = List.copyOf(keys);
        }

        public Index(long id, String name, long on, List<ScalarExpr> keys, String sql) {
            this(id, name, on, keys, sql, Uniqueness.NONE);
        }

        /** Whether this is its table's primary key index. */
        public boolean primaryKey() {
            return uniqueness == Uniqueness.PRIMARY_KEY;
        }

        /** Whether no two rows of its table may share a key (with no NULL in it). */
        public boolean unique() {
            return uniqueness != Uniqueness.NONE;
        }

        /** Whether this index is a table constraint's (dropped with ALTER TABLE ... DROP CONSTRAINT, not DROP INDEX). */
        public boolean constraint() {
            return uniqueness == Uniqueness.PRIMARY_KEY || uniqueness == Uniqueness.UNIQUE_CONSTRAINT;
        }

        @Override
        public String kind() {
            return "index";
        }

        /** What an index promises of its keys. */
        public enum Uniqueness {
            /** Nothing: any number of rows per key. */
            NONE,
            /** {@code CREATE UNIQUE INDEX}. */
            UNIQUE_INDEX,
            /** A {@code UNIQUE} constraint of its table. */
            UNIQUE_CONSTRAINT,
            /** Its table's primary key. */
            PRIMARY_KEY
        }
    }

    /**
     * A relation of {@code pg_catalog} or {@code information_schema}: its rows are computed from
     * the rest of the catalog whenever a query reading it is planned ({@link SystemCatalog}), so
     * it has no data of its own and is never written or maintained. {@code view} says whether
     * PostgreSQL has it as a view ({@code pg_settings}, {@code information_schema.tables}).
     */
    record SystemRelation(long id, String schema, String name, boolean view, List<Column> columns) implements CatalogItem {
        public SystemRelation {
            columns = List.copyOf(columns);
        }

        @Override
        public String kind() {
            return view ? "view" : "table";
        }
    }

    /**
     * A sequence: a counter that {@code nextval} advances by {@code increment} from {@code start},
     * within {@code min}..{@code max} (wrapping round if {@code cycle}), outside any transaction.
     * {@code ownerTable}/{@code ownerColumn} name the column whose default it serves (a
     * {@code serial} or identity column, or {@code OWNED BY}: dropped with its table), -1 when none;
     * {@code implicit} when the column's definition made it (it is made again with its table).
     */
    record Sequence(long id, String name, dev.tributary.sql.types.SqlType type, long start, long increment, long min, long max, boolean cycle,
                    String sql, long ownerTable, int ownerColumn, boolean implicit) implements CatalogItem {
        /** The columns reading a sequence shows, as in PostgreSQL. */
        public static final List<Column> COLUMNS = List.of(new Column("last_value", dev.tributary.sql.types.SqlType.BIGINT, false),
                new Column("log_cnt", dev.tributary.sql.types.SqlType.BIGINT, false), new Column("is_called", dev.tributary.sql.types.SqlType.BOOLEAN, false));

        @Override
        public String kind() {
            return "sequence";
        }

        /** Whether a table's column owns it (it goes with the table). */
        public boolean owned() {
            return ownerTable >= 0;
        }
    }

    /**
     * A FOREIGN KEY constraint of table {@code table}: each of its rows whose {@code referencing}
     * columns are all non-NULL (with {@code matchFull}: every row, unless all of them are NULL; a
     * mix is refused) has a row of {@code refTable} with equal values in its {@code referenced}
     * columns, which are
     * the keys (in some order) of {@code refTable}'s unique index {@code refIndex}. When a
     * referenced key goes away, the rows referencing it are refused, deleted or changed as
     * {@code onDelete} (a DELETE's) or {@code onUpdate} (an UPDATE's) says. Not a relation: its
     * name is its table's constraint's, not in the relations' namespace; {@code sql} is the
     * ALTER TABLE that makes it. A {@code deferrable} one may be checked at its transaction's
     * COMMIT instead of at each statement's end (from the start if {@code initiallyDeferred}, or
     * after SET CONSTRAINTS ... DEFERRED); its ON DELETE/UPDATE actions are never deferred.
     */
    record ForeignKey(long id, String name, long table, List<Integer> referencing, long refTable, List<Integer> referenced, long refIndex,
                      dev.tributary.sql.ast.Statement.ReferentialAction onDelete, dev.tributary.sql.ast.Statement.ReferentialAction onUpdate,
                      boolean matchFull, boolean deferrable, boolean initiallyDeferred, String sql) implements CatalogItem {
        public ForeignKey {
            referencing = List.copyOf(referencing);
            referenced = List.copyOf(referenced);
            if (referencing.size() != referenced.size() || referencing.isEmpty()) throw new IllegalArgumentException("a referenced column per column");
        }

        @Override
        public String kind() {
            return "foreign key";
        }
    }

    /** The columns of a relation; an index has none of its own. */
    default List<Column> columns() {
        return switch (this) {
            case Table t -> t.columns();
            case View v -> v.columns();
            case MaterializedView m -> m.columns();
            case Index i -> List.of();
            case ForeignKey f -> List.of();
            case Sequence q -> Sequence.COLUMNS;
            case SystemRelation r -> r.columns();
        };
    }
}
