package dev.tributary.server;

import dev.tributary.sql.ast.Statement;

/**
 * What a statement does, as the statement metrics group it ({@link StatementMetrics}): a query's
 * latency and a commit's are different questions, and a 30-second CREATE MATERIALIZED VIEW must
 * not hide in the queries' histogram, nor a subscription that streams for hours.
 */
enum StatementKind {
    /** Reads rows: SELECT, COPY ... TO, FETCH, EXPLAIN, SHOW. */
    QUERY,
    /** Changes rows: INSERT, UPDATE, DELETE, COPY ... FROM, REFRESH. */
    WRITE,
    /** Changes the catalog: CREATE, DROP, ALTER, COMMENT, GRANT and the role statements. */
    DDL,
    /** BEGIN, COMMIT, ROLLBACK, SAVEPOINT: a COMMIT's time is its writes' way to the log. */
    TRANSACTION,
    /** Starts a stream of changes (SUBSCRIBE, EMIT CHANGES): timed until the stream is set up, or, through COPY, until it ends. */
    SUBSCRIBE,
    /** The session's own business: SET, cursors, DEALLOCATE, DISCARD, CHECKPOINT, the manual clock. */
    OTHER;

    /** The label value: the name in lower case. */
    String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    static StatementKind of(Statement st) {
        return switch (st) {
            case Statement.QueryStatement q -> q.emitChanges() ? SUBSCRIBE : QUERY;
            case Statement.Explain e -> QUERY;
            case Statement.Show s -> QUERY;
            case Statement.Fetch f -> QUERY;
            case Statement.Copy c -> c.from() ? WRITE : c.query() == null ? QUERY : of(c.query());
            case Statement.Subscribe s -> SUBSCRIBE;
            case Statement.Insert i -> WRITE;
            case Statement.InsertIntoUrl u -> WRITE;
            case Statement.Update u -> WRITE;
            case Statement.Delete d -> WRITE;
            case Statement.Refresh r -> WRITE;
            case Statement.Transaction t -> TRANSACTION;
            case Statement.SetConstraints s -> TRANSACTION;
            case Statement.CreateTable c -> DDL;
            case Statement.CreateSource c -> DDL;
            case Statement.CreateSink c -> DDL;
            case Statement.CreateJob c -> DDL;
            case Statement.AlterJob a -> DDL;
            case Statement.AlterSink a -> DDL;
            case Statement.CreateTableAs c -> DDL;
            case Statement.CreateView c -> DDL;
            case Statement.CreateIndex c -> DDL;
            case Statement.CreateSequence c -> DDL;
            case Statement.CreateSchema c -> DDL;
            case Statement.CreateRole c -> DDL;
            case Statement.Drop d -> DDL;
            case Statement.DropSchema d -> DDL;
            case Statement.DropRole d -> DDL;
            case Statement.DropOwned d -> DDL;
            case Statement.DropConstraint d -> DDL;
            case Statement.AddConstraint a -> DDL;
            case Statement.AlterColumn a -> DDL;
            case Statement.AlterRetainHistory a -> DDL;
            case Statement.AlterOwner a -> DDL;
            case Statement.AlterSchemaOwner a -> DDL;
            case Statement.AlterRole a -> DDL;
            case Statement.ReassignOwned r -> DDL;
            case Statement.Comment c -> DDL;
            case Statement.Grant g -> DDL;
            case Statement.GrantRole g -> DDL;
            case Statement.Set s -> OTHER;
            case Statement.SetRole s -> OTHER;
            case Statement.DeclareCursor d -> OTHER;
            case Statement.CloseCursor c -> OTHER;
            case Statement.Deallocate d -> OTHER;
            case Statement.Discard d -> OTHER;
            case Statement.Checkpoint c -> OTHER;
            case Statement.AdvanceClock a -> OTHER;
        };
    }
}
