package dev.tributary.server.auth;

import dev.tributary.sql.SqlException;
import java.util.Locale;

/**
 * A privilege that GRANT gives and REVOKE takes, with the letter PostgreSQL's ACL text shows it
 * by; declared in that text's order ({@code arwdDxt} for relations, {@code UC} for schemas).
 * A set of privileges is an int of {@link #bit()}s.
 */
public enum Privilege {
    INSERT('a'), SELECT('r'), UPDATE('w'), DELETE('d'), TRUNCATE('D'), REFERENCES('x'), TRIGGER('t'), USAGE('U'), CREATE('C');

    /** Every privilege a table, view or materialized view can be granted. */
    public static final int RELATION_ALL = bits(INSERT, SELECT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER);
    /** Every privilege a schema can be granted. */
    public static final int SCHEMA_ALL = bits(USAGE, CREATE);

    private final char letter;

    Privilege(char letter) {
        this.letter = letter;
    }

    /** This privilege in a set of privileges. */
    public int bit() {
        return 1 << ordinal();
    }

    /** Its letter in ACL text. */
    public char letter() {
        return letter;
    }

    /** The set of {@code privileges}. */
    public static int bits(Privilege... privileges) {
        int b = 0;
        for (Privilege p : privileges) b |= p.bit();
        return b;
    }

    /** The privilege a GRANT or REVOKE names ({@code select}, ...); 42601 for a word that is none. */
    public static Privilege named(String word) {
        String w = word.toLowerCase(Locale.ROOT);
        for (Privilege p : values()) if (p.name().toLowerCase(Locale.ROOT).equals(w)) return p;
        if (w.equals("temporary") || w.equals("temp") || w.equals("connect") || w.equals("execute") || w.equals("maintain")) {
            throw new SqlException("0LP01", "invalid privilege type " + w.toUpperCase(Locale.ROOT) + " for this object");
        }
        throw new SqlException("42601", "unrecognized privilege type \"" + w + "\"");
    }

    /** The privileges a privilege inquiry function's list names ({@code "SELECT, INSERT WITH GRANT OPTION"}): {privileges, grant options}; 22023 for an unknown word. */
    public static int[] inquiry(String list, int allowed) {
        int privileges = 0;
        int options = 0;
        for (String part : list.split(",")) {
            String w = part.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
            boolean option = w.endsWith(" with grant option");
            if (option) w = w.substring(0, w.length() - " with grant option".length());
            Privilege found = null;
            for (Privilege p : values()) if (p.name().toLowerCase(Locale.ROOT).equals(w) && (p.bit() & allowed) != 0) found = p;
            if (found == null) throw new SqlException("22023", "unrecognized privilege type: \"" + part.strip() + "\"");
            privileges |= found.bit();
            if (option) options |= found.bit();
        }
        return new int[] {privileges, options};
    }

    /** {@code bits} as ACL letters, each followed by {@code *} when also in {@code grantable}. */
    public static String letters(int bits, int grantable) {
        StringBuilder b = new StringBuilder();
        for (Privilege p : values()) {
            if ((bits & p.bit()) == 0) continue;
            b.append(p.letter);
            if ((grantable & p.bit()) != 0) b.append('*');
        }
        return b.toString();
    }
}
