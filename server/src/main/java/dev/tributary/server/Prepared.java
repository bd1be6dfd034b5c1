package dev.tributary.server;

import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.bind.BoundQuery;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.List;

/**
 * A statement parsed and bound once, to be run many times with parameter values: what the
 * extended query protocol's Parse makes (see {@link Tributary.Connection#prepare}).
 *
 * <p>Its parameters {@code $1, $2, ...} have fixed types, declared by the client or inferred
 * from their contexts at prepare time ({@link #parameterTypes}); a query's columns are known
 * without running it ({@link #columns}, {@link #types}). The coordinator keeps the bound plan
 * and, once run, the optimized plan chosen from the stores that existed; both are redone when
 * the catalog changes (a new index may make a seek out of a scan), with the parameter types and
 * result columns held fixed.
 *
 * <p>Only the coordinator reads or writes the mutable fields, under its lock.
 */
public final class Prepared {
    /** What running it does. */
    enum Kind {
        /** No statement at all: an empty query. */
        EMPTY,
        /** A SELECT (or VALUES ...): rows from the bound plan. */
        QUERY,
        INSERT,
        UPDATE,
        DELETE,
        /** Anything else (DDL, transaction control, SET, SHOW, EXPLAIN): run as the simple protocol runs it. */
        OTHER
    }

    final String sql;
    final Statement statement;
    final Kind kind;
    /** The parameter types the client declared (null where it left one to inference), for binding again. */
    final List<SqlType> declared;
    private final List<SqlType> parameterTypes;
    private final List<String> columns;
    private final List<SqlType> types;

    /** The catalog version the bound fields below were made at. */
    long version;
    /** Whether its plan holds a snapshot of the system catalogs, so that each run binds it again. */
    boolean readsSystemCatalog;
    /** Whether it was bound with AS OF SYSTEM TIME desugared (the session's {@code asof_join} setting), which a change of it redoes. */
    boolean desugarsAsOf;
    /** The session's search_path setting (null: the default) and role it was bound under: bare names resolve again when either changes. */
    String searchPath;
    String searchPathRole = "";
    /** QUERY and INSERT: the bound query (an INSERT's gives the new rows). */
    BoundQuery query;
    /** UPDATE and DELETE: the bound plan (old and new rows, or the rows removed). */
    Plan plan;
    /** The {@link #query} {@link #insertsGivenValues} last looked at, and what it found. */
    private BoundQuery examined;
    private boolean givenValues;

    /**
     * Whether it is an INSERT of given values (parameters and literals; no stored collection, no
     * system catalog read), whose answer shows nothing of the database. Worked out once per binding.
     */
    boolean insertsGivenValues() {
        if (query != examined) {
            examined = query;
            givenValues = kind == Kind.INSERT && query != null && !readsSystemCatalog
                    && dev.tributary.sql.plan.Plans.reads(query.plan()).isEmpty();
        }
        return givenValues;
    }
    /** INSERT, UPDATE, DELETE: the table written. */
    CatalogItem.Table table;
    /** An INSERT's, UPDATE's or DELETE's RETURNING list, or null. */
    dev.tributary.sql.bind.Returning returning;
    /** An INSERT's ON CONFLICT arbiter indexes, or null without ON CONFLICT. */
    java.util.List<CatalogItem.Index> arbiters;
    /** An INSERT's ON CONFLICT DO UPDATE, parameters unbound, or null. */
    dev.tributary.sql.bind.ConflictUpdate conflictUpdate;
    /** The plan as it runs when no uncommitted writes are visible, or null until first needed. */
    Plan physical;
    /** Whether {@link #physical} uses the statement time (now() and the like): an INSERT's VALUES then need a read time. */
    boolean valuesUseStatementTime;
    /** How to run it as a point read without the coordinator, or null; read by the client's thread without the lock. */
    volatile PointRead pointRead;

    /**
     * A prepared query that is a seek in an index, as the coordinator found it at catalog
     * version {@code version}: valid while the catalog stays at that version.
     *
     * @param query the bound query, for presenting the rows (ORDER BY, visible columns)
     * @param physical the optimized plan, parameters unbound, statement time unused
     * @param indexes the catalog's indexes at that version
     * @param index the index sought
     * @param sourceTypes the column types of the collection indexed
     * @param desugarsAsOf the {@code asof_join} setting it was bound under
     * @param seek the seek compiled for every run, or null when each run binds its values into
     *     the plan and finds the seek again (the steps after it read parameters)
     */
    record PointRead(long version, BoundQuery query, Plan physical, List<CatalogItem.Index> indexes, long index, List<SqlType> sourceTypes,
                     boolean desugarsAsOf, Peek.Seek seek, long[] tables) {}

    /** The relations the statement reads (SELECT is checked on them), as bound. */
    java.util.Set<Long> reads = java.util.Set.of();
    /** The privileges version at which, and the role for which, the statement last passed its privilege checks (see {@link AccessControl#cleared}). */
    long accessVersion = -1;
    String accessUser;

    Prepared(String sql, Statement statement, Kind kind, List<SqlType> declared, List<SqlType> parameterTypes, List<String> columns,
             List<SqlType> types) {
        this.sql = sql;
        this.statement = statement;
        this.kind = kind;
        this.declared = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(declared));
        this.parameterTypes = List.copyOf(parameterTypes);
        this.columns = columns == null ? null : List.copyOf(columns);
        this.types = types == null ? null : List.copyOf(types);
    }

    /** The type of each parameter {@code $i} at index {@code i - 1}. */
    public List<SqlType> parameterTypes() {
        return parameterTypes;
    }

    /** Whether it is the empty statement (an empty or blank query string). */
    public boolean isEmpty() {
        return kind == Kind.EMPTY;
    }

    /**
     * Whether it runs as the simple protocol runs it (DDL, transaction control, SET, SHOW,
     * EXPLAIN, cursors, COPY, SELECT ... AS OF), so whether and which rows it returns is known
     * only by running it.
     */
    public boolean shapeKnownWhenRun() {
        return kind == Kind.OTHER;
    }

    /**
     * Whether it may be run just to learn its columns: one of {@link #shapeKnownWhenRun} that
     * changes nothing (SHOW, EXPLAIN, SELECT ... AS OF).
     */
    public boolean describableByRunning() {
        return kind == Kind.OTHER && (statement instanceof Statement.Show || statement instanceof Statement.Explain
                || statement instanceof Statement.QueryStatement);
    }

    /**
     * The COPY statement it is (a SUBSCRIBE is run as COPY of it), or null: a COPY through the
     * client is run by the wire server, which moves the data; one of a server-side file is an
     * ordinary statement.
     */
    public Statement.Copy copy() {
        if (statement instanceof Statement.Subscribe s) return Coordinator.asCopy(s);
        return statement instanceof Statement.Copy c && c.file() == null ? c : null;
    }

    /** Its SQL text as the client sent it. */
    public String sql() {
        return sql;
    }

    /** The names of the columns it returns, or null when it returns no rows (or {@link #shapeKnownWhenRun}). */
    public List<String> columns() {
        return columns;
    }

    /** The types of the columns it returns, or null as for {@link #columns}. */
    public List<SqlType> types() {
        return types;
    }
}
