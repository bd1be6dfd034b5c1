package dev.tributary.sql.types;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The fast reading of PostgreSQL's own timestamptz form gives what the general reading gives, for
 * every string it accepts; anything else (a bad field, another form) it leaves to the general one.
 */
class IsoTimestampTest {
    private static Instant general(String s) {
        try {
            return DateTimeText.parseTimestamptzGenerally(s);
        } catch (SqlException e) {
            return null;
        }
    }

    /** A timestamp in PostgreSQL's form with one of {@code fractions} and {@code offsets}, now and then with a field out of range. */
    private static String randomTimestamp(SplittableRandom r, String[] fractions, String[] offsets) {
        int year = r.nextInt(10) == 0 ? r.nextInt(1, 10_000) : r.nextInt(1900, 2100);
        int month = r.nextInt(20) == 0 ? 13 : r.nextInt(1, 13);
        int day = r.nextInt(1, r.nextInt(15) == 0 ? 33 : 29);
        int hour = r.nextInt(20) == 0 ? 24 : r.nextInt(24);
        return String.format("%04d-%02d-%02d%s%02d:%02d:%02d%s%s", year, month, day, r.nextBoolean() ? " " : "T", hour,
                r.nextInt(60), r.nextInt(r.nextInt(20) == 0 ? 70 : 60), fractions[r.nextInt(fractions.length)], offsets[r.nextInt(offsets.length)]);
    }

    @Test
    void agreesWithTheGeneralReadingOnRandomTimestamps() {
        SplittableRandom r = new SplittableRandom(17);
        String[] fractions = {"", ".5", ".123", ".123456", ".0000001", ".1234567"};
        String[] offsets = {"", "+00", "-08", "+05:30", "Z", "+14:00", "-00:30", "+16", "+5"};
        int fast = 0;
        for (int i = 0; i < 20_000; i++) {
            String s = randomTimestamp(r, fractions, offsets);
            Instant quick = DateTimeText.isoTimestamptz(s);
            if (quick != null) {
                fast++;
                assertThat(quick).as(s).isEqualTo(general(s));
            }
        }
        assertThat(fast).as("strings read by the fast path").isGreaterThan(8_000);
        for (String other : new String[] {"2026-01-01", "2026-01-01 00:00", "2026-02-30 00:00:00", "20260101 000000", " 2026-01-01 00:00:00",
                "2026-01-01 00:00:00 UTC", "2026-01-01 00:00:00+", "2026-01-01 00:00:00+1:00", "yesterday"}) {
            assertThat(DateTimeText.isoTimestamptz(other)).as(other).isNull();
        }
    }

    /** A timestamp without time zone: the fast reading (which takes only a form without a zone) agrees with the general one, errors included. */
    @Test
    void timestampsAgreeWithTheGeneralReading() {
        SplittableRandom r = new SplittableRandom(23);
        String[] fractions = {"", ".5", ".123", ".123456", ".0000001", ".1234567", "."};
        String[] offsets = {"", "", "", "+00", "-08", "Z", " UTC"};
        for (int i = 0; i < 20_000; i++) {
            String s = randomTimestamp(r, fractions, offsets);
            assertThat(readTimestamp(s, true)).as(s).isEqualTo(readTimestamp(s, false));
        }
    }

    private static String readTimestamp(String s, boolean fast) {
        try {
            return String.valueOf(fast ? DateTimeText.parseTimestamp(s) : DateTimeText.parseTimestampGenerally(s));
        } catch (SqlException e) {
            return e.sqlState() + " " + e.getMessage();
        }
    }
}
