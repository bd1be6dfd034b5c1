package dev.tributary.server.source;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a message of JSON into records without parsing it: each top-level JSON value is one
 * record (JSON lines, or one document printed over many lines), and a message that is a single
 * array holds one record per element, as {@code jsonb_array_elements} would list them. Only
 * strings and brackets are followed here; each record is parsed by the source's decoder, which
 * reports what is wrong inside it.
 *
 * <p>Newlines outside strings are turned into spaces ({@link #flatten}), because the decoder
 * that fills columns reads a record as one line.
 */
final class JsonRecords {
    private JsonRecords() {}

    /**
     * {@code body}, or a copy of it whose carriage returns and newlines outside JSON strings are
     * spaces (where JSON allows whitespace they are whitespace; inside a string a raw newline is
     * invalid and stays, for the decoder to refuse).
     */
    static byte[] flatten(byte[] body) {
        byte[] out = body;
        boolean inString = false;
        for (int i = 0; i < body.length; i++) {
            byte c = body[i];
            if (inString) {
                if (c == '\\') i++;
                else if (c == '"') inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '\n' || c == '\r') {
                if (out == body) out = body.clone();
                out[i] = ' ';
            }
        }
        return out;
    }

    /** The records of {@code b} (flattened), as {@code [from, to)} ranges. */
    static List<int[]> records(byte[] b) throws DecodeException {
        List<int[]> values = new ArrayList<>();
        int i = 0;
        while (true) {
            i = skipSpace(b, i, b.length);
            if (i == b.length) break;
            int end = valueEnd(b, i, b.length);
            values.add(new int[] {i, end});
            i = end;
        }
        if (values.size() == 1 && b[values.get(0)[0]] == '[') return elements(b, values.get(0)[0], values.get(0)[1]);
        return values;
    }

    private static boolean space(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    private static int skipSpace(byte[] b, int i, int to) {
        while (i < to && space(b[i])) i++;
        return i;
    }

    /** The end of the value starting at {@code i}: past its closing bracket or quote, or at the first space or bracket after a scalar. */
    private static int valueEnd(byte[] b, int i, int to) throws DecodeException {
        byte first = b[i];
        if (first == '{' || first == '[') {
            int depth = 0;
            boolean inString = false;
            for (int j = i; j < to; j++) {
                byte c = b[j];
                if (inString) {
                    if (c == '\\') j++;
                    else if (c == '"') inString = false;
                } else if (c == '"') {
                    inString = true;
                } else if (c == '{' || c == '[') {
                    depth++;
                } else if (c == '}' || c == ']') {
                    if (--depth == 0) return j + 1;
                }
            }
            throw new DecodeException("the JSON " + (first == '{' ? "object" : "array") + " starting at byte " + i + " is not closed");
        }
        if (first == '"') {
            for (int j = i + 1; j < to; j++) {
                if (b[j] == '\\') j++;
                else if (b[j] == '"') return j + 1;
            }
            throw new DecodeException("the JSON string starting at byte " + i + " is not closed");
        }
        int j = i + 1;
        while (j < to && !space(b[j]) && b[j] != '{' && b[j] != '[' && b[j] != '"' && b[j] != '}' && b[j] != ']') j++;
        return j;
    }

    /** The elements of the array {@code b[from, to)}, each without the spaces around it. */
    private static List<int[]> elements(byte[] b, int from, int to) throws DecodeException {
        List<int[]> out = new ArrayList<>();
        int inner = to - 1; // the closing ']'
        int start = from + 1;
        int depth = 0;
        boolean inString = false;
        for (int j = from + 1; j <= inner; j++) {
            byte c = j == inner ? (byte) ',' : b[j];
            if (inString) {
                if (c == '\\') j++;
                else if (c == '"') inString = false;
                continue;
            }
            if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            } else if (c == ',' && depth == 0) {
                int s = skipSpace(b, start, j);
                int e = j;
                while (e > s && space(b[e - 1])) e--;
                if (s == e) {
                    // "[]" holds nothing; an empty place between commas is an error
                    if (j == inner && out.isEmpty()) return out;
                    throw new DecodeException("the array's element " + (out.size() + 1) + " is empty");
                }
                out.add(new int[] {s, e});
                start = j + 1;
            }
        }
        return out;
    }
}
