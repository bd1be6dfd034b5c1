package dev.tributary.sql.plan;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import java.util.List;

/**
 * What an EXPLAIN's options ask for, checked as PostgreSQL 15 checks them: whether to run the
 * query ({@code ANALYZE}) and the output's {@code FORMAT}. PostgreSQL's other options (VERBOSE,
 * COSTS, SETTINGS, BUFFERS, WAL, TIMING, SUMMARY) are accepted and change nothing here: there are
 * no costs, buffers or WAL to show, and time is always measured. FORMAT XML and YAML are 0A000.
 */
public record ExplainOptions(boolean analyze, Format format) {
    /** The output's format: indented lines, or PostgreSQL's JSON document. */
    public enum Format { TEXT, JSON }

    /** The options of {@code options}, the last of each name winning, as in PostgreSQL. */
    public static ExplainOptions of(List<Statement.ExplainOption> options) {
        boolean analyze = false;
        boolean timing = false;
        boolean wal = false;
        Format format = Format.TEXT;
        for (Statement.ExplainOption o : options) {
            switch (o.name()) {
                case "analyze" -> analyze = bool(o);
                case "timing" -> timing = bool(o);
                case "wal" -> wal = bool(o);
                case "verbose", "costs", "settings", "buffers", "summary" -> bool(o);
                case "format" -> {
                    if (o.value() == null) throw new SqlException("42601", "format requires a parameter");
                    format = switch (o.value()) {
                        case "text" -> Format.TEXT;
                        case "json" -> Format.JSON;
                        case "xml", "yaml" -> throw new SqlException("0A000", "EXPLAIN (FORMAT " + o.value().toUpperCase(java.util.Locale.ROOT)
                                + ") is not supported", o.pos(), "Use FORMAT TEXT or FORMAT JSON.");
                        default -> throw new SqlException("22023", "unrecognized value for EXPLAIN option \"format\": \"" + o.value() + "\"", o.pos());
                    };
                }
                default -> throw new SqlException("42601", "unrecognized EXPLAIN option \"" + o.name() + "\"", o.pos());
            }
        }
        if (wal && !analyze) throw new SqlException("22023", "EXPLAIN option WAL requires ANALYZE");
        if (timing && !analyze) throw new SqlException("22023", "EXPLAIN option TIMING requires ANALYZE");
        return new ExplainOptions(analyze, format);
    }

    /** A Boolean option's value as PostgreSQL reads it: none is true; 1, 0, true, false, on, off. */
    private static boolean bool(Statement.ExplainOption o) {
        if (o.value() == null) return true;
        return switch (o.value().toLowerCase(java.util.Locale.ROOT)) {
            case "1", "true", "on" -> true;
            case "0", "false", "off" -> false;
            default -> throw new SqlException("42601", o.name() + " requires a Boolean value");
        };
    }
}
