package dev.tributary.sql.expr;

import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.SqlType.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's choice among overloaded operators and functions ({@code func_select_candidate},
 * documented in "Type Conversion: Operators/Functions"), over candidate signatures of kinds.
 *
 * <p>Steps: an exact match (for a binary operator with one untyped literal, the literal first
 * assumed to be the other operand's type); else the candidates every argument converts to
 * implicitly, narrowed by most exact matches, then most preferred types where a conversion is
 * needed, then by the type categories the untyped literals could take (string wins), then by
 * assuming the literals have the type of the known arguments when those agree.
 */
final class Resolver {
    private Resolver() {}

    /** One signature: parameter kinds, result type, implementation. */
    record Candidate(String name, List<Kind> params, SqlType result, ScalarExpr.Impl impl, boolean strict) {}

    /** PostgreSQL's {@code typcategory}: B, N, S, U (bytea), D (datetime), T (timespan), X (unknown). */
    static char category(Kind k) {
        return switch (k) {
            case BOOLEAN -> 'B';
            case SMALLINT, INTEGER, BIGINT, REAL, DOUBLE, NUMERIC -> 'N';
            case TEXT, VARCHAR, CHAR -> 'S';
            case BYTEA, JSON, JSONB, UUID -> 'U';
            case DATE, TIME, TIMESTAMP, TIMESTAMPTZ -> 'D';
            case INTERVAL -> 'T';
            case UNKNOWN -> 'X';
            case ARRAY -> 'A';
            case RECORD -> 'P';
        };
    }

    /** PostgreSQL's {@code typispreferred}. */
    static boolean preferred(Kind k) {
        return k == Kind.DOUBLE || k == Kind.TEXT || k == Kind.TIMESTAMPTZ || k == Kind.INTERVAL || k == Kind.BOOLEAN;
    }

    static boolean implicit(Kind from, Kind to) {
        return Casts.level(from, to) == CastContext.IMPLICIT;
    }

    /**
     * The candidates left after resolution: one is the answer, none means no match, more than one
     * is ambiguous.
     */
    static List<Candidate> select(List<Candidate> all, List<SqlType> argTypes, boolean binaryOperator) {
        int n = argTypes.size();
        List<Kind> in = new ArrayList<>();
        for (SqlType t : argTypes) in.add(t.kind());
        List<Candidate> byArity = new ArrayList<>();
        for (Candidate c : all) if (c.params().size() == n) byArity.add(c);

        // exact match; a binary operator with one untyped operand assumes the other's type
        List<Kind> probe = new ArrayList<>(in);
        if (binaryOperator && n == 2) {
            if (in.get(0) == Kind.UNKNOWN && in.get(1) != Kind.UNKNOWN) probe.set(0, in.get(1));
            else if (in.get(1) == Kind.UNKNOWN && in.get(0) != Kind.UNKNOWN) probe.set(1, in.get(0));
        }
        for (Candidate c : byArity) if (c.params().equals(probe)) return List.of(c);
        for (Candidate c : byArity) if (c.params().equals(in)) return List.of(c);

        List<Candidate> cands = new ArrayList<>();
        for (Candidate c : byArity) {
            boolean ok = true;
            for (int i = 0; i < n && ok; i++) ok = implicit(in.get(i), c.params().get(i));
            if (ok) cands.add(c);
        }
        if (cands.size() <= 1) return cands;

        // most exact matches
        cands = keepMax(cands, c -> {
            int m = 0;
            for (int i = 0; i < n; i++) if (in.get(i) != Kind.UNKNOWN && c.params().get(i) == in.get(i)) m++;
            return m;
        });
        if (cands.size() == 1) return cands;

        // most exact-or-preferred at known positions
        cands = keepMax(cands, c -> {
            int m = 0;
            for (int i = 0; i < n; i++) {
                Kind p = c.params().get(i);
                if (in.get(i) != Kind.UNKNOWN && (p == in.get(i) || preferred(p))) m++;
            }
            return m;
        });
        if (cands.size() == 1) return cands;

        if (!in.contains(Kind.UNKNOWN)) return cands;

        // categories the untyped literals could take
        char[] slotCat = new char[n];
        boolean[] slotPref = new boolean[n];
        boolean resolved = true;
        for (int i = 0; i < n && resolved; i++) {
            if (in.get(i) != Kind.UNKNOWN) continue;
            slotCat[i] = 0;
            boolean conflict = false;
            for (Candidate c : cands) {
                Kind p = c.params().get(i);
                char cat = category(p);
                if (slotCat[i] == 0) {
                    slotCat[i] = cat;
                    slotPref[i] = preferred(p);
                } else if (cat == slotCat[i]) {
                    slotPref[i] |= preferred(p);
                } else if (cat == 'S') {
                    slotCat[i] = cat;
                    slotPref[i] = preferred(p);
                } else {
                    conflict = true;
                }
            }
            if (conflict && slotCat[i] != 'S') resolved = false;
        }
        if (resolved) {
            List<Candidate> kept = new ArrayList<>();
            for (Candidate c : cands) {
                boolean keep = true;
                for (int i = 0; i < n && keep; i++) {
                    if (in.get(i) != Kind.UNKNOWN) continue;
                    Kind p = c.params().get(i);
                    if (category(p) != slotCat[i] || (slotPref[i] && !preferred(p))) keep = false;
                }
                if (keep) kept.add(c);
            }
            if (kept.size() == 1) return kept;
        }

        // assume untyped literals have the type of the known arguments, if those agree
        Kind known = null;
        boolean agree = true;
        for (Kind k : in) {
            if (k == Kind.UNKNOWN) continue;
            if (known == null) known = k;
            else if (known != k) agree = false;
        }
        if (known != null && agree) {
            List<Candidate> kept = new ArrayList<>();
            for (Candidate c : cands) {
                boolean ok = true;
                for (int i = 0; i < n && ok; i++) {
                    Kind a = in.get(i) == Kind.UNKNOWN ? known : in.get(i);
                    ok = implicit(a, c.params().get(i));
                }
                if (ok) kept.add(c);
            }
            if (kept.size() == 1) return kept;
        }
        return cands;
    }

    private static List<Candidate> keepMax(List<Candidate> cands, java.util.function.ToIntFunction<Candidate> score) {
        int best = -1;
        List<Candidate> out = new ArrayList<>();
        for (Candidate c : cands) {
            int s = score.applyAsInt(c);
            if (s > best) {
                best = s;
                out.clear();
            }
            if (s == best) out.add(c);
        }
        return out;
    }
}
