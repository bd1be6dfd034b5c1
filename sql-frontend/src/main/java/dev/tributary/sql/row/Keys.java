package dev.tributary.sql.row;

import java.math.BigDecimal;

/**
 * Values as keys: NUMERIC values keep their display scale in a {@link Row} ({@code 2.50} is shown
 * as written), so a key made of them is first normalised to the fewest fraction digits, and
 * numerically equal values ({@code 1.0}, {@code 1.00}) meet in joins, groups and index lookups.
 */
public final class Keys {
    private Keys() {}

    /** {@code v} in its key form: a NUMERIC without trailing fraction zeros, anything else as it is. */
    public static Object normalize(Object v) {
        if (v instanceof BigDecimal d) {
            BigDecimal s = d.stripTrailingZeros();
            return s.scale() < 0 ? s.setScale(0) : s;
        }
        return v;
    }
}
