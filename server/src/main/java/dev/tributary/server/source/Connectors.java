package dev.tributary.server.source;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The connectors a source can be made FROM, by the name CREATE SOURCE gives (upper case): the
 * options each takes, checked when the source is made, and a new connector for each run. A new
 * connector is added here and nowhere else.
 */
public final class Connectors {
    private Connectors() {}

    /** The connector's name and options, checked: 42704 for no such connector, 42601 for an option it does not take or a missing one. */
    public static Map<String, String> checkedOptions(String connector, List<Statement.SourceOption> options, int pos) {
        List<String> known = switch (connector) {
            case "DIRECTORY" -> DirectoryConnector.OPTIONS;
            case "WEBHOOK" -> WebhookConnector.OPTIONS;
            default -> throw new SqlException("42704", "source connector \"" + connector.toLowerCase(Locale.ROOT) + "\" does not exist", pos,
                    "Sources read FROM DIRECTORY or FROM WEBHOOK.");
        };
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (Statement.SourceOption o : options) {
            if (!known.contains(o.name())) {
                throw new SqlException("42601", "option \"" + o.name() + "\" not recognized for FROM " + connector, o.pos(),
                        "FROM " + connector + " takes " + String.join(", ", known) + ".");
            }
            if (out.put(o.name(), o.value()) != null) throw new SqlException("42601", "option \"" + o.name() + "\" given more than once", o.pos());
        }
        if (connector.equals("DIRECTORY")) {
            if (!out.containsKey("PATH")) throw new SqlException("42601", "FROM DIRECTORY needs the directory: FROM DIRECTORY (PATH '/some/where')", pos);
            String poll = out.get("POLL INTERVAL");
            if (poll != null) {
                try {
                    if (Long.parseLong(poll) < 1) throw new NumberFormatException();
                } catch (NumberFormatException e) {
                    throw new SqlException("22023", "POLL INTERVAL is a number of milliseconds, at least 1: " + poll, pos);
                }
            }
        }
        if (connector.equals("WEBHOOK")) {
            String secret = out.get("SECRET");
            if (secret != null && secret.isEmpty()) throw new SqlException("22023", "SECRET must not be empty", pos, "Leave SECRET out to take requests from this machine only.");
            for (String name : WebhookConnector.DEFAULTS.keySet()) {
                String v = out.get(name);
                if (v == null) continue;
                try {
                    if (Long.parseLong(v) < 1 || name.equals("MAX BODY SIZE") && Long.parseLong(v) > Integer.MAX_VALUE - 8) throw new NumberFormatException();
                } catch (NumberFormatException e) {
                    throw new SqlException("22023", name + " is a whole number, at least 1" + (name.equals("MAX BODY SIZE") ? " and below 2 GB" : "") + ": " + v, pos);
                }
            }
        }
        return out;
    }

    /** A new connector of kind {@code connector} with its {@code options} (both checked by {@link #checkedOptions} when the source was made). */
    public static Connector create(String connector, Map<String, String> options) {
        return switch (connector) {
            case "DIRECTORY" -> new DirectoryConnector();
            case "WEBHOOK" -> new WebhookConnector(options);
            default -> throw new IllegalArgumentException("no connector " + connector);
        };
    }
}
