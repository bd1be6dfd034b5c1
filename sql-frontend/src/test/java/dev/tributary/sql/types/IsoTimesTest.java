package dev.tributary.sql.types;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link IsoTimes} reads dates as the general reading does (timestamps: {@link IsoTimestampTest},
 * whose fast path it is), and counts days as {@link LocalDate} does on every day it reads.
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

    private static String general(String s) {
        try {
            return DateTimeText.parseDate(s).toString();
        } catch (SqlException e) {
            return e.sqlState();
        }
    }
}
