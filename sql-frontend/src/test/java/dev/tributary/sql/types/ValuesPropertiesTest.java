package dev.tributary.sql.types;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class ValuesPropertiesTest {

    @Property(seed = "701")
    void doubleTextRoundTrips(@ForAll double d) {
        String s = Values.toText(d, SqlType.DOUBLE);
        Double back = (Double) Values.fromText(s, SqlType.DOUBLE);
        assertThat(Double.compare(back, d)).as(s).isZero();
    }

    @Property(seed = "702")
    void realTextRoundTrips(@ForAll float f) {
        String s = Values.toText((double) f, SqlType.REAL);
        Double back = (Double) Values.fromText(s, SqlType.REAL);
        assertThat(Float.compare(back.floatValue(), f)).as(s).isZero();
    }

    @Property(seed = "703")
    void intervalTextRoundTripsFieldByField(@ForAll @IntRange(min = -100_000, max = 100_000) int months,
                                            @ForAll @IntRange(min = -100_000, max = 100_000) int days,
                                            @ForAll @LongRange(min = -1_000_000_000_000_000L, max = 1_000_000_000_000_000L) long micros) {
        Interval iv = new Interval(months, days, micros);
        Interval back = (Interval) Values.fromText(Values.toText(iv, SqlType.INTERVAL), SqlType.INTERVAL);
        assertThat(back.months()).isEqualTo(months);
        assertThat(back.days()).isEqualTo(days);
        assertThat(back.micros()).isEqualTo(micros);
    }

    @Property(seed = "704")
    void integerTextRoundTrips(@ForAll long v) {
        assertThat(Values.fromText(Values.toText(v, SqlType.BIGINT), SqlType.BIGINT)).isEqualTo(v);
    }
}
