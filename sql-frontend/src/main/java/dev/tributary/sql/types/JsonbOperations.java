package dev.tributary.sql.types;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What PostgreSQL's jsonb operators and functions do to values: extraction by key, index and
 * path, containment, key existence, concatenation, deletion, {@code jsonb_set} and
 * {@code jsonb_insert}, with PostgreSQL's results at the edges (a negative index counts from
 * the end; a missing step is SQL NULL for extraction and leaves the document as it is for an
 * edit) and its 22023 errors for operations a value's kind does not have.
 */
public final class JsonbOperations {
    private JsonbOperations() {}

    private static final Pattern INTEGER = Pattern.compile("\\s*[+-]?[0-9]+");

    /** {@code j -> key}: an object's member, or null. */
    public static Jsonb field(Jsonb j, String key) {
        return j instanceof Jsonb.Obj o ? o.get(key) : null;
    }

    /**
     * {@code j -> index}: an array's element (from the end when negative), or null. A document
     * that is a scalar is PostgreSQL's array of that one scalar here.
     */
    public static Jsonb element(Jsonb j, long index) {
        if (j.isScalar()) j = new Jsonb.Arr(List.of(j));
        if (!(j instanceof Jsonb.Arr a)) return null;
        int n = a.elements().size();
        long i = index < 0 ? n + index : index;
        return i >= 0 && i < n ? a.elements().get((int) i) : null;
    }

    /** {@code j #> path}: each step a key of an object or an index of an array; null when a step is missing or null. */
    public static Jsonb path(Jsonb j, List<?> path) {
        Jsonb at = j;
        for (Object step : path) {
            if (step == null || at == null) return null;
            String s = (String) step;
            at = switch (at) {
                case Jsonb.Obj o -> o.get(s);
                case Jsonb.Arr a -> {
                    Long i = index(s);
                    yield i == null ? null : element(a, i);
                }
                // unlike ->, a path does not take a scalar document for an array of it
                default -> null;
            };
        }
        return at;
    }

    /** {@code step} as an array index, or null when it is not an integer. */
    public static Long index(String step) {
        if (!INTEGER.matcher(step).matches()) return null;
        try {
            long v = Long.parseLong(step.strip());
            return v == (int) v ? v : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {@code ->>}'s text of a value: a string without quotes, JSON null as SQL NULL, anything else as its text. */
    public static String text(Jsonb j) {
        return switch (j) {
            case null -> null;
            case Jsonb.Str s -> s.value();
            case Jsonb.Null n -> null;
            default -> j.toString();
        };
    }

    /** {@code a @> b}: whether {@code a} contains {@code b} (a top-level array also contains a scalar it has). */
    public static boolean contains(Jsonb a, Jsonb b) {
        if (a instanceof Jsonb.Arr && b.isScalar()) return contains(a, new Jsonb.Arr(List.of(b)));
        return deepContains(a, b);
    }

    private static boolean deepContains(Jsonb a, Jsonb b) {
        return switch (a) {
            case Jsonb.Obj x -> {
                if (!(b instanceof Jsonb.Obj y)) yield false;
                for (int i = 0; i < y.size(); i++) {
                    Jsonb mine = x.get(y.keys().get(i));
                    if (mine == null || !deepContains(mine, y.values().get(i))) yield false;
                }
                yield true;
            }
            case Jsonb.Arr x -> {
                if (!(b instanceof Jsonb.Arr y)) yield false;
                for (Jsonb wanted : y.elements()) {
                    boolean found = false;
                    for (Jsonb e : x.elements()) {
                        if (wanted.isScalar() ? e.equals(wanted) : deepContains(e, wanted)) {
                            found = true;
                            break;
                        }
                    }
                    if (!found) yield false;
                }
                yield true;
            }
            default -> a.equals(b);
        };
    }

    /** {@code j ? key}: an object's key, or a string element of an array (or the string itself at the top level). */
    public static boolean exists(Jsonb j, String key) {
        return switch (j) {
            case Jsonb.Obj o -> o.indexOf(key) >= 0;
            case Jsonb.Arr a -> a.elements().contains(new Jsonb.Str(key));
            case Jsonb.Str s -> s.value().equals(key);
            default -> false;
        };
    }

    /** {@code j ?| keys} ({@code all} false) or {@code j ?& keys} ({@code all} true); NULL keys are skipped. */
    public static boolean exists(Jsonb j, List<?> keys, boolean all) {
        for (Object k : keys) {
            if (k == null) continue;
            boolean has = exists(j, (String) k);
            if (has != all) return has;
        }
        return all;
    }

    /** {@code a || b}: two objects merged (b's members win); otherwise both as arrays, concatenated. */
    public static Jsonb concat(Jsonb a, Jsonb b) {
        if (a instanceof Jsonb.Obj x && b instanceof Jsonb.Obj y) {
            List<String> keys = new ArrayList<>(x.keys());
            keys.addAll(y.keys());
            List<Jsonb> values = new ArrayList<>(x.values());
            values.addAll(y.values());
            return Jsonb.Obj.of(keys, values);
        }
        List<Jsonb> out = new ArrayList<>(asElements(a));
        out.addAll(asElements(b));
        return new Jsonb.Arr(out);
    }

    private static List<Jsonb> asElements(Jsonb j) {
        return j instanceof Jsonb.Arr a ? a.elements() : List.of(j);
    }

    /** {@code j - key}: without an object's key, or an array's string elements equal to it. */
    public static Jsonb delete(Jsonb j, String key) {
        return deleteKeys(j, List.of(key));
    }

    /** {@code j - keys} ({@code text[]}): without any of them; NULL keys are skipped. */
    public static Jsonb deleteKeys(Jsonb j, List<?> keys) {
        Set<String> gone = new HashSet<>();
        for (Object k : keys) if (k != null) gone.add((String) k);
        return switch (j) {
            case Jsonb.Obj o -> {
                List<String> k = new ArrayList<>();
                List<Jsonb> v = new ArrayList<>();
                for (int i = 0; i < o.size(); i++) {
                    if (gone.contains(o.keys().get(i))) continue;
                    k.add(o.keys().get(i));
                    v.add(o.values().get(i));
                }
                yield new Jsonb.Obj(k, v);
            }
            case Jsonb.Arr a -> new Jsonb.Arr(a.elements().stream().filter(e -> !(e instanceof Jsonb.Str s && gone.contains(s.value()))).toList());
            default -> throw new SqlException("22023", "cannot delete from scalar");
        };
    }

    /** {@code j - index}: without an array's element (from the end when negative); as it is when out of range. */
    public static Jsonb delete(Jsonb j, long index) {
        if (j instanceof Jsonb.Obj) throw new SqlException("22023", "cannot delete from object using integer index");
        if (!(j instanceof Jsonb.Arr a)) throw new SqlException("22023", "cannot delete from scalar");
        int n = a.elements().size();
        long i = index < 0 ? n + index : index;
        if (i < 0 || i >= n) return j;
        List<Jsonb> out = new ArrayList<>(a.elements());
        out.remove((int) i);
        return new Jsonb.Arr(out);
    }

    /** {@code j #- path}: without the member or element the path reaches; as it is when it reaches none. */
    public static Jsonb deletePath(Jsonb j, List<?> path) {
        if (j.isScalar()) throw new SqlException("22023", "cannot delete path in scalar");
        checkNoNulls(path);
        if (path.isEmpty()) return j;
        return edit(j, path, 0, Edit.DELETE, null, false);
    }

    /** {@code jsonb_set(j, path, value, create)}: the value at the path replaced, or added when {@code create} and only the last step is missing. */
    public static Jsonb set(Jsonb j, List<?> path, Jsonb value, boolean create) {
        if (j.isScalar()) throw new SqlException("22023", "cannot set path in scalar");
        checkNoNulls(path);
        if (path.isEmpty()) return j;
        return edit(j, path, 0, Edit.SET, value, create);
    }

    /** {@code jsonb_insert(j, path, value, after)}: the value inserted into an array before (or after) the path's element, or as a new object member. */
    public static Jsonb insert(Jsonb j, List<?> path, Jsonb value, boolean after) {
        if (j.isScalar()) throw new SqlException("22023", "cannot set path in scalar");
        checkNoNulls(path);
        if (path.isEmpty()) return j;
        return edit(j, path, 0, after ? Edit.INSERT_AFTER : Edit.INSERT_BEFORE, value, true);
    }

    private static void checkNoNulls(List<?> path) {
        for (int i = 0; i < path.size(); i++) {
            if (path.get(i) == null) throw new SqlException("22004", "path element at position " + (i + 1) + " is null");
        }
    }

    private enum Edit { DELETE, SET, INSERT_BEFORE, INSERT_AFTER }

    /** {@code j} with the edit applied at {@code path[level..]}. */
    private static Jsonb edit(Jsonb j, List<?> path, int level, Edit edit, Jsonb value, boolean create) {
        String step = (String) path.get(level);
        boolean last = level == path.size() - 1;
        switch (j) {
            case Jsonb.Obj o -> {
                int i = o.indexOf(step);
                List<String> keys = new ArrayList<>(o.keys());
                List<Jsonb> values = new ArrayList<>(o.values());
                if (i < 0) {
                    if (!last || edit == Edit.DELETE || !create) return j;
                    keys.add(step);
                    values.add(value);
                    return Jsonb.Obj.of(keys, values);
                }
                if (last) {
                    switch (edit) {
                        case DELETE -> {
                            keys.remove(i);
                            values.remove(i);
                            return new Jsonb.Obj(keys, values);
                        }
                        case SET -> values.set(i, value);
                        case INSERT_BEFORE, INSERT_AFTER -> throw new SqlException("22023", "cannot replace existing key",
                                0, "Try using the function jsonb_set to replace key value.");
                    }
                } else {
                    Jsonb inner = values.get(i);
                    if (inner.isScalar()) return j;
                    values.set(i, edit(inner, path, level + 1, edit, value, create));
                }
                return new Jsonb.Obj(keys, values);
            }
            case Jsonb.Arr a -> {
                Long parsed = index(step);
                if (parsed == null) {
                    throw new SqlException("22P02", "path element at position " + (level + 1) + " is not an integer: \"" + step + "\"");
                }
                int n = a.elements().size();
                long i = parsed < 0 ? n + parsed : parsed;
                List<Jsonb> out = new ArrayList<>(a.elements());
                if (i < 0 || i >= n) {
                    if (!last || edit == Edit.DELETE || !create) return j;
                    // past either end: added at that end
                    if (i < 0) out.add(0, value);
                    else out.add(value);
                    return new Jsonb.Arr(out);
                }
                if (last) {
                    switch (edit) {
                        case DELETE -> out.remove((int) i);
                        case SET -> out.set((int) i, value);
                        case INSERT_BEFORE -> out.add((int) i, value);
                        case INSERT_AFTER -> out.add((int) i + 1, value);
                    }
                } else {
                    Jsonb inner = out.get((int) i);
                    if (inner.isScalar()) return j;
                    out.set((int) i, edit(inner, path, level + 1, edit, value, create));
                }
                return new Jsonb.Arr(out);
            }
            default -> {
                return j;
            }
        }
    }

    /** {@code jsonb_strip_nulls}: every object member whose value is null removed, at every depth (array elements kept). */
    public static Jsonb stripNulls(Jsonb j) {
        return switch (j) {
            case Jsonb.Obj o -> {
                List<String> k = new ArrayList<>();
                List<Jsonb> v = new ArrayList<>();
                for (int i = 0; i < o.size(); i++) {
                    if (o.values().get(i) instanceof Jsonb.Null) continue;
                    k.add(o.keys().get(i));
                    v.add(stripNulls(o.values().get(i)));
                }
                yield new Jsonb.Obj(k, v);
            }
            case Jsonb.Arr a -> new Jsonb.Arr(a.elements().stream().map(JsonbOperations::stripNulls).toList());
            default -> j;
        };
    }

    /** {@code jsonb_array_length}: 22023 for a scalar or an object. */
    public static long arrayLength(Jsonb j) {
        return switch (j) {
            case Jsonb.Arr a -> a.elements().size();
            case Jsonb.Obj o -> throw new SqlException("22023", "cannot get array length of a non-array");
            default -> throw new SqlException("22023", "cannot get array length of a scalar");
        };
    }
}
