package dev.tributary.sql.types;

import java.util.List;

/**
 * PostgreSQL's {@code json}: a value is its text, kept as written once it is checked to be one
 * JSON value (RFC 8259), as PostgreSQL keeps {@code json} (not {@code jsonb}). Also how values of
 * other types are written into JSON ({@code json_build_object}, {@code to_json}).
 */
public final class Json {
    private Json() {}

    /** {@code text} if it is one JSON value (surrounding whitespace allowed); 22P02 otherwise. */
    public static String parse(String text) {
        JsonText.check(text);
        return text;
    }

    /** {@code v}, a value of {@code type}, as JSON: numbers and booleans bare, JSON as it is, arrays as arrays, the rest as strings. */
    public static String of(Object v, SqlType type) {
        StringBuilder b = new StringBuilder();
        append(b, v, type);
        return b.toString();
    }

    static void append(StringBuilder b, Object v, SqlType type) {
        if (v == null) {
            b.append("null");
            return;
        }
        switch (type.kind()) {
            case BOOLEAN -> b.append((Boolean) v ? "true" : "false");
            case SMALLINT, INTEGER, BIGINT -> b.append(Values.toText(v, type));
            // NaN and the infinities are no JSON numbers: strings, as PostgreSQL writes them
            case NUMERIC -> {
                if (v instanceof NonFiniteNumeric) quote(b, Values.toText(v, type));
                else b.append(Values.toText(v, type));
            }
            case REAL, DOUBLE -> {
                double d = (Double) v;
                if (Double.isFinite(d)) b.append(Values.toText(v, type));
                else quote(b, Values.toText(v, type));
            }
            case JSON -> b.append((String) v);
            case JSONB -> Jsonb.append(b, (Jsonb) v);
            case ARRAY -> {
                ShapedArray.appendNested(b, (List<?>) v, '[', ']', (to, e) -> append(to, e, type.element()));
            }
            case TEXT, VARCHAR, CHAR, UNKNOWN -> quote(b, (String) v);
            default -> quote(b, Values.toText(v, type));
        }
    }

    /** {@code v}, a value of {@code type} (or null), as jsonb: as {@link #of} writes it, read back ({@code to_jsonb}). */
    public static Jsonb toJsonb(Object v, SqlType type) {
        if (v == null) return Jsonb.Null.NULL;
        if (v instanceof Jsonb j) return j;
        return Jsonb.parse(of(v, type));
    }

    /** {@code s} as a JSON string, escaped as PostgreSQL escapes it. */
    public static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        b.append('"');
    }

    // The json operators: each part of a document is returned as it is written in it.

    /** {@code json -> key}: an object's member as written (the last of duplicate keys), or null. */
    public static String field(String json, String key) {
        List<JsonText.Member> members = JsonText.members(json);
        if (members == null || members.isEmpty() || members.get(0).key() == null) return null;
        String found = null;
        for (JsonText.Member m : members) if (m.key().equals(key)) found = m.text();
        return found;
    }

    /** {@code json -> index}: an array's element as written (from the end when negative), or null. */
    public static String element(String json, long index) {
        List<JsonText.Member> members = JsonText.members(json);
        if (members == null || (!members.isEmpty() && members.get(0).key() != null) || !json.strip().startsWith("[")) return null;
        int n = members.size();
        long i = index < 0 ? n + index : index;
        return i >= 0 && i < n ? members.get((int) i).text() : null;
    }

    /** {@code json #> path}; null when a step is missing or null. */
    public static String path(String json, List<?> path) {
        String at = json;
        for (Object step : path) {
            if (step == null || at == null) return null;
            String s = at.strip();
            if (s.startsWith("{")) {
                at = field(at, (String) step);
            } else if (s.startsWith("[")) {
                Long i = JsonbOperations.index((String) step);
                at = i == null ? null : element(at, i);
            } else {
                return null;
            }
        }
        return at;
    }

    /**
     * {@code json_strip_nulls}: the document without the object members whose value is null, at
     * every depth (array elements kept), written as PostgreSQL writes it: no whitespace, strings
     * decoded and escaped again, numbers and keys that repeat as written.
     */
    public static String stripNulls(String json) {
        StringBuilder b = new StringBuilder();
        stripNulls(b, json.strip());
        return b.toString();
    }

    private static void stripNulls(StringBuilder b, String s) {
        List<JsonText.Member> members = JsonText.members(s);
        if (members == null) {
            if (s.startsWith("\"")) quote(b, ((Jsonb.Str) Jsonb.parse(s)).value());
            else b.append(s);
            return;
        }
        boolean object = s.startsWith("{");
        b.append(object ? '{' : '[');
        boolean first = true;
        for (JsonText.Member m : members) {
            String v = m.text().strip();
            if (object && v.equals("null")) continue;
            if (!first) b.append(',');
            first = false;
            if (object) {
                quote(b, m.key());
                b.append(':');
            }
            stripNulls(b, v);
        }
        b.append(object ? '}' : ']');
    }

    /** {@code ->>}'s text of a part: a string decoded, null as SQL NULL, anything else as written. */
    public static String text(String json) {
        if (json == null) return null;
        String s = json.strip();
        if (s.startsWith("\"")) return ((Jsonb.Str) Jsonb.parse(s)).value();
        return s.equals("null") ? null : json;
    }

    /** {@code json_typeof}: the kind of the document's outer value. */
    public static String typeOf(String json) {
        String s = json.strip();
        if (s.startsWith("{")) return "object";
        if (s.startsWith("[")) return "array";
        if (s.startsWith("\"")) return "string";
        if (s.equals("true") || s.equals("false")) return "boolean";
        return s.equals("null") ? "null" : "number";
    }

    /** {@code json_array_length}: 22023 for a scalar or an object. */
    public static long arrayLength(String json) {
        String kind = typeOf(json);
        if (kind.equals("object")) throw new dev.tributary.sql.SqlException("22023", "cannot get array length of a non-array");
        if (!kind.equals("array")) throw new dev.tributary.sql.SqlException("22023", "cannot get array length of a scalar");
        return JsonText.members(json).size();
    }

    /** The members of an array or object document as written (keys null in an array), or null for a scalar. */
    public static List<String[]> members(String json) {
        List<JsonText.Member> m = JsonText.members(json);
        return m == null ? null : m.stream().map(x -> new String[] {x.key(), x.text()}).toList();
    }
}
