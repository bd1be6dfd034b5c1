package dev.tributary.server.slt;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Records of the public corpus whose behaviour is genuinely SQLite-only, each with the reason: the
 * runner skips a record this list matches (it is not run, and is counted as skipped with the
 * reason) instead of anyone editing the test files.
 *
 * <p>The default list is the classpath resource {@value #DEFAULT_RESOURCE}. The format is one
 * entry per line; blank lines and lines starting with {@code #} are ignored:
 *
 * <pre>
 * entry   := [ "in" GLOB ] matcher REASON
 * matcher := "sql" "/" REGEX "/"              the regex is found in the record's SQL (case-insensitive,
 *                                             "." matches newlines; write "\/" for a slash)
 *          | "at" GLOB ":" LINE               the record whose statement/query line is LINE
 *          | "drop-view-with-dependents"      a {@code statement ok} of DROP VIEW without CASCADE of a view
 *                                             that another view created earlier in the file (and not
 *                                             dropped) reads; a {@code statement error} of it expects
 *                                             PostgreSQL's behaviour and is not matched
 * </pre>
 *
 * <p>GLOB is a {@link java.nio.file.FileSystem#getPathMatcher glob} over the file's path with
 * {@code /} separators; it matches the whole path or any tail of it that starts after a {@code /}
 * (so {@code evidence/in1.test} matches {@code ../shared/sqllogictest/test/evidence/in1.test}).
 * REASON is the rest of the line and must not be empty. Only {@code statement} and {@code query}
 * records are matched.
 */
public final class SkipList {
    /** Where the default list is on the classpath. */
    public static final String DEFAULT_RESOURCE = "/slt/sqlite-only.txt";

    /** One entry: what it matches, why, and where it was written ({@code source:line}). */
    public record Entry(String scope, Rule rule, String reason, String origin) {
        /** What an entry tests, given the file, the record and the views the file has created so far. */
        public interface Rule {
            boolean test(String file, SltRecord record, String sql, Map<String, String> liveViews);
        }
    }

    private static final SkipList NONE = new SkipList(List.of());

    private final List<Entry> entries;

    private SkipList(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** The empty list: nothing is skipped. */
    public static SkipList none() {
        return NONE;
    }

    /** The list shipped with the runner ({@value #DEFAULT_RESOURCE}). */
    public static SkipList defaults() {
        try (InputStream in = SkipList.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) throw new IllegalStateException("the default skip list " + DEFAULT_RESOURCE + " is not on the classpath");
            return parse("classpath:" + DEFAULT_RESOURCE, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The list in {@code file}. */
    public static SkipList load(Path file) throws IOException {
        return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
    }

    public List<Entry> entries() {
        return entries;
    }

    /**
     * Parses a list; {@code source} names it in error messages.
     *
     * @throws IllegalArgumentException on a malformed entry, naming its line
     */
    public static SkipList parse(String source, String text) {
        List<Entry> out = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int k = 0; k < lines.length; k++) {
            String line = lines[k].strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String origin = source + ":" + (k + 1);
            try {
                out.add(entry(line, origin));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(origin + ": " + e.getMessage(), e);
            }
        }
        return new SkipList(out);
    }

    private static Entry entry(String line, String origin) {
        String rest = line;
        String scope = null;
        PathMatcher scopeMatcher = null;
        if (word(rest).equals("in")) {
            rest = after(rest);
            scope = word(rest);
            if (scope.isEmpty()) throw new IllegalArgumentException("'in' needs a file glob");
            scopeMatcher = glob(scope);
            rest = after(rest);
        }
        String kind = word(rest);
        Entry.Rule m;
        switch (kind) {
            case "sql" -> {
                rest = after(rest);
                if (!rest.startsWith("/")) throw new IllegalArgumentException("'sql' needs a /regex/");
                int end = closingSlash(rest);
                if (end < 0) throw new IllegalArgumentException("the regex has no closing /");
                Pattern p = Pattern.compile(rest.substring(1, end).replace("\\/", "/"),
                        Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
                rest = rest.substring(end + 1).strip();
                m = (file, r, sql, views) -> p.matcher(sql).find();
            }
            case "at" -> {
                rest = after(rest);
                String where = word(rest);
                int colon = where.lastIndexOf(':');
                if (colon <= 0) throw new IllegalArgumentException("'at' needs GLOB:LINE");
                PathMatcher g = glob(where.substring(0, colon));
                int lineNo;
                try {
                    lineNo = Integer.parseInt(where.substring(colon + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("'at' needs GLOB:LINE, not " + where);
                }
                rest = after(rest);
                m = (file, r, sql, views) -> r.line() == lineNo && globMatches(g, file);
            }
            case "drop-view-with-dependents" -> {
                rest = after(rest);
                m = (file, r, sql, views) -> r instanceof SltRecord.Statement st && !st.expectError() && dropsViewWithDependents(sql, views);
            }
            default -> throw new IllegalArgumentException("unknown matcher '" + kind + "' (expected sql, at or drop-view-with-dependents)");
        }
        if (rest.isEmpty()) throw new IllegalArgumentException("the entry has no reason");
        PathMatcher sm = scopeMatcher;
        Entry.Rule scoped = sm == null ? m : (file, r, sql, views) -> globMatches(sm, file) && m.test(file, r, sql, views);
        return new Entry(scope, scoped, rest, origin);
    }

    private static String word(String s) {
        int sp = 0;
        while (sp < s.length() && !Character.isWhitespace(s.charAt(sp))) sp++;
        return s.substring(0, sp);
    }

    private static String after(String s) {
        return s.substring(word(s).length()).strip();
    }

    private static int closingSlash(String s) {
        for (int k = 1; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '\\') k++;
            else if (c == '/') return k;
        }
        return -1;
    }

    private static PathMatcher glob(String g) {
        return FileSystems.getDefault().getPathMatcher("glob:" + g);
    }

    /** Whether the glob matches the whole of {@code file} or a tail of it after a {@code /}. */
    static boolean globMatches(PathMatcher g, String file) {
        String f = file.replace('\\', '/');
        int from = 0;
        while (true) {
            String tail = f.substring(from);
            if (!tail.isEmpty() && g.matches(Path.of(tail))) return true;
            int slash = f.indexOf('/', from);
            if (slash < 0) return false;
            from = slash + 1;
        }
    }

    /**
     * The first entry that matches {@code record} of {@code file}, or null. {@code liveViews}
     * maps each view the file has created and not yet dropped (lower-case name) to its defining SQL.
     */
    public Entry match(String file, SltRecord record, Map<String, String> liveViews) {
        String sql = switch (record) {
            case SltRecord.Statement s -> s.sql();
            case SltRecord.Query q -> q.sql();
            default -> null;
        };
        if (sql == null) return null;
        for (Entry e : entries) {
            if (e.rule().test(file, record, sql, liveViews)) return e;
        }
        return null;
    }

    // ---- the views a file creates, for drop-view-with-dependents

    private static final Pattern CREATE_VIEW = Pattern.compile(
            "^\\s*CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:TEMP\\s+|TEMPORARY\\s+)?(?:MATERIALIZED\\s+)?VIEW\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?"
                    + "([\\w.\"]+)(.*)$", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern DROP_VIEW = Pattern.compile(
            "^\\s*DROP\\s+(MATERIALIZED\\s+)?VIEW\\s+(?:IF\\s+EXISTS\\s+)?(.*?)\\s*;?\\s*$", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    /** Updates {@code liveViews} after {@code sql} ran successfully: CREATE VIEW adds, DROP VIEW removes. */
    static void track(String sql, Map<String, String> liveViews) {
        Matcher c = CREATE_VIEW.matcher(sql);
        if (c.matches()) {
            liveViews.put(bare(c.group(1)), c.group(2));
            return;
        }
        Matcher d = DROP_VIEW.matcher(sql);
        if (d.matches()) {
            for (String n : droppedNames(d.group(2))) liveViews.remove(n);
        }
    }

    private static List<String> droppedNames(String list) {
        String l = list.replaceAll("(?i)\\s+(CASCADE|RESTRICT)\\s*$", "");
        List<String> names = new ArrayList<>();
        for (String n : l.split(",")) if (!n.isBlank()) names.add(bare(n.strip()));
        return names;
    }

    private static String bare(String name) {
        String n = name.replace("\"", "");
        int dot = n.lastIndexOf('.');
        return (dot >= 0 ? n.substring(dot + 1) : n).toLowerCase(Locale.ROOT);
    }

    /**
     * Whether {@code sql} is a {@code DROP VIEW} without {@code CASCADE} of a view that another
     * live view reads (its definition names it as a whole word). SQLite drops it and leaves the
     * other view dangling; PostgreSQL refuses (2BP01).
     */
    static boolean dropsViewWithDependents(String sql, Map<String, String> liveViews) {
        Matcher d = DROP_VIEW.matcher(sql);
        if (!d.matches() || d.group(1) != null) return false;
        if (d.group(2).strip().toUpperCase(Locale.ROOT).endsWith("CASCADE")) return false;
        List<String> dropped = droppedNames(d.group(2));
        for (String name : dropped) {
            if (!liveViews.containsKey(name)) continue;
            Pattern ref = Pattern.compile("(?<![\\w$])\"?" + Pattern.quote(name) + "\"?(?![\\w$])", Pattern.CASE_INSENSITIVE);
            for (var v : liveViews.entrySet()) {
                if (!dropped.contains(v.getKey()) && ref.matcher(v.getValue()).find()) return true;
            }
        }
        return false;
    }
}
