package dev.tributary.sql.types;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link IsoTimes} reads dates, timestamps and timestamptzs as the general (regular expression)
 * reading does, whatever it reads, and counts days as {@link LocalDate} does on every day it reads.
 */
class IsoTimesTest {
    @Test
    void epochDayOfEveryDateOfYearsOneToNineThousandNineHundredNinetyNine() {
        for (LocalDate d = LocalDate.of(1, 1, 1); d.getYear() < 10_000; d = d.plusDays(1)) {
            if (IsoTimes.epochDay(d.getYear(), d.getMonthValue(), d.getDayOfMonth()) != d.toEpochDay()) {
                assertThat(IsoTimes.epochDay(d.getYear(), d.getMonthValue(), d.getDayOfMonth())).as(d.toString()).isEqualTo(d.toEpochDay());
            }
        }
    }

    @Test
    void datesAgreeWithTheGeneralReading() {
        SplittableRandom r = new SplittableRandom(31);
        int fast = 0;
        for (int i = 0; i < 20_000; i++) {
            int year = r.nextInt(4) == 0 ? r.nextInt(0, 10_000) : r.nextInt(1900, 2100);
            String s = String.format("%04d-%02d-%02d", year, r.nextInt(0, 14), r.nextInt(0, 33));
            if (r.nextInt(10) == 0) s = s.substring(0, r.nextInt(s.length())) + " -+x0".charAt(r.nextInt(5)) + s.substring(r.nextInt(s.length()));
            byte[] b = ("|" + s + "|").getBytes(StandardCharsets.ISO_8859_1);
            long day = IsoTimes.date(b, 1, b.length - 1);
            String general = general(s);
            if (day != IsoTimes.NONE) {
                fast++;
                assertThat(LocalDate.ofEpochDay(day).toString()).as(s).isEqualTo(general);
            }
        }
        assertThat(fast).as("dates read by the fast path").isGreaterThan(10_000);
        for (String refused : new String[] {"0000-01-01", "2015-02-29", "2016-02-30", "1900-02-29", "2015-13-01", "2015-00-10", "2015-01-00",
                "2015-1-01", " 2015-01-01", "2015-01-01 ", "+2015-01-01", "2015/01/01", "20150101", "2015-01-0a"}) {
            byte[] b = refused.getBytes(StandardCharsets.ISO_8859_1);
            assertThat(IsoTimes.date(b, 0, b.length)).as(refused).isEqualTo(IsoTimes.NONE);
        }
        byte[] leap = "2000-02-29".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(IsoTimes.date(leap, 0, leap.length)).isEqualTo(LocalDate.of(2000, 2, 29).toEpochDay());
    }

    @Test
    void timestampsAgreeWithTheGeneralReading() {
        SplittableRandom r = new SplittableRandom(37);
        String[] fractions = {"", ".5", ".123", ".123456", ".000001", ".0000001", ".1234567", "."};
        String[] offsets = {"", "", "", "Z", "+00", "-08", "+05:30", "-15:59", "+16", "+5", "+05:3", "+0530", " UTC", " "};
        int[] fast = new int[2];
        for (int i = 0; i < 40_000; i++) {
            int year = r.nextInt(8) == 0 ? r.nextInt(0, 10_000) : r.nextInt(1900, 2100);
            int day = r.nextInt(6) == 0 ? r.nextInt(28, 33) : r.nextInt(1, 29);
            String s = String.format("%04d-%02d-%02d%s%02d:%02d:%02d%s%s", year, r.nextInt(20) == 0 ? 13 : r.nextInt(1, 13), day, r.nextBoolean() ? " " : "T",
                    r.nextInt(20) == 0 ? 24 : r.nextInt(24), r.nextInt(60), r.nextInt(r.nextInt(20) == 0 ? 62 : 60), fractions[r.nextInt(fractions.length)],
                    offsets[r.nextInt(offsets.length)]);
            byte[] b = ("|" + s + "|").getBytes(StandardCharsets.ISO_8859_1);
            long micros = IsoTimes.timestamp(b, 1, b.length - 1);
            if (micros != IsoTimes.NONE) {
                fast[0]++;
                LocalDateTime read = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
                assertThat(read.toString()).as(s).isEqualTo(general(() -> DateTimeText.parseTimestampGenerally(s)));
            }
            micros = IsoTimes.timestamptz(b, 1, b.length - 1);
            if (micros != IsoTimes.NONE) {
                fast[1]++;
                Instant read = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
                assertThat(read.toString()).as(s).isEqualTo(general(() -> DateTimeText.parseTimestamptzGenerally(s)));
            }
        }
        assertThat(fast[0]).as("timestamps read by the fast path").isGreaterThan(3_000);
        assertThat(fast[1]).as("timestamptzs read by the fast path").isGreaterThan(8_000);
    }

    private static String general(java.util.function.Supplier<Object> read) {
        try {
            return read.get().toString();
        } catch (SqlException e) {
            return e.sqlState();
        }
    }

    private static String general(String s) {
        try {
            return DateTimeText.parseDate(s).toString();
        } catch (SqlException e) {
            return e.sqlState();
        }
    }
}
