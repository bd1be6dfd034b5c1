package dev.tributary.sql.ast;

import dev.tributary.sql.types.SqlType;
import java.util.List;

/** A top-level SQL statement. Names are lists of parts, {@code [schema, name]} or {@code [name]}. */
public sealed interface Statement extends Node {

    /**
     * A query run for its rows. {@code asOf} ({@code ... AS OF expr}) reads at a past time, null
     * for now; {@code emitChanges} ({@code ... EMIT CHANGES}) streams changes instead of a snapshot.
     */
    record QueryStatement(int pos, Query query, Expr asOf, boolean emitChanges) implements Statement {}

    /** One column of CREATE TABLE; {@code defaultExpr} is null without DEFAULT. */
    record ColumnDef(int pos, String name, SqlType type, boolean notNull, Expr defaultExpr, Identity identity, SequenceOptions sequence) implements Node {
        public ColumnDef(int pos, String name, SqlType type, boolean notNull, Expr defaultExpr) {
            this(pos, name, type, notNull, defaultExpr, Identity.NONE, null);
        }
    }

    /**
     * How a column numbers its rows: not at all, {@code serial} (a default of {@code nextval} of a
     * sequence it owns), or an identity column ({@code GENERATED ALWAYS | BY DEFAULT AS
     * IDENTITY}: the same, ALWAYS refusing a value given in INSERT).
     */
    enum Identity {
        NONE, SERIAL, ALWAYS, BY_DEFAULT
    }

    /**
     * A sequence's options as written (null where not given): {@code AS type}, {@code INCREMENT
     * BY}, {@code MINVALUE}/{@code MAXVALUE} ({@code NO ...} is not given), {@code START WITH},
     * {@code CACHE} (accepted, without effect), {@code [NO] CYCLE}.
     */
    record SequenceOptions(SqlType type, Long increment, Long min, Long max, Long start, Long cache, Boolean cycle) {
        public static final SequenceOptions NONE = new SequenceOptions(null, null, null, null, null, null, null);
    }

    /** {@code CREATE SEQUENCE [IF NOT EXISTS] name [options] [OWNED BY table.column | NONE]}; {@code ownedBy} empty for none. */
    record CreateSequence(int pos, List<String> name, boolean ifNotExists, SequenceOptions options, List<String> ownedBy) implements Statement {
        public CreateSequence {
            name = List.copyOf(name);
            ownedBy = List.copyOf(ownedBy);
        }
    }

    /**
     * CREATE TABLE; {@code primaryKey} holds the key columns whether declared on a column or as a
     * table constraint, empty without a key.
     */
    /**
     * {@code RETAIN HISTORY FOR interval} or {@code RETAIN HISTORY PIN AT time}: how much of an
     * object's past stays readable. Exactly one of {@code interval} and {@code pinAt} is set.
     */
    record RetainHistory(int pos, Expr interval, Expr pinAt) implements Node {}

    /**
     * A table's {@code RETAIN ROWS}: {@code FOR age} (an interval expression; {@code count} -1), or
     * {@code count} rows, the newest by commit ({@code age} null).
     */
    record RetainRows(int pos, Expr age, long count) implements Node {}

    /**
     * {@code appendOnly}: {@code WITH (APPEND ONLY)}, a table that takes inserts only (no UPDATE or
     * DELETE); {@code retainRows}: {@code WITH (RETAIN ROWS FOR interval | RETAIN ROWS n)}, rows
     * deleted that long after their commit, or once n newer rows are there (null: kept).
     */
    record CreateTable(int pos, List<String> name, boolean ifNotExists, List<ColumnDef> columns,
                       List<String> primaryKey, RetainHistory retain, boolean appendOnly, Watermark watermark, String primaryKeyName,
                       List<UniqueKey> uniques, List<CheckDef> checks, List<ForeignKeyDef> foreignKeys, RetainRows retainRows) implements Statement {
        /** A table whose rows are kept. */
        public CreateTable(int pos, List<String> name, boolean ifNotExists, List<ColumnDef> columns, List<String> primaryKey, RetainHistory retain,
                           boolean appendOnly, Watermark watermark, String primaryKeyName, List<UniqueKey> uniques, List<CheckDef> checks,
                           List<ForeignKeyDef> foreignKeys) {
            this(pos, name, ifNotExists, columns, primaryKey, retain, appendOnly, watermark, primaryKeyName, uniques, checks, foreignKeys, null);
        }

        public CreateTable {
            name = List.copyOf(name);
            columns = List.copyOf(columns);
            primaryKey = List.copyOf(primaryKey);
            uniques = List.copyOf(uniques);
            checks = List.copyOf(checks);
            foreignKeys = List.copyOf(foreignKeys);
        }

        /** A table without UNIQUE constraints, its primary key (if any) named as PostgreSQL names it. */
        public CreateTable(int pos, List<String> name, boolean ifNotExists, List<ColumnDef> columns, List<String> primaryKey, RetainHistory retain,
                           boolean appendOnly, Watermark watermark) {
            this(pos, name, ifNotExists, columns, primaryKey, retain, appendOnly, watermark, null, List.of(), List.of(), List.of());
        }
    }

    /**
     * {@code CREATE SOURCE [IF NOT EXISTS] name [(columns [, PRIMARY KEY (columns)])] FROM connector
     * [(options)] [BODY] FORMAT format [(format options)] [INCLUDE word, ...] [ENVELOPE e]
     * [ON DECODE ERROR SKIP | STOP]}: a table that only its connector writes, append-only
     * (ENVELOPE NONE) or keyed by {@code primaryKey} (UPSERT, DEBEZIUM: each record sets or deletes
     * its key's row). {@code connector} and {@code format} are upper case as written (checked where
     * the source is made, not here); an option's name is its words upper case, joined by one space
     * ({@code START OFFSET}), its value the literal's text. {@code include} lists, upper case, the
     * metadata a connector adds as columns after the format's ({@code INCLUDE KEY, PARTITION,
     * OFFSET, TIMESTAMP} for Kafka), checked where the source is made. {@code primaryKey} is empty
     * without a PRIMARY KEY ({@code keyPos} then 0); {@code envelope} is NONE when not written.
     */
    record CreateSource(int pos, List<String> name, boolean ifNotExists, List<ColumnDef> columns, List<String> primaryKey, int keyPos, String connector,
                        List<SourceOption> options, String format, List<SourceOption> formatOptions, List<String> include, SourceEnvelope envelope,
                        boolean stopOnDecodeError) implements Statement {
        public CreateSource {
            name = List.copyOf(name);
            columns = List.copyOf(columns);
            primaryKey = List.copyOf(primaryKey);
            options = List.copyOf(options);
            formatOptions = List.copyOf(formatOptions);
            include = List.copyOf(include);
        }

        /** This statement with its format's options replaced (a schema read from a file kept in the statement itself). */
        public CreateSource withFormatOptions(List<SourceOption> options) {
            return new CreateSource(pos, name, ifNotExists, columns, primaryKey, keyPos, connector, this.options, format, options, include, envelope, stopOnDecodeError);
        }
    }

    /**
     * How a source's records change its table: {@code NONE} appends each as a row; {@code UPSERT}
     * makes each the row of its key (a record without a value deletes it); {@code DEBEZIUM} reads
     * each as a Debezium change event ({@code before}, {@code after}, {@code op}) applied as UPSERT.
     */
    enum SourceEnvelope { NONE, UPSERT, DEBEZIUM }

    /**
     * {@code CREATE JOB [IF NOT EXISTS] name AS INSERT INTO target [(columns)] query}: the query's
     * changes inserted into the target, continuously, in the background, exactly once.
     */
    record CreateJob(int pos, List<String> name, boolean ifNotExists, Insert insert) implements Statement {
        public CreateJob {
            name = List.copyOf(name);
        }
    }

    /** {@code ALTER JOB name PAUSE | RESUME}. */
    record AlterJob(int pos, List<String> name, boolean pause) implements Statement {
        public AlterJob {
            name = List.copyOf(name);
        }
    }

    /**
     * {@code CREATE SINK [IF NOT EXISTS] name FROM relation | (query) INTO connector [(options)]
     * [KEY (columns)] [FORMAT format [(format options)] ENVELOPE envelope]}: a relation's changes
     * delivered to an outside system, continuously. Exactly one of {@code from} (empty when absent) and
     * {@code query} (null when absent) is given. {@code connector} is {@code KAFKA} (exactly once,
     * needs FORMAT and ENVELOPE) or {@code HTTP} (at least once, takes neither); {@code connector},
     * {@code format} and {@code envelope} are upper case as written, {@code format} and
     * {@code envelope} null when absent, {@code key} empty without KEY. Which connector takes what
     * is checked where the sink is made, not here.
     */
    record CreateSink(int pos, List<String> name, boolean ifNotExists, List<String> from, Query query, String connector, List<SourceOption> options,
                      List<String> key, String format, List<SourceOption> formatOptions, String envelope) implements Statement {
        public CreateSink {
            name = List.copyOf(name);
            from = List.copyOf(from);
            options = List.copyOf(options);
            key = List.copyOf(key);
            formatOptions = List.copyOf(formatOptions);
        }

        /** This statement with its format's options replaced (a schema read from a file kept in the statement itself). */
        public CreateSink withFormatOptions(List<SourceOption> options) {
            return new CreateSink(pos, name, ifNotExists, from, query, connector, this.options, key, format, options, envelope);
        }
    }

    /** {@code ALTER SINK name PAUSE | RESUME}. */
    record AlterSink(int pos, List<String> name, boolean pause) implements Statement {
        public AlterSink {
            name = List.copyOf(name);
        }
    }

    /** An option of a source's connector or format: {@code NAME 'value'} (a number or word is kept as written). */
    record SourceOption(int pos, String name, String value) implements Node {}

    /**
     * {@code CREATE TABLE [IF NOT EXISTS] name [(columns)] AS query [WITH [NO] DATA]}: a table of
     * the query's columns (named by {@code columns} where given), filled with its rows unless
     * {@code withNoData}.
     */
    record CreateTableAs(int pos, List<String> name, boolean ifNotExists, List<String> columns, Query query, boolean withNoData) implements Statement {
        public CreateTableAs {
            name = List.copyOf(name);
            columns = List.copyOf(columns);
        }
    }

    /**
     * A CHECK constraint of CREATE TABLE: every row written must make {@code expr} true or NULL.
     * {@code name} as given, or null for PostgreSQL's {@code table_column_check}; {@code column}
     * the column it was written on, null for a table constraint.
     */
    record CheckDef(int pos, String name, Expr expr, String column) implements Node {}

    /**
     * A UNIQUE constraint of CREATE TABLE, on a column or the table: no two rows have equal
     * values in all of {@code columns} unless one of them is NULL. {@code name} is the
     * constraint's (and its index's) name as given, or null for PostgreSQL's {@code table_col_key}.
     */
    record UniqueKey(int pos, String name, List<String> columns) implements Node {
        public UniqueKey {
            columns = List.copyOf(columns);
        }
    }

    /**
     * A FOREIGN KEY constraint (a column's {@code REFERENCES} or a table's {@code FOREIGN KEY}):
     * every row whose {@code columns} are all non-NULL (or, {@code matchFull}, has none NULL;
     * MATCH FULL refuses a mix) has a row of {@code refTable} with those values in
     * {@code refColumns} (empty: its primary key). {@code name} as given, or null for
     * PostgreSQL's {@code table_columns_fkey}.
     */
    record ForeignKeyDef(int pos, String name, List<String> columns, List<String> refTable, List<String> refColumns,
                         ReferentialAction onDelete, ReferentialAction onUpdate, boolean matchFull, boolean deferrable, boolean initiallyDeferred) implements Node {
        public ForeignKeyDef {
            columns = List.copyOf(columns);
            refTable = List.copyOf(refTable);
            refColumns = List.copyOf(refColumns);
        }

        /** A NOT DEFERRABLE foreign key. */
        public ForeignKeyDef(int pos, String name, List<String> columns, List<String> refTable, List<String> refColumns,
                             ReferentialAction onDelete, ReferentialAction onUpdate, boolean matchFull) {
            this(pos, name, columns, refTable, refColumns, onDelete, onUpdate, matchFull, false, false);
        }
    }

    /** SET CONSTRAINTS {ALL | name [, ...]} {DEFERRED | IMMEDIATE}: {@code names} empty for ALL. */
    record SetConstraints(int pos, List<List<String>> names, boolean deferred) implements Statement {
        public SetConstraints {
            names = names.stream().map(List::copyOf).toList();
        }
    }

    /** What a foreign key does to the rows that reference a key that goes away (PostgreSQL's {@code ON DELETE} / {@code ON UPDATE}). */
    enum ReferentialAction {
        NO_ACTION("NO ACTION", "a"), RESTRICT("RESTRICT", "r"), CASCADE("CASCADE", "c"), SET_NULL("SET NULL", "n"), SET_DEFAULT("SET DEFAULT", "d");

        private final String sql;
        private final String code;

        ReferentialAction(String sql, String code) {
            this.sql = sql;
            this.code = code;
        }

        /** As written in SQL. */
        public String sql() {
            return sql;
        }

        /** pg_constraint's one-letter code ({@code confdeltype}, {@code confupdtype}). */
        public String code() {
            return code;
        }
    }

    /**
     * CREATE [OR REPLACE] VIEW or CREATE MATERIALIZED VIEW [IF NOT EXISTS]; {@code columns} is
     * empty when the view's column names come from the query.
     */
    record CreateView(int pos, List<String> name, boolean materialized, boolean orReplace, boolean ifNotExists,
                      List<String> columns, Query query, RetainHistory retain) implements Statement {
        public CreateView {
            name = List.copyOf(name);
            columns = List.copyOf(columns);
        }
    }

    /**
     * CREATE INDEX [IF NOT EXISTS] name ON table (expr [ASC | DESC] [NULLS FIRST | LAST], ...)
     * [WITH (RETAIN HISTORY ...)]: {@code orders} holds
     * each key's options as written ("" for none, else e.g. "DESC NULLS LAST"). An index is an
     * arrangement by its keys' values, whatever their options; they are kept to show the
     * definition as it was written.
     */
    record CreateIndex(int pos, String name, boolean ifNotExists, List<String> on, List<Expr> exprs, List<String> orders, RetainHistory retain,
                       boolean unique) implements Statement {
        public CreateIndex(int pos, String name, boolean ifNotExists, List<String> on, List<Expr> exprs, List<String> orders, RetainHistory retain) {
            this(pos, name, ifNotExists, on, exprs, orders, retain, false);
        }

        public CreateIndex {
            on = List.copyOf(on);
            exprs = List.copyOf(exprs);
            orders = List.copyOf(orders);
            if (orders.size() != exprs.size()) throw new IllegalArgumentException("an order (maybe empty) per key");
        }
    }

    enum ObjectKind {
        TABLE("TABLE"), VIEW("VIEW"), MATERIALIZED_VIEW("MATERIALIZED VIEW"), INDEX("INDEX"), SEQUENCE("SEQUENCE"), SOURCE("SOURCE"), SINK("SINK"), JOB("JOB");

        private final String sql;

        ObjectKind(String sql) {
            this.sql = sql;
        }

        public String sql() {
            return sql;
        }
    }

    /** DROP kind [IF EXISTS] names [CASCADE|RESTRICT]; RESTRICT is the default. */
    record Drop(int pos, ObjectKind kind, boolean ifExists, List<List<String>> names, boolean cascade)
            implements Statement {
        public Drop {
            names = names.stream().map(List::copyOf).toList();
        }
    }

    /**
     * {@code INSERT INTO FUNCTION url('http://...') query}: the query's rows POSTed to the URL as
     * JSON change batches (ClickHouse's spelling of a write to a table function). {@code continuous}
     * when the query reads a STREAM: it then runs until cancelled, POSTing each time's changes;
     * otherwise its result is POSTed once.
     */
    record InsertIntoUrl(int pos, String url, Query source, boolean continuous) implements Statement {}

    /** INSERT INTO table [(columns)] source; {@code columns} is empty when not given. */
    record Insert(int pos, List<String> table, List<String> columns, Query source, List<SelectItem> returning, OnConflict onConflict, String alias)
            implements Statement {
        public Insert {
            table = List.copyOf(table);
            columns = List.copyOf(columns);
            returning = List.copyOf(returning);
        }

        public Insert(int pos, List<String> table, List<String> columns, Query source, List<SelectItem> returning, OnConflict onConflict) {
            this(pos, table, columns, source, returning, onConflict, null);
        }

        /** The name ON CONFLICT DO UPDATE and RETURNING read the table's row by: the alias, or the table's name. */
        public String target() {
            return alias != null ? alias : table.get(table.size() - 1);
        }

        public Insert(int pos, List<String> table, List<String> columns, Query source) {
            this(pos, table, columns, source, List.of(), null);
        }
    }

    /** {@code ON CONFLICT [(columns)] DO NOTHING}: rows whose key is taken are skipped ({@code columns} empty when not given). */
    /**
     * {@code ON CONFLICT [(columns) | ON CONSTRAINT name] DO NOTHING | DO UPDATE SET ... [WHERE ...]}:
     * {@code columns} empty and {@code constraint} null when no arbiter is named; {@code updates}
     * null for DO NOTHING; {@code where} null without one. DO UPDATE's expressions read the
     * existing row by the table's name (or alias) and the proposed one as {@code excluded}.
     */
    record OnConflict(int pos, List<String> columns, String constraint, List<Assignment> updates, Expr where) implements Node {
        public OnConflict {
            columns = List.copyOf(columns);
            if (updates != null) updates = List.copyOf(updates);
        }

        public OnConflict(int pos, List<String> columns) {
            this(pos, columns, null, null, null);
        }

        public boolean doUpdate() {
            return updates != null;
        }
    }

    record Assignment(int pos, String column, Expr value) implements Node {}

    /**
     * UPDATE table [AS alias] SET assignments [FROM from] [WHERE where] [RETURNING items]: with
     * FROM, each row of the table joined with a row of the FROM items that makes WHERE true is
     * updated once (with one such row's values, as in PostgreSQL).
     */
    record Update(int pos, List<String> table, String alias, List<Assignment> assignments, Expr where, List<SelectItem> returning, List<TableRef> from)
            implements Statement {
        public Update {
            table = List.copyOf(table);
            assignments = List.copyOf(assignments);
            returning = List.copyOf(returning);
            from = List.copyOf(from);
        }

        public Update(int pos, List<String> table, String alias, List<Assignment> assignments, Expr where, List<SelectItem> returning) {
            this(pos, table, alias, assignments, where, returning, List.of());
        }

        public Update(int pos, List<String> table, String alias, List<Assignment> assignments, Expr where) {
            this(pos, table, alias, assignments, where, List.of());
        }
    }

    /**
     * DELETE FROM table [AS alias] [USING using] [WHERE where] [RETURNING items]: with USING, the
     * rows of the table that join with some row of the USING items making WHERE true;
     * {@code truncate} for TRUNCATE [TABLE] table, which deletes every row.
     */
    record Delete(int pos, List<String> table, String alias, Expr where, boolean truncate, List<SelectItem> returning, List<TableRef> using) implements Statement {
        public Delete {
            table = List.copyOf(table);
            returning = List.copyOf(returning);
            using = List.copyOf(using);
        }

        public Delete(int pos, List<String> table, String alias, Expr where, boolean truncate, List<SelectItem> returning) {
            this(pos, table, alias, where, truncate, returning, List.of());
        }

        public Delete(int pos, List<String> table, String alias, Expr where) {
            this(pos, table, alias, where, false, List.of());
        }
    }

    enum TransactionKind { BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE_SAVEPOINT, ROLLBACK_TO_SAVEPOINT }

    /**
     * BEGIN / START TRANSACTION, COMMIT / END, ROLLBACK; SAVEPOINT name, RELEASE [SAVEPOINT] name,
     * ROLLBACK TO [SAVEPOINT] name ({@code savepoint} is the name, null for the others).
     */
    record Transaction(int pos, TransactionKind kind, String savepoint) implements Statement {
        public Transaction(int pos, TransactionKind kind) {
            this(pos, kind, null);
        }
    }

    enum ShowKind {
        TABLES, VIEWS, MATERIALIZED_VIEWS, INDEXES, COLUMNS, CREATE_TABLE, CREATE_VIEW, CREATE_MATERIALIZED_VIEW,
        VARIABLE, SOURCES, SINKS, JOBS
    }

    /**
     * SHOW ...; {@code target} is the object for COLUMNS, CREATE ... and INDEXES FROM x (empty for
     * all indexes and the list forms), or the setting's name for SHOW name.
     */
    record Show(int pos, ShowKind kind, List<String> target) implements Statement {
        public Show {
            target = List.copyOf(target);
        }
    }

    /** One EXPLAIN option: {@code name [value]}, name in lower case, value null when absent. */
    record ExplainOption(int pos, String name, String value) implements Node {}

    record Explain(int pos, List<ExplainOption> options, Statement statement) implements Statement {
        public Explain {
            options = List.copyOf(options);
        }
    }

    /**
     * SUBSCRIBE [TO] name | SUBSCRIBE (query): exactly one of {@code name} (empty when absent) and
     * {@code query} (null when absent) is given. {@code asOf} and {@code upTo} may be null;
     * {@code upsertKey} is null without {@code ENVELOPE UPSERT (KEY (cols))}.
     */
    record Subscribe(int pos, List<String> name, Query query, Expr asOf, Expr upTo, boolean snapshot, boolean progress,
                     List<String> upsertKey) implements Statement {
        public Subscribe {
            name = List.copyOf(name);
            upsertKey = upsertKey == null ? null : List.copyOf(upsertKey);
        }
    }

    /**
     * {@code ALTER TABLE table ADD [CONSTRAINT name] UNIQUE (columns)} ({@code key}) or {@code ...
     * FOREIGN KEY (columns) REFERENCES ...} ({@code foreignKey}; exactly one is set): checked
     * against the rows there are, then kept.
     */
    record AddConstraint(int pos, List<String> table, UniqueKey key, ForeignKeyDef foreignKey, CheckDef check) implements Statement {
        public AddConstraint {
            table = List.copyOf(table);
            if ((key != null ? 1 : 0) + (foreignKey != null ? 1 : 0) + (check != null ? 1 : 0) != 1) throw new IllegalArgumentException("one constraint");
        }

        public AddConstraint(int pos, List<String> table, UniqueKey key, ForeignKeyDef foreignKey) {
            this(pos, table, key, foreignKey, null);
        }

        public AddConstraint(int pos, List<String> table, UniqueKey key) {
            this(pos, table, key, null, null);
        }
    }

    /**
     * {@code COMMENT ON kind name IS text} ({@code text} null for {@code IS NULL}, which removes
     * it), or {@code COMMENT ON COLUMN name.column IS text} ({@code kind} null, {@code column} set).
     */
    record Comment(int pos, ObjectKind kind, List<String> name, String column, String text) implements Statement {
        public Comment {
            name = List.copyOf(name);
            if ((kind == null) != (column != null)) throw new IllegalArgumentException("a comment is on an object or on a column");
        }
    }

    /** What {@link AlterColumn} changes. */
    enum ColumnChange { SET_DEFAULT, DROP_DEFAULT, SET_NOT_NULL, DROP_NOT_NULL }

    /**
     * {@code ALTER TABLE table ALTER [COLUMN] column SET DEFAULT defaultExpr | DROP DEFAULT | SET
     * NOT NULL | DROP NOT NULL}: the table's definition changed in place (SET NOT NULL checked
     * against the rows there are).
     */
    record AlterColumn(int pos, List<String> table, String column, ColumnChange change, Expr defaultExpr) implements Statement {
        public AlterColumn {
            table = List.copyOf(table);
            if ((change == ColumnChange.SET_DEFAULT) != (defaultExpr != null)) throw new IllegalArgumentException("SET DEFAULT, and only it, has an expression");
        }
    }

    /** {@code ALTER TABLE table DROP CONSTRAINT [IF EXISTS] name [CASCADE]}: with CASCADE, the foreign keys that need a unique constraint go with it. */
    record DropConstraint(int pos, List<String> table, String name, boolean ifExists, boolean cascade) implements Statement {
        public DropConstraint {
            table = List.copyOf(table);
        }

        public DropConstraint(int pos, List<String> table, String name, boolean ifExists) {
            this(pos, table, name, ifExists, false);
        }
    }

    /** ALTER TABLE|MATERIALIZED VIEW|INDEX name SET (RETAIN HISTORY ...), or RESET (RETAIN HISTORY) ({@code retain} null). */
    record AlterRetainHistory(int pos, ObjectKind kind, List<String> name, RetainHistory retain) implements Statement {
        public AlterRetainHistory {
            name = List.copyOf(name);
        }
    }

    /** CHECKPOINT: the server's dataflows checkpointed now, so that a restart restores them and replays only later writes. */
    record Checkpoint(int pos) implements Statement {}

    /**
     * {@code DEALLOCATE [PREPARE] name | ALL}: forgets one of the session's prepared statements
     * (the protocol's named ones), or all of them ({@code name} null).
     */
    record Deallocate(int pos, String name) implements Statement {}

    /**
     * {@code DISCARD ALL | PLANS | SEQUENCES | TEMP}: a session made as new (ALL: settings reset,
     * cursors closed, prepared statements deallocated, sequence values forgotten); PLANS and TEMP
     * have nothing to discard here. 25001 inside a transaction block for ALL, as in PostgreSQL.
     */
    record Discard(int pos, String what) implements Statement {}

    /** REFRESH MATERIALIZED VIEW name: a maintained view is always fresh, so it only checks the name. */
    record Refresh(int pos, List<String> name) implements Statement {
        public Refresh {
            name = List.copyOf(name);
        }
    }

    /** ADVANCE CLOCK BY interval ({@code to} false) or ADVANCE CLOCK TO timestamp ({@code to} true). */
    record AdvanceClock(int pos, boolean to, Expr value) implements Statement {}

    /**
     * SET name = value[, ...] / SET name TO value: a session setting, kept generic. A bare word
     * value is a {@link Expr.StringLiteral}; {@code values} is empty for {@code SET name TO DEFAULT}.
     */
    record Set(int pos, String name, List<Expr> values) implements Statement {
        public Set {
            values = List.copyOf(values);
        }
    }

    /**
     * The data format of a COPY: PostgreSQL's text format (tab-separated, {@code \N} for NULL,
     * backslash escapes), CSV or JSON lines ({@code json}), with every option resolved to its
     * default when not given.
     * {@code header} is {@code NONE}, {@code SKIP} (a first line to ignore, or to write) or
     * {@code MATCH} (a first line that must name the columns).
     */
    record CopyOptions(boolean csv, char delimiter, String nullString, CopyHeader header, char quote, char escape, boolean json) {
        /** The text format's defaults. */
        public static final CopyOptions TEXT = new CopyOptions(false, '\t', "\\N", CopyHeader.NONE, '"', '"');
        /**
         * JSON lines (COPY FROM only, Tributary's): one JSON object per line, each column taking
         * the value of the key that names it, as {@code json_populate_record} takes them; the
         * other options do not apply.
         */
        public static final CopyOptions JSON = new CopyOptions(false, '\t', "", CopyHeader.NONE, '"', '"', true);

        /** Text or CSV. */
        public CopyOptions(boolean csv, char delimiter, String nullString, CopyHeader header, char quote, char escape) {
            this(csv, delimiter, nullString, header, quote, escape, false);
        }
    }

    enum CopyHeader { NONE, SKIP, MATCH }

    /**
     * COPY table [(columns)] FROM STDIN | 'file', COPY table [(columns)] TO STDOUT | 'file' or
     * COPY (query) TO STDOUT | 'file'. {@code table} is empty when {@code query} is given;
     * {@code query} is a {@link QueryStatement} (perhaps with EMIT CHANGES) or a
     * {@link Subscribe}, null for a table. {@code columns} is empty when not given (all columns).
     * {@code file} is the server-side file's path as written, null for the client's STDIN or
     * STDOUT.
     */
    record Copy(int pos, List<String> table, List<String> columns, Statement query, boolean from, String file, CopyOptions options)
            implements Statement {
        public Copy {
            table = List.copyOf(table);
            columns = List.copyOf(columns);
        }

        /** A COPY through the client (STDIN or STDOUT). */
        public Copy(int pos, List<String> table, List<String> columns, Statement query, boolean from, CopyOptions options) {
            this(pos, table, columns, query, from, null, options);
        }
    }

    /** DECLARE name [NO SCROLL] CURSOR [WITHOUT HOLD] FOR query: a {@link QueryStatement} or a {@link Subscribe}. */
    record DeclareCursor(int pos, String name, Statement query) implements Statement {}

    /**
     * FETCH [n | ALL | NEXT | FORWARD [n | ALL]] [FROM | IN] cursor [WITH (timeout = interval)]:
     * {@code count} rows at most, {@link #ALL} for every row there is. {@code timeout} is null
     * when not given.
     */
    record Fetch(int pos, String cursor, long count, Expr timeout) implements Statement {
        public static final long ALL = Long.MAX_VALUE;
    }

    /** CLOSE cursor, or CLOSE ALL ({@code cursor} null). */
    record CloseCursor(int pos, String cursor) implements Statement {}
    /** One option of CREATE/ALTER ROLE: {@code LOGIN}/{@code NOLOGIN}, or {@code PASSWORD 'pw'}/{@code PASSWORD NULL}. */
    sealed interface RoleOption extends Node {
        /** {@code LOGIN} ({@code login} true) or {@code NOLOGIN}. */
        record Login(int pos, boolean login) implements RoleOption {}

        /** {@code [ENCRYPTED] PASSWORD 'pw'}; {@code password} is null for {@code PASSWORD NULL}. */
        record Password(int pos, String password) implements RoleOption {}

        /**
         * A role attribute other than LOGIN: {@code SUPERUSER}, {@code CREATEDB}, {@code CREATEROLE},
         * {@code INHERIT}, {@code REPLICATION} or {@code BYPASSRLS} ({@code value} true), or its
         * {@code NO...} form; {@code name} is the attribute's lower-case name without {@code no}.
         */
        record Attribute(int pos, String name, boolean value) implements RoleOption {}
    }

    /**
     * The objects of GRANT and REVOKE on privileges: {@code TABLE} covers tables, views and
     * materialized views (the word is optional, as in PostgreSQL), {@code ALL_TABLES_IN_SCHEMA}
     * every one of them in the named schemas, {@code SCHEMA} schemas.
     */
    enum GrantTarget {
        TABLE, ALL_TABLES_IN_SCHEMA, SCHEMA
    }

    /**
     * GRANT privileges ON target TO grantees [WITH GRANT OPTION], or REVOKE [GRANT OPTION FOR]
     * privileges ON target FROM grantees [CASCADE | RESTRICT] ({@code grant} false).
     * {@code privileges} are lower-case words as written ({@code select}, ...), empty for ALL
     * [PRIVILEGES]; {@code grantees} are role names, {@code public} for PUBLIC.
     * {@code grantOption}: WITH GRANT OPTION in a GRANT, GRANT OPTION FOR in a REVOKE.
     */
    record Grant(int pos, boolean grant, List<String> privileges, GrantTarget target, List<List<String>> objects, List<String> grantees,
                 boolean grantOption, boolean cascade) implements Statement {
        public Grant {
            privileges = List.copyOf(privileges);
            objects = List.copyOf(objects);
            grantees = List.copyOf(grantees);
        }
    }

    /**
     * GRANT roles TO members [WITH ADMIN OPTION], or REVOKE [ADMIN OPTION FOR] roles FROM members
     * ({@code grant} false). {@code adminOption}: WITH ADMIN OPTION in a GRANT, ADMIN OPTION FOR in a REVOKE.
     */
    record GrantRole(int pos, boolean grant, List<String> roles, List<String> members, boolean adminOption) implements Statement {
        public GrantRole {
            roles = List.copyOf(roles);
            members = List.copyOf(members);
        }
    }

    /** REASSIGN OWNED BY roles TO role: what {@code from} own, {@code to} owns from now on. */
    record ReassignOwned(int pos, List<String> from, String to) implements Statement {
        public ReassignOwned {
            from = List.copyOf(from);
        }
    }

    /** DROP OWNED BY roles [CASCADE | RESTRICT]: the objects they own are dropped, and every privilege granted to them revoked. */
    record DropOwned(int pos, List<String> roles, boolean cascade) implements Statement {
        public DropOwned {
            roles = List.copyOf(roles);
        }
    }

    /** ALTER TABLE|VIEW|MATERIALIZED VIEW name OWNER TO role. */
    record AlterOwner(int pos, ObjectKind kind, List<String> name, String owner) implements Statement {
        public AlterOwner {
            name = List.copyOf(name);
        }
    }

    /**
     * SET ROLE name / SET ROLE NONE / RESET ROLE ({@code role} null), or, with {@code session}
     * true, SET SESSION AUTHORIZATION name / DEFAULT / RESET SESSION AUTHORIZATION ({@code role} null);
     * {@code reset} for the RESET forms.
     */
    record SetRole(int pos, boolean session, String role, boolean reset) implements Statement {}

    /**
     * CREATE ROLE name [WITH] options, or CREATE USER ({@code user} true), which is CREATE ROLE with
     * LOGIN unless NOLOGIN is given. Each kind of option appears at most once.
     */
    record CreateRole(int pos, String name, boolean user, List<RoleOption> options) implements Statement {
        public CreateRole {
            options = List.copyOf(options);
        }
    }

    /** ALTER ROLE|USER name [WITH] options; each kind of option appears at most once. */
    record AlterRole(int pos, String name, List<RoleOption> options) implements Statement {
        public AlterRole {
            options = List.copyOf(options);
        }
    }

    /**
     * CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role], or CREATE SCHEMA AUTHORIZATION
     * role (the schema named as the role); {@code owner} null: the creating role.
     */
    record CreateSchema(int pos, String name, boolean ifNotExists, String owner) implements Statement {}

    /** DROP SCHEMA [IF EXISTS] name[, ...] [CASCADE|RESTRICT]: CASCADE drops what is in them too. */
    record DropSchema(int pos, boolean ifExists, List<String> names, boolean cascade) implements Statement {
        public DropSchema {
            names = List.copyOf(names);
        }
    }

    /** ALTER SCHEMA name OWNER TO role. */
    record AlterSchemaOwner(int pos, String name, String owner) implements Statement {}

    /** DROP ROLE|USER [IF EXISTS] name[, ...]. */
    record DropRole(int pos, boolean ifExists, List<String> names) implements Statement {
        public DropRole {
            names = List.copyOf(names);
        }
    }
}
