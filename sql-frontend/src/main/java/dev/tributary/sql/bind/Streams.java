package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.ast.TableRef;
import dev.tributary.sql.ast.Watermark;
import dev.tributary.sql.bind.Binder.Bound;
import dev.tributary.sql.bind.Binder.Scope;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import dev.tributary.sql.expr.TimeWindows;
import dev.tributary.sql.parser.Parser;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.BitSet;

/**
 * {@code table STREAM ...} in FROM: the table's rows as a stream. With a watermark (given here,
 * or declared by the table's {@code CREATE TABLE ... WATERMARK FOR}) the stream is in event time
 * ({@link Plan.EventTime}); without one its rows keep the times they commit at. A window clause
 * is the window table function over the stream ({@code TUMBLE INTERVAL s} is {@code TUMBLE(t
 * STREAM ..., col, s)}, {@code HOP INTERVAL s EVERY e} is {@code HOP(t STREAM ..., col, e, s)}),
 * and needs the watermark's column.
 */
final class Streams {
    private Streams() {}

    static Bound bind(Binder binder, TableRef.Stream s) {
        if (!binder.streamsAllowed()) {
            throw new SqlException("0A000", "a STREAM is read by a continuous query (SUBSCRIBE to it, or SELECT ... EMIT CHANGES), a view or a "
                    + "materialized view", s.pos());
        }
        // in a SELECT that reads PROCTIME() the table's declared watermark does not apply
        Watermark watermark = s.watermark() != null ? s.watermark() : binder.processingTime() ? null : declared(binder, s.input());
        if (s.group() != null) {
            // a consumer group shares the rows as they commit, by positions in system time
            if (s.fromNow() || s.cursor() != null) {
                throw new SqlException("42601", "a STREAM read by a CONSUMER GROUP starts where the group is: give it no FROM NOW or FROM CURSOR", s.pos());
            }
            if (s.watermark() != null || s.window() != null) {
                throw new SqlException("0A000", "a STREAM read by a CONSUMER GROUP is in system time: it takes no WATERMARK or window", s.pos());
            }
            watermark = null;
        }
        if (s.window() != null) {
            if (watermark == null) {
                throw new SqlException("42601", "a STREAM's window clause needs a WATERMARK: give WATERMARK FOR column AS expression before "
                        + s.window().function().toUpperCase(java.util.Locale.ROOT) + ", or declare one on the table", s.window().pos());
            }
            TableRef.Stream unwindowed = new TableRef.Stream(s.pos(), s.input(), s.fromNow(), s.cursor(), watermark, null, null);
            return WindowTables.bind(binder, new TableRef.WindowTable(s.window().pos(), s.window().function(), unwindowed,
                    s.window().partitionBy(), watermark.column(), s.window().args(), s.alias()));
        }
        TableRef.NamedTable named = new TableRef.NamedTable(s.input().pos(), s.input().name(), s.alias());
        Bound in = withCommitTime(binder.named(named));
        if (s.group() != null) {
            long table = binder.catalogItem(s.input().name()).map(CatalogItem::id).orElseThrow();
            binder.consumerGroup(new Binder.ConsumerGroup(table, s.group(), s.pos()));
        }
        if (watermark == null) {
            // no event time: a continuous query over the rows as they commit, from where it starts
            if (s.fromNow() || s.cursor() != null) {
                Binder.StreamStart start = new Binder.StreamStart(s.cursor() == null ? null : cursor(binder, s),
                        s.cursor() != null ? s.cursor().pos() : s.pos(), false);
                binder.streamStart(start);
            }
            return in;
        }
        Scope scope = new Scope(in.fields(), null);
        ScalarExpr column = binder.expr(watermark.column(), scope);
        if (!(column instanceof ScalarExpr.ColumnRef ref)) throw new IllegalStateException("a column name bound to " + column);
        SqlType t = ref.type();
        if (!TimeWindows.isTimeType(t)) {
            throw new SqlException("42804", "the event time column of a WATERMARK must be a timestamp, a timestamp with time zone or an integer, but "
                    + String.join(".", watermark.column().parts()) + " is of type " + t, watermark.column().pos());
        }
        ScalarExpr w = binder.expr(watermark.expr(), scope);
        if (!w.type().equals(t)) {
            throw new SqlException("42804", "the WATERMARK expression must be of the event time's type " + t + ", but it is of type " + w.type(),
                    watermark.expr().pos());
        }
        BitSet reads = new BitSet();
        ScalarExprs.columns(w, reads);
        reads.clear(ref.index());
        if (!reads.isEmpty()) {
            throw new SqlException("42P17", "the WATERMARK expression may read only its event time column "
                    + String.join(".", watermark.column().parts()) + ": it is computed from the largest event time seen, not from a row",
                    watermark.expr().pos());
        }
        if (s.cursor() != null) {
            // the cursor is a watermark a subscription reported: every window and state is built
            // again from the stream's beginning, and only what comes from that event time on is new
            long at = TimeWindows.ticks(binder.constant(s.cursor(), t.isInteger() ? SqlType.BIGINT : t));
            binder.streamStart(new Binder.StreamStart(at, s.cursor().pos(), true));
        }
        boolean appendOnly = binder.catalogItem(s.input().name()).map(i -> i instanceof CatalogItem.Table table && table.insertsOnly()).orElse(false);
        return new Bound(new Plan.EventTime(in.plan(), ref.index(), w, s.fromNow(), 0, appendOnly), in.fields());
    }

    /**
     * The system time a STREAM's FROM CURSOR names: a time, or over a source its positions
     * ({@code '0=1234, 1=99'}: partition=offset for Kafka), read as the time after the commit that
     * left the source there.
     */
    private static long cursor(Binder binder, TableRef.Stream s) {
        if (s.cursor() instanceof dev.tributary.sql.ast.Expr.StringLiteral l && l.value().contains("=")) {
            String text = l.value();
            java.util.Optional<CatalogItem> item = binder.catalogItem(s.input().name());
            if (item.isPresent() && item.get() instanceof CatalogItem.Table t && t.isSource()) {
                return binder.catalog().sourceCursor(t.id(), text, s.cursor().pos());
            }
        }
        return binder.systemTime(s.cursor(), "FROM CURSOR");
    }

    /** The name of a stream's hidden column of commit times, which {@code PROCTIME()} reads. */
    static final String PROCTIME = "proctime()";

    /** {@code in} with each row's commit time appended as a hidden column ({@link Plan.CommitTime}; pruned away unless read). */
    private static Bound withCommitTime(Bound in) {
        java.util.List<Field> fields = new java.util.ArrayList<>(in.fields());
        String qualifier = fields.isEmpty() ? null : fields.get(0).qualifier();
        fields.add(new Field(qualifier, PROCTIME, SqlType.TIMESTAMPTZ, true));
        return new Bound(new Plan.CommitTime(in.plan()), fields);
    }

    /** The watermark declared by the table {@code t} names, if it is a table that declares one. */
    private static Watermark declared(Binder binder, TableRef.NamedTable t) {
        return binder.catalogItem(t.name()).map(item -> item instanceof CatalogItem.Table table
                && Parser.parseStatement(table.sql()) instanceof Statement.CreateTable c ? c.watermark() : null).orElse(null);
    }

    /**
     * 0A000 when {@code plan} reads a stream in event time beside something in system time (a
     * table or view read directly, a temporal filter, history): their times do not compare, and
     * the system time's frontier would hold every window open for ever.
     */
    static void checkOneTime(Plan plan, int pos) {
        if (!inEventTime(plan)) return;
        String other = systemTimeRead(plan);
        if (other != null) {
            throw new SqlException("0A000", "a query over a STREAM in event time cannot also read " + other
                    + " in system time yet; read it as a STREAM too, or join with tables in a query without event time", pos);
        }
    }

    /** What {@code plan} reads in system time outside its streams, or null. */
    private static String systemTimeRead(Plan plan) {
        return switch (plan) {
            case Plan.EventTime e -> null;
            case Plan.Get g -> "\"" + g.name() + "\"";
            case Plan.IndexedGet g -> "\"" + g.indexName() + "\"";
            case Plan.DeltaJoin d -> systemTimeRead(d.fallback());
            case Plan.TemporalFilter t -> "now()";
            case Plan.Changes c -> "CHANGES";
            case Plan.AsOfLookup a -> "AS OF SYSTEM TIME";
            default -> {
                String[] found = {null};
                dev.tributary.sql.plan.Plans.withInputs(plan, in -> {
                    if (found[0] == null) found[0] = systemTimeRead(in);
                    return in;
                });
                yield found[0];
            }
        };
    }

    /** Whether {@code plan} reads a stream, in event time or as its rows commit. */
    static boolean readsStream(Plan plan) {
        return dev.tributary.sql.plan.Plans.anyNode(plan, p -> p instanceof Plan.EventTime || p instanceof Plan.CommitTime);
    }

    /** Whether {@code plan} reads a stream in event time. */
    static boolean inEventTime(Plan plan) {
        return dev.tributary.sql.plan.Plans.anyNode(plan, p -> p instanceof Plan.EventTime);
    }
}
