package dev.tributary.server;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.IsoTimes;
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
    private final ArrayList<Object[]> rows = new ArrayList<>();
    /**
     * For a COPY of every column in order, the rows encoded as they arrive (NOT NULL checked
     * then), back to back in one slab, instead of {@link #rows}: a million rows are one array of
     * bytes and one of offsets, not a million arrays of boxed values; null for other COPYs.
     */
    private final BytesColumn encoded;
    private final RowCodec.Builder builder;
    /** Per field, how {@link #encodeDirectly} reads it (a COPY of every column only). */
    private final Direct[] direct;
    private final boolean[] notNull;
    private final Statement.CopyOptions options;
    /** The line of each row, for the context of a constraint error found at the end. */
    private long[] lines = new long[1024];
    private int count;
    /** The text of each row, for the context of a NOT NULL error found at the end ({@link #rows}' COPYs only). */
    private final ArrayList<String> texts = new ArrayList<>();
    private SqlException error;
    private boolean done;
    /** Bytes of data received, and the session's {@code max_write_size} (0: none) they are held to. */
    private long received;
    private final long writeLimit;
    /** The line of the header, once read; -1 before. */
    private long seenHeader = -1;
    /**
     * Whether the rows are written to the tables' log as they arrive, {@link #prewriteBytes} at a
     * time, in the background ({@link Coordinator#prewrite}): an autocommitted COPY of every column
     * with durable storage. Its commit then names those parts and writes only the rest, so the
     * log's writing overlaps the parsing instead of following it.
     */
    private final boolean prewrite;
    private final List<java.util.concurrent.CompletableFuture<List<dev.tributary.storage.PartMeta>>> prewritten = new ArrayList<>();
    /** Rows {@code [0, prewrittenRows)} of {@link #encoded} are handed to {@link #prewritten}. */
    private int prewrittenRows;
    private long prewrittenBytes;
    /** Bytes of rows per prewritten piece (tests make it small). */
    static long prewriteBytes = 16 << 20;

    CopyIn(Coordinator coordinator, Session session, CatalogItem.Table table, int[] targets, Statement.CopyOptions options) {
        this.coordinator = coordinator;
        this.session = session;
        this.table = table;
        this.targets = targets;
        this.options = options;
        this.writeLimit = session.writeLimit();
        this.types = new ArrayList<>();
        for (int t : targets) types.add(table.columns().get(t).type());
        List<String> names = new ArrayList<>();
        for (int t : targets) names.add(table.columns().get(t).name());
        this.reader = new CopyText.Reader(table.name(), options, names, this::record);
        boolean everyColumn = targets.length == table.columns().size();
        for (int i = 0; i < targets.length && everyColumn; i++) everyColumn = targets[i] == i;
        this.encoded = everyColumn ? new BytesColumn(1 << 12, 1 << 16) : null;
        this.prewrite = everyColumn && !session.inTransaction && coordinator.durable();
        this.builder = everyColumn ? new RowCodec(types).builder() : null;
        this.direct = new Direct[targets.length];
        this.notNull = new boolean[targets.length];
        for (int i = 0; i < targets.length; i++) {
            direct[i] = Direct.of(types.get(i));
            notNull[i] = !table.columns().get(targets[i]).nullable();
        }
    }

    /** How a field's text becomes its column's encoding without a Java value between them. */
    private enum Direct {
        SMALLINT(Short.MIN_VALUE, Short.MAX_VALUE), INTEGER(Integer.MIN_VALUE, Integer.MAX_VALUE), BIGINT(Long.MIN_VALUE, Long.MAX_VALUE),
        TEXT(0, 0),
        /** {@code [-]digits[.digits]} of at most 18 digits, within the column's precision and scale. */
        NUMERIC(0, 0),
        /** PostgreSQL's own form, as {@link IsoTimes} reads it; any other through a Java value. */
        TIMESTAMP(0, 0), TIMESTAMPTZ(0, 0), DATE(0, 0),
        /** Through a Java value: {@link Values#fromText}. */
        VALUE(0, 0);

        final long min;
        final long max;

        Direct(long min, long max) {
            this.min = min;
            this.max = max;
        }

        static Direct of(SqlType type) {
            return switch (type.kind()) {
                case SMALLINT -> SMALLINT;
                case INTEGER -> INTEGER;
                case BIGINT -> BIGINT;
                case TEXT -> TEXT;
                case NUMERIC -> NUMERIC;
                case TIMESTAMP -> TIMESTAMP;
                case TIMESTAMPTZ -> TIMESTAMPTZ;
                case DATE -> DATE;
                default -> VALUE;
            };
        }
    }

    /** The number of fields in each line the client sends (for CopyInResponse). */
    public int fields() {
        return targets.length;
    }

    /**
     * The next chunk of the client's data. A COPY holds its rows until its end: one that outgrows
     * the heap fails with 53200 (the error {@link #finish} reports) instead of ending the
     * connection, and lets go of its rows at once, as after any error in the data.
     */
    public void data(byte[] chunk) {
        if (error != null || done) return;
        received += chunk.length;
        // past max_write_size the commit would be refused anyway: the rows are not held until the
        // end to find that out (the rows encoded so far, or the text, about their size)
        long holding = encoded != null ? encoded.bytesUsed() : received;
        if (writeLimit > 0 && holding > writeLimit) {
            failWith(Session.writeTooLarge(holding, writeLimit, "COPY " + table.name()));
            return;
        }
        try {
            // rows take about as many bytes as their text: the slab grows once for the chunk, not once per doubling
            if (encoded != null) encoded.reserve(chunk.length);
            reader.feed(chunk, 0, chunk.length);
        } catch (SqlException e) {
            failWith(e);
        } catch (OutOfMemoryError e) {
            // caught here, where the rows held are this COPY's own: dropping them gives the heap back whole
            long held = count;
            failWith(new SqlException("53200", "out of memory: COPY " + table.name() + " held more rows than the server's heap has room for", 0,
                    "A COPY holds its rows until its end, to write them at one time: split the data into smaller COPYs, "
                            + "or give the server a larger heap (TRIBUTARY_JAVA_OPTS=-Xmx...)."));
            ServerLog.warn("COPY " + table.name() + " ran out of memory holding " + held + " rows: it fails with 53200, and its rows are dropped");
        }
    }

    /** The COPY fails with {@code e}: what it holds goes now (the rest of the data is only read), and {@link #finish} reports {@code e}. */
    private void failWith(SqlException e) {
        error = e;
        rows.clear();
        rows.trimToSize();
        texts.clear();
        texts.trimToSize();
        lines = new long[1];
        count = 0;
        if (encoded != null) {
            encoded.clear();
            encoded.trim();
        }
        discardPrewritten();
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
        discardPrewritten();
        return coordinator.failCopy(session, new SqlException("57014", "COPY from stdin failed: " + message));
    }

    private void record(long line, CopyText.Reader.LineText text, CopyText.Fields fields) {
        if (options.header() != Statement.CopyHeader.NONE && seenHeader < 0) {
            seenHeader = line;
            if (options.header() == Statement.CopyHeader.MATCH) matchHeader(line, text.text(), fields.strings());
            return;
        }
        if (fields.count() > targets.length) {
            throw new SqlException("22P04", "extra data after last expected column").withContext(context(line, text));
        }
        if (fields.count() < targets.length) {
            String missing = table.columns().get(targets[fields.count()]).name();
            throw new SqlException("22P04", "missing data for column \"" + missing + "\"").withContext(context(line, text));
        }
        if (count == lines.length) lines = java.util.Arrays.copyOf(lines, count * 2);
        if (encoded != null && encodeDirectly(fields)) {
            lines[count++] = line;
            encoded.add(builder.buffer(), 0, builder.length());
            if (prewrite && encoded.bytesUsed() - prewrittenBytes >= prewriteBytes) prewriteRows();
            return;
        }
        Object[] values = new Object[targets.length];
        for (int i = 0; i < targets.length; i++) {
            String f = fields.string(i);
            try {
                values[i] = Values.fromText(f, types.get(i));
            } catch (SqlException e) {
                throw e.withContext("COPY " + table.name() + ", line " + line + ", column " + table.columns().get(targets[i]).name() + ": "
                        + (f == null ? "null input" : "\"" + CopyText.shorten(f) + "\""));
            }
        }
        lines[count++] = line;
        if (encoded != null) {
            try {
                WritePath.checkRow(table, values);
            } catch (SqlException e) {
                throw e.withContext(context(line, text));
            }
            builder.reset();
            for (Object v : values) builder.putValue(v);
            encoded.add(builder.buffer(), 0, builder.length());
            if (prewrite && encoded.bytesUsed() - prewrittenBytes >= prewriteBytes) prewriteRows();
            return;
        }
        rows.add(values);
        texts.add(text.text());
    }

    /**
     * Encodes a record of every column into {@link #builder} straight from its fields' bytes
     * (integers, text, numerics, and dates and timestamps in PostgreSQL's form, without a Java
     * value; other types and forms through theirs); false, with nothing reported, for anything
     * out of the ordinary (a NULL in a NOT NULL column, an integer with spaces or out of range,
     * any value that does not parse), which the general path then reads and reports as it does
     * every record.
     */
    private boolean encodeDirectly(CopyText.Fields fields) {
        builder.reset();
        for (int i = 0; i < direct.length; i++) {
            if (fields.isNull(i)) {
                if (notNull[i]) return false;
                builder.putNull();
                continue;
            }
            byte[] data = fields.data(i);
            int from = fields.start(i);
            int to = fields.end(i);
            switch (direct[i]) {
                case SMALLINT, INTEGER, BIGINT -> {
                    Direct d = direct[i];
                    // up to 18 digits and a sign: no overflow in the long; anything else goes the general way
                    int k = from < to && data[from] == '-' ? from + 1 : from;
                    if (k == to || to - k > 18) return false;
                    long v = 0;
                    for (; k < to; k++) {
                        int digit = data[k] - '0';
                        if (digit < 0 || digit > 9) return false;
                        v = v * 10 + digit;
                    }
                    if (data[from] == '-') v = -v;
                    if (v < d.min || v > d.max) return false;
                    builder.putInteger(v);
                }
                case TEXT -> builder.putText(data, from, to);
                case NUMERIC -> {
                    if (!putNumeric(data, from, to, types.get(i))) return false;
                }
                case TIMESTAMP, TIMESTAMPTZ -> {
                    long micros = direct[i] == Direct.TIMESTAMP ? IsoTimes.timestamp(data, from, to) : IsoTimes.timestamptz(data, from, to);
                    if (micros != IsoTimes.NONE) builder.putTimestamp(micros);
                    else if (!putValue(fields, i)) return false;
                }
                case DATE -> {
                    long day = IsoTimes.date(data, from, to);
                    if (day != IsoTimes.NONE) builder.putDate((int) day);
                    else if (!putValue(fields, i)) return false;
                }
                case VALUE -> {
                    if (!putValue(fields, i)) return false;
                }
            }
        }
        return true;
    }

    /** Writes field {@code i} into {@link #builder} through its Java value; false, with nothing written, if the text does not parse. */
    private boolean putValue(CopyText.Fields fields, int i) {
        Object v;
        try {
            v = Values.fromText(fields.string(i), types.get(i));
        } catch (SqlException e) {
            return false;
        }
        builder.putValue(v);
        return true;
    }

    /**
     * Writes the NUMERIC {@code data[from .. to)} into {@link #builder} with no {@link
     * java.math.BigDecimal} (parsing one through {@link Values#fromText} was a fifth of a COPY's
     * parse): {@code [-]digits[.digits]} of at most 18 digits whose scale is at most the column's
     * and whose integer digits fit its precision; false, with nothing written, for anything else
     * (rounding, overflow, exponents, blanks), which the general path reads.
     */
    private boolean putNumeric(byte[] data, int from, int to, SqlType type) {
        int k = from < to && data[from] == '-' ? from + 1 : from;
        long unscaled = 0;
        int digits = 0;
        int significant = 0; // digits from the first non-zero one on
        int scale = -1;
        for (; k < to; k++) {
            byte b = data[k];
            if (b == '.' && scale < 0) {
                scale = 0;
                continue;
            }
            int digit = b - '0';
            if (digit < 0 || digit > 9 || ++digits > 18) return false;
            unscaled = unscaled * 10 + digit;
            if (significant > 0 || digit != 0) significant++;
            if (scale >= 0) scale++;
        }
        if (digits == 0 || scale == 0) return false; // "", "-", "5.": the general path's to judge
        if (scale < 0) scale = 0;
        if (type.length() >= 0) {
            int columnScale = Math.max(type.scale(), 0);
            if (scale > columnScale) return false; // rounds
            int integerDigits = Math.max(0, significant - scale);
            if (integerDigits > type.length() - columnScale) return false; // 22003, reported by the general path
        }
        builder.putNumeric(data[from] == '-' ? -unscaled : unscaled, scale);
        return true;
    }

    /** Hands the rows since the last prewrite to the log's background writer (a copy: the slab keeps growing meanwhile). */
    private void prewriteRows() {
        int to = encoded.size();
        // at time 0, a placeholder: the log puts them at the COPY's time
        var written = coordinator.prewrite(table.id(), RowSlab.updates(encoded, prewrittenRows, to, 0));
        if (written == null) return;
        prewritten.add(written);
        prewrittenRows = to;
        prewrittenBytes = encoded.bytesUsed();
    }

    /**
     * The parts written so far, once durable, handed over to the caller's commit (this COPY no
     * longer discards them: the log may name them now; if it never does, the next start collects
     * them). 58030 if the log could not write one: nothing of the COPY is then committed.
     */
    List<dev.tributary.storage.PartMeta> awaitPrewritten() {
        List<dev.tributary.storage.PartMeta> parts = new ArrayList<>();
        for (var f : prewritten) {
            try {
                parts.addAll(f.join());
            } catch (java.util.concurrent.CompletionException e) {
                discardPrewritten();
                throw new SqlException("58030", "could not write the COPY's rows to the log: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
            }
        }
        prewritten.clear();
        return parts;
    }

    private java.util.concurrent.CompletableFuture<Void> discarded = java.util.concurrent.CompletableFuture.completedFuture(null);

    /** Completes once the parts the COPY let go of are deleted (tests). */
    java.util.concurrent.CompletableFuture<Void> discarded() {
        return discarded;
    }

    /** How many of the rows the parts of {@link #awaitPrewritten} hold (the first ones). */
    int prewrittenRows() {
        return prewrittenRows;
    }

    /** Lets go of the parts written so far: deleted once written (the COPY failed, or a block's commit writes its rows). */
    void discardPrewritten() {
        if (prewritten.isEmpty()) return;
        discarded = coordinator.discardPrewritten(new ArrayList<>(prewritten));
        prewritten.clear();
        prewrittenRows = 0;
        prewrittenBytes = 0;
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
