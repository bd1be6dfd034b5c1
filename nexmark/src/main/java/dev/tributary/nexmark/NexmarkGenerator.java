package dev.tributary.nexmark;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.SplittableRandom;

/**
 * Nexmark's online auction, as the side-by-side harness in {@code ../shared/nexmark-flink}
 * models it, so that Tributary and Flink read the very same events: the same seed gives
 * byte-identical CSV files ({@code NexmarkGeneratorTest} pins their digests).
 *
 * <p>The model: event {@code n} is in block {@code n / 50} at offset {@code n % 50}; offset 0 is
 * a person, 1 to 3 are auctions, 4 to 49 are bids. Ids start at 1000; a bid's auction is the
 * newest with probability 1/2, else one of the last 100; its bidder, like an auction's seller,
 * is the newest person with probability 3/4, else one of the last 1000. Prices are
 * {@code round(10^(6U) * 100)}. Event {@code n} happens at {@code 2025-01-01T00:00Z + n / rate}
 * seconds (written to the millisecond). Each event draws from a random generator seeded by
 * {@code (seed, n)} alone, so any range of events can be made on its own, in any order, on any
 * thread, with the same result.
 *
 * <p>Lines, without a header, comma separated (no field holds a comma, so none is quoted):
 * <pre>
 * person : id,name,emailAddress,creditCard,city,state,dateTime,extra
 * auction: id,itemName,description,initialBid,reserve,dateTime,expires,seller,category,extra
 * bid    : auction,bidder,price,channel,url,dateTime,extra
 * </pre>
 * {@code extra} pads a line to about 200, 500 and 100 bytes. Not thread-safe (it caches the
 * formatted second of the last time written): one generator per thread.
 */
public final class NexmarkGenerator {
    /** What an event is, from its number alone. */
    public enum Kind { PERSON, AUCTION, BID }

    public static final long DEFAULT_SEED = 0x5EED_2025L;
    /** Events per second of event time. */
    public static final long DEFAULT_RATE = 10_000;
    /** 2025-01-01T00:00:00Z, the first event's time, in milliseconds. */
    public static final long BASE_TIME_MS = 1_735_689_600_000L;

    static final int BLOCK = 50;
    static final int AUCTIONS_PER_BLOCK = 3;
    static final long FIRST_ID = 1000;
    static final int FIRST_CATEGORY = 10;
    static final int CATEGORIES = 5;
    /** Bids go to one of the newest this many auctions. */
    static final int ACTIVE_AUCTIONS = 100;
    /** Bidders and sellers are among the newest this many people. */
    static final int ACTIVE_PEOPLE = 1000;
    private static final int PERSON_BYTES = 200, AUCTION_BYTES = 500, BID_BYTES = 100;
    private static final int CHANNEL_IDS = 10_000;

    private static final String[] FIRST_NAMES = {"Ada", "Bruno", "Chen", "Dara", "Elif", "Femi", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Luca", "Mira", "Nils"};
    private static final String[] LAST_NAMES = {"Alder", "Brook", "Castillo", "Dunn", "Eriksen", "Fontaine", "Garcia", "Hale", "Ito", "Jaworski", "Kowal", "Lind"};
    private static final String[] CITIES = {"Portland", "Boise", "Sacramento", "Phoenix", "Seattle", "Cheyenne", "Eugene", "Fresno", "Tacoma", "Tucson", "Spokane", "Reno"};
    private static final String[] STATES = {"OR", "ID", "CA", "WA", "AZ", "WY"};
    private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};

    private final long seed;
    private final long rate;
    private long formattedSecond = Long.MIN_VALUE;
    private String formatted;

    public NexmarkGenerator(long seed, long rate) {
        if (rate <= 0) throw new IllegalArgumentException("the event rate must be positive, got " + rate);
        this.seed = seed;
        this.rate = rate;
    }

    public NexmarkGenerator() {
        this(DEFAULT_SEED, DEFAULT_RATE);
    }

    public static Kind kind(long n) {
        int offset = (int) (n % BLOCK);
        return offset == 0 ? Kind.PERSON : offset <= AUCTIONS_PER_BLOCK ? Kind.AUCTION : Kind.BID;
    }

    /** How many of events {@code [0, n)} are of {@code kind}. */
    public static long count(Kind kind, long n) {
        long blocks = n / BLOCK;
        int rest = (int) (n % BLOCK);
        return switch (kind) {
            case PERSON -> blocks + (rest > 0 ? 1 : 0);
            case AUCTION -> blocks * AUCTIONS_PER_BLOCK + Math.max(0, Math.min(rest - 1, AUCTIONS_PER_BLOCK));
            case BID -> blocks * (BLOCK - 1 - AUCTIONS_PER_BLOCK) + Math.max(0, rest - 1 - AUCTIONS_PER_BLOCK);
        };
    }

    /** Event {@code n}'s time in milliseconds since the epoch. */
    public long timeMillis(long n) {
        return BASE_TIME_MS + n * 1_000_000L / rate / 1000L;
    }

    /** Appends event {@code n}'s line (with its newline) to the builder of its kind. */
    public void append(long n, StringBuilder persons, StringBuilder auctions, StringBuilder bids) {
        switch (kind(n)) {
            case PERSON -> person(n, persons);
            case AUCTION -> auction(n, auctions);
            case BID -> bid(n, bids);
        }
    }

    /** Events {@code [from, to)}, one CSV text per kind. */
    public Lines lines(long from, long to) {
        StringBuilder p = new StringBuilder(), a = new StringBuilder(), b = new StringBuilder();
        for (long n = from; n < to; n++) append(n, p, a, b);
        return new Lines(ascii(p), ascii(a), ascii(b), count(Kind.PERSON, to) - count(Kind.PERSON, from),
                count(Kind.AUCTION, to) - count(Kind.AUCTION, from), count(Kind.BID, to) - count(Kind.BID, from));
    }

    /** A range of events as the CSV text of each kind, and how many lines each holds. */
    public record Lines(byte[] persons, byte[] auctions, byte[] bids, long personCount, long auctionCount, long bidCount) {
        public byte[] of(Kind kind) {
            return switch (kind) {
                case PERSON -> persons;
                case AUCTION -> auctions;
                case BID -> bids;
            };
        }
    }

    /** Writes events {@code [0, events)} as {@code person.csv}, {@code auction.csv} and {@code bid.csv} in {@code dir}. */
    public void writeFiles(Path dir, long events) throws IOException {
        Files.createDirectories(dir);
        try (OutputStream p = Files.newOutputStream(dir.resolve("person.csv"));
                OutputStream a = Files.newOutputStream(dir.resolve("auction.csv"));
                OutputStream b = Files.newOutputStream(dir.resolve("bid.csv"))) {
            for (long from = 0; from < events; from += 100_000) {
                Lines l = lines(from, Math.min(events, from + 100_000));
                p.write(l.persons());
                a.write(l.auctions());
                b.write(l.bids());
            }
        }
    }

    private static byte[] ascii(StringBuilder sb) {
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private SplittableRandom random(long n) {
        long z = seed * 0x9E3779B97F4A7C15L + n;
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return new SplittableRandom(z ^ (z >>> 33));
    }

    /** The newest id (0-based) with probability {@code hot / of}, else one of the {@code window} newest. */
    private static long pick(SplittableRandom r, long newest, int window, int hot, int of) {
        if (r.nextInt(of) < hot) return newest;
        long oldest = Math.max(0, newest - window + 1);
        return oldest + r.nextLong(newest - oldest + 1);
    }

    private static long price(SplittableRandom r) {
        return Math.round(Math.pow(10.0, r.nextDouble() * 6.0) * 100.0);
    }

    private void person(long n, StringBuilder sb) {
        SplittableRandom r = random(n);
        int start = sb.length();
        sb.append(FIRST_ID + n / BLOCK).append(',');
        sb.append(FIRST_NAMES[r.nextInt(FIRST_NAMES.length)]).append(' ').append(LAST_NAMES[r.nextInt(LAST_NAMES.length)]).append(',');
        letters(r, sb, 4 + r.nextInt(6));
        sb.append('@');
        letters(r, sb, 4 + r.nextInt(5));
        sb.append(".com,");
        for (int group = 0; group < 4; group++) {
            if (group > 0) sb.append(' ');
            for (int d = 0; d < 4; d++) sb.append((char) ('0' + r.nextInt(10)));
        }
        sb.append(',').append(CITIES[r.nextInt(CITIES.length)]).append(',').append(STATES[r.nextInt(STATES.length)]).append(',');
        time(sb, timeMillis(n));
        sb.append(',');
        pad(r, sb, start, PERSON_BYTES);
    }

    private void auction(long n, StringBuilder sb) {
        SplittableRandom r = random(n);
        int start = sb.length();
        long time = timeMillis(n);
        long seller = FIRST_ID + pick(r, n / BLOCK, ACTIVE_PEOPLE, 3, 4);
        int category = FIRST_CATEGORY + r.nextInt(CATEGORIES);
        long initialBid = price(r);
        long reserve = initialBid + price(r);
        long expires = time + 2_000 + r.nextLong(118_001); // open for 2 s to 2 min
        sb.append(FIRST_ID + n / BLOCK * AUCTIONS_PER_BLOCK + n % BLOCK - 1).append(',');
        words(r, sb, 1 + r.nextInt(3));
        sb.append(',');
        words(r, sb, 4 + r.nextInt(8));
        sb.append(',').append(initialBid).append(',').append(reserve).append(',');
        time(sb, time);
        sb.append(',');
        time(sb, expires);
        sb.append(',').append(seller).append(',').append(category).append(',');
        pad(r, sb, start, AUCTION_BYTES);
    }

    private void bid(long n, StringBuilder sb) {
        SplittableRandom r = random(n);
        int start = sb.length();
        long newestAuction = n / BLOCK * AUCTIONS_PER_BLOCK + AUCTIONS_PER_BLOCK - 1;
        long auction = FIRST_ID + pick(r, newestAuction, ACTIVE_AUCTIONS, 1, 2);
        long bidder = FIRST_ID + pick(r, n / BLOCK, ACTIVE_PEOPLE, 3, 4);
        sb.append(auction).append(',').append(bidder).append(',').append(price(r)).append(',');
        int channel = -1;
        if (r.nextBoolean()) {
            sb.append(CHANNELS[r.nextInt(CHANNELS.length)]);
        } else {
            channel = r.nextInt(CHANNEL_IDS);
            sb.append("channel-").append(channel);
        }
        sb.append(",https://nx.example/");
        letters(r, sb, 5);
        sb.append("/item?a=").append(auction);
        if (channel >= 0) sb.append("&ch=").append(channel);
        sb.append(',');
        time(sb, timeMillis(n));
        sb.append(',');
        pad(r, sb, start, BID_BYTES);
    }

    private static void letters(SplittableRandom r, StringBuilder sb, int count) {
        for (int i = 0; i < count; i++) sb.append((char) ('a' + r.nextInt(26)));
    }

    private static void words(SplittableRandom r, StringBuilder sb, int count) {
        for (int w = 0; w < count; w++) {
            if (w > 0) sb.append(' ');
            letters(r, sb, 3 + r.nextInt(7));
        }
    }

    /** The {@code extra} column: letters up to a line of about {@code bytes}, and the newline. */
    private static void pad(SplittableRandom r, StringBuilder sb, int start, int bytes) {
        letters(r, sb, Math.max(1, bytes - (sb.length() - start) - 1));
        sb.append('\n');
    }

    /** {@code yyyy-MM-dd HH:mm:ss.SSS} in UTC; events come in time order, so the second is nearly always the last one's. */
    private void time(StringBuilder sb, long millis) {
        long second = Math.floorDiv(millis, 1000);
        if (second != formattedSecond) {
            LocalDateTime t = LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC);
            formatted = String.format("%04d-%02d-%02d %02d:%02d:%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond());
            formattedSecond = second;
        }
        int ms = (int) Math.floorMod(millis, 1000);
        sb.append(formatted).append('.');
        if (ms < 100) sb.append('0');
        if (ms < 10) sb.append('0');
        sb.append(ms);
    }
}
