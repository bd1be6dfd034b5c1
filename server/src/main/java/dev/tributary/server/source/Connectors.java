package dev.tributary.server.source;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.Column;
import java.util.ArrayList;
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
            case "KAFKA" -> KafkaSettings.OPTIONS;
            default -> throw new SqlException("42704", "source connector \"" + connector.toLowerCase(Locale.ROOT) + "\" does not exist", pos,
                    "Sources read FROM DIRECTORY, FROM KAFKA or FROM WEBHOOK.");
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
        if (connector.equals("KAFKA")) {
            for (String required : List.of("BROKERS", "TOPIC")) {
                if (!out.containsKey(required)) {
                    throw new SqlException("42601", "FROM KAFKA needs " + required + ": FROM KAFKA (BROKERS 'host:9092', TOPIC 'name')", pos);
                }
            }
            try {
                KafkaSettings.of(out);
            } catch (IllegalArgumentException e) {
                throw new SqlException("22023", e.getMessage(), pos);
            }
        }
        return out;
    }

    /**
     * The columns {@code INCLUDE} adds after the format's, in the order it names them, for a
     * source of {@code format}: 42601 for a word the connector does not include or one named
     * twice, 0A000 for a connector that includes nothing.
     */
    public static List<Column> includedColumns(String connector, List<String> include, String format, int pos) {
        if (include.isEmpty()) return List.of();
        if (!connector.equals("KAFKA")) {
            throw new SqlException("0A000", "FROM " + connector + " includes no metadata", pos, "INCLUDE is for FROM KAFKA: KEY, PARTITION, OFFSET, TIMESTAMP.");
        }
        List<Column> out = new ArrayList<>();
        for (KafkaMetadata m : kafkaMetadata(include, pos)) {
            if (out.stream().anyMatch(c -> c.name().equals(m.column()))) throw new SqlException("42601", "INCLUDE names " + m + " twice", pos);
            out.add(new Column(m.column(), m.type("BYTES".equals(format)), true, false));
        }
        return out;
    }

    private static List<KafkaMetadata> kafkaMetadata(List<String> include, int pos) {
        List<KafkaMetadata> out = new ArrayList<>();
        for (String word : include) {
            try {
                out.add(KafkaMetadata.of(word));
            } catch (IllegalArgumentException e) {
                throw new SqlException("42601", e.getMessage(), pos);
            }
        }
        return out;
    }

    /**
     * A new connector of kind {@code connector} with its {@code options}, for a source of
     * {@code format} that includes {@code include} (all checked by {@link #checkedOptions} and
     * {@link #includedColumns} when the source was made).
     */
    public static Connector create(String connector, Map<String, String> options, List<String> include, String format) {
        return switch (connector) {
            case "DIRECTORY" -> new DirectoryConnector();
            case "KAFKA" -> new KafkaConnector(kafkaMetadata(include, 0), "BYTES".equals(format));
            case "WEBHOOK" -> new WebhookConnector(options);
            default -> throw new IllegalArgumentException("no connector " + connector);
        };
    }
}
