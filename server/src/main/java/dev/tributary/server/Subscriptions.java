package dev.tributary.server;

import dev.tributary.changeslog.ChangeStream;
import dev.tributary.changeslog.UpsertEnvelope;
import dev.tributary.server.compute.ComputeController;
import dev.tributary.server.compute.DataflowMemory;
import dev.tributary.server.compute.Dataflows;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.bind.BoundQuery;
import dev.tributary.sql.parser.Parser;
import dev.tributary.sql.parser.SqlFormatter;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The running subscriptions of one database ({@code SUBSCRIBE}, {@code SELECT ... EMIT CHANGES},
 * and the COPY streams and cursors over them): each a dataflow ending in a {@link ChangeStream}
 * whose sink turns deliveries into {@link Result} batches for its listener, told of changes only
 * once they are durable. A subscription ends when its client closes it, when something it reads
 * is dropped ({@link #endOn}), or with an error when its dataflow or an input's fails
 * ({@link #endFailed}).
 *
 * <p>Called with the coordinator's lock held; a subscription's close takes that lock itself, as
 * it comes from the client's thread.
 */
final class Subscriptions {
    private final Object monitor;
    private final Binders binders;
    private final TimestampOracle oracle;
    private final ComputeController compute;
    private final TableFrontiers frontiers;
    private final ReadPath reads;
    private final Durability durability;
    private final List<LiveSubscription> live = new ArrayList<>();
    private int count;

    /**
     * A running subscription with the catalog items it reads, so dropping one of them ends it,
     * and its dataflow and the stored collections it reads, so a failure of either ends it too.
     */
    private record LiveSubscription(Set<Long> uses, Subscription.Listener listener, Subscription subscription, int dataflow, Set<Long> reads,
            int pid, String query, SqlType eventTime, SubscriptionSink<?> sink) {}

    /**
     * A running subscription as introspection shows it: its id, session and query, the rows its
     * streams dropped as late, their watermark, and its cursor: the position everything before
     * which has been delivered (what {@code FROM CURSOR} resumes from), as text of its
     * {@code change_time}'s type (null before its first progress); {@code upper} the same
     * position in system time (-1 in event time, or before its first progress).
     */
    record Live(long id, int pid, String query, long lateRows, String watermark, String cursor, long upper) {}

    /** Each running subscription, in the order they started (called with the coordinator's lock held). */
    List<Live> live() {
        List<Live> out = new ArrayList<>();
        for (LiveSubscription l : live) {
            Subscription.Status s = compute.subscriptionStatus(l.dataflow());
            if (s == null) continue;
            String watermark = l.eventTime() == null || s.watermark() < 0 ? null : eventTimeText(s.watermark(), l.eventTime());
            long at = l.sink().frontier;
            String cursor = at < 0 || at == Long.MAX_VALUE ? null : l.eventTime() != null ? eventTimeText(at, l.eventTime())
                    : dev.tributary.sql.types.Values.toText(Instant.ofEpochMilli(at), SqlType.TIMESTAMPTZ);
            out.add(new Live(l.dataflow(), l.pid(), l.query(), s.lateRows(), watermark, cursor, l.eventTime() == null && at != Long.MAX_VALUE ? at : -1));
        }
        return out;
    }

    private static String eventTimeText(long ticks, SqlType eventTime) {
        return dev.tributary.sql.types.Values.toText(dev.tributary.sql.expr.TimeWindows.fromTicks(ticks, eventTime), eventTime);
    }

    /** Each running subscription's state, in the order they started (called with the coordinator's lock held). */
    List<dev.tributary.sql.catalog.Catalog.SubscriptionState> states() {
        List<dev.tributary.sql.catalog.Catalog.SubscriptionState> out = new ArrayList<>();
        for (LiveSubscription l : live) {
            Subscription.Status s = compute.subscriptionStatus(l.dataflow());
            if (s == null) continue;
            String watermark = l.eventTime() == null || s.watermark() < 0 ? null : eventTimeText(s.watermark(), l.eventTime());
            out.add(new dev.tributary.sql.catalog.Catalog.SubscriptionState(l.dataflow(), l.pid(), l.query(), s.records(), s.lateRows(), watermark));
        }
        return out;
    }

    Subscriptions(Object monitor, Binders binders, TimestampOracle oracle, ComputeController compute, TableFrontiers frontiers, ReadPath reads,
            Durability durability) {
        this.monitor = monitor;
        this.binders = binders;
        this.oracle = oracle;
        this.compute = compute;
        this.frontiers = frontiers;
        this.reads = reads;
        this.durability = durability;
    }

    /** The number of subscriptions running (COPY streams and cursors included). */
    int count() {
        return count;
    }

    /** The stored collections each running subscription reads (a write to a table under one moves the others with it). */
    Collection<Set<Long>> reads() {
        return live.stream().map(LiveSubscription::reads).toList();
    }

    /** Starts a subscription to {@code st}: a SUBSCRIBE or a SELECT ... EMIT CHANGES. */
    Subscription subscribe(Session session, Statement st, Subscription.Listener given) {
        Subscription.Listener listener = durability.afterDurable(given);
        BoundQuery q;
        Binder binder = binders.of(session).allowStreams().maintaining();
        Statement.Subscribe sub = null;
        switch (st) {
            case Statement.Subscribe s -> {
                sub = s;
                dev.tributary.sql.ast.Query query = s.query() != null ? s.query()
                        : Parser.parseQuery("SELECT * FROM " + String.join(".", s.name().stream().map(SqlFormatter::ident).toList()));
                q = binder.bindQuery(query);
            }
            case Statement.QueryStatement qs when qs.emitChanges() -> q = binder.bindQuery(qs.query());
            default -> throw new SqlException("42601", "subscribe takes SUBSCRIBE or SELECT ... EMIT CHANGES", st.pos());
        }
        if (binder.readsSystemCatalog()) throw Binders.systemCatalogIn("a subscription", st.pos());
        if (binder.consumerGroup() != null) throw consumerGroupOutsideCursor(binder.consumerGroup().pos());
        binders.access().checkSelect(session, binder.dependencies());
        return start(session, binder, q, st, sub, listener, null);
    }

    /** 0A000: a STREAM read by a consumer group outside a cursor, where no COMMIT would say what was consumed. */
    static SqlException consumerGroupOutsideCursor(int pos) {
        return new SqlException("0A000", "a STREAM read by a CONSUMER GROUP is read through a cursor in a transaction block", pos,
                "BEGIN; DECLARE c CURSOR FOR SELECT ... FROM t STREAM CONSUMER GROUP 'g'; FETCH 100 c; COMMIT: the COMMIT consumes what was fetched.");
    }

    /**
     * A job's subscription (see {@link Jobs}): {@code q}'s changes with progress rows, told to
     * {@code listener} once durable; from where its STREAMs say, or, when {@code resume} is
     * given, after that cursor (a progress time this subscription, or an earlier one of the same
     * query, delivered: system time, or the watermark in event time).
     */
    Subscription subscribeJob(Session session, Binder binder, BoundQuery q, Statement st, Long resume, Subscription.Listener given) {
        Statement.Subscribe progress = new Statement.Subscribe(st.pos(), List.of(), null, null, null, true, true, null);
        return start(session, binder, q, st, progress, durability.afterDurable(given), resume);
    }

    private Subscription start(Session session, Binder binder, BoundQuery q, Statement st, Statement.Subscribe sub, Subscription.Listener listener, Long resume) {
        Plan temporal = Ddl.temporal(Ddl.visiblePlan(q), st.pos());
        Binder.checkOneTime(temporal, st.pos());
        Plan plan = dev.tributary.sql.plan.Optimizer.optimize(IndexSelection.binaryOnly(temporal));
        long start = oracle.readTime();
        // a subscription to a stream is in event time: its times are the events', its progress the watermark
        SqlType eventTime = eventTimeType(plan);
        if (eventTime != null) {
            if (sub != null && (sub.asOf() != null || sub.upTo() != null)) {
                throw new SqlException("0A000", "AS OF and UP TO are system times; a subscription to a stream in event time takes neither", sub.pos());
            }
            plan = startStreams(plan, start);
        }
        reads.checkChanges(plan, start, st.pos());
        long asOf = start;
        Binder.StreamStart from = resume != null ? new Binder.StreamStart(resume, st.pos(), eventTime != null) : binder.streamStart();
        long upTo = Long.MAX_VALUE;
        boolean snapshot = true;
        boolean progress = false;
        int[] keyColumns = null;
        if (sub != null) {
            snapshot = sub.snapshot();
            progress = sub.progress();
            if (from != null && (sub.asOf() != null || sub.upTo() != null)) {
                throw new SqlException("0A000", "a STREAM FROM NOW or FROM CURSOR says where the subscription starts: give it no AS OF or UP TO",
                        sub.pos());
            }
            if (sub.asOf() != null) {
                asOf = binder.systemTime(sub.asOf(), "AS OF");
                reads.checkRetained(plan, asOf, start, sub.asOf().pos(), false);
            }
            if (sub.upTo() != null) {
                upTo = binder.systemTime(sub.upTo(), "UP TO");
                if (upTo < asOf) throw new SqlException("22023", "UP TO " + upTo + " is before AS OF " + asOf, sub.upTo().pos());
            }
            if (sub.upsertKey() != null) {
                keyColumns = new int[sub.upsertKey().size()];
                for (int i = 0; i < keyColumns.length; i++) {
                    String k = sub.upsertKey().get(i);
                    keyColumns[i] = q.names().subList(0, q.visible()).indexOf(k);
                    if (keyColumns[i] < 0) throw new SqlException("42703", "column \"" + k + "\" does not exist", sub.pos(),
                            "ENVELOPE UPSERT (KEY (...)) names columns of the subscribed query: " + String.join(", ", q.names()) + ".");
                }
            }
        }
        List<String> columns = new ArrayList<>(List.of("change_time"));
        List<SqlType> types = new ArrayList<>(List.of(eventTime != null ? eventTime : SqlType.TIMESTAMPTZ));
        java.util.function.LongFunction<Object> timeValue = eventTime != null ? t -> dev.tributary.sql.expr.TimeWindows.fromTicks(t, eventTime)
                : Instant::ofEpochMilli;
        if (progress) {
            columns.add("change_progressed");
            types.add(SqlType.BOOLEAN);
        }
        columns.add(keyColumns == null ? "change_diff" : "change_state");
        types.add(keyColumns == null ? SqlType.BIGINT : SqlType.TEXT);
        int prefix = columns.size();
        columns.addAll(q.names());
        types.addAll(q.types());
        RowCodec codec = new RowCodec(q.types());
        boolean withProgress = progress;
        // a batch's rows share its time: made into a value once per batch, not per row
        java.util.function.BiFunction<Object, Object, Object[]> row = (time, tag) -> {
            Object[] r = new Object[columns.size()];
            r[0] = time;
            if (withProgress) r[1] = false;
            r[prefix - 1] = tag;
            return r;
        };
        ChangeStream.Sink<Row, Row> sink;
        SubscriptionSink<?> delivering;
        if (keyColumns == null) {
            SubscriptionSink<Row> plain = new SubscriptionSink<Row>(listener, columns, types, withProgress, timeValue) {
                @Override
                public void changes(long time, ChangeStream.Changes<Row> changes) {
                    List<Object[]> rows = new ArrayList<>(changes.size());
                    Object at = timeValue.apply(time);
                    for (int i = 0; i < changes.size(); i++) {
                        Object[] r = row.apply(at, changes.diff(i));
                        // decoded from the stream's column of rows, where it waits: no Row made
                        codec.decode(changes.column(), changes.index(i), r, prefix);
                        rows.add(r);
                    }
                    deliver(rows);
                }
            };
            delivering = plain;
            sink = plain;
        } else {
            int[] keys = keyColumns;
            var downstream = new SubscriptionSink<UpsertEnvelope.KeyChange<List<Object>, Row>>(listener, columns, types, withProgress, timeValue) {
                @Override
                public void changes(long time, ChangeStream.Changes<UpsertEnvelope.KeyChange<List<Object>, Row>> changes) {
                    List<Object[]> rows = new ArrayList<>(changes.size());
                    Object at = timeValue.apply(time);
                    for (int n = 0; n < changes.size(); n++) {
                        var c = changes.data(n);
                        Object[] r = row.apply(at, c.state().name().toLowerCase(java.util.Locale.ROOT));
                        if (c.row() != null) {
                            System.arraycopy(codec.decode(c.row()), 0, r, prefix, codec.arity());
                        } else {
                            for (int i = 0; i < keys.length; i++) r[prefix + keys[i]] = c.key().get(i);
                        }
                        rows.add(r);
                    }
                    deliver(rows);
                }
            };
            delivering = downstream;
            sink = new UpsertEnvelope<List<Object>, Row, Row>(r -> {
                Object[] values = codec.decode(r);
                List<Object> key = new ArrayList<>(keys.length);
                for (int k : keys) key.add(dev.tributary.sql.row.Keys.normalize(values[k]));
                return key;
            }, downstream);
        }
        if (from != null && eventTime == null) {
            // FROM NOW: no snapshot; FROM CURSOR c: every change from the progress time c on (the
            // changes at times >= c), read from the tables' retained history
            snapshot = false;
            if (from.cursor() != null) {
                // start + 1: everything up to the present was delivered (a source's positions of its latest commit)
                if (from.cursor() > start + 1) throw new SqlException("22023", "FROM CURSOR " + from.cursor() + " is ahead of the present " + start, from.pos());
                asOf = from.cursor() - 1;
                reads.checkRetained(plan, asOf, start, from.pos(), false);
            }
        }
        long eventFrom = -1;
        if (from != null && eventTime != null && from.cursor() != null) {
            // FROM CURSOR w in event time: built again from the streams' beginning, delivering the
            // changes at event times >= w (a progress row's change_time: what came before it was delivered)
            eventFrom = from.cursor() == Long.MIN_VALUE ? Long.MIN_VALUE : from.cursor() - 1;
        }
        // progress always reaches the sink, which keeps its cursor, and sends it on only if asked for
        ChangeStream.Options options = eventTime != null ? new ChangeStream.Options(eventFrom, false, true, Long.MAX_VALUE)
                : new ChangeStream.Options(asOf, snapshot, true, upTo);
        frontiers.advancedAll(start + 1);
        DataflowMemory memory = session.dataflowMemory(compute.workers());
        int index = compute.subscribe(start, plan, options, sink, memory);
        count++;
        Set<Long> uses = binder.dependencies();
        LiveSubscription[] self = new LiveSubscription[1];
        Subscription subscription = new Subscription(() -> {
            synchronized (monitor) {
                count--;
                live.remove(self[0]);
            }
            compute.dropSubscription(index);
        }, () -> {
            synchronized (monitor) {
                return compute.subscriptionStatus(index);
            }
        }, columns, types);
        self[0] = new LiveSubscription(uses, listener, subscription, index, Plans.reads(plan), session.backendPid,
                dev.tributary.sql.parser.SqlFormatter.format(st), eventTime, delivering);
        live.add(self[0]);
        return subscription;
    }

    /**
     * The type of the event time of the first stream {@code plan} reads in event time (an
     * integer's as bigint), or null when it reads none: the type of a subscription's change_time.
     */
    private static SqlType eventTimeType(Plan plan) {
        if (plan instanceof Plan.EventTime e) {
            SqlType t = e.input().types().get(e.timeColumn());
            return t.isInteger() ? SqlType.BIGINT : t;
        }
        SqlType[] found = {null};
        Plans.withInputs(plan, in -> {
            if (found[0] == null) found[0] = eventTimeType(in);
            return in;
        });
        return found[0];
    }

    /** {@code plan} with each stream read FROM NOW starting after {@code start}. */
    private static Plan startStreams(Plan plan, long start) {
        Plan p = Plans.withInputs(plan, in -> startStreams(in, start));
        return p instanceof Plan.EventTime e && e.fromNow() ? new Plan.EventTime(e.input(), e.timeColumn(), e.watermark(), true, start, e.appendOnly()) : p;
    }

    /**
     * Ends with an error each subscription whose dataflow failed, or that of something it reads:
     * it would never deliver again, and its client would wait for good.
     */
    void endFailed() {
        if (live.isEmpty()) return;
        List<LiveSubscription> running = List.copyOf(live);
        List<SqlException> failures = compute.subscriptionFailures(running.stream().map(LiveSubscription::dataflow).toList(),
                running.stream().map(LiveSubscription::reads).toList());
        for (int i = 0; i < running.size(); i++) {
            if (failures.get(i) == null) continue;
            running.get(i).subscription().close();
            running.get(i).listener().onError(failures.get(i));
        }
    }

    /** Ends the subscriptions that read item {@code id}, which is being dropped: their listeners hear {@link Subscription.Listener#onDone()}. */
    void endOn(long id) {
        for (LiveSubscription l : List.copyOf(live)) {
            if (!l.uses().contains(id)) continue;
            l.subscription().close();
            l.listener().onDone();
        }
    }

    /**
     * A change stream's deliveries as {@link Result} batches for a {@link Subscription.Listener}:
     * progress as a row of its own ({@code change_progressed} true, the rest NULL), errors as the
     * first error, the end as {@link Subscription.Listener#onDone()}.
     */
    private abstract static class SubscriptionSink<D> implements ChangeStream.Sink<D, Row> {
        private final Subscription.Listener listener;
        private final List<String> columns;
        private final List<SqlType> types;
        private final boolean progress;
        private final java.util.function.LongFunction<Object> timeValue;
        /** Everything before this time has been delivered (-1: nothing yet); written by the delivering worker, read by introspection. */
        volatile long frontier = -1;

        SubscriptionSink(Subscription.Listener listener, List<String> columns, List<SqlType> types, boolean progress,
                java.util.function.LongFunction<Object> timeValue) {
            this.listener = listener;
            this.columns = columns;
            this.types = types;
            this.progress = progress;
            this.timeValue = timeValue;
        }

        void deliver(List<Object[]> rows) {
            listener.onChanges(new Result("SUBSCRIBE", columns, types, rows));
        }

        @Override
        public void progressed(long frontier) {
            this.frontier = frontier;
            if (!progress) return;
            Object[] r = new Object[columns.size()];
            r[0] = timeValue.apply(frontier);
            r[1] = true;
            deliver(List.<Object[]>of(r));
        }

        @Override
        public void failed(long time, Map<Row, Long> errors) {
            listener.onError(Dataflows.firstError(errors.keySet()));
        }

        @Override
        public void done() {
            listener.onDone();
        }
    }
}
