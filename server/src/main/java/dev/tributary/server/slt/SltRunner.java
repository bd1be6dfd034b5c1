package dev.tributary.server.slt;

import dev.tributary.server.Clock;
import dev.tributary.server.Result;
import dev.tributary.server.Tributary;
import dev.tributary.server.slt.SltOutcome.Failure;
import dev.tributary.server.slt.SltOutcome.Kind;
import dev.tributary.sql.SqlException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;

/**
 * Runs sqllogictest files against Tributary: {@code tributary slt [--views] [--timeout S] [--skip-list FILE | --no-skip-list] [-v] FILE|DIR...}.
 *
 * <p>Each file runs in a fresh in-memory database on a manual clock. Every record that applies
 * to this engine (it answers to {@code tributary} and {@code postgresql} in
 * {@code skipif}/{@code onlyif}) passes, fails or is skipped; each failure is printed with its
 * place, SQL, expected and actual answer, and the run ends with {@code N passed, N failed,
 * N skipped} and the failures by kind (parse errors, unsupported features, wrong results,
 * unexpected errors, engine crashes: anything but a {@link SqlException}, and internal errors,
 * SQLSTATE XX000). The exit status is 1 when anything failed.
 *
 * <p>Records whose behaviour is genuinely SQLite-only are skipped by a {@link SkipList}, each
 * counted as skipped with its reason ({@code -v} prints each): by default the list on the
 * classpath ({@value SkipList#DEFAULT_RESOURCE}), replaced by {@code --skip-list FILE} or
 * disabled by {@code --no-skip-list}. The test files themselves are never edited.
 *
 * <p>A record runs on a worker thread with a time limit: an engine that throws something other
 * than a {@link SqlException} is counted as a crash, with its stack, and the file goes on (so
 * does a failure of the runner itself on what the engine gave). The file stops, with the record
 * counted as a crash and the rest skipped, when the database is then in an unknown state: a record
 * that does not answer in time (the failure shows where the record's thread and the database's
 * workers were) or a crash after which a worker of the database has stopped (every later record
 * would fail with XX000).
 *
 * <p>With {@code --views}, every query of the file (a SELECT, WITH, VALUES or parenthesised
 * query expected to succeed) is also created as {@code CREATE MATERIALIZED VIEW slt_v<n>} as
 * soon as the relations it reads exist: the runner tries to create each pending view at the
 * start of the file and after every CREATE statement, and the engine refuses with 42P01 until
 * they exist. Only the views of the queries before the next DROP, ALTER or SHOW are tried, since
 * those records drop every view (below). Where the query appears, the view must hold the same rows as the one-off query,
 * compared as multisets (a view has no order; the one-off query's order is checked by the record
 * itself). A view that cannot be created with 0A000 makes the record skipped, with the reason.
 * Before a DROP, ALTER or SHOW the runner drops its views, so that they neither hold up the
 * file's own DROP statements nor appear in its SHOW output, and recreates them afterwards.
 */
public final class SltRunner {
    /** The names this engine answers to in {@code skipif}/{@code onlyif}. */
    public static final Set<String> ENGINE_NAMES = Set.of("tributary", "postgresql");

    /**
     * How to run.
     *
     * @param views whether queries are also checked as materialized views
     * @param timeout how long one record may take
     * @param verbose whether to print where each view was created and each record skipped by the skip list
     * @param skipList the records to skip as SQLite-only ({@link SkipList#none()} to run everything)
     */
    public record Options(boolean views, Duration timeout, boolean verbose, SkipList skipList) {
        public Options {
            if (skipList == null) skipList = SkipList.none();
        }

        /** Options with the default skip list. */
        public Options(boolean views, Duration timeout, boolean verbose) {
            this(views, timeout, verbose, SkipList.defaults());
        }

        /** A plain run with the default skip list. */
        public static Options plain() {
            return new Options(false, Duration.ofSeconds(30), false);
        }

        /** A {@code --views} run with the default skip list. */
        public static Options withViews() {
            return new Options(true, Duration.ofSeconds(30), false);
        }

        public Options withSkipList(SkipList list) {
            return new Options(views, timeout, verbose, list);
        }
    }

    private final Options options;
    private final PrintStream out;

    /** A runner that prints each failure to {@code out} as it happens ({@code out} may be null). */
    public SltRunner(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public static void main(String[] args) {
        boolean views = false;
        boolean verbose = false;
        Duration timeout = Duration.ofSeconds(30);
        SkipList skipList = null;
        boolean noSkipList = false;
        List<Path> files = new ArrayList<>();
        for (int k = 0; k < args.length; k++) {
            switch (args[k]) {
                case "--views" -> views = true;
                case "-v", "--verbose" -> verbose = true;
                case "--timeout" -> {
                    if (k + 1 >= args.length) usage("--timeout needs a number of seconds");
                    timeout = Duration.ofSeconds(Long.parseLong(args[++k]));
                }
                case "--skip-list" -> {
                    if (k + 1 >= args.length) usage("--skip-list needs a file");
                    Path list = Path.of(args[++k]);
                    try {
                        skipList = SkipList.load(list);
                    } catch (IOException e) {
                        usage("cannot read the skip list " + list + ": " + e);
                    } catch (IllegalArgumentException e) {
                        usage("bad skip list: " + e.getMessage());
                    }
                }
                case "--no-skip-list" -> noSkipList = true;
                case "-h", "--help" -> {
                    System.out.println(USAGE);
                    System.exit(0);
                }
                default -> {
                    if (args[k].startsWith("-")) usage("unknown option " + args[k]);
                    files.addAll(expand(Path.of(args[k])));
                }
            }
        }
        if (files.isEmpty()) usage("no files given");
        if (noSkipList && skipList != null) usage("--skip-list and --no-skip-list exclude each other");
        SkipList list = noSkipList ? SkipList.none() : skipList != null ? skipList : SkipList.defaults();
        SltRunner runner = new SltRunner(new Options(views, timeout, verbose, list), System.out);
        SltOutcome total = new SltOutcome();
        for (Path f : files) {
            SltOutcome o = runner.runFile(f);
            if (files.size() > 1) System.out.println(f + ": " + o.summary());
            total.addAll(o);
        }
        if (verbose || !total.skipReasons.isEmpty()) {
            total.skipReasons.forEach((reason, n) -> System.out.println("skipped " + n + "x: " + reason));
        }
        System.out.println(total.summary());
        System.exit(total.failed() == 0 ? 0 : 1);
    }

    private static final String USAGE = """
            usage: tributary slt [--views] [--timeout SECONDS] [--skip-list FILE | --no-skip-list] [-v] FILE|DIR...
              runs sqllogictest files (a directory: its .slt and .test files); exits 1 if any record failed
              --views           also maintain every query as a materialized view from the start and compare
              --timeout         time limit for one record (default 30)
              --skip-list FILE  skip the SQLite-only records FILE lists, instead of the built-in list
                                (classpath:/slt/sqlite-only.txt, which also documents the format)
              --no-skip-list    skip nothing by list
              -v                say where each view was created and each record the skip list skipped,
                                and list the reasons of skipped records""";

    private static void usage(String problem) {
        System.err.println("tributary slt: " + problem);
        System.err.println(USAGE);
        System.exit(2);
    }

    private static List<Path> expand(Path p) {
        if (!Files.isDirectory(p)) return List.of(p);
        try (Stream<Path> s = Files.walk(p)) {
            return s.filter(f -> f.toString().endsWith(".slt") || f.toString().endsWith(".test")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs one file; its name in failure lines is the path as given. */
    public SltOutcome runFile(Path file) {
        try {
            return runScript(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            SltOutcome o = new SltOutcome();
            o.fail(new Failure(file + ":0", Kind.ERROR, "cannot read the file: " + e, "", null, null));
            if (out != null) out.print(o.failures.get(0).render());
            return o;
        }
    }

    /** Runs the text of one file, named {@code name} in failure lines, in a fresh database. */
    public SltOutcome runScript(String name, String text) {
        try (FileRun run = new FileRun(name, SltParser.parse(text))) {
            run.run();
            return run.outcome;
        }
    }

    /**
     * Thrown when the file cannot go on: a record did not finish in time, or the database lost a
     * worker (every later statement would fail with XX000). {@code detail} says where the
     * threads were or what stopped the worker, or is null.
     */
    private static final class Abandon extends RuntimeException {
        final String detail;

        Abandon(String message, String detail) {
            super(message, null, false, false);
            this.detail = detail;
        }
    }

    /** What executing SQL gave: results, a SQL error, or a crash (any other throwable). */
    private record Exec(List<Result> results, SqlException error, Throwable crash) {}

    private enum ViewState { PENDING, CREATED, DONE }

    /** A query of the file maintained as a view in {@code --views} mode. */
    private static final class View {
        final int id;
        final SltRecord.Query query;
        ViewState state = ViewState.PENDING;
        SqlException lastError;
        Throwable lastCrash;

        View(int id, SltRecord.Query query) {
            this.id = id;
            this.query = query;
        }

        String name() {
            return "slt_v" + id;
        }

        String ddl() {
            StringBuilder cols = new StringBuilder();
            for (int k = 0; k < query.types().length(); k++) cols.append(k == 0 ? "" : ", ").append("c").append(k + 1);
            // in public whatever the search path, so that the file's schemas hold only what it made
            return "CREATE MATERIALIZED VIEW public." + name() + " (" + cols + ") AS " + query.sql();
        }
    }

    /** The state of running one file. */
    private final class FileRun implements AutoCloseable {
        final String name;
        final List<SltRecord> records;
        final SltOutcome outcome = new SltOutcome();
        final Tributary db = Tributary.inMemory(Clock.manual(0));
        final Tributary.Connection main = db.session();
        final Tributary.Connection aux = db.session();
        final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "slt-worker");
            t.setDaemon(true);
            execThread = t;
            return t;
        });
        /** The thread records run on, whose stack a timeout reports. */
        volatile Thread execThread;
        final Map<String, String> labels = new HashMap<>();
        final TreeMap<Integer, View> views = new TreeMap<>();
        /** The views the file's own statements created and have not dropped: name to definition. */
        final Map<String, String> liveViews = new HashMap<>();
        int threshold = 8;
        int current = -1;
        boolean abandoned;

        FileRun(String name, List<SltRecord> records) {
            this.name = name;
            this.records = records;
        }

        void run() {
            if (options.views()) collectViews();
            int index = 0;
            try {
                if (options.views()) createPendingViews(-1);
                for (; index < records.size(); index++) {
                    SltRecord r = records.get(index);
                    if (!applies(r)) {
                        outcome.skip(null);
                        continue;
                    }
                    if (r instanceof SltRecord.Halt) break;
                    SkipList.Entry skip = options.skipList().match(name, r, liveViews);
                    if (skip != null) {
                        outcome.skip("skip list: " + skip.reason());
                        if (options.verbose() && out != null) {
                            out.println(location(r) + ": skipped by " + skip.origin() + ": " + skip.reason());
                        }
                        // a skipped record that would have dropped the views ends no window of views
                        if (options.views() && dropsViews(sqlOf(r))) createPendingViews(index);
                        continue;
                    }
                    current = index;
                    try {
                        step(index, r);
                    } catch (Abandon a) {
                        throw a;
                    } catch (VirtualMachineError e) {
                        throw new Abandon("the runner ran out of resources: " + e, traceOf(e));
                    } catch (RuntimeException | Error e) {
                        // the runner's own failure on what the engine gave (a value it cannot
                        // render, say): this record fails with it, and the file goes on
                        crash(r, sqlOf(r), e);
                    }
                }
            } catch (Abandon a) {
                abandoned = true;
                SltRecord r = records.get(index);
                report(new Failure(where(r), Kind.CRASH, a.getMessage() + "; the rest of the file is not run", sqlOf(r), null, a.detail));
                for (int k = index + 1; k < records.size(); k++) {
                    if (records.get(k) instanceof SltRecord.Halt) break;
                    outcome.skip("not run: the file stopped at an earlier record");
                }
            }
        }

        private void step(int index, SltRecord r) {
            switch (r) {
                case SltRecord.Statement s -> {
                    beforeCatalogChange(s.sql());
                    Exec e = exec(main, s.sql());
                    if (s.expectError()) expectError(r, s.sql(), s.errorPattern(), e);
                    else if (e.crash() != null) crash(r, s.sql(), e.crash());
                    else if (e.error() != null) fail(r, kindOf(e.error()), "statement failed", s.sql(), "ok", e.error().render(s.sql()));
                    else outcome.passed++;
                    if (e.error() == null && e.crash() == null) SkipList.track(s.sql(), liveViews);
                    afterStatement(index, s.sql());
                }
                case SltRecord.Query q -> {
                    beforeCatalogChange(q.sql());
                    query(index, q);
                    afterStatement(index, q.sql());
                }
                case SltRecord.HashThreshold h -> threshold = h.threshold();
                case SltRecord.Halt h -> { }
                case SltRecord.Unknown u -> outcome.skip("unknown record '" + u.text() + "'");
            }
        }

        private void query(int index, SltRecord.Query q) {
            Exec e = exec(main, q.sql());
            if (q.expectError()) {
                expectError(q, q.sql(), q.errorPattern(), e);
                return;
            }
            View view = views.get(index);
            if (view != null && view.state == ViewState.PENDING) createView(view);
            try {
                if (e.crash() != null) {
                    crash(q, q.sql(), e.crash());
                    return;
                }
                if (e.error() != null) {
                    fail(q, kindOf(e.error()), "query failed", q.sql(), expectedText(q), e.error().render(q.sql()));
                    return;
                }
                Result result = e.results().isEmpty() ? null : e.results().get(e.results().size() - 1);
                if (result == null || !result.hasRows()) {
                    fail(q, Kind.WRONG, "query returned no rows but " + (result == null ? "nothing" : result.tag()), q.sql(), expectedText(q), null);
                    return;
                }
                if (result.columns().size() != q.types().length()) {
                    fail(q, Kind.WRONG, "wrong number of columns: expected " + q.types().length() + " (" + q.types() + "), got "
                            + result.columns().size() + " " + result.columns(), q.sql(), null, null);
                    return;
                }
                List<List<String>> rows = SltValues.renderRows(result.rows(), result.types(), q.types());
                List<List<String>> sortedRows = new ArrayList<>(rows);
                if (q.sort() == SltRecord.SortMode.ROWSORT) sortedRows.sort(SltValues.ROW_ORDER);
                List<String> values = SltValues.values(rows, q.sort());
                boolean ok = SltValues.matches(q.expected(), sortedRows, values);
                if (!ok) {
                    fail(q, Kind.WRONG, "wrong result", q.sql(), expectedText(q), actualText(q, sortedRows, values));
                    return;
                }
                if (q.label() != null) {
                    String hash = SltValues.hashLine(values);
                    String seen = labels.putIfAbsent(q.label(), hash + "\u0000" + location(q));
                    if (seen != null && !seen.startsWith(hash + "\u0000")) {
                        fail(q, Kind.WRONG, "label " + q.label() + " hashes differently from " + seen.substring(seen.indexOf('\u0000') + 1),
                                q.sql(), seen.substring(0, seen.indexOf('\u0000')), hash);
                        return;
                    }
                }
                if (view == null) {
                    outcome.passed++;
                    return;
                }
                checkView(q, view, rows);
            } finally {
                if (view != null) dropView(view, ViewState.DONE);
            }
        }

        private void checkView(SltRecord.Query q, View view, List<List<String>> rows) {
            if (view.state != ViewState.CREATED) {
                if (view.lastCrash != null) {
                    crash(q, view.ddl(), view.lastCrash);
                } else if (view.lastError != null && view.lastError.sqlState().equals("0A000")) {
                    outcome.skip("not maintainable as a view: " + view.lastError.getMessage());
                } else {
                    SqlException err = view.lastError;
                    fail(q, err == null ? Kind.ERROR : kindOf(err), "the query cannot be created as a materialized view", view.ddl(),
                            "CREATE MATERIALIZED VIEW", err == null ? "?" : err.render(view.ddl()));
                }
                return;
            }
            if (main.transactionStatus() != 'I') {
                outcome.skip("view not compared: the query runs inside a transaction block");
                return;
            }
            String read = "SELECT * FROM public." + view.name();
            Exec e = exec(aux, read);
            if (e.crash() != null) {
                crash(q, read, e.crash());
                return;
            }
            if (e.error() != null) {
                fail(q, kindOf(e.error()), "reading view " + view.name() + " failed", q.sql(), null, e.error().render(read));
                return;
            }
            Result r = e.results().get(e.results().size() - 1);
            List<List<String>> viewRows = SltValues.renderRows(r.rows(), r.types(), q.types());
            List<List<String>> want = new ArrayList<>(rows);
            want.sort(SltValues.ROW_ORDER);
            viewRows.sort(SltValues.ROW_ORDER);
            if (want.equals(viewRows)) {
                outcome.passed++;
            } else {
                fail(q, Kind.WRONG, "materialized view " + view.name() + " differs from the query (rows as sorted multisets)",
                        q.sql(), rowsText(want), rowsText(viewRows));
            }
        }

        private void expectError(SltRecord r, String sql, String pattern, Exec e) {
            if (e.crash() != null) {
                crash(r, sql, e.crash());
            } else if (e.error() == null) {
                fail(r, Kind.WRONG, "succeeded, but an error was expected", sql, pattern == null ? "an error" : "error " + pattern, "ok");
            } else if (pattern != null && !errorMatches(e.error(), pattern)) {
                fail(r, Kind.WRONG, "wrong error", sql, "error " + pattern, e.error().render(sql));
            } else {
                outcome.passed++;
            }
        }

        // ---- views

        private void collectViews() {
            int n = 0;
            for (int k = 0; k < records.size(); k++) {
                if (records.get(k) instanceof SltRecord.Query q && !q.expectError() && applies(q)
                        && options.skipList().match(name, q, Map.of()) == null) {
                    String kw = firstKeyword(q.sql());
                    if (kw.equals("SELECT") || kw.equals("WITH") || kw.equals("VALUES") || kw.equals("(")) {
                        views.put(k, new View(++n, q));
                    }
                }
            }
        }

        /**
         * Tries to create every pending view whose query comes after {@code index} and before the
         * next record that drops the views ({@link #dropsViews}). A view whose query lies beyond
         * that record would be dropped there and made again after it, so creating it now only
         * costs: every write until then maintains it, and every CREATE tries it again. The views
         * a query sees are the same either way; what changes is that a file of many DROPs keeps a
         * few dozen views alive instead of all of them (index/delete and index/view did not
         * finish in 15 minutes with all of them).
         */
        private void createPendingViews(int index) {
            int end = nextViewDrop(index);
            for (var entry : views.subMap(index + 1, end).entrySet()) {
                if (entry.getValue().state == ViewState.PENDING) createView(entry.getValue());
            }
        }

        /**
         * The index of the first record after {@code index} that will drop the views (one that
         * applies, is not skipped by the list as things stand now and {@link #dropsViews}), or the
         * number of records. A record the skip list does skip when its turn comes extends the
         * window then ({@link #run}).
         */
        private int nextViewDrop(int index) {
            for (int k = index + 1; k < records.size(); k++) {
                SltRecord r = records.get(k);
                if (r instanceof SltRecord.Halt) return k;
                String sql = sqlOf(r);
                if (applies(r) && dropsViews(sql) && options.skipList().match(name, r, liveViews) == null) return k;
            }
            return records.size();
        }

        private void createView(View v) {
            Exec e = exec(aux, v.ddl());
            v.lastError = e.error();
            v.lastCrash = e.crash();
            if (e.error() == null && e.crash() == null) {
                v.state = ViewState.CREATED;
                if (options.verbose() && out != null) {
                    out.println(name + ":" + (current < 0 ? 0 : records.get(current).line()) + ": created " + v.name()
                            + " for the query at line " + v.query.line());
                }
            }
        }

        private void dropView(View v, ViewState next) {
            if (v.state == ViewState.CREATED) exec(aux, "DROP MATERIALIZED VIEW IF EXISTS public." + v.name());
            v.state = next;
        }

        private void beforeCatalogChange(String sql) {
            if (!options.views() || !dropsViews(sql)) return;
            for (View v : views.values()) if (v.state == ViewState.CREATED) dropView(v, ViewState.PENDING);
        }

        /** Whether the runner drops its views before {@code sql} (and makes them again after it). */
        private static boolean dropsViews(String sql) {
            String kw = firstKeyword(sql);
            return kw.equals("DROP") || kw.equals("ALTER") || kw.equals("SHOW") || setsSearchPath(sql);
        }

        /** Whether {@code sql} sets or resets search_path: the views are made again under the new one, which the view session takes too. */
        private static boolean setsSearchPath(String sql) {
            String s = sql.strip().toLowerCase(java.util.Locale.ROOT);
            return (s.startsWith("set ") || s.startsWith("reset ")) && s.contains("search_path");
        }

        private void afterStatement(int index, String sql) {
            if (!options.views()) return;
            String kw = firstKeyword(sql);
            if (setsSearchPath(sql)) exec(aux, sql);
            if (kw.equals("CREATE") || kw.equals("DROP") || kw.equals("ALTER") || kw.equals("SHOW") || setsSearchPath(sql)) createPendingViews(index);
        }

        // ---- execution

        private Exec exec(Tributary.Connection c, String sql) {
            Future<List<Result>> f = worker.submit((Callable<List<Result>>) () -> c.execute(sql));
            try {
                return new Exec(f.get(options.timeout().toMillis(), TimeUnit.MILLISECONDS), null, null);
            } catch (ExecutionException ex) {
                Throwable cause = ex.getCause();
                if (cause instanceof SqlException se) return new Exec(null, se, null);
                return new Exec(null, null, cause);
            } catch (TimeoutException ex) {
                // where everything was is the only clue to a hang, so it is taken before the cancel
                String where = threadsNow();
                f.cancel(true);
                throw new Abandon("no answer after " + options.timeout().toSeconds() + " s", where);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new Abandon("interrupted", null);
            }
        }

        @Override
        public void close() {
            worker.shutdownNow();
            if (abandoned) {
                Thread t = new Thread(db::close, "slt-close");
                t.setDaemon(true);
                t.start();
            } else {
                db.close();
            }
        }

        // ---- reporting

        private boolean applies(SltRecord r) {
            for (SltRecord.Condition c : r.conditions()) {
                if (c.only() != ENGINE_NAMES.contains(c.engine())) return false;
            }
            return true;
        }

        private String location(SltRecord r) {
            return name + ":" + r.line();
        }

        private String where(SltRecord r) {
            return location(r) + (options.views() ? " (--views)" : "");
        }

        /**
         * Counts and prints a failure; an internal one (a crash, XX000) after which a worker of
         * the database has stopped ends the file instead, since every later record would fail
         * with XX000 too.
         */
        private void fail(SltRecord r, Kind kind, String what, String sql, String expected, String actual) {
            if (kind == Kind.CRASH) {
                String stopped = stoppedWorkers();
                if (stopped != null) throw new Abandon(what + ", and " + stopped, actual);
            }
            report(new Failure(where(r), kind, what, sql, expected, actual));
        }

        private void report(Failure f) {
            outcome.fail(f);
            if (out != null) out.print(f.render());
        }

        private void crash(SltRecord r, String sql, Throwable t) {
            fail(r, Kind.CRASH, "engine crashed", sql, null, traceOf(t));
        }

        /** Which of the database's workers have stopped ({@code worker thread NAME has stopped}), or null. */
        private String stoppedWorkers() {
            List<String> dead = new ArrayList<>();
            for (Thread t : db.workerThreads()) if (!t.isAlive()) dead.add(t.getName());
            return dead.isEmpty() ? null : "worker thread " + String.join(", ", dead) + (dead.size() == 1 ? " has" : " have") + " stopped";
        }

        /** The stacks of the thread running the record and of the database's workers, a few frames each. */
        private String threadsNow() {
            StringBuilder b = new StringBuilder();
            List<Thread> threads = new ArrayList<>();
            if (execThread != null) threads.add(execThread);
            threads.addAll(db.workerThreads());
            for (Thread t : threads) {
                b.append(b.isEmpty() ? "" : "\n").append(t.getName()).append(" (").append(t.getState()).append(')');
                StackTraceElement[] st = t.getStackTrace();
                for (int k = 0; k < Math.min(8, st.length); k++) b.append("\n    at ").append(st[k]);
            }
            return b.toString();
        }
    }

    static Kind kindOf(SqlException e) {
        return switch (e.sqlState()) {
            case "42601" -> Kind.PARSE;
            case "XX000" -> Kind.CRASH;
            case "0A000" -> Kind.UNSUPPORTED;
            default -> Kind.ERROR;
        };
    }

    /**
     * Whether an error is what {@code statement error <pattern>} asks for: a five-character
     * SQLSTATE equal to the error's, or a regular expression found in the message (or in
     * {@code SQLSTATE: message}).
     */
    static boolean errorMatches(SqlException e, String pattern) {
        if (pattern.matches("[0-9A-Z]{5}")) return e.sqlState().equals(pattern);
        String full = e.sqlState() + ": " + e.getMessage();
        try {
            Pattern p = Pattern.compile(pattern);
            return p.matcher(e.getMessage()).find() || p.matcher(full).find();
        } catch (PatternSyntaxException bad) {
            return full.contains(pattern);
        }
    }

    /** The first keyword of a statement, upper case, skipping comments; {@code (} for a parenthesis. */
    static String firstKeyword(String sql) {
        int k = 0;
        while (k < sql.length()) {
            char c = sql.charAt(k);
            if (Character.isWhitespace(c)) {
                k++;
            } else if (sql.startsWith("--", k)) {
                int nl = sql.indexOf('\n', k);
                k = nl < 0 ? sql.length() : nl + 1;
            } else if (sql.startsWith("/*", k)) {
                int end = sql.indexOf("*/", k + 2);
                k = end < 0 ? sql.length() : end + 2;
            } else {
                break;
            }
        }
        if (k < sql.length() && sql.charAt(k) == '(') return "(";
        int e = k;
        while (e < sql.length() && Character.isLetter(sql.charAt(e))) e++;
        return sql.substring(k, e).toUpperCase(Locale.ROOT);
    }

    private static String traceOf(Throwable t) {
        StringBuilder b = new StringBuilder(t.toString());
        StackTraceElement[] st = t.getStackTrace();
        for (int k = 0; k < Math.min(6, st.length); k++) b.append("\n    at ").append(st[k]);
        if (t.getCause() != null && t.getCause() != t) b.append("\ncaused by ").append(t.getCause());
        return b.toString();
    }

    private static String sqlOf(SltRecord r) {
        return switch (r) {
            case SltRecord.Statement s -> s.sql();
            case SltRecord.Query q -> q.sql();
            default -> "";
        };
    }

    private static String expectedText(SltRecord.Query q) {
        return q.expected().isEmpty() ? "(no rows)" : String.join("\n", q.expected());
    }

    private String actualText(SltRecord.Query q, List<List<String>> sortedRows, List<String> values) {
        if (SltValues.isHashLine(q.expected())) return SltValues.hashLine(values) + "\n" + rowsText(sortedRows);
        if (q.sort() == SltRecord.SortMode.VALUESORT) return values.isEmpty() ? "(no rows)" : String.join("\n", values);
        return rowsText(sortedRows);
    }

    private static String rowsText(List<List<String>> rows) {
        if (rows.isEmpty()) return "(no rows)";
        StringBuilder b = new StringBuilder();
        for (List<String> r : rows) b.append(b.isEmpty() ? "" : "\n").append(String.join(" ", r));
        return b.toString();
    }
}
