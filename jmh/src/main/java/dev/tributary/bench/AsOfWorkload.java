package dev.tributary.bench;

import dev.tributary.server.ArrangementSize;
import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Issue 8's point-in-time lookup workload, loaded into a database on a manual clock: a price
 * history and orders that look prices up at their own times, and the same lookup written three
 * ways.
 *
 * <p>{@code symbols} symbols get a first price at the pin {@value #PIN} (one INSERT), then
 * {@code changes - symbols} more, {@value #PER_BATCH} distinct symbols per batch, one UPDATE per
 * batch at clock {@code PIN + k * STEP}. Every version is also a row of {@code price_history(sym,
 * price, valid_from)} with {@code valid_from} the clock when it was written, so price_history holds
 * {@code changes} rows, as many as the versions in {@code prices}' retained history. Each of the
 * {@code orders} orders looks up a time {@code PIN + k * STEP + 100 + r} (r under 800), for k from
 * {@code -BEFORE} (before the pin: no price) to the last batch, far from any write so the exact
 * commit instant does not matter. The expected answer is computed here, independently of the
 * engine, and every way must give it.
 */
final class AsOfWorkload {
    static final long PIN = 1_000_000;
    static final long STEP = 1_000;
    static final int PER_BATCH = 100;
    static final int BEFORE = 20;

    /**
     * The ways, by name: the half-join (arranging its own copy of the history by symbol), the same
     * reading an index on prices(sym) that retains the history (the copy shared), the CHANGES
     * desugaring, and SCD-2.
     */
    static final List<String> WAYS = List.of("half_join", "desugared", "scd2", "half_join_index");

    final int orders;
    final int changes;
    final int symbols;
    final long now;
    /** id -> price (null: none), the answer every way must give. */
    final TreeMap<Integer, Integer> expected = new TreeMap<>();

    AsOfWorkload(int orders, int changes, int symbols) {
        if ((changes - symbols) % PER_BATCH != 0 || symbols < PER_BATCH) {
            throw new IllegalArgumentException("changes - symbols must be whole batches of " + PER_BATCH + " and symbols at least that");
        }
        this.orders = orders;
        this.changes = changes;
        this.symbols = symbols;
        this.now = PIN + (long) ((changes - symbols) / PER_BATCH + 10) * STEP;
    }

    /** The query of {@code way}, in the session that runs it. */
    static String query(String way) {
        return switch (way) {
            case "half_join", "half_join_index", "desugared" -> "SELECT o.id, p.price FROM orders o LEFT JOIN LATERAL (SELECT price FROM prices AS OF SYSTEM TIME o.ts SINCE "
                    + PIN + " WHERE prices.sym = o.sym) p ON true";
            case "scd2" -> "SELECT o.id, (SELECT h.price FROM price_history h WHERE h.sym = o.sym AND h.valid_from <= o.ts "
                    + "ORDER BY h.valid_from DESC LIMIT 1) AS price FROM orders o";
            default -> throw new IllegalArgumentException("no way " + way);
        };
    }

    /** The tables {@code way} reads. */
    static List<String> sources(String way) {
        return switch (way) {
            case "scd2" -> List.of("orders", "price_history");
            case "half_join_index" -> List.of("orders", "prices", "prices_sym");
            default -> List.of("orders", "prices");
        };
    }

    /** A session set up to plan {@code way}. */
    static Tributary.Connection session(Tributary db, String way) {
        Tributary.Connection c = db.session();
        c.execute("SET asof_join = " + (way.equals("desugared") ? "desugared" : "half_join"));
        if (way.equals("half_join_index")) c.execute("CREATE INDEX IF NOT EXISTS prices_sym ON prices (sym) WITH (RETAIN HISTORY PIN AT " + PIN + ")");
        return c;
    }

    /** A new database on a manual clock with the workload loaded, the clock at {@link #now}. */
    Tributary load(int workers) {
        Tributary db = Tributary.inMemory(Clock.manual(PIN), workers);
        db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY PIN AT " + PIN + ")");
        db.execute("CREATE TABLE price_history (sym text, price int, valid_from bigint)");
        db.execute("CREATE TABLE orders (id int, sym text, ts bigint)");
        SplittableRandom random = new SplittableRandom(8);
        // per symbol: valid_from -> price, for the expected answers
        List<TreeMap<Long, Integer>> versions = new ArrayList<>();
        List<String> history = new ArrayList<>();
        StringBuilder first = new StringBuilder("INSERT INTO prices VALUES ");
        for (int s = 0; s < symbols; s++) {
            int price = random.nextInt(1, 1_000_000);
            versions.add(new TreeMap<>());
            versions.get(s).put(PIN, price);
            first.append(s == 0 ? "" : ", ").append("('s").append(s).append("', ").append(price).append(')');
            history.add("('s" + s + "', " + price + ", " + PIN + ")");
        }
        db.execute(first.toString());
        int[] order = new int[symbols];
        for (int s = 0; s < symbols; s++) order[s] = s;
        int batches = (changes - symbols) / PER_BATCH;
        for (int k = 1; k <= batches; k++) {
            long at = PIN + k * STEP;
            db.execute("ADVANCE CLOCK TO " + at);
            // PER_BATCH distinct symbols: the head of a fresh shuffle
            for (int i = 0; i < PER_BATCH; i++) {
                int j = random.nextInt(i, symbols);
                int tmp = order[i];
                order[i] = order[j];
                order[j] = tmp;
            }
            StringBuilder set = new StringBuilder("UPDATE prices SET price = CASE sym");
            StringBuilder in = new StringBuilder(" END WHERE sym IN (");
            for (int i = 0; i < PER_BATCH; i++) {
                int s = order[i];
                int price = random.nextInt(1, 1_000_000);
                versions.get(s).put(at, price);
                set.append(" WHEN 's").append(s).append("' THEN ").append(price);
                in.append(i == 0 ? "" : ", ").append("'s").append(s).append('\'');
                history.add("('s" + s + "', " + price + ", " + at + ")");
            }
            db.execute(set.append(in).append(')').toString());
        }
        insertAll(db, "price_history", history);
        List<String> rows = new ArrayList<>();
        for (int id = 0; id < orders; id++) {
            int s = random.nextInt(symbols);
            long ts = PIN + random.nextLong(-BEFORE, batches + 1) * STEP + 100 + random.nextLong(800);
            rows.add("(" + id + ", 's" + s + "', " + ts + ")");
            var v = versions.get(s).floorEntry(ts);
            expected.put(id, v == null ? null : v.getValue());
        }
        insertAll(db, "orders", rows);
        db.execute("ADVANCE CLOCK TO " + now);
        return db;
    }

    private static void insertAll(Tributary db, String table, List<String> rows) {
        for (int i = 0; i < rows.size(); i += 1000) {
            db.execute("INSERT INTO " + table + " VALUES " + String.join(", ", rows.subList(i, Math.min(rows.size(), i + 1000))));
        }
    }

    /** Fails loudly unless {@code rows} (id, price as text) are exactly the expected answer. */
    void check(String way, List<List<String>> rows) {
        TreeMap<Integer, Integer> got = new TreeMap<>();
        for (List<String> r : rows) {
            Integer id = Integer.valueOf(r.get(0));
            Integer price = r.get(1) == null ? null : Integer.valueOf(r.get(1));
            if (got.containsKey(id)) throw new IllegalStateException(way + ": order " + id + " appears twice");
            got.put(id, price);
        }
        if (!got.equals(expected)) {
            int shown = 0;
            StringBuilder diff = new StringBuilder();
            for (int id = 0; id < orders && shown < 5; id++) {
                if (!java.util.Objects.equals(got.get(id), expected.get(id)) || got.containsKey(id) != expected.containsKey(id)) {
                    diff.append(" order ").append(id).append(": got ").append(got.get(id)).append(", expected ").append(expected.get(id)).append(';');
                    shown++;
                }
            }
            throw new IllegalStateException(way + " gave " + got.size() + " rows, not the expected " + expected.size() + ":" + diff);
        }
    }

    /** One line of what {@code way}'s view {@code view} and its sources hold. */
    static String sizes(Tributary db, String way, String view) {
        ArrangementSize v = db.arrangementSize(view);
        long records = 0;
        long bytes = 0;
        List<String> parts = new ArrayList<>();
        for (String s : sources(way)) {
            ArrangementSize a = db.arrangementSize(s);
            records += a.records();
            bytes += a.bytes();
            parts.add(s + " " + a.records() + " records " + a.bytes() + " bytes");
        }
        List<String> own = new ArrayList<>();
        for (ArrangementSize.Part p : v.parts()) own.add(p.name() + " " + p.records());
        return String.format("[asof] %s: view %d records %d bytes (%s); sources %d records %d bytes (%s)", way, v.records(), v.bytes(),
                String.join(", ", own), records, bytes, String.join(", ", parts));
    }

    /** Loads a small or given workload and checks every way, printing what each holds. */
    public static void main(String[] args) {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int changes = args.length > 1 ? Integer.parseInt(args[1]) : 21_000;
        int symbols = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        AsOfWorkload w = new AsOfWorkload(orders, changes, symbols);
        long t0 = System.nanoTime();
        try (Tributary db = w.load(1)) {
            System.out.printf("loaded in %.1f s%n", (System.nanoTime() - t0) / 1e9);
            for (String way : WAYS) {
                Tributary.Connection c = session(db, way);
                long start = System.nanoTime();
                c.execute("CREATE MATERIALIZED VIEW v AS " + query(way));
                List<List<String>> rows = c.execute("SELECT * FROM v").get(0).text();
                long ms = (System.nanoTime() - start) / 1_000_000;
                w.check(way, rows);
                System.out.println(sizes(db, way, "v") + " in " + ms + " ms");
                c.execute("DROP MATERIALIZED VIEW v");
                start = System.nanoTime();
                rows = c.execute(query(way)).get(0).text();
                w.check(way, rows);
                System.out.println("[asof] " + way + " select " + (System.nanoTime() - start) / 1_000_000 + " ms");
            }
        }
        System.out.println(Arrays.toString(args) + " all ways agree");
    }
}
