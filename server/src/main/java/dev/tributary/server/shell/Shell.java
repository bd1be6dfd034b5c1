package dev.tributary.server.shell;

import dev.tributary.server.Clock;
import dev.tributary.server.BuildProgress;
import dev.tributary.server.Notice;
import dev.tributary.server.Tributary;
import dev.tributary.sql.SqlException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * {@code tributary sql}: an interactive SQL shell with psql's flags and output, over an in-memory
 * database, or with {@code -h HOST} over a running server ({@link Remote}). Statements come from
 * {@code -c}, {@code -f}, standard input, or the terminal (with line editing and history).
 *
 * <p>Exit status as psql: 0 when all went well, 1 for a fatal error of the shell itself (a bad
 * flag, an unreadable file) or when the last action is a {@code -c} that failed, 3 when
 * a statement failed and {@code ON_ERROR_STOP} is set. Short flags combine as psql's do
 * ({@code -Atc 'SELECT 1'}).
 */
public final class Shell {
    private final Database db;
    private ShellOutput options;
    private boolean stopOnError;
    private final PrintStream out;
    private final PrintStream err;
    private boolean failed;
    /** psql's variables ({@code \set}, {@code -v}), interpolated into statements as {@code :name}, {@code :'name'}, {@code :"name"}. */
    private final java.util.Map<String, String> variables = new java.util.TreeMap<>();
    /** {@code \timing}: print each statement's time after it. */
    private boolean timing;
    /** {@code \x auto}: expand a result only when its table is wider than the terminal. */
    private boolean expandAuto;
    /** The width {@code \x auto} compares with: the terminal's, or COLUMNS; 0 when output is not a terminal (never expand). */
    private int terminalWidth;
    /** Whether a build's progress NOTICEs are drawn as a redrawn bar (at an interactive prompt) rather than printed as lines. */
    boolean progressBars;
    /** Whether statements are interpolated: not those of {@code -c}, as in psql. */
    private boolean interpolating = true;
    /** The last statement run: what {@code \watch} runs again. */
    private String lastStatement;

    Shell(Database db, ShellOutput options, boolean stopOnError, PrintStream out, PrintStream err) {
        this.db = db;
        this.options = options;
        this.stopOnError = stopOnError;
        this.out = out;
        this.err = err;
        String columns = System.getenv("COLUMNS");
        if (columns != null && columns.matches("[0-9]{1,5}")) terminalWidth = Integer.parseInt(columns);
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the shell with {@code args}; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, System.getenv(), out, err);
    }

    /** Runs the shell with {@code args} and the environment {@code env} (PGPASSWORD, PGSSLMODE); returns the exit status. */
    static int run(String[] args, java.util.Map<String, String> env, PrintStream out, PrintStream err) {
        String host = null;
        int port = dev.tributary.server.pgwire.PgServer.DEFAULT_PORT;
        String user = dev.tributary.server.auth.Roles.BOOTSTRAP;
        String database = "tributary";
        boolean askPassword = false;
        boolean neverAsk = false;
        ShellOutput options = ShellOutput.DEFAULT;
        boolean stopOnError = false;
        boolean manualClock = false;
        java.nio.file.Path data = null;
        int workers = 1;
        List<String[]> actions = new ArrayList<>();
        java.util.Map<String, String> variables = new java.util.TreeMap<>();
        args = expandShortFlags(args);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            try {
                switch (a) {
                    case "-c", "--command" -> actions.add(new String[] {"c", args[++i]});
                    case "-f", "--file" -> actions.add(new String[] {"f", args[++i]});
                    case "-A", "--no-align" -> options = options.withAligned(false);
                    case "-t", "--tuples-only" -> options = options.withTuplesOnly(true);
                    case "-q", "--quiet" -> options = options.withQuiet(true);
                    case "-F", "--field-separator" -> options = options.withFieldSeparator(args[++i]);
                    case "-v", "--set", "--variable" -> {
                        String v = args[++i];
                        int eq = v.indexOf('=');
                        String name = eq < 0 ? v : v.substring(0, eq);
                        if (!validVariable(name)) {
                            err.println("tributary sql: invalid variable name: \"" + name + "\"");
                            return 1;
                        }
                        variables.put(name, eq < 0 ? "" : v.substring(eq + 1));
                    }
                    case "-x", "--expanded" -> options = options.withExpanded(true);
                    case "--clock" -> {
                        String c = args[++i];
                        if (c.equals("manual")) manualClock = true;
                        else if (!c.equals("wall")) {
                            err.println("tributary sql: --clock takes 'manual' or 'wall', not '" + c + "'");
                            return 1;
                        }
                    }
                    case "--workers" -> {
                        try {
                            workers = Integer.parseInt(args[++i]);
                        } catch (NumberFormatException e) {
                            workers = 0;
                        }
                        if (workers < 1 || workers > 64) {
                            err.println("tributary sql: --workers takes a number from 1 to 64");
                            return 1;
                        }
                    }
                    case "--data" -> data = java.nio.file.Path.of(args[++i]);
                    case "-h", "--host" -> host = args[++i];
                    case "-p", "--port" -> {
                        try {
                            port = Integer.parseInt(args[++i]);
                        } catch (NumberFormatException e) {
                            port = -1;
                        }
                        if (port < 1 || port > 65535) {
                            err.println("tributary sql: invalid port number: \"" + args[i] + "\"");
                            return 1;
                        }
                    }
                    case "-U", "--username" -> user = args[++i];
                    case "-d", "--dbname" -> database = args[++i];
                    case "-W", "--password" -> askPassword = true;
                    case "-w", "--no-password" -> neverAsk = true;
                    case "-?", "--help" -> {
                        out.println(usage());
                        return 0;
                    }
                    default -> {
                        err.println("tributary sql: unknown option '" + a + "'");
                        err.println(usage());
                        return 1;
                    }
                }
            } catch (ArrayIndexOutOfBoundsException e) {
                err.println("tributary sql: option '" + a + "' needs an argument");
                return 1;
            }
        }
        Database target;
        if (host == null) {
            Clock clock = manualClock ? Clock.manual(0) : Clock.wall();
            try {
                target = new Embedded(data == null ? Tributary.inMemory(clock, workers) : Tributary.open(data, clock, workers));
            } catch (RuntimeException e) {
                err.println("tributary sql: " + e.getMessage());
                return 2;
            }
        } else {
            target = connect(host, port, user, database, askPassword, neverAsk, env, err);
            if (target == null) return 2;
        }
        try (Database db = target) {
            Shell shell = new Shell(db, options, stopOnError, out, err);
            for (var v : variables.entrySet()) shell.setVariable(v.getKey(), v.getValue());
            if (actions.isEmpty()) {
                if (System.console() != null) return shell.interactive();
                return shell.script(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), null);
            }
            boolean lastFailed = false;
            for (String[] action : actions) {
                int status;
                shell.failed = false;
                if (action[0].equals("c")) {
                    // as psql: a -c string's SQL goes as written; its backslash commands still read variables
                    shell.interpolating = false;
                    status = shell.script(new BufferedReader(new java.io.StringReader(action[1])), null);
                    shell.interpolating = true;
                } else {
                    Path p = Path.of(action[1]);
                    try (BufferedReader r = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
                        status = shell.script(r, action[1]);
                    } catch (IOException e) {
                        err.println("tributary sql: " + action[1] + ": " + e.getMessage());
                        return 1;
                    }
                }
                if (status != 0) return status;
                lastFailed = action[0].equals("c") && shell.failed;
            }
            // as psql: 1 when the last action is a -c whose statement (or backslash command) failed; a -f's errors do not count
            return lastFailed ? 1 : 0;
        }
    }

    /** Connects to the server, or prints why not (as psql does) and returns null. */
    private static Database connect(String host, int port, String user, String database, boolean askPassword, boolean neverAsk,
                                    java.util.Map<String, String> env, PrintStream err) {
        String given = env.get("PGPASSWORD");
        String prompt = "Password for user " + user + ": ";
        String[] asked = {null};
        if (askPassword && given == null) asked[0] = readPassword(prompt);
        java.util.function.Supplier<String> password = () -> {
            if (given != null) return given;
            if (asked[0] == null && !neverAsk) asked[0] = readPassword(prompt);
            return asked[0];
        };
        dev.tributary.server.pgwire.PgClient.SslMode ssl;
        switch (env.getOrDefault("PGSSLMODE", "prefer")) {
            case "disable" -> ssl = dev.tributary.server.pgwire.PgClient.SslMode.DISABLE;
            case "allow", "prefer" -> ssl = dev.tributary.server.pgwire.PgClient.SslMode.PREFER;
            case "require" -> ssl = dev.tributary.server.pgwire.PgClient.SslMode.REQUIRE;
            default -> {
                err.println("tributary sql: PGSSLMODE takes disable, prefer or require (the server's certificate is not verified)");
                return null;
            }
        }
        String where = "connection to server at \"" + host + "\", port " + port + " failed: ";
        try {
            var client = dev.tributary.server.pgwire.PgClient.connect(
                    new dev.tributary.server.pgwire.PgClient.Options(host, port, user, database, ssl, password));
            return new Remote(client, host + ":" + port);
        } catch (SqlException e) {
            // errors the client makes up itself (no password, no TLS) have no server severity in front
            boolean ours = e.sqlState().equals("08001") || e.sqlState().equals("08004");
            err.println("tributary sql: error: " + where + (ours ? "" : "FATAL:  ") + e.getMessage());
        } catch (IOException e) {
            err.println("tributary sql: error: " + where + e.getMessage());
        }
        return null;
    }

    /** Asks for a password on the terminal; null without one. */
    private static String readPassword(String prompt) {
        java.io.Console console = System.console();
        if (console == null) return null;
        char[] p = console.readPassword("%s", prompt);
        return p == null ? null : new String(p);
    }

    private static String usage() {
        return """
                usage: tributary sql [OPTION]...
                  -h, --host=HOST           connect to the server at HOST instead of starting an in-memory database
                      --data=DIR            keep the database in data directory DIR (made if missing) instead of in memory
                  -p, --port=PORT           its port (default 6875)
                  -U, --username=USER       the role to log in as (default tributary)
                  -d, --dbname=DB           the database (default tributary)
                  -W, --password            ask for the password first (PGPASSWORD gives it; PGSSLMODE=disable|prefer|require)
                  -w, --no-password         never ask for a password
                  -c, --command=SQL         run SQL (may be given more than once), then exit
                  -f, --file=FILE           run the statements in FILE, then exit
                  -A, --no-align            unaligned output
                  -t, --tuples-only         rows only: no header, no row count
                  -q, --quiet               no command tags
                  -F, --field-separator=SEP separator for unaligned output (default "|")
                  -v, --set=NAME=VALUE      set variable NAME (:NAME, :'NAME', :"NAME" in statements);
                                            ON_ERROR_STOP=1 stops at the first failing statement, exit status 3
                  -x, --expanded            expanded output: a record per row
                      --clock manual|wall   in-memory: time moves only by ADVANCE CLOCK (manual), or with the wall clock
                      --workers N           in-memory: run the dataflows on N worker threads (default 1)
                  -?, --help                this help
                With no -c or -f, reads statements from the terminal or standard input.""";
    }

    /** The short options that take a value, as psql's. */
    private static final String VALUED = "cfFvhpUd";

    /** A variable name psql accepts: letters, digits and underscores. */
    private static boolean validVariable(String name) {
        return !name.isEmpty() && name.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_');
    }

    /** Sets variable {@code name}; ON_ERROR_STOP also switches stopping on errors, as in psql. */
    void setVariable(String name, String value) {
        variables.put(name, value);
        if (name.equals("ON_ERROR_STOP")) stopOnError = switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "", "on", "1", "true", "yes", "t", "y" -> true;
            default -> false;
        };
    }

    /**
     * {@code sql} with psql's variable references replaced outside quotes, comments and casts:
     * {@code :name} by the value, {@code :'name'} by it as a string literal, {@code :"name"} as an
     * identifier. A reference to an unset variable stays as written.
     */
    String interpolate(String sql) {
        if (!interpolating || variables.isEmpty() || sql.indexOf(':') < 0) return sql;
        StringBuilder b = new StringBuilder(sql.length());
        int n = sql.length();
        for (int i = 0; i < n; ) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = i + 1;
                while (end < n && sql.charAt(end) != c) end++;
                b.append(sql, i, Math.min(n, end + 1));
                i = end + 1;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                end = end < 0 ? n : end;
                b.append(sql, i, end);
                i = end;
            } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
                b.append("::");
                i += 2;
            } else if (c == ':' && i + 1 < n && (sql.charAt(i + 1) == '\'' || sql.charAt(i + 1) == '"')) {
                char q = sql.charAt(i + 1);
                int end = sql.indexOf(q, i + 2);
                String name = end < 0 ? null : sql.substring(i + 2, end);
                if (name != null && variables.containsKey(name)) {
                    String v = variables.get(name);
                    b.append(q).append(v.replace(String.valueOf(q), String.valueOf(q) + q)).append(q);
                    i = end + 1;
                } else {
                    b.append(c);
                    i++;
                }
            } else if (c == ':' && i + 1 < n && (Character.isLetterOrDigit(sql.charAt(i + 1)) || sql.charAt(i + 1) == '_')) {
                int end = i + 1;
                while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) end++;
                String name = sql.substring(i + 1, end);
                if (variables.containsKey(name)) b.append(variables.get(name));
                else b.append(sql, i, end);
                i = end;
            } else {
                b.append(c);
                i++;
            }
        }
        return b.toString();
    }

    /**
     * psql's short options as separate arguments: {@code -Atc SQL} is {@code -A -t -c SQL}, and a
     * valued option's value may be joined to it ({@code -p5432}, {@code -c'SELECT 1'}).
     */
    static String[] expandShortFlags(String[] args) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.length() <= 2 || !a.startsWith("-") || a.startsWith("--")) {
                out.add(a);
                if (a.length() == 2 && a.charAt(0) == '-' && VALUED.indexOf(a.charAt(1)) >= 0 && i + 1 < args.length) out.add(args[++i]);
                continue;
            }
            for (int k = 1; k < a.length(); k++) {
                char c = a.charAt(k);
                out.add("-" + c);
                if (VALUED.indexOf(c) >= 0) {
                    if (k + 1 < a.length()) out.add(a.substring(k + 1));
                    else if (i + 1 < args.length) out.add(args[++i]);
                    break;
                }
            }
        }
        return out.toArray(new String[0]);
    }

    /** Runs the statements read from {@code in}; returns the exit status. */
    int script(BufferedReader in, String file) {
        StatementSplitter splitter = new StatementSplitter();
        try {
            for (String line; (line = in.readLine()) != null; ) {
                if (splitter.rest().isBlank() && line.strip().startsWith("\\")) {
                    if (!meta(line.strip())) return 0;
                    continue;
                }
                for (String stmt : splitter.add(line + "\n")) {
                    if (!runStatement(interpolate(stmt)) && stopOnError) return 3;
                }
            }
        } catch (IOException e) {
            err.println("tributary sql: " + e.getMessage());
            return 1;
        }
        String rest = splitter.rest();
        if (!rest.isBlank() && !runStatement(interpolate(rest)) && stopOnError) return 3;
        return 0;
    }

    /** The interactive loop, with line editing and history; returns the exit status. */
    int interactive() {
        try (Terminal terminal = TerminalBuilder.builder().system(true).build()) {
            return interactive(terminal);
        } catch (IOException e) {
            err.println("tributary sql: cannot open the terminal: " + e.getMessage());
            return 1;
        }
    }

    /** {@link #interactive()} on {@code terminal}. */
    int interactive(Terminal terminal) {
        {
            // backslashes are psql's commands and SQL's text, not the line editor's escapes, and
            // '!' is not history expansion: the line comes back exactly as typed
            org.jline.reader.impl.DefaultParser parser = new org.jline.reader.impl.DefaultParser();
            parser.setEscapeChars(null);
            LineReader reader = LineReaderBuilder.builder().terminal(terminal).parser(parser)
                    .variable(LineReader.HISTORY_FILE, Path.of(System.getProperty("user.home"), ".tributary_history"))
                    .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
                    .build();
            out.println("tributary (" + db.description() + "; \\q to quit, \\? for help)");
            progressBars = true;
            if (System.getenv("COLUMNS") == null) terminalWidth = terminal.getWidth();
            StatementSplitter splitter = new StatementSplitter();
            while (true) {
                String prompt = splitter.rest().isBlank() ? "tributary=> " : "tributary-> ";
                String line;
                try {
                    line = reader.readLine(prompt);
                } catch (UserInterruptException e) {
                    splitter.clear();
                    continue;
                } catch (EndOfFileException e) {
                    return 0;
                }
                if (splitter.rest().isBlank() && line.strip().startsWith("\\")) {
                    if (!meta(line.strip())) return 0;
                    continue;
                }
                for (String stmt : splitter.add(line + "\n")) runStatement(interpolate(stmt));
            }
        }
    }

    /** A backslash command; returns false to quit. */
    private boolean meta(String command) {
        boolean was = interpolating;
        interpolating = true;
        String[] parts = interpolate(command).split("\\s+", 2);
        interpolating = was;
        String arg = parts.length > 1 ? parts[1].strip() : "";
        switch (parts[0]) {
            case "\\timing" -> {
                Boolean on = onOff(arg, !timing, "\\timing");
                if (on == null) return true;
                timing = on;
                out.println("Timing is " + (timing ? "on." : "off."));
            }
            case "\\x" -> {
                if (arg.equalsIgnoreCase("auto")) {
                    expandAuto = true;
                    options = options.withExpanded(false);
                    out.println("Expanded display is used automatically.");
                } else {
                    Boolean on = onOff(arg, !(options.expanded() || expandAuto), "\\x");
                    if (on == null) return true;
                    expandAuto = false;
                    options = options.withExpanded(on);
                    out.println("Expanded display is " + (on ? "on." : "off."));
                }
            }
            case "\\set" -> {
                if (arg.isEmpty()) {
                    for (var v : variables.entrySet()) out.println(v.getKey() + " = '" + v.getValue() + "'");
                } else {
                    String[] nv = arg.split("\\s+", 2);
                    if (!validVariable(nv[0])) {
                        failed = true;
                        err.println("invalid variable name: \"" + nv[0] + "\"");
                    } else {
                        setVariable(nv[0], nv.length > 1 ? unquote(nv[1]) : "");
                    }
                }
            }
            case "\\unset" -> {
                variables.remove(arg);
                if (arg.equals("ON_ERROR_STOP")) stopOnError = false;
            }
            case "\\echo" -> out.println(unquote(arg));
            case "\\watch" -> watch(arg);
            case "\\q" -> {
                return false;
            }
            case "\\d" -> runStatement(parts.length > 1 ? "SHOW COLUMNS FROM " + parts[1] : "SHOW TABLES");
            case "\\dt" -> runStatement("SHOW TABLES");
            case "\\dv" -> runStatement("SHOW VIEWS");
            case "\\dm" -> runStatement("SHOW MATERIALIZED VIEWS");
            case "\\di" -> runStatement("SHOW INDEXES");
            case "\\?" -> out.println("\\q quit   \\d [NAME] tables or a relation's columns   \\dt tables   \\dv views   \\dm materialized views   \\di indexes\n"
                    + "\\timing [on|off]   \\x [on|off|auto]   \\set [NAME [VALUE]]   \\unset NAME   \\echo TEXT   \\watch [[i=]SECONDS] [c=COUNT]");
            default -> {
                failed = true;
                err.println("invalid command " + parts[0] + "\nTry \\? for help.");
            }
        }
        return true;
    }

    /** psql's boolean argument: on/off and their spellings, or {@code toggle} when none; null (after an error) otherwise. */
    private Boolean onOff(String arg, boolean toggle, String command) {
        switch (arg.toLowerCase(java.util.Locale.ROOT)) {
            case "" -> {
                return toggle;
            }
            case "on", "true", "yes", "1", "t", "y" -> {
                return true;
            }
            case "off", "false", "no", "0", "f", "n" -> {
                return false;
            }
            default -> {
                failed = true;
                err.println("unrecognized value \"" + arg + "\" for \"" + command.substring(1) + "\": Boolean expected");
                return null;
            }
        }
    }

    /** A backslash command's argument without its single quotes (psql's quoting, with '' for a quote). */
    private static String unquote(String arg) {
        if (arg.length() >= 2 && arg.startsWith("'") && arg.endsWith("'")) return arg.substring(1, arg.length() - 1).replace("''", "'");
        return arg;
    }

    /**
     * {@code \watch [[i=]SECONDS] [c=COUNT]} (psql 16's form; a bare number is the interval): the
     * last statement again every SECONDS (2 by default), each result under a title with the time,
     * until Ctrl-C, a failure, or COUNT runs.
     */
    private void watch(String arg) {
        if (lastStatement == null) {
            failed = true;
            err.println("\\watch cannot be used with an empty query");
            return;
        }
        double seconds = 2;
        long count = Long.MAX_VALUE;
        for (String a : arg.isEmpty() ? new String[0] : arg.split("\\s+")) {
            try {
                if (a.startsWith("c=")) count = Long.parseLong(a.substring(2));
                else seconds = Double.parseDouble(a.startsWith("i=") ? a.substring(2) : a);
            } catch (NumberFormatException e) {
                count = -1;
            }
            if (count <= 0 || !(seconds >= 0)) {
                failed = true;
                err.println("\\watch: incorrect argument \"" + a + "\"");
                return;
            }
        }
        String sql = lastStatement;
        java.util.concurrent.CountDownLatch stop = new java.util.concurrent.CountDownLatch(1);
        sun.misc.Signal interrupt = new sun.misc.Signal("INT");
        sun.misc.SignalHandler previous = sun.misc.Signal.handle(interrupt, s -> stop.countDown());
        try {
            java.time.format.DateTimeFormatter when = java.time.format.DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy", java.util.Locale.ROOT);
            for (long run = 0; run < count; run++) {
                if (run > 0 && stop.await((long) (seconds * 1000), java.util.concurrent.TimeUnit.MILLISECONDS)) break;
                out.println(java.time.LocalDateTime.now().format(when) + " (every " + trimNumber(seconds) + "s)\n");
                if (!runStatement(sql)) break;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            sun.misc.Signal.handle(interrupt, previous);
        }
    }

    private static String trimNumber(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }

    /** Runs one statement and prints its result or error; returns whether it succeeded. */
    boolean runStatement(String text) {
        String sql = text.stripLeading();
        lastStatement = sql;
        long start = System.nanoTime();
        try {
            if (isSubscription(sql)) return subscribe(sql);
            executeCancellable(sql);
            if (timing) printTime(System.nanoTime() - start);
            return true;
        } catch (SqlException e) {
            failed = true;
            err.println(e.render(sql));
            return false;
        } catch (RuntimeException e) {
            failed = true;
            err.println("ERROR:  XX000: internal error: " + e);
            // a bug: its stack trace goes to the log, for a report
            dev.tributary.server.ServerLog.error("internal error running " + sql + ": " + e, e);
            return false;
        }
    }

    /**
     * Runs {@code sql} with Ctrl-C cancelling it (psql sends a CancelRequest; the statement fails
     * with 57014 and the shell goes on). Notices are printed as they come; at the prompt a
     * build's progress is drawn as one line that redraws itself ({@link BuildProgress#bar}).
     */
    private void executeCancellable(String sql) {
        sun.misc.Signal interrupt = new sun.misc.Signal("INT");
        sun.misc.SignalHandler previous = sun.misc.Signal.handle(interrupt, s -> interrupted());
        boolean[] barShown = {false};
        try {
            db.execute(sql, answer -> {
                clearBar(barShown);
                print(answer);
            }, n -> {
                BuildProgress p = progressBars ? BuildProgress.parse(n.message()) : null;
                if (p != null) {
                    err.print("\r" + p.bar(terminalWidth > 0 ? terminalWidth - 1 : 79) + "\033[K");
                    err.flush();
                    barShown[0] = true;
                } else {
                    clearBar(barShown);
                    err.println(n.render());
                }
            });
        } finally {
            clearBar(barShown);
            sun.misc.Signal.handle(interrupt, previous);
        }
    }

    /** What Ctrl-C does while a statement runs: asks the database to cancel it. */
    void interrupted() {
        db.cancel();
    }

    /** Takes a drawn progress line off the screen, so what follows starts at the line's beginning. */
    private void clearBar(boolean[] shown) {
        if (!shown[0]) return;
        err.print("\r\033[K");
        err.flush();
        shown[0] = false;
    }

    /** Whether {@code sql} is one SUBSCRIBE or EMIT CHANGES statement; what does not parse is left to the database to refuse. */
    private static boolean isSubscription(String sql) {
        List<dev.tributary.sql.ast.Statement> parsed;
        try {
            parsed = dev.tributary.sql.parser.Parser.parse(sql);
        } catch (SqlException e) {
            return false;
        }
        return parsed.size() == 1 && (parsed.get(0) instanceof dev.tributary.sql.ast.Statement.Subscribe
                || parsed.get(0) instanceof dev.tributary.sql.ast.Statement.QueryStatement q && q.emitChanges());
    }

    /** Prints a subscription's rows as they come, until Ctrl-C, an error, or its end (UP TO). */
    private boolean subscribe(String sql) {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        boolean[] headerPrinted = {false};
        SqlException[] failure = {null};
        String sep = options.fieldSeparator();
        AutoCloseable sub = db.subscribe(sql, batch -> {
            synchronized (out) {
                if (!headerPrinted[0] && !options.tuplesOnly() && batch.hasRows()) {
                    out.println(String.join(sep, batch.columns()));
                    headerPrinted[0] = true;
                }
                for (List<String> row : batch.rows()) {
                    List<String> cells = new ArrayList<>();
                    for (String c : row) cells.add(c == null ? options.nullString() : c);
                    out.println(String.join(sep, cells));
                }
                out.flush();
            }
        }, error -> {
            failure[0] = error;
            done.countDown();
        });
        sun.misc.Signal interrupt = new sun.misc.Signal("INT");
        sun.misc.SignalHandler previous = sun.misc.Signal.handle(interrupt, s -> done.countDown());
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            sun.misc.Signal.handle(interrupt, previous);
            try {
                sub.close();
            } catch (Exception e) {
                err.println("tributary sql: could not stop the subscription: " + e.getMessage());
            }
        }
        if (failure[0] != null) {
            failed = true;
            err.println(failure[0].render(null));
            return false;
        }
        return true;
    }

    /** psql's {@code \\timing} line: milliseconds, and minutes and seconds from one second on. */
    private void printTime(long nanos) {
        double ms = nanos / 1e6;
        String line = String.format(java.util.Locale.ROOT, "Time: %.3f ms", ms);
        if (ms >= 1000) {
            long total = (long) ms;
            line += String.format(java.util.Locale.ROOT, " (%02d:%02d.%03d)", total / 60000, total / 1000 % 60, total % 1000);
        }
        out.println(line);
    }

    private void print(Answer r) {
        // psql prints notices on standard error as they come, -q or not
        for (Notice n : r.notices()) err.println(n.render());
        out.print(r.copyOut());
        if (!r.hasRows()) {
            if (!options.quiet()) out.println(r.tag());
            return;
        }
        List<TablePrinter.Align> aligns = new ArrayList<>();
        for (var t : r.types()) aligns.add(TablePrinter.Align.of(t));
        List<String[]> rows = new ArrayList<>();
        for (List<String> row : r.rows()) rows.add(row.toArray(new String[0]));
        String table = new TablePrinter(options).format(r.columns(), aligns, rows);
        if (expandAuto && options.aligned() && terminalWidth > 0 && widest(table) > terminalWidth) {
            table = new TablePrinter(options.withExpanded(true)).format(r.columns(), aligns, rows);
        }
        out.print(table);
        out.flush();
    }

    private static int widest(String text) {
        int w = 0;
        for (String line : text.split("\n")) w = Math.max(w, line.codePointCount(0, line.length()));
        return w;
    }

    boolean failed() {
        return failed;
    }
}
