package dev.tributary.propertytests.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The AS OF SYSTEM TIME half-join against its desugaring over CHANGES (the reference, chosen with
 * {@code SET asof_join = desugared}): the same LEFT and inner lookups as two materialized views,
 * one planned each way, hold the same rows after every step of a random history: price changes
 * (several rows per symbol, so counts above one), orders looking up times before the pin, in the
 * past and in the future, order deletions, and the clock moving on (so withheld orders come due).
 * One to three workers.
 */
class AsOfDesugaringTest {
    private static final long PIN = 1_000;

    /** One step of the history. */
    sealed interface Step {}
    record SetPrice(String sym, int price, boolean add) implements Step {}
    record DropPrices(String sym) implements Step {}
    record Order(String sym, long offset) implements Step {}
    record DeleteOrder(int pick) implements Step {}
    record Advance(long millis) implements Step {}

    @Provide
    Arbitrary<List<Step>> histories() {
        Arbitrary<String> sym = Arbitraries.of("a", "b", "c");
        Arbitrary<Step> set = Combinators.combine(sym, Arbitraries.integers().between(0, 9), Arbitraries.of(true, false)).as(SetPrice::new);
        Arbitrary<Step> drop = sym.map(DropPrices::new);
        // an order looks up its own time plus an offset: well before the pin, in the past, now, or ahead
        Arbitrary<Step> order = Combinators.combine(sym, Arbitraries.oneOf(Arbitraries.longs().between(-20_000, -1),
                Arbitraries.longs().between(0, 0), Arbitraries.longs().between(1, 6_000))).as(Order::new);
        Arbitrary<Step> delete = Arbitraries.integers().between(0, 1000).map(DeleteOrder::new);
        Arbitrary<Step> advance = Arbitraries.longs().between(1, 4_000).map(Advance::new);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, set), net.jqwik.api.Tuple.of(1, drop), net.jqwik.api.Tuple.of(4, order),
                net.jqwik.api.Tuple.of(1, delete), net.jqwik.api.Tuple.of(3, advance)).list().ofMinSize(1).ofMaxSize(30);
    }

    private static final String LEFT = """
            SELECT o.id, o.sym, p.price, p.twice FROM orders o
            LEFT JOIN LATERAL (SELECT price, price * 2 AS twice FROM prices AS OF SYSTEM TIME o.ts SINCE %d
                               WHERE prices.sym = o.sym) p ON true""".formatted(PIN);
    private static final String INNER = """
            SELECT o.id, p.price FROM orders o
            JOIN LATERAL (SELECT price FROM prices AS OF SYSTEM TIME o.ts SINCE %d
                          WHERE prices.sym = o.sym AND prices.price > 2) p ON true""".formatted(PIN);

    @Property(seed = "831", tries = 40)
    void theHalfJoinAgreesWithTheDesugaringAtEveryStep(@ForAll("histories") List<Step> steps, @ForAll @IntRange(min = 1, max = 3) int workers) {
        try (Tributary db = Tributary.inMemory(Clock.manual(PIN), workers)) {
            Tributary.Connection reference = db.session();
            db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY PIN AT " + PIN + ")");
            db.execute("CREATE TABLE orders (id int PRIMARY KEY, sym text, ts bigint)");
            db.execute("CREATE MATERIALIZED VIEW left_op AS " + LEFT);
            db.execute("CREATE MATERIALIZED VIEW inner_op AS " + INNER);
            reference.execute("SET asof_join = desugared");
            reference.execute("CREATE MATERIALIZED VIEW left_ref AS " + LEFT);
            reference.execute("CREATE MATERIALIZED VIEW inner_ref AS " + INNER);
            assertThat(db.query("EXPLAIN SELECT * FROM (" + LEFT + ") x").text().toString()).contains("AsOfLookup");
            assertThat(reference.execute("EXPLAIN SELECT * FROM (" + LEFT + ") x").get(0).text().toString()).doesNotContain("AsOfLookup");
            long now = PIN;
            int nextId = 1;
            List<Integer> live = new ArrayList<>();
            List<String> log = new ArrayList<>();
            for (Step step : steps) {
                switch (step) {
                    case SetPrice s -> db.execute(s.add() ? "INSERT INTO prices VALUES ('" + s.sym() + "', " + s.price() + ")"
                            : "UPDATE prices SET price = " + s.price() + " WHERE sym = '" + s.sym() + "'");
                    case DropPrices d -> db.execute("DELETE FROM prices WHERE sym = '" + d.sym() + "'");
                    case Order o -> {
                        db.execute("INSERT INTO orders VALUES (" + nextId + ", '" + o.sym() + "', " + Math.max(0, now + o.offset()) + ")");
                        live.add(nextId++);
                    }
                    case DeleteOrder d -> {
                        if (!live.isEmpty()) db.execute("DELETE FROM orders WHERE id = " + live.remove(d.pick() % live.size()));
                    }
                    case Advance a -> {
                        now += a.millis();
                        db.execute("ADVANCE CLOCK TO " + now);
                    }
                }
                log.add(step.toString());
                assertThat(rows(db, "left_op")).as("LEFT after %s (%d workers)", log, workers).isEqualTo(rows(db, "left_ref"));
                assertThat(rows(db, "inner_op")).as("inner after %s (%d workers)", log, workers).isEqualTo(rows(db, "inner_ref"));
            }
        }
    }

    /** A view's rows as sorted text lines (duplicates kept). */
    private static List<String> rows(Tributary db, String view) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query("SELECT * FROM " + view).text()) out.add(String.valueOf(r));
        out.sort(null);
        return out;
    }
}
