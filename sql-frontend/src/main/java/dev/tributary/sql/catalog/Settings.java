package dev.tributary.sql.catalog;

import dev.tributary.sql.SqlException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The configuration parameters a session has, as PostgreSQL names and shows them: what
 * {@code SET}/{@code SHOW} read and write and what {@code pg_settings} lists.
 *
 * <p>Names are case-insensitive ({@code SHOW datestyle} is {@code DateStyle}). A parameter is
 * either settable by a session ({@code user} context) or fixed ({@code internal}: 55P02
 * {@code parameter "server_version" cannot be changed}). Values that Tributary cannot honour
 * are refused (22023) rather than stored and ignored: the session time zone is UTC, dates are
 * ISO, the encoding is UTF8. An unknown name is 42704, except a custom {@code prefix.name}, which
 * may be set to anything (as PostgreSQL allows for extensions' parameters).
 */
public final class Settings {
    private Settings() {}

    /** One parameter: its canonical name, boot value, description and PostgreSQL's classification. */
    public record Setting(String name, String bootValue, String category, String description, String context, String vartype,
                          List<String> allowed) {
        public Setting {
            allowed = List.copyOf(allowed);
        }

        /** Whether a session may change it. */
        public boolean settable() {
            return context.equals("user");
        }
    }

    private static final Map<String, Setting> BY_NAME = new LinkedHashMap<>();

    private static void def(String name, String boot, String category, String description, String context, String vartype, String... allowed) {
        BY_NAME.put(name.toLowerCase(Locale.ROOT), new Setting(name, boot, category, description, context, vartype, List.of(allowed)));
    }

    static {
        String client = "Client Connection Defaults / Locale and Formatting";
        String preset = "Preset Options";
        def("asof_join", "half_join", "Tributary", "Plans AS OF SYSTEM TIME lookups on the half-join, or as their desugaring over CHANGES (the reference).",
                "user", "enum", "half_join", "desugared");
        def("application_name", "", "Reporting and Logging / What to Log", "Sets the application name to be reported in statistics and logs.", "user", "string");
        def("client_encoding", "UTF8", client, "Sets the client's character set encoding.", "user", "string", "UTF8");
        def("client_min_messages", "notice", "Client Connection Defaults / Statement Behavior", "Sets the message levels that are sent to the client.", "user", "enum",
                "debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error");
        def("DateStyle", "ISO, MDY", client, "Sets the display format for date and time values.", "user", "string", "ISO, MDY", "ISO", "MDY", "MDY, ISO");
        def("default_transaction_isolation", "serializable", "Client Connection Defaults / Statement Behavior", "Sets the transaction isolation level of each new transaction.", "user", "enum",
                "serializable", "repeatable read", "read committed", "read uncommitted");
        def("extra_float_digits", "1", client, "Sets the number of digits displayed for floating-point values.", "user", "integer");
        def("integer_datetimes", "on", preset, "Shows whether datetimes are integer based.", "internal", "bool");
        def("IntervalStyle", "postgres", client, "Sets the display format for interval values.", "user", "enum", "postgres");
        def("log_min_duration_statement", "-1", "Reporting and Logging / When to Log",
                "Sets the minimum execution time above which all statements will be logged (0: every statement; -1: none).", "user", "integer");
        def("lc_collate", "C", preset, "Shows the collation order locale.", "internal", "string");
        def("lc_ctype", "C", preset, "Shows the character classification and case conversion locale.", "internal", "string");
        def("max_dataflow_memory", (Runtime.getRuntime().maxMemory() / 2 >> 20) + "MB", "Tributary",
                "Sets the most memory, in bytes, one materialized view, index, query or subscription may hold on all workers; more fails it with 53200 (0: no limit; the default is half the server's heap).",
                "user", "integer");
        def("max_recursion_iterations", "100000", "Tributary",
                "Sets the most rounds a recursive query (WITH RECURSIVE, WITH MUTUALLY RECURSIVE) iterates; one still changing after them fails with 54000, as does a materialized view over it, until its inputs let it converge.",
                "user", "integer");
        def("max_session_memory", (Runtime.getRuntime().maxMemory() / 2 >> 20) + "MB", "Tributary",
                "Sets the most memory, in bytes, the writes of one session's open transaction block may hold before it commits; more fails the statement with 53200 (0: no limit; the default is half the server's heap).",
                "user", "integer");
        // an eighth of the heap: the workers hold a commit's rows several times over while they
        // arrange it (their input, the sort, the new batch), and a COPY of 2/7 of a 384 MB heap
        // was acknowledged and then ran a worker out of memory, its table unreadable (issue 25)
        def("max_write_size", (Runtime.getRuntime().maxMemory() / 8 >> 20) + "MB", "Tributary",
                "Sets the most bytes of rows one commit may write (a COPY, an INSERT, a transaction block's writes together); more fails the statement with 53200 before anything is written (0: no limit; the default is an eighth of the server's heap).",
                "user", "integer");
        // a quarter of the heap, at most 1GB: the rows are held again as the client's answer, and
        // the default must fail a result with 53200 before a small heap runs out (issue 25)
        def("max_result_size", Math.min(1024, Runtime.getRuntime().maxMemory() / 4 >> 20) + "MB", "Tributary",
                "Sets the largest result, in bytes of rows, a query may return; larger ones fail with 53200 (the default is a quarter of the server's heap, at most 1GB).",
                "user", "integer");
        def("idle_in_transaction_session_timeout", "0", "Client Connection Defaults / Statement Behavior",
                "Sets the maximum allowed idle time between queries, when in a transaction.", "user", "integer");
        // Tributary takes no lock a statement waits for (a write that conflicts fails at once with
        // 40001 or 23505); like PostgreSQL's lock_timeout, which bounds only such waits (not its
        // internal latches), it never fires, and clients that set it (pg_dump, ORMs) are served
        def("lock_timeout", "0", "Client Connection Defaults / Statement Behavior",
                "Sets the maximum allowed duration of any wait for a lock.", "user", "integer");
        def("max_identifier_length", "63", preset, "Shows the maximum identifier length.", "internal", "integer");
        def("search_path", "\"$user\", public", "Client Connection Defaults / Statement Behavior", "Sets the schema search order for names that are not schema-qualified.", "user", "string");
        def("server_encoding", "UTF8", preset, "Shows the server (database) character set encoding.", "internal", "string");
        def("server_version", "15.0 (Tributary)", preset, "Shows the server version.", "internal", "string");
        def("server_version_num", "150000", preset, "Shows the server version as an integer.", "internal", "integer");
        def("standard_conforming_strings", "on", "Version and Platform Compatibility / Previous PostgreSQL Versions", "Causes '...' strings to treat backslashes literally.", "user", "bool", "on");
        def("statement_timeout", "0", "Client Connection Defaults / Statement Behavior", "Sets the maximum allowed duration of any statement.", "user", "integer");
        def("TimeZone", "UTC", client, "Sets the time zone for displaying and interpreting time stamps.", "user", "string", "UTC", "Etc/UTC", "GMT", "Z", "+00", "00:00");
        def("transaction_isolation", "serializable", "Client Connection Defaults / Statement Behavior", "Sets the current transaction's isolation level.", "user", "enum", "serializable");
    }

    /** Every parameter, in PostgreSQL's (alphabetical, case-insensitive) order. */
    public static List<Setting> all() {
        return BY_NAME.values().stream().sorted((a, b) -> a.name().compareToIgnoreCase(b.name())).toList();
    }

    /** The parameter named {@code name} (any case), if there is one. */
    public static Optional<Setting> find(String name) {
        return Optional.ofNullable(BY_NAME.get(name.toLowerCase(Locale.ROOT)));
    }

    /** Whether {@code name} is a custom parameter ({@code prefix.name}), which any session may set. */
    public static boolean isCustom(String name) {
        return name.indexOf('.') > 0;
    }

    /** 42704 for a parameter that does not exist. */
    public static SqlException unrecognized(String name, int pos) {
        return new SqlException("42704", "unrecognized configuration parameter \"" + name + "\"", pos);
    }

    /**
     * {@code value} checked and normalised for {@code setting} (booleans as on/off, integers
     * checked); 55P02 for a fixed parameter, 22023 for a value Tributary cannot honour.
     */
    public static String validate(Setting setting, String value, int pos) {
        if (!setting.settable()) {
            throw new SqlException("55P02", "parameter \"" + setting.name() + "\" cannot be changed", pos);
        }
        String v = value;
        switch (setting.vartype()) {
            case "bool" -> {
                String l = v.toLowerCase(Locale.ROOT);
                if (List.of("on", "true", "yes", "1", "t", "y").contains(l)) v = "on";
                else if (List.of("off", "false", "no", "0", "f", "n").contains(l)) v = "off";
                else throw new SqlException("22023", "parameter \"" + setting.name() + "\" requires a Boolean value", pos);
            }
            case "integer" -> {
                if (MILLISECONDS.containsKey(setting.name())) {
                    v = showMillis(millis(setting, v, pos));
                    break;
                }
                if (BYTES.contains(setting.name())) {
                    v = showBytes(bytes(setting, v, pos));
                    break;
                }
                try {
                    v = Long.toString(Long.parseLong(v.strip()));
                } catch (NumberFormatException e) {
                    throw new SqlException("22023", "invalid value for parameter \"" + setting.name() + "\": \"" + value + "\"", pos);
                }
            }
            default -> {
                if (setting.name().equals("search_path")) v = searchPathText(schemas(v));
            }
        }
        if (!setting.allowed().isEmpty()) {
            String match = null;
            for (String a : setting.allowed()) {
                if (match == null && loose(a).equalsIgnoreCase(loose(v))) match = a;
            }
            if (match == null) {
                throw new SqlException("22023", "invalid value for parameter \"" + setting.name() + "\": \"" + value + "\"", pos,
                        "Tributary supports " + String.join(", ", setting.allowed().stream().map(a -> "\"" + a + "\"").toList()) + ".");
            }
            v = setting.vartype().equals("enum") ? match.toLowerCase(Locale.ROOT) : match;
            // every accepted DateStyle is the one Tributary has, shown as PostgreSQL shows it after SET DateStyle = ISO
            if (setting.name().equals("DateStyle")) v = setting.bootValue();
        }
        return v;
    }

    /**
     * The parameters that are durations in milliseconds, written with or without a unit, each
     * with its least value: -1 where PostgreSQL has it mean "off" rather than 0 (for
     * {@code log_min_duration_statement}, 0 logs every statement).
     */
    private static final Map<String, Long> MILLISECONDS = Map.of("statement_timeout", 0L, "idle_in_transaction_session_timeout", 0L,
            "lock_timeout", 0L, "log_min_duration_statement", -1L);

    /** Whether {@code setting} is a duration in milliseconds (shown with the unit {@code ms} in pg_settings). */
    public static boolean inMilliseconds(Setting setting) {
        return MILLISECONDS.containsKey(setting.name());
    }

    private static final String[] UNITS = {"d", "h", "min", "s", "ms"};
    private static final long[] UNIT_MILLIS = {86_400_000L, 3_600_000L, 60_000L, 1000L, 1L};

    /**
     * A duration parameter's value in milliseconds, as PostgreSQL reads it: a number of
     * milliseconds, or a number with a unit ({@code 120s}, {@code '2 min'}, {@code 1h},
     * {@code 500ms}, {@code 1d}); 22023 otherwise, naming the units, or for a value below the
     * parameter's least (0, or -1 where that means off) or above 2^31 - 1 ms.
     */
    public static long millis(Setting setting, String value, int pos) {
        String v = value.strip();
        int i = 0;
        while (i < v.length() && (Character.isDigit(v.charAt(i)) || v.charAt(i) == '.' || (i == 0 && (v.charAt(i) == '-' || v.charAt(i) == '+')))) i++;
        String number = v.substring(0, i);
        String unit = v.substring(i).strip();
        long scale = unit.isEmpty() ? 1 : -1;
        for (int u = 0; u < UNITS.length && scale < 0; u++) if (UNITS[u].equals(unit)) scale = UNIT_MILLIS[u];
        if (scale < 0 || number.isEmpty()) {
            throw new SqlException("22023", "invalid value for parameter \"" + setting.name() + "\": \"" + value + "\"", pos,
                    "Valid units for this parameter are \"ms\", \"s\", \"min\", \"h\", and \"d\".");
        }
        double ms;
        try {
            ms = Double.parseDouble(number) * scale;
        } catch (NumberFormatException e) {
            throw new SqlException("22023", "invalid value for parameter \"" + setting.name() + "\": \"" + value + "\"", pos);
        }
        long least = MILLISECONDS.getOrDefault(setting.name(), 0L);
        if (ms < least || ms > Integer.MAX_VALUE) {
            throw new SqlException("22023", Math.round(ms) + " ms is outside the valid range for parameter \"" + setting.name() + "\" ("
                    + least + " .. " + Integer.MAX_VALUE + ")", pos);
        }
        return Math.round(ms);
    }

    /** The parameters that are sizes in bytes, written with or without a unit. */
    private static final java.util.Set<String> BYTES = java.util.Set.of("max_result_size", "max_dataflow_memory", "max_session_memory", "max_write_size");

    private static final String[] BYTE_UNITS = {"TB", "GB", "MB", "kB", "B"};

    /**
     * A size parameter's value in bytes, as PostgreSQL reads memory units: a number of bytes, or
     * a whole number with a unit ({@code 1GB}, {@code '512 MB'}, {@code 64kB}, {@code 100B}); 22023
     * otherwise, naming the units.
     */
    public static long bytes(Setting setting, String value, int pos) {
        String v = value.strip();
        int i = 0;
        while (i < v.length() && Character.isDigit(v.charAt(i))) i++;
        String number = v.substring(0, i);
        String unit = v.substring(i).strip();
        int shift = unit.isEmpty() ? 0 : -1;
        for (int u = 0; u < BYTE_UNITS.length && shift < 0; u++) if (BYTE_UNITS[u].equals(unit)) shift = 10 * (BYTE_UNITS.length - 1 - u);
        if (shift < 0 || number.isEmpty() || number.length() > 15) {
            throw new SqlException("22023", "invalid value for parameter \"" + setting.name() + "\": \"" + value + "\"", pos,
                    "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".");
        }
        long n = Long.parseLong(number);
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new SqlException("22023", value + " is outside the valid range for parameter \"" + setting.name() + "\"", pos);
        }
        return n << shift;
    }

    /** A number of bytes as PostgreSQL shows memory sizes: in the largest unit that divides it ({@code 1073741824} is {@code 1GB}). */
    public static String showBytes(long bytes) {
        if (bytes == 0) return "0";
        for (int u = 0; u < BYTE_UNITS.length; u++) {
            int shift = 10 * (BYTE_UNITS.length - 1 - u);
            if (bytes % (1L << shift) == 0) return (bytes >> shift) + BYTE_UNITS[u];
        }
        return bytes + "B";
    }

    /** A number of milliseconds as PostgreSQL shows it: in the largest unit that divides it ({@code 120000} is {@code 2min}). */
    static String showMillis(long ms) {
        if (ms <= 0) return Long.toString(ms); // -1 is "off", shown bare as PostgreSQL shows it
        for (int u = 0; u < UNITS.length; u++) if (ms % UNIT_MILLIS[u] == 0) return ms / UNIT_MILLIS[u] + UNITS[u];
        return ms + "ms";
    }

    /** A value without the quotes and spaces that do not change its meaning ({@code "$user", public}). */
    /**
     * The schema names of a search_path value, in order: comma-separated, each double-quoted
     * ({@code "$user"}, {@code "My Schema"}) or folded to lower case, as PostgreSQL reads it.
     */
    public static List<String> schemas(String value) {
        List<String> out = new java.util.ArrayList<>(dev.tributary.sql.parser.Parser.identifiers(value, ','));
        if (out.size() > 1) out.removeIf(String::isEmpty);
        return out;
    }

    /** A search_path value as PostgreSQL shows it: the names joined by {@code ", "}, each quoted where it must be. */
    public static String searchPathText(List<String> schemas) {
        List<String> out = new java.util.ArrayList<>();
        for (String s : schemas) out.add(dev.tributary.sql.parser.SqlFormatter.ident(s));
        return String.join(", ", out);
    }

    private static String loose(String v) {
        return v.replace("\"", "").replace(" ", "");
    }
}
