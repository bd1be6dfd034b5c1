package dev.tributary.server.slt;

import dev.tributary.server.slt.SltRecord.Condition;
import dev.tributary.server.slt.SltRecord.SortMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the public sqllogictest format: records separated by blank lines, {@code #} comments,
 * {@code skipif}/{@code onlyif} lines before a record, a query's SQL ended by {@code ----} and its
 * result ended by a blank line.
 *
 * <p>Malformed records do not stop the parse: they become {@link SltRecord.Unknown}, which the
 * runner reports as skipped, so one odd line never hides the rest of a file.
 */
public final class SltParser {
    private final String[] lines;
    private int i;

    private SltParser(String text) {
        this.lines = text.split("\r?\n", -1);
    }

    /** The records of {@code text}, in order. */
    public static List<SltRecord> parse(String text) {
        return new SltParser(text).records();
    }

    private static boolean blank(String s) {
        return s.isBlank();
    }

    private static boolean comment(String s) {
        return s.stripLeading().startsWith("#");
    }

    private List<SltRecord> records() {
        List<SltRecord> out = new ArrayList<>();
        while (true) {
            while (i < lines.length && (blank(lines[i]) || comment(lines[i]))) i++;
            if (i >= lines.length) return out;
            List<Condition> conditions = new ArrayList<>();
            while (i < lines.length && !blank(lines[i])) {
                String[] w = words(lines[i]);
                if (w[0].equals("skipif") || w[0].equals("onlyif")) {
                    conditions.add(new Condition(w[0].equals("onlyif"), w.length > 1 ? w[1].toLowerCase(Locale.ROOT) : ""));
                    i++;
                } else if (comment(lines[i])) {
                    i++;
                } else {
                    break;
                }
            }
            if (i >= lines.length || blank(lines[i])) continue;
            out.add(record(List.copyOf(conditions)));
        }
    }

    private static String[] words(String line) {
        return line.strip().split("\\s+");
    }

    private SltRecord record(List<Condition> conditions) {
        int line = i + 1;
        String head = lines[i].strip();
        String[] w = words(head);
        i++;
        switch (w[0]) {
            case "statement" -> {
                String sql = sqlUntil(false);
                boolean error = w.length > 1 && w[1].equals("error");
                if (w.length < 2 || !(error || w[1].equals("ok"))) return new SltRecord.Unknown(line, conditions, head);
                return new SltRecord.Statement(line, conditions, error, error ? rest(head, 2) : null, sql);
            }
            case "query" -> {
                if (w.length > 1 && w[1].equals("error")) {
                    String sql = sqlUntil(true);
                    skipResult();
                    return new SltRecord.Query(line, conditions, "", SortMode.NOSORT, null, true, rest(head, 2), sql, List.of());
                }
                String types = w.length > 1 ? w[1] : "";
                SortMode sort = SortMode.NOSORT;
                String label = null;
                int k = 2;
                if (w.length > k) {
                    switch (w[k]) {
                        case "nosort" -> k++;
                        case "rowsort" -> { sort = SortMode.ROWSORT; k++; }
                        case "valuesort" -> { sort = SortMode.VALUESORT; k++; }
                        default -> { }
                    }
                }
                if (w.length > k) label = w[k];
                String sql = sqlUntil(true);
                List<String> expected = new ArrayList<>();
                if (i < lines.length && lines[i].strip().equals("----")) {
                    i++;
                    while (i < lines.length && !blank(lines[i])) expected.add(lines[i++]);
                }
                return new SltRecord.Query(line, conditions, types, sort, label, false, null, sql, List.copyOf(expected));
            }
            case "hash-threshold" -> {
                skipResult();
                try {
                    return new SltRecord.HashThreshold(line, conditions, Integer.parseInt(w[1]));
                } catch (RuntimeException e) {
                    return new SltRecord.Unknown(line, conditions, head);
                }
            }
            case "halt" -> {
                skipResult();
                return new SltRecord.Halt(line, conditions);
            }
            default -> {
                skipResult();
                return new SltRecord.Unknown(line, conditions, head);
            }
        }
    }

    /** The text of {@code head} after its first {@code n} words, or null if there is none. */
    private static String rest(String head, int n) {
        String s = head.strip();
        for (int k = 0; k < n; k++) {
            int sp = s.indexOf(' ');
            if (sp < 0) return null;
            s = s.substring(sp).strip();
        }
        return s.isEmpty() ? null : s;
    }

    /** The SQL lines up to a blank line (or {@code ----} for a query); comment lines dropped. */
    private String sqlUntil(boolean query) {
        StringBuilder b = new StringBuilder();
        while (i < lines.length && !blank(lines[i]) && !(query && lines[i].strip().equals("----"))) {
            if (!comment(lines[i])) {
                if (!b.isEmpty()) b.append('\n');
                b.append(lines[i]);
            }
            i++;
        }
        return b.toString();
    }

    private void skipResult() {
        while (i < lines.length && !blank(lines[i])) i++;
    }
}
