package dev.tributary.sql.row;

import java.math.BigDecimal;

/**
 * Values as keys: NUMERIC values keep their display scale in a {@link Row} ({@code 2.50} is shown
 * as written), and INTERVAL values the fields they were written with ({@code '1 mon'}), so a key
 * made of them is first normalised (to the fewest fraction digits; to {@link Interval#keyForm}),
 * and equal values ({@code 1.0} and {@code 1.00}; {@code '1 mon'} and {@code '30 days'}) meet in
 * joins, groups and index lookups.
 */
public final class Keys {
    private Keys() {}

    /** {@code v} in its key form: a NUMERIC (also within a jsonb) without trailing fraction zeros, an INTERVAL in its key form, anything else as it is. */
    public static Object normalize(Object v) {
        if (v instanceof dev.tributary.sql.types.Interval i) return i.keyForm();
        if (v instanceof dev.tributary.sql.types.Jsonb j) return j.keyForm();
        if (v instanceof BigDecimal d) {
            BigDecimal s = d.stripTrailingZeros();
            return s.scale() < 0 ? s.setScale(0) : s;
        }
        return v;
    }
}
