package dev.tributary.server.shell;

import dev.tributary.sql.types.SqlType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints a query result exactly as psql 15 does with its default {@code \pset border 1} and
 * {@code linestyle ascii}: the aligned table, {@code -A} unaligned output, and {@code -t}.
 *
 * <p>Aligned: each header centred over its column, {@code " | "} between columns, a rule of
 * dashes joined by {@code -+-}, cells padded to the column's width (left-aligned cells are not
 * padded in the last column), then {@code (N rows)} and a blank line. A cell with newlines takes
 * one line per line of text, every line but its last ending in {@code +}. As psql shows them,
 * a tab becomes spaces to the next multiple of 8 within its line, a carriage return shows as
 * {@code \r} and other control characters as {@code \xHH}. Width is the number of code points
 * (psql counts East Asian wide characters twice; this does not).
 *
 * <p>Unaligned: the header names joined by the field separator, each row's cells joined by it,
 * then {@code (N rows)}, with no blank line and no escaping. With {@code -t} only the rows are
 * printed (aligned output still ends with its blank line).
 *
 * <p>Expanded ({@code \x}): each row a record, {@code -[ RECORD n ]} over the template rule of
 * its name and value columns, then a line per column, its name padded, {@code " | "}, its value;
 * no row count but {@code (0 rows)} for none; unaligned, {@code name|value} lines with a blank
 * line between records.
 *
 * <p>Cells are already rendered text; null is SQL NULL, shown as {@link ShellOutput#nullString()}.
 * Command tags ({@code INSERT 0 3}) are the caller's to print.
 */
public final class TablePrinter {
    /** Where a column's cells sit: psql right-aligns numbers and left-aligns everything else. */
    public enum Align {
        LEFT,
        RIGHT;

        /** psql's alignment for a column of {@code type}: right for integers, floats and numeric. */
        public static Align of(SqlType type) {
            return type.isNumeric() ? RIGHT : LEFT;
        }
    }

    private final ShellOutput options;

    public TablePrinter(ShellOutput options) {
        this.options = options;
    }

    /** The result as psql prints it. */
    public String format(List<String> columns, List<Align> aligns, List<String[]> rows) {
        StringBuilder b = new StringBuilder();
        print(b, columns, aligns, rows);
        return b.toString();
    }

    /**
     * Prints the result to {@code out}.
     *
     * @param columns the column names
     * @param aligns one per column
     * @param rows each with one cell per column, null for SQL NULL
     */
    public void print(Appendable out, List<String> columns, List<Align> aligns, List<String[]> rows) {
        if (aligns.size() != columns.size()) {
            throw new IllegalArgumentException(columns.size() + " columns need " + columns.size() + " alignments; got " + aligns.size());
        }
        for (String[] row : rows) {
            if (row.length != columns.size()) {
                throw new IllegalArgumentException("a row of " + row.length + " cells in a result of " + columns.size() + " columns");
            }
        }
        StringBuilder b = new StringBuilder();
        if (options.expanded()) expanded(b, columns, rows);
        else if (options.aligned()) aligned(b, columns, aligns, rows);
        else unaligned(b, columns, rows);
        try {
            out.append(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String cell(String value) {
        return value == null ? options.nullString() : value;
    }

    private void unaligned(StringBuilder b, List<String> columns, List<String[]> rows) {
        String sep = options.fieldSeparator();
        if (!options.tuplesOnly()) b.append(String.join(sep, columns)).append('\n');
        for (String[] row : rows) {
            for (int j = 0; j < row.length; j++) {
                if (j > 0) b.append(sep);
                b.append(cell(row[j]));
            }
            b.append('\n');
        }
        if (!options.tuplesOnly()) footer(b, rows.size());
    }

    private void expanded(StringBuilder b, List<String> columns, List<String[]> rows) {
        if (!options.aligned()) {
            String sep = options.fieldSeparator();
            for (int r = 0; r < rows.size(); r++) {
                if (r > 0) b.append('\n');
                for (int j = 0; j < columns.size(); j++) b.append(columns.get(j)).append(sep).append(cell(rows.get(r)[j])).append('\n');
            }
            return;
        }
        if (rows.isEmpty()) {
            if (!options.tuplesOnly()) b.append("(0 rows)\n");
            b.append('\n');
            return;
        }
        int names = 0;
        for (String c : columns) names = Math.max(names, maxWidth(displayLines(c)));
        int values = 0;
        for (String[] row : rows) for (String v : row) values = Math.max(values, maxWidth(displayLines(cell(v))));
        String rule = "-".repeat(names + 1) + "+" + "-".repeat(values + 1);
        for (int r = 0; r < rows.size(); r++) {
            if (!options.tuplesOnly()) {
                // the record's title over the rule, which shows where it is longer
                String title = "-[ RECORD " + (r + 1) + " ]";
                b.append(title.length() >= rule.length() ? title : title + rule.substring(title.length())).append('\n');
            } else if (r > 0) {
                b.append(rule).append('\n');
            }
            for (int j = 0; j < columns.size(); j++) {
                String name = String.join(" ", displayLines(columns.get(j)));
                pad(b.append(name), names - width(name)).append(" | ");
                b.append(String.join("\n" + " ".repeat(names) + " : ", displayLines(cell(rows.get(r)[j])))).append('\n');
            }
        }
        b.append('\n');
    }

    private static void footer(StringBuilder b, int rows) {
        b.append('(').append(rows).append(rows == 1 ? " row)" : " rows)").append('\n');
    }

    private void aligned(StringBuilder b, List<String> columns, List<Align> aligns, List<String[]> rows) {
        int n = columns.size();
        List<List<String>> headers = new ArrayList<>(n);
        for (String c : columns) headers.add(displayLines(c));
        List<List<List<String>>> cells = new ArrayList<>(rows.size());
        for (String[] row : rows) {
            List<List<String>> lines = new ArrayList<>(n);
            for (String v : row) lines.add(displayLines(cell(v)));
            cells.add(lines);
        }
        int[] widths = new int[n];
        for (int j = 0; j < n; j++) {
            widths[j] = maxWidth(headers.get(j));
            for (List<List<String>> row : cells) widths[j] = Math.max(widths[j], maxWidth(row.get(j)));
        }
        if (!options.tuplesOnly()) {
            header(b, headers, widths);
            b.append('-');
            for (int j = 0; j < n; j++) {
                b.append("-".repeat(widths[j]));
                if (j < n - 1) b.append("-+-");
            }
            b.append("-\n");
        }
        for (List<List<String>> row : cells) dataRow(b, row, aligns, widths);
        if (!options.tuplesOnly()) footer(b, rows.size());
        b.append('\n');
    }

    /** The header lines: each name centred (odd space on the right), {@code +} where a name goes on. */
    private static void header(StringBuilder b, List<List<String>> headers, int[] widths) {
        int n = headers.size();
        int height = 1;
        for (List<String> h : headers) height = Math.max(height, h.size());
        for (int k = 0; k < height; k++) {
            for (int j = 0; j < n; j++) {
                List<String> lines = headers.get(j);
                b.append(' ');
                if (k < lines.size()) {
                    String text = lines.get(k);
                    int space = widths[j] - width(text);
                    pad(b, space / 2).append(text);
                    pad(b, (space + 1) / 2).append(k < lines.size() - 1 ? '+' : ' ');
                } else {
                    pad(b, widths[j]).append(' ');
                }
                if (j < n - 1) b.append('|');
            }
            b.append('\n');
        }
    }

    /** One row: as many lines as its tallest cell; a cell whose text goes on ends its line with {@code +}. */
    private static void dataRow(StringBuilder b, List<List<String>> row, List<Align> aligns, int[] widths) {
        int n = row.size();
        int height = 1;
        for (List<String> lines : row) height = Math.max(height, lines.size());
        for (int k = 0; k < height; k++) {
            for (int j = 0; j < n; j++) {
                List<String> lines = row.get(j);
                boolean last = j == n - 1;
                b.append(' ');
                if (k >= lines.size()) {
                    if (!last) pad(b, widths[j]).append(' ');
                } else {
                    String text = lines.get(k);
                    boolean more = k < lines.size() - 1;
                    int space = widths[j] - width(text);
                    if (aligns.get(j) == Align.RIGHT) {
                        pad(b, space).append(text);
                    } else {
                        b.append(text);
                        if (!last || more) pad(b, space);
                    }
                    if (more) b.append('+');
                    else if (!last) b.append(' ');
                }
                if (!last) b.append('|');
            }
            b.append('\n');
        }
    }

    private static StringBuilder pad(StringBuilder b, int spaces) {
        for (int i = 0; i < spaces; i++) b.append(' ');
        return b;
    }

    private static int maxWidth(List<String> lines) {
        int w = 0;
        for (String l : lines) w = Math.max(w, width(l));
        return w;
    }

    private static int width(String s) {
        return s.codePointCount(0, s.length());
    }

    /** The lines of {@code text} as psql displays them: tabs expanded, control characters escaped. */
    static List<String> displayLines(String text) {
        List<String> lines = new ArrayList<>(1);
        StringBuilder line = new StringBuilder();
        int column = 0;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            if (c == '\n') {
                lines.add(line.toString());
                line.setLength(0);
                column = 0;
            } else if (c == '\t') {
                do {
                    line.append(' ');
                    column++;
                } while (column % 8 != 0);
            } else if (c == '\r') {
                line.append("\\r");
                column += 2;
            } else if (c < 0x20 || c == 0x7f) {
                line.append("\\x").append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
                column += 4;
            } else {
                line.appendCodePoint(c);
                column++;
            }
        }
        lines.add(line.toString());
        return lines;
    }
}
