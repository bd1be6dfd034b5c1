package dev.tributary.nexmark;

import dev.tributary.nexmark.NexmarkGenerator.Kind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Nexmark's queries q0 to q22 in Tributary's SQL, over the tables {@link #TABLES} creates and
 * {@link NexmarkGenerator} fills, written here from the queries' definitions. Where the Flink
 * harness ({@code ../shared/nexmark-flink}) runs a query, ours computes the same result (with
 * extra tie-breakers where a ranking would otherwise pick one of equal rows at random). Each
 * result is the full, maintained result over every event so far: a window's row changes while
 * events of the window arrive (emitting it once, when the watermark closes it, is the streaming
 * issue's {@code EMIT ON WINDOW CLOSE}).
 *
 * <p>Each query carries DuckDB's spelling of the same query for the oracle test (DuckDB has no
 * window table functions, so a window is computed from the event time there), and the tables it
 * reads. Queries this engine cannot express yet are listed in {@link #PENDING} with the reason.
 */
public final class NexmarkQueries {
    private NexmarkQueries() {}

    /** One query: its name ({@code q0}...), Tributary's SQL, DuckDB's SQL, and the tables it reads. */
    public record Query(String name, String sql, String duckSql, Set<Kind> reads) {}

    /** How late an event may come: the Flink harness's watermark delay. */
    public static final java.time.Duration WATERMARK_DELAY = java.time.Duration.ofSeconds(4);

    private static final String WATERMARK = ", WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND";

    /**
     * The three tables, as the harness's CSV files lay them out; events are facts, so append-only;
     * the watermark is the harness's (event time less 4 s), which only the streaming forms read.
     */
    public static final List<String> TABLES = List.of(
            "CREATE TABLE person (id bigint, name text, emailAddress text, creditCard text, city text, state text, dateTime timestamp(3), extra text"
                    + WATERMARK + ") WITH (APPEND ONLY)",
            "CREATE TABLE auction (id bigint, itemName text, description text, initialBid bigint, reserve bigint, dateTime timestamp(3), expires timestamp(3),"
                    + " seller bigint, category bigint, extra text" + WATERMARK + ") WITH (APPEND ONLY)",
            "CREATE TABLE bid (auction bigint, bidder bigint, price bigint, channel text, url text, dateTime timestamp(3), extra text"
                    + WATERMARK + ") WITH (APPEND ONLY)");

    /** {@code ddl} of {@link #TABLES} as DuckDB takes it: no watermark, no append-only option, plain timestamps. */
    public static String forDuckDb(String ddl) {
        return ddl.replace(WATERMARK, "").replace(" WITH (APPEND ONLY)", "").replace("timestamp(3)", "timestamp");
    }

    /** q13's side input: a value for each of 10,000 keys, which bids look up by {@code auction % 10000}. */
    public static final List<String> SIDE_INPUT = List.of(
            "CREATE TABLE side_input (key bigint, value text)",
            "INSERT INTO side_input SELECT k, 'value-' || k FROM generate_series(0, 9999) AS g(k)");

    /** Queries not expressed yet, and why. */
    public static final Map<String, String> PENDING = Map.of();

    private static final Set<Kind> BIDS = Set.of(Kind.BID);
    private static final Set<Kind> AUCTIONS_AND_BIDS = Set.of(Kind.AUCTION, Kind.BID);

    /** Rank bands of q15-q17. */
    private static final String RANK1 = "price < 10000", RANK2 = "price >= 10000 AND price < 1000000", RANK3 = "price >= 1000000";

    private static String counts(String distinct) {
        String c = distinct == null ? "count(*)" : "count(DISTINCT " + distinct + ")";
        String of = distinct == null ? "bids" : distinct + "s";
        return c + " AS total_" + of + ", "
                + c + " FILTER (WHERE " + RANK1 + ") AS rank1_" + of + ", "
                + c + " FILTER (WHERE " + RANK2 + ") AS rank2_" + of + ", "
                + c + " FILTER (WHERE " + RANK3 + ") AS rank3_" + of;
    }

    private static final Map<String, Query> ALL = new LinkedHashMap<>();

    private static void add(String name, Set<Kind> reads, String sql, String duckSql) {
        ALL.put(name, new Query(name, sql, duckSql == null ? sql : duckSql, reads));
    }

    static {
        // q0: pass-through
        add("q0", BIDS, "SELECT auction, bidder, price, channel, url, dateTime, extra FROM bid", null);
        // q1: dollars to euros
        add("q1", BIDS, "SELECT auction, bidder, price * 0.908 AS price, channel, url, dateTime, extra FROM bid", null);
        // q2: a selection on the auction
        add("q2", BIDS, "SELECT auction, price FROM bid WHERE mod(auction, 123) = 0", null);
        // q3: local item suggestion: sellers in three states of category 10's auctions
        add("q3", Set.of(Kind.PERSON, Kind.AUCTION), "SELECT p.name, p.city, p.state, a.id FROM auction AS a JOIN person AS p ON a.seller = p.id"
                + " WHERE a.category = 10 AND p.state IN ('OR', 'ID', 'CA')", null);
        // q4: the average winning price per category (a winning bid: the highest within the auction's life)
        add("q4", AUCTIONS_AND_BIDS, "SELECT w.category, avg(w.winning) AS avg_price FROM ("
                + "SELECT a.id, a.category, max(b.price) AS winning FROM auction AS a JOIN bid AS b ON b.auction = a.id"
                + " WHERE b.dateTime >= a.dateTime AND b.dateTime <= a.expires GROUP BY a.id, a.category) AS w GROUP BY w.category", null);
        // q5: hot items: per 10 s window sliding by 2 s, the auctions with the most bids
        add("q5", BIDS, "WITH counts AS (SELECT auction, count(*) AS num, window_start, window_end"
                + " FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end),"
                + " maxes AS (SELECT max(num) AS maxnum, window_start, window_end FROM counts GROUP BY window_start, window_end)"
                + " SELECT c.auction, c.num, c.window_start, c.window_end FROM counts AS c JOIN maxes AS m"
                + " ON c.window_start = m.window_start AND c.window_end = m.window_end WHERE c.num >= m.maxnum",
                "WITH hopped AS (SELECT auction, w AS window_start, w + INTERVAL 10 SECOND AS window_end FROM bid,"
                        + " unnest(range(time_bucket(INTERVAL 2 SECOND, dateTime) - INTERVAL 8 SECOND, time_bucket(INTERVAL 2 SECOND, dateTime) + INTERVAL 2 SECOND, INTERVAL 2 SECOND)) AS t(w)),"
                        + " counts AS (SELECT auction, count(*) AS num, window_start, window_end FROM hopped GROUP BY ALL),"
                        + " maxes AS (SELECT max(num) AS maxnum, window_start, window_end FROM counts GROUP BY window_start, window_end)"
                        + " SELECT c.auction, c.num, c.window_start, c.window_end FROM counts AS c JOIN maxes AS m"
                        + " ON c.window_start = m.window_start AND c.window_end = m.window_end WHERE c.num >= m.maxnum");
        // q6: per seller, the average winning price of their ten latest closed auctions (Flink cannot express it)
        add("q6", AUCTIONS_AND_BIDS, "SELECT seller, avg(price) AS avg_price FROM ("
                + "SELECT seller, price, row_number() OVER (PARTITION BY seller ORDER BY expires DESC, id DESC) AS rn FROM ("
                + "SELECT a.id, a.seller, a.expires, max(b.price) AS price FROM auction AS a JOIN bid AS b ON b.auction = a.id"
                + " WHERE b.dateTime >= a.dateTime AND b.dateTime <= a.expires GROUP BY a.id, a.seller, a.expires) AS w) AS r"
                + " WHERE rn <= 10 GROUP BY seller", null);
        // q7: the highest bid of each 10 s tumbling window
        add("q7", BIDS, "WITH w AS (SELECT * FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))),"
                + " maxes AS (SELECT max(price) AS maxprice, window_start, window_end FROM w GROUP BY window_start, window_end)"
                + " SELECT b.auction, b.price, b.bidder, b.dateTime, b.extra, b.window_start, b.window_end FROM w AS b JOIN maxes AS m"
                + " ON b.window_start = m.window_start AND b.window_end = m.window_end WHERE b.price = m.maxprice",
                "WITH w AS (SELECT *, time_bucket(INTERVAL 10 SECOND, dateTime) AS window_start, time_bucket(INTERVAL 10 SECOND, dateTime) + INTERVAL 10 SECOND AS window_end FROM bid),"
                        + " maxes AS (SELECT max(price) AS maxprice, window_start, window_end FROM w GROUP BY window_start, window_end)"
                        + " SELECT b.auction, b.price, b.bidder, b.dateTime, b.extra, b.window_start, b.window_end FROM w AS b JOIN maxes AS m"
                        + " ON b.window_start = m.window_start AND b.window_end = m.window_end WHERE b.price = m.maxprice");
        // q8: people who opened an auction in the 10 s window they registered in: Nexmark's own
        // formulation, a join of the two windowed groupings (the harness's IN subquery, Q8_IN_FORM,
        // gives the same rows, a person being one event)
        add("q8", Set.of(Kind.PERSON, Kind.AUCTION), "SELECT p.id, p.name, p.window_start FROM"
                + " (SELECT id, name, window_start, window_end FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))"
                + " GROUP BY id, name, window_start, window_end) AS p JOIN"
                + " (SELECT seller, window_start, window_end FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))"
                + " GROUP BY seller, window_start, window_end) AS a"
                + " ON p.id = a.seller AND p.window_start = a.window_start AND p.window_end = a.window_end",
                "SELECT p.id, p.name, time_bucket(INTERVAL 10 SECOND, p.dateTime) AS window_start FROM person AS p"
                        + " WHERE p.id IN (SELECT a.seller FROM auction AS a WHERE time_bucket(INTERVAL 10 SECOND, a.dateTime) = time_bucket(INTERVAL 10 SECOND, p.dateTime))");
        // q9: each auction's winning bid (the highest within its life, the earliest of equal ones)
        add("q9", AUCTIONS_AND_BIDS, "SELECT id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra,"
                + " bid_auction, bid_bidder, bid_price, bid_dateTime, bid_extra FROM ("
                + "SELECT a.*, b.auction AS bid_auction, b.bidder AS bid_bidder, b.price AS bid_price, b.dateTime AS bid_dateTime, b.extra AS bid_extra,"
                + " row_number() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.dateTime, b.bidder, b.extra) AS rn"
                + " FROM auction AS a JOIN bid AS b ON b.auction = a.id WHERE b.dateTime >= a.dateTime AND b.dateTime <= a.expires) AS w WHERE rn = 1", null);
        // q10: bids with the day and minute they would be filed under
        add("q10", BIDS, "SELECT auction, bidder, price, dateTime, extra, CAST(dateTime AS date) AS dt, date_trunc('minute', dateTime) AS hm FROM bid", null);
        // q11: bids per bidder's session (bids less than 10 s apart); DuckDB numbers the sessions with window functions
        add("q11", BIDS, "SELECT bidder, count(*) AS bid_count, window_start, window_end"
                + " FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) GROUP BY bidder, window_start, window_end",
                "WITH o AS (SELECT bidder, dateTime, CASE WHEN lag(dateTime) OVER (PARTITION BY bidder ORDER BY dateTime) > dateTime - INTERVAL '10' SECOND"
                + " THEN 0 ELSE 1 END AS new FROM bid),"
                + " s AS (SELECT bidder, dateTime, sum(new) OVER (PARTITION BY bidder ORDER BY dateTime ROWS UNBOUNDED PRECEDING) AS sid FROM o)"
                + " SELECT bidder, count(*) AS bid_count, min(dateTime) AS starttime, max(dateTime) + INTERVAL '10' SECOND AS endtime FROM s GROUP BY bidder, sid");
        // q13: bids joined with a bounded side input
        add("q13", BIDS, "SELECT b.auction, b.bidder, b.price, b.dateTime, b.extra, s.value FROM bid AS b JOIN side_input AS s ON mod(b.auction, 10000) = s.key", null);
        // q14: a calculation: euros, a time-of-day band, and a count of one letter
        add("q14", BIDS, "SELECT auction, bidder, price * 0.908 AS price, CASE WHEN extract(hour FROM dateTime) BETWEEN 8 AND 18 THEN 'dayTime'"
                + " WHEN extract(hour FROM dateTime) <= 6 OR extract(hour FROM dateTime) >= 20 THEN 'nightTime' ELSE 'otherTime' END AS bidTimeType,"
                + " dateTime, extra, length(extra) - length(replace(extra, 'c', '')) AS c_counts FROM bid"
                + " WHERE price * 0.908 > 1000000 AND price * 0.908 < 50000000", null);
        // q15: per day, bids, bidders and auctions in three price bands
        add("q15", BIDS, "SELECT CAST(dateTime AS date) AS day, " + counts(null) + ", " + counts("bidder") + ", " + counts("auction")
                + " FROM bid GROUP BY CAST(dateTime AS date)", null);
        // q16: the same per channel and day, with the latest minute
        add("q16", BIDS, "SELECT channel, CAST(dateTime AS date) AS day, max(date_trunc('minute', dateTime)) AS minute, " + counts(null) + ", "
                + counts("bidder") + ", " + counts("auction") + " FROM bid GROUP BY channel, CAST(dateTime AS date)", null);
        // q17: per auction and day, bids in three bands and price statistics
        add("q17", BIDS, "SELECT auction, CAST(dateTime AS date) AS day, " + counts(null)
                + ", min(price) AS min_price, max(price) AS max_price, avg(price) AS avg_price, sum(price) AS sum_price"
                + " FROM bid GROUP BY auction, CAST(dateTime AS date)", null);
        // q18: each bidder's last bid on each auction
        add("q18", BIDS, "SELECT auction, bidder, price, channel, url, dateTime, extra FROM ("
                + "SELECT *, row_number() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC, price DESC, extra) AS rn FROM bid) AS b WHERE rn = 1", null);
        // q19: each auction's ten highest bids
        add("q19", BIDS, "SELECT auction, bidder, price, channel, url, dateTime, extra, rn FROM ("
                + "SELECT *, row_number() OVER (PARTITION BY auction ORDER BY price DESC, dateTime, bidder, extra) AS rn FROM bid) AS b WHERE rn <= 10", null);
        // q20: bids on category 10's auctions, with the auction
        add("q20", AUCTIONS_AND_BIDS, "SELECT b.auction, b.bidder, b.price, b.channel, b.url, b.dateTime AS bid_dateTime, b.extra AS bid_extra,"
                + " a.itemName, a.description, a.initialBid, a.reserve, a.dateTime AS auction_dateTime, a.expires, a.seller, a.category, a.extra AS auction_extra"
                + " FROM bid AS b JOIN auction AS a ON b.auction = a.id WHERE a.category = 10", null);
        // q21: a channel id, from the channel's name or the URL
        add("q21", BIDS, "SELECT auction, bidder, price, channel, CASE lower(channel) WHEN 'apple' THEN '0' WHEN 'google' THEN '1'"
                + " WHEN 'facebook' THEN '2' WHEN 'baidu' THEN '3' ELSE substring(url FROM '[&?]ch=([^&]*)') END AS channel_id FROM bid"
                + " WHERE substring(url FROM '[&?]ch=([^&]*)') IS NOT NULL OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')",
                "SELECT auction, bidder, price, channel, CASE lower(channel) WHEN 'apple' THEN '0' WHEN 'google' THEN '1'"
                        + " WHEN 'facebook' THEN '2' WHEN 'baidu' THEN '3' ELSE nullif(regexp_extract(url, '[&?]ch=([^&]*)', 1), '') END AS channel_id FROM bid"
                        + " WHERE nullif(regexp_extract(url, '[&?]ch=([^&]*)', 1), '') IS NOT NULL OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')");
        // q22: the URL's directories
        add("q22", BIDS, "SELECT auction, bidder, price, channel, split_part(url, '/', 4) AS dir1, split_part(url, '/', 5) AS dir2,"
                + " split_part(url, '/', 6) AS dir3 FROM bid", null);
    }

    /**
     * q8 as the Flink harness spells it, a correlated {@code IN}: the same rows as q8. It ran at
     * 16k events/s while the IN's equality was compared after joining each window's persons with
     * all its auctions; the binder now makes such an IN a semi-join on it (850k).
     */
    public static final Query Q8_IN_FORM = new Query("q8in", "SELECT p.id, p.name, p.window_start FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) AS p"
            + " WHERE p.id IN (SELECT a.seller FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) AS a"
            + " WHERE a.window_start = p.window_start AND a.window_end = p.window_end)", ALL.get("q8").duckSql(), Set.of(Kind.PERSON, Kind.AUCTION));

    /**
     * The windowed queries as continuous queries over the tables' streams in event time, each
     * window's rows delivered once when the watermark passes its end ({@code EMIT ON WINDOW
     * CLOSE}), as Flink runs them; named {@code q5s}, ... Their rows once every window has closed
     * are the batch result, so the same DuckDB query checks them.
     */
    public static final Map<String, Query> STREAMING = streaming("q5", "q7", "q11");

    private static Map<String, Query> streaming(String... names) {
        Map<String, Query> out = new LinkedHashMap<>();
        for (String n : names) {
            Query q = ALL.get(n);
            String sql = q.sql().replaceAll("TABLE (bid|person|auction)([ ,])", "TABLE $1 STREAM$2") + " EMIT ON WINDOW CLOSE";
            out.put(n + "s", new Query(n + "s", sql, q.duckSql(), q.reads()));
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    /**
     * q12: bids per bidder per ten seconds of processing time, windows over {@code PROCTIME()}
     * (each bid's commit time) of the bid table's stream. Its result depends on when the events
     * commit, so no batch evaluation checks it; its counts add up to the bids.
     */
    public static final Query Q12 = new Query("q12", "SELECT bidder, count(*) AS bid_count, window_start, window_end"
            + " FROM TUMBLE((SELECT *, PROCTIME() AS p_time FROM bid STREAM), p_time, INTERVAL '10' SECOND) GROUP BY bidder, window_start, window_end",
            "SELECT count(*) FROM bid", BIDS);

    /** Every query expressed, in order. */
    public static List<Query> all() {
        return List.copyOf(ALL.values());
    }

    /** Query {@code name} ({@code q0}...); an error naming the known ones if there is none. */
    public static Query get(String name) {
        if (name.equals(Q8_IN_FORM.name())) return Q8_IN_FORM;
        if (name.equals(Q12.name())) return Q12;
        Query q = ALL.containsKey(name) ? ALL.get(name) : STREAMING.get(name);
        if (q != null) return q;
        String why = PENDING.get(name);
        throw new IllegalArgumentException(why != null ? name + " is not expressed yet: " + why : "no query " + name + "; known: " + ALL.keySet());
    }
}
