package dev.tributary.propertytests.sql;

import java.util.List;

/**
 * The catalogue of view shapes the oracle maintains, by family, over {@link Schema}'s tables
 * {@code t1(k, a, b, s, n, f)}, {@code t2(k, x, s, n, f)} and {@code t3(k, y, s)}.
 *
 * <p>Where DuckDB's dialect differs from PostgreSQL's, the DuckDB text says so:
 * <ul>
 *   <li>{@code /} on integers is integer division in PostgreSQL and floating-point division in
 *       DuckDB; DuckDB is asked for {@code trunc(a / 2)} cast back to an integer.</li>
 *   <li>NULLs sort last for both ASC and DESC in DuckDB by default; the connection is set to
 *       PostgreSQL's order (last ascending, first descending) in {@link Oracle}, so no query text
 *       changes for it.</li>
 * </ul>
 * Results are compared as multisets, numbers numerically ({@link Rows}), so the differing result
 * types (PostgreSQL's numeric {@code avg} against DuckDB's double, DuckDB's 128-bit sums) do not
 * matter.
 */
final class Shapes {
    private Shapes() {}

    static final String FILTER = "filter-project";
    static final String JOIN = "join";
    static final String AGGREGATE = "aggregate";
    static final String DISTINCT_TOPK = "distinct-topk";
    static final String SUBQUERY = "subquery";
    static final String SET_OP = "set-operation";

    static final List<Shape> ALL = List.of(
            // ---------------------------------------------------------------- filter and project
            Shape.of(FILTER, "filter", "SELECT k, a, s FROM t1 WHERE a > 1 AND s <> 'b'"),
            Shape.of(FILTER, "filter-null-or-bool", "SELECT * FROM t1 WHERE a IS NULL OR f"),
            Shape.of(FILTER, "filter-like-between", "SELECT k, s, n FROM t1 WHERE s LIKE 'a%' OR n BETWEEN 0 AND 5"),
            Shape.of(FILTER, "filter-in-list", "SELECT k, b FROM t1 WHERE b IN (1, 3, 5) OR k NOT IN (0, 2)"),
            // equalities with constants are tested on a row's bytes, before it is decoded
            Shape.of(FILTER, "filter-equal-constants", "SELECT * FROM t1 WHERE s = 'a' AND b = 3 AND f = true"),
            Shape.noDuck(FILTER, "filter-equal-then-error", "SELECT k, x FROM t2 WHERE s = 'b' AND x / k > 0 AND k = 2",
                    "DuckDB answers NULL for a division by zero where PostgreSQL reports 22012; a row with s = 'b' and "
                            + "k = 0 must fail the query and the view alike, though the later k = 2 would drop it"),
            Shape.of(FILTER, "filter-distinct-from", "SELECT k, x FROM t2 WHERE x IS DISTINCT FROM k AND NOT (f IS NOT TRUE)"),
            Shape.of(FILTER, "project-arithmetic",
                    "SELECT k, a + b AS ab, a * 2 - 1 AS a2, n * 2 AS n2, -n AS nn, a % 3 AS m FROM t1"),
            Shape.of(FILTER, "project-case-text",
                    "SELECT k, coalesce(s, '?') || '!' AS s2, NOT f AS nf, "
                            + "CASE WHEN a > 2 THEN 'big' WHEN a IS NULL THEN 'none' ELSE 'small' END AS c FROM t1"),
            Shape.of(FILTER, "project-functions",
                    "SELECT upper(s) AS u, length(s) AS l, abs(a) AS aa, greatest(a, k) AS g, least(a, k) AS le, "
                            + "nullif(a, 0) AS nz, a IS DISTINCT FROM k AS d FROM t1"),
            Shape.duck(FILTER, "project-integer-division",
                    "SELECT k, a / 2 AS h, b / 3 AS t FROM t1 WHERE a IS NOT NULL",
                    // PostgreSQL's integer division truncates toward zero; DuckDB's / is floating point.
                    "SELECT k, CAST(trunc(a / 2) AS BIGINT) AS h, CAST(trunc(b / 3) AS BIGINT) AS t FROM t1 WHERE a IS NOT NULL"),
            Shape.noDuck(FILTER, "error-division-by-zero", "SELECT k, 10 / a AS q FROM t1",
                    "DuckDB answers NULL for a division by zero where PostgreSQL reports 22012; the view must "
                            + "report the error exactly while a row with a = 0 exists, as the recomputation does"),
            Shape.noDuck(FILTER, "error-overflow", "SELECT k, b * b AS bb FROM t1 WHERE b > 1",
                    "DuckDB widens or errors differently on bigint overflow; the view must report 22003 exactly "
                            + "while a row with b = 4000000000 exists, as the recomputation does"),

            // ---------------------------------------------------------------- joins
            Shape.of(JOIN, "inner", "SELECT t1.k, t1.a, t2.x FROM t1 JOIN t2 ON t1.k = t2.k"),
            Shape.of(JOIN, "inner-theta", "SELECT t1.k, t2.k AS k2, t1.a, t2.x FROM t1 JOIN t2 ON t1.k = t2.k AND t1.a < t2.x"),
            Shape.of(JOIN, "inner-using", "SELECT k, a, x FROM t1 JOIN t2 USING (k)"),
            Shape.of(JOIN, "comma-join-bigint", "SELECT t1.k, t3.k AS k3 FROM t1, t3 WHERE t1.a = t3.y"),
            Shape.of(JOIN, "left", "SELECT t1.k, t1.a, t2.x, t2.s FROM t1 LEFT JOIN t2 ON t1.k = t2.k"),
            Shape.of(JOIN, "left-on-predicate", "SELECT t1.k, t1.a, t2.x FROM t1 LEFT JOIN t2 ON t1.k = t2.k AND t2.f"),
            Shape.of(JOIN, "right", "SELECT t1.a, t2.k, t2.x FROM t1 RIGHT JOIN t2 ON t1.k = t2.k"),
            Shape.of(JOIN, "full", "SELECT t1.k AS k1, t2.k AS k2, t1.s, t2.s AS s2 FROM t1 FULL JOIN t2 ON t1.k = t2.k AND t1.s = t2.s"),
            Shape.of(JOIN, "full-using", "SELECT k, a, x FROM t1 FULL JOIN t2 USING (k)"),
            Shape.of(JOIN, "three-way-left",
                    "SELECT t1.k, t2.x, t3.y FROM t1 JOIN t2 ON t1.k = t2.k LEFT JOIN t3 ON t2.x = t3.k"),
            Shape.of(JOIN, "left-then-filter-on-null", "SELECT t1.k, t1.s FROM t1 LEFT JOIN t3 ON t1.k = t3.k WHERE t3.k IS NULL"),
            Shape.of(JOIN, "cross-join", "SELECT t2.k, t3.y FROM t2 CROSS JOIN t3"),
            Shape.of(JOIN, "full-then-coalesce",
                    "SELECT coalesce(t2.k, t3.k) AS k, t2.x, t3.y FROM t2 FULL JOIN t3 ON t2.k = t3.k AND t2.s = t3.s"),
            Shape.of(JOIN, "self-join", "SELECT p.k, p.a, q.a AS qa FROM t1 p JOIN t1 q ON p.k = q.k AND p.a < q.a"),
            // three stored inputs joined on columns: a delta join where indexes exist on the keys
            Shape.of(JOIN, "three-way-star", "SELECT t1.k, t1.a, t2.x, t3.y FROM t1 JOIN t2 ON t1.k = t2.k JOIN t3 ON t1.k = t3.k"),
            Shape.of(JOIN, "three-way-chain", "SELECT t1.k, t2.x, t3.s FROM t1 JOIN t2 ON t1.a = t2.k JOIN t3 ON t2.x = t3.k"),
            Shape.of(JOIN, "three-way-text-key", "SELECT t1.s, t1.a, t2.x, t3.y FROM t1 JOIN t2 ON t1.s = t2.s JOIN t3 ON t2.s = t3.s WHERE t1.a > 0"),

            // ---------------------------------------------------------------- aggregates
            Shape.of(AGGREGATE, "counts", "SELECT k, count(*) AS c, count(a) AS ca, count(DISTINCT s) AS cd FROM t1 GROUP BY k"),
            Shape.of(AGGREGATE, "sum-avg", "SELECT s, sum(a) AS sa, sum(b) AS sb, sum(n) AS sn, avg(a) AS aa, avg(n) AS an FROM t1 GROUP BY s"),
            Shape.of(AGGREGATE, "min-max", "SELECT k, min(a) AS mia, max(a) AS maa, min(s) AS mis, max(s) AS mas, min(n) AS min, max(n) AS man FROM t1 GROUP BY k"),
            // a max listed before the min it shares an arrangement with, and a pair under a FILTER
            Shape.of(AGGREGATE, "min-max-shared", "SELECT k, max(a) FILTER (WHERE f) AS maf, min(a) FILTER (WHERE f) AS mif, max(s) AS mas, min(s) AS mis, min(a) AS mia FROM t1 GROUP BY k"),
            Shape.of(AGGREGATE, "variance", "SELECT k, variance(a) AS va, stddev_pop(n) AS sn, var_samp(b) AS vb, stddev(a) FILTER (WHERE f) AS sf FROM t1 GROUP BY k"),
            Shape.of(AGGREGATE, "bool", "SELECT k, bool_and(f) AS ba, bool_or(f) AS bo FROM t1 GROUP BY k"),
            Shape.of(AGGREGATE, "string-agg", "SELECT k, string_agg(s, ',' ORDER BY s) AS ss FROM t1 GROUP BY k"),
            Shape.of(AGGREGATE, "string-agg-desc", "SELECT f, string_agg(s, '|' ORDER BY a DESC, s) AS ss FROM t1 GROUP BY f"),
            Shape.of(AGGREGATE, "global", "SELECT count(*) AS c, sum(a) AS sa, max(s) AS ms, avg(b) AS ab, bool_or(f) AS bo FROM t1"),
            Shape.of(AGGREGATE, "filter-clause",
                    "SELECT k, count(*) FILTER (WHERE f) AS cf, sum(a) FILTER (WHERE s = 'a') AS sa FROM t1 GROUP BY k"),
            Shape.of(AGGREGATE, "expression-key", "SELECT a % 2 AS p, f, count(*) AS c, sum(n) AS sn FROM t1 GROUP BY a % 2, f"),
            Shape.of(AGGREGATE, "having", "SELECT k, sum(a) AS sa FROM t1 GROUP BY k HAVING count(*) > 1"),
            Shape.of(AGGREGATE, "having-bool", "SELECT s, max(n) AS mn FROM t1 GROUP BY s HAVING sum(a) > 2 OR bool_or(f)"),
            Shape.of(AGGREGATE, "over-left-join",
                    "SELECT t1.k, count(t2.x) AS c, sum(t2.x) AS sx, min(t2.s) AS ms FROM t1 LEFT JOIN t2 ON t1.k = t2.k GROUP BY t1.k"),
            Shape.of(AGGREGATE, "nested", "SELECT c, count(*) AS groups FROM (SELECT k, count(*) AS c FROM t1 GROUP BY k) q GROUP BY c"),
            Shape.of(AGGREGATE, "cte-join",
                    "WITH g AS (SELECT k, sum(a) AS sa FROM t1 GROUP BY k) SELECT g.k, g.sa, t2.x FROM g JOIN t2 ON g.k = t2.k"),
            Shape.of(AGGREGATE, "global-having", "SELECT count(*) AS c, min(a) AS ma FROM t1 HAVING count(*) > 2"),
            Shape.of(AGGREGATE, "global-over-empty-filter", "SELECT count(*) AS c, sum(x) AS sx, bool_and(f) AS ba FROM t2 WHERE x > 3"),
            Shape.of(AGGREGATE, "distinct-aggregates",
                    "SELECT f, count(DISTINCT a) AS ca, sum(DISTINCT a) AS sa, string_agg(DISTINCT s, ',' ORDER BY s) AS ss FROM t1 GROUP BY f"),
            Shape.of(AGGREGATE, "count-over-full-join",
                    "SELECT t2.s, count(*) AS c, count(t3.y) AS cy, max(t3.y) AS my FROM t2 FULL JOIN t3 ON t2.k = t3.k GROUP BY t2.s"),
            Shape.of(AGGREGATE, "min-max-bool-text-keys", "SELECT s, f, min(k) AS mk, max(b) AS mb, avg(x) AS ax FROM t2 JOIN t1 USING (k, s, f) GROUP BY s, f"),

            // ---------------------------------------------------------------- distinct and top-k
            Shape.of(DISTINCT_TOPK, "distinct", "SELECT DISTINCT s, f FROM t1"),
            Shape.of(DISTINCT_TOPK, "distinct-expression", "SELECT DISTINCT a % 2 AS p FROM t1"),
            Shape.of(DISTINCT_TOPK, "distinct-on", "SELECT DISTINCT ON (k) k, a, s FROM t1 ORDER BY k, a DESC, s"),
            Shape.of(DISTINCT_TOPK, "top-k", "SELECT k, a, s FROM t1 ORDER BY a DESC, k, s LIMIT 3"),
            Shape.of(DISTINCT_TOPK, "top-k-offset", "SELECT k, n FROM t1 ORDER BY n NULLS FIRST, k LIMIT 2 OFFSET 1"),
            Shape.of(DISTINCT_TOPK, "top-k-of-groups", "SELECT k, count(*) AS c FROM t1 GROUP BY k ORDER BY c DESC, k LIMIT 2"),
            Shape.of(DISTINCT_TOPK, "offset-only", "SELECT k, x FROM t2 ORDER BY x, k OFFSET 2"),
            Shape.of(DISTINCT_TOPK, "top-k-desc-nulls-last", "SELECT s, n FROM t1 ORDER BY n DESC NULLS LAST, s LIMIT 2"),
            Shape.of(DISTINCT_TOPK, "top-k-of-join", "SELECT t1.k, t2.x FROM t1 JOIN t2 ON t1.k = t2.k ORDER BY t2.x, t1.k LIMIT 3"),
            Shape.of(DISTINCT_TOPK, "distinct-on-nulls", "SELECT DISTINCT ON (s) s, k, n FROM t1 ORDER BY s, n, k"),
            // The per-group top-k through LATERAL is restricted (see RESTRICTED); the same question
            // through a correlated count:
            Shape.of(DISTINCT_TOPK, "top-k-per-group-correlated",
                    "SELECT t2.k, t1.a FROM t2 JOIN t1 ON t1.k = t2.k "
                            + "WHERE (SELECT count(*) FROM t1 t WHERE t.k = t1.k AND t.a < t1.a) < 2"),

            // ---------------------------------------------------------------- correlated subqueries
            Shape.of(SUBQUERY, "scalar", "SELECT k, a, (SELECT max(x) FROM t2 WHERE t2.k = t1.k) AS mx FROM t1"),
            Shape.of(SUBQUERY, "scalar-count", "SELECT k, (SELECT count(*) FROM t2 WHERE t2.k = t1.k) AS c FROM t1"),
            Shape.of(SUBQUERY, "scalar-in-where", "SELECT k, a FROM t1 WHERE a > (SELECT avg(x) FROM t2 WHERE t2.s = t1.s)"),
            Shape.of(SUBQUERY, "exists", "SELECT k, a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.k AND t2.x > t1.a)"),
            Shape.of(SUBQUERY, "not-exists", "SELECT k, s FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.s = t1.s)"),
            Shape.of(SUBQUERY, "in-correlated", "SELECT k, s FROM t1 WHERE a IN (SELECT x FROM t2 WHERE t2.k = t1.k)"),
            Shape.of(SUBQUERY, "in-uncorrelated", "SELECT k, s FROM t1 WHERE s IN (SELECT s FROM t3)"),
            Shape.of(SUBQUERY, "not-in", "SELECT k, a FROM t1 WHERE a NOT IN (SELECT x FROM t2)"),
            Shape.of(SUBQUERY, "not-in-correlated", "SELECT k, a FROM t1 WHERE a NOT IN (SELECT x FROM t2 WHERE t2.k = t1.k)"),
            Shape.of(SUBQUERY, "in-as-value", "SELECT k, a IN (SELECT x FROM t2) AS i, a NOT IN (SELECT x FROM t2 WHERE t2.f) AS ni FROM t1"),
            Shape.of(SUBQUERY, "scalar-uncorrelated", "SELECT k, a FROM t1 WHERE a = (SELECT max(x) FROM t2)"),
            Shape.of(SUBQUERY, "exists-uncorrelated", "SELECT k FROM t1 WHERE EXISTS (SELECT 1 FROM t3 WHERE y > 3)"),
            Shape.of(SUBQUERY, "scalar-string-agg",
                    "SELECT k, (SELECT string_agg(s, ',' ORDER BY s) FROM t3 WHERE t3.k = t2.k) AS ss FROM t2"),

            // ---------------------------------------------------------------- set operations
            Shape.of(SET_OP, "union", "SELECT k, s FROM t1 UNION SELECT k, s FROM t2"),
            Shape.of(SET_OP, "union-all", "SELECT k, a FROM t1 UNION ALL SELECT k, x FROM t2"),
            Shape.of(SET_OP, "union-widening", "SELECT n FROM t1 UNION SELECT y FROM t3"),
            Shape.of(SET_OP, "intersect", "SELECT k, s FROM t1 INTERSECT SELECT k, s FROM t2"),
            Shape.of(SET_OP, "intersect-all", "SELECT s FROM t1 INTERSECT ALL SELECT s FROM t2"),
            Shape.of(SET_OP, "except", "SELECT k, s FROM t1 EXCEPT SELECT k, s FROM t2"),
            Shape.of(SET_OP, "except-all", "SELECT a FROM t1 EXCEPT ALL SELECT x FROM t2"),
            Shape.of(SET_OP, "three-way", "SELECT k FROM t1 UNION ALL SELECT k FROM t2 EXCEPT SELECT k FROM t3"),
            Shape.of(SET_OP, "intersect-binds-tighter", "SELECT s FROM t1 UNION ALL SELECT s FROM t2 INTERSECT SELECT s FROM t3"),
            Shape.of(SET_OP, "except-all-of-union-all",
                    "(SELECT k, f FROM t1 UNION ALL SELECT k, f FROM t2) EXCEPT ALL SELECT k, f FROM t2 WHERE x > 0"),
            Shape.of(SET_OP, "aggregate-of-union", "SELECT s, count(*) AS c FROM (SELECT s FROM t1 UNION ALL SELECT s FROM t3) u GROUP BY s"),

            // ---------------------------------------------------------------- decorrelation
            Shape.of(DISTINCT_TOPK, "top-k-per-group-lateral",
                    "SELECT t2.k, l.a FROM t2, LATERAL (SELECT a FROM t1 WHERE t1.k = t2.k ORDER BY a LIMIT 2) l"),
            Shape.of(SUBQUERY, "left-join-lateral",
                    "SELECT t2.k, l.m FROM t2 LEFT JOIN LATERAL (SELECT max(a) AS m FROM t1 WHERE t1.k >= t2.k) l ON true"),
            Shape.of(SUBQUERY, "scalar-in-having",
                    "SELECT k, count(*) AS c FROM t1 GROUP BY k HAVING count(*) > (SELECT count(*) FROM t2 WHERE t2.k = t1.k)"),
            Shape.of(SUBQUERY, "nested-correlation",
                    "SELECT k FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.k AND NOT EXISTS "
                            + "(SELECT 1 FROM t3 WHERE t3.k = t2.x AND t3.s = t1.s))"));

    /**
     * Shapes that hit known engine bugs, left out of the properties so that they stay green. Each
     * names its bug; once it is fixed, move the shape back into {@link #ALL}. Run them with
     * {@code -Dtributary.oracle.restricted=true} to see whether they still fail. None today.
     */
    static final List<Shape> RESTRICTED = List.of();

    /** The shapes of {@code family}, with the restricted ones if {@code tributary.oracle.restricted} is set. */
    static List<Shape> family(String family) {
        List<Shape> shapes = new java.util.ArrayList<>(ALL);
        if (Boolean.getBoolean("tributary.oracle.restricted")) shapes.addAll(RESTRICTED);
        return shapes.stream().filter(s -> s.family().equals(family)).toList();
    }
}
