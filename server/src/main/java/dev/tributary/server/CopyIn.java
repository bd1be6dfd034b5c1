package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code COPY table FROM STDIN} under way: the client's data arrives in chunks through
 * {@link #data}, and {@link #finish} writes every row at one time, or none.
 *
 * <p>Rows are parsed as they arrive (so an error names its line as PostgreSQL's does:
 * {@code COPY t, line 3, column b: "x"}); after the first error the rest of the data is only
 * read, and {@link #finish} reports that error with nothing written. Columns not in the COPY's
 * column list take their DEFAULTs; NOT NULL and the primary key are checked as INSERT checks
 * them; in a transaction block the rows join the block.
 */
public final class CopyIn {
    private final Coordinator coordinator;
    private final Session session;
    private final CatalogItem.Table table;
    /** For each field of a line, the table column it fills. */
    private final int[] targets;
    private final List<SqlType> types;
    private final CopyText.Reader reader;
    private final List<Object[]> rows = new ArrayList<>();
    /**
     * For a COPY of every column in order, the rows encoded as they arrive (NOT NULL checked
     * then), instead of {@link #rows}: a million rows are a million small byte strings, not a
     * million arrays of boxed values and their lines' texts; null for other COPYs.
     */
    private final List<dev.tributary.sql.row.Row> encoded;
    private final dev.tributary.sql.row.RowCodec codec;
    private final Statement.CopyOptions options;
    /** The line of each row, for the context of a constraint error found at the end. */
    private long[] lines = new long[1024];
    private int count;
    /** The text of each row, for the context of a NOT NULL error found at the end ({@link #rows}' COPYs only). */
    private final List<String> texts = new ArrayList<>();
    private SqlException error;
    private boolean done;
    /** The line of the header, once read; -1 before. */
    private long seenHeader = -1;

    CopyIn(Coordinator coordinator, Session session, CatalogItem.Table table, int[] targets, Statement.CopyOptions options) {
        this.coordinator = coordinator;
        this.session = session;
        this.table = table;
        this.targets = targets;
        this.options = options;
        this.types = new ArrayList<>();
        for (int t : targets) types.add(table.columns().get(t).type());
        this.reader = new CopyText.Reader(table.name(), options, this::record);
        boolean everyColumn = targets.length == table.columns().size();
        for (int i = 0; i < targets.length && everyColumn; i++) everyColumn = targets[i] == i;
        this.encoded = everyColumn ? new ArrayList<>() : null;
        this.codec = everyColumn ? new dev.tributary.sql.row.RowCodec(types) : null;
    }

    /** The number of fields in each line the client sends (for CopyInResponse). */
    public int fields() {
        return targets.length;
    }

    /** The next chunk of the client's data. */
    public void data(byte[] chunk) {
        if (error != null || done) return;
        try {
            reader.feed(chunk, 0, chunk.length);
        } catch (SqlException e) {
            error = e;
            rows.clear();
            if (encoded != null) encoded.clear();
        }
    }

    /**
     * The end of the data: writes every row (at one new time, or into the open transaction block).
     *
     * @return the result, tagged {@code COPY n}
     * @throws SqlException the first error in the data, or a constraint the rows break; nothing is written
     */
    public Result finish() {
        if (done) throw new IllegalStateException("COPY already finished");
        done = true;
        if (error == null) {
            try {
                reader.finish();
            } catch (SqlException e) {
                error = e;
            }
        }
        return coordinator.finishCopy(session, this, table, targets, rows, encoded, error);
    }

    /** The client gave up (CopyFail): nothing is written. */
    public SqlException fail(String message) {
        done = true;
        rows.clear();
        return coordinator.failCopy(session, new SqlException("57014", "COPY from stdin failed: " + message));
    }

    private void record(long line, CopyText.Reader.LineText text, List<String> fields) {
        if (options.header() != Statement.CopyHeader.NONE && seenHeader < 0) {
            seenHeader = line;
            if (options.header() == Statement.CopyHeader.MATCH) matchHeader(line, text.text(), fields);
            return;
        }
        if (fields.size() > targets.length) {
            throw new SqlException("22P04", "extra data after last expected column").withContext(context(line, text));
        }
        if (fields.size() < targets.length) {
            String missing = table.columns().get(targets[fields.size()]).name();
            throw new SqlException("22P04", "missing data for column \"" + missing + "\"").withContext(context(line, text));
        }
        Object[] values = new Object[targets.length];
        for (int i = 0; i < targets.length; i++) {
            String f = fields.get(i);
            try {
                values[i] = Values.fromText(f, types.get(i));
            } catch (SqlException e) {
                throw e.withContext("COPY " + table.name() + ", line " + line + ", column " + table.columns().get(targets[i]).name() + ": "
                        + (f == null ? "null input" : "\"" + CopyText.shorten(f) + "\""));
            }
        }
        if (count == lines.length) lines = java.util.Arrays.copyOf(lines, count * 2);
        lines[count++] = line;
        if (encoded != null) {
            try {
                Coordinator.checkNotNull(table, values);
            } catch (SqlException e) {
                throw e.withContext(context(line, text));
            }
            encoded.add(codec.encode(values));
            return;
        }
        rows.add(values);
        texts.add(text.text());
    }

    /** {@code COPY t, line n: "text"}, made only for an error. */
    private String context(long line, CopyText.Reader.LineText text) {
        return "COPY " + table.name() + ", line " + line + ": \"" + CopyText.shorten(text.text()) + "\"";
    }

    /** The context of row {@code i}: {@code COPY t, line n: "text"} ({@link #rows}' COPYs). */
    String context(int i) {
        return lineContext(i) + ": \"" + CopyText.shorten(texts.get(i)) + "\"";
    }

    /** The context of row {@code i} without its text: {@code COPY t, line n}. */
    String lineContext(int i) {
        return "COPY " + table.name() + ", line " + lines[i];
    }

    private void matchHeader(long line, String text, List<String> fields) {
        String context = "COPY " + table.name() + ", line " + line + ": \"" + CopyText.shorten(text) + "\"";
        if (fields.size() != targets.length) {
            throw new SqlException("22P04", "wrong number of fields in header line: got " + fields.size() + ", expected " + targets.length).withContext(context);
        }
        for (int i = 0; i < targets.length; i++) {
            String expected = table.columns().get(targets[i]).name();
            String got = fields.get(i);
            if (got == null) {
                throw new SqlException("22P04", "column name mismatch in header line field " + (i + 1) + ": got null value (\"" + options.nullString()
                        + "\"), expected \"" + expected + "\"").withContext(context);
            }
            if (!got.equals(expected)) {
                throw new SqlException("22P04", "column name mismatch in header line field " + (i + 1) + ": got \"" + got + "\", expected \"" + expected + "\"").withContext(context);
            }
        }
    }
}
