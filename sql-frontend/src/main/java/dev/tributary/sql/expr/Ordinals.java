package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;

/**
 * The English ordinal suffix a formatting template's {@code TH}/{@code th} adds after a number
 * ({@code 1st}, {@code 12th}, {@code 23rd}), shared by the number and the date/time templates.
 */
final class Ordinals {
    private Ordinals() {}

    /**
     * The suffix for the digits {@code number} ends with: the teens take {@code th}, otherwise
     * the last digit decides. 22P02 when the text does not end in a digit.
     */
    static String suffix(String number, boolean upper) {
        char last = number.isEmpty() ? ' ' : number.charAt(number.length() - 1);
        if (last < '0' || last > '9') throw new SqlException("22P02", "\"" + number + "\" is not a number");
        boolean teen = number.length() > 1 && number.charAt(number.length() - 2) == '1';
        String s = teen ? "th" : switch (last) {
            case '1' -> "st";
            case '2' -> "nd";
            case '3' -> "rd";
            default -> "th";
        };
        return upper ? s.toUpperCase(java.util.Locale.ROOT) : s;
    }
}
