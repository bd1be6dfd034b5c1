package dev.tributary.sql.parser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.BinaryOp;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.Expr.*;
import dev.tributary.sql.ast.OrderItem;
import dev.tributary.sql.ast.Query;
import dev.tributary.sql.ast.QueryBody.Select;
import dev.tributary.sql.ast.QueryBody.SetOp;
import dev.tributary.sql.ast.QueryBody.SetOperation;
import dev.tributary.sql.ast.QueryBody.Values;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.ast.Statement.*;
import dev.tributary.sql.ast.TableRef.*;
import dev.tributary.sql.types.SqlType;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ParserTest {

    static Expr e(String sql) {
        return Parser.parseExpression(sql);
    }

    static String f(String exprSql) {
        return SqlFormatter.format(e(exprSql));
    }

    static Statement stmt(String sql) {
        return Parser.parseStatement(sql);
    }

    static Select select(String sql) {
        return (Select) ((QueryStatement) stmt(sql)).query().body();
    }

    static void assertError(String sql, String state, int position, String message) {
        assertThatThrownBy(() -> Parser.parse(sql))
                .isInstanceOfSatisfying(SqlException.class, ex -> {
                    assertThat(ex.getMessage()).isEqualTo(message);
                    assertThat(ex.sqlState()).isEqualTo(state);
                    assertThat(ex.position()).isEqualTo(position);
                });
    }

    // ------------------------------------------------------------------ precedence

    /** Two spellings parse to the same tree when their canonical texts agree. */
    static void sameTree(String a, String b) {
        assertThat(f(a)).isEqualTo(f(b));
    }

    /**
     * INSERT INTO FUNCTION url('...') query: continuous exactly when the query reads a STREAM; and
     * CREATE JOB ... AS INSERT INTO FUNCTION url is an HTTP sink of the query.
     */
    @Test
    void insertIntoFunctionUrl() {
        assertThat(Parser.parseStatement("INSERT INTO FUNCTION url('http://h/x') SELECT k FROM t STREAM"))
                .isInstanceOfSatisfying(InsertIntoUrl.class, u -> {
                    assertThat(u.url()).isEqualTo("http://h/x");
                    assertThat(u.continuous()).isTrue();
                });
        assertThat(((InsertIntoUrl) Parser.parseStatement("INSERT INTO FUNCTION url('http://h/x') SELECT k FROM t")).continuous()).isFalse();
        assertThat(Parser.parseStatement("CREATE JOB j AS INSERT INTO FUNCTION url('http://h/x') SELECT k FROM t"))
                .isInstanceOfSatisfying(CreateSink.class, c -> {
                    assertThat(c.name()).containsExactly("j");
                    assertThat(c.connector()).isEqualTo("HTTP");
                    assertThat(c.options()).extracting(SourceOption::name, SourceOption::value).containsExactly(org.assertj.core.groups.Tuple.tuple("URL", "http://h/x"));
                    assertThat(c.query()).isNotNull();
                    assertThat(c.from()).isEmpty();
                });
        assertThatThrownBy(() -> Parser.parseStatement("INSERT INTO FUNCTION file('x') SELECT 1"))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42883"));
    }

    @Test
    void booleanPrecedence() {
        Expr x = e("a OR b AND NOT c = d");
        Binary or = (Binary) x;
        assertThat(or.op()).isEqualTo(BinaryOp.OR);
        Binary and = (Binary) or.right();
        assertThat(and.op()).isEqualTo(BinaryOp.AND);
        Unary not = (Unary) and.right();
        assertThat(not.op()).isEqualTo(UnaryOp.NOT);
        assertThat(((Binary) not.operand()).op()).isEqualTo(BinaryOp.EQ);
        assertThat(f("a OR b AND NOT c = d")).isEqualTo("a OR b AND NOT c = d");
        sameTree("(a OR b) AND c", "(a OR b) AND c");
        assertThat(f("(a OR b) AND c")).isEqualTo("(a OR b) AND c");
    }

    @Test
    void unaryMinusBindsTighterThanPower() {
        Binary pow = (Binary) e("-2 ^ 2");
        assertThat(pow.op()).isEqualTo(BinaryOp.POW);
        assertThat(pow.left()).isEqualTo(new IntegerLiteral(1, -2));
        Binary pow2 = (Binary) e("-x ^ 2");
        assertThat(pow2.left()).isInstanceOf(Unary.class);
        assertThat(f("2 ^ 3 ^ 2")).isEqualTo("2 ^ 3 ^ 2");
        assertThat(f("2 ^ (3 ^ 2)")).isEqualTo("2 ^ (3 ^ 2)");
    }

    @Test
    void concatBindsTighterThanComparison() {
        Binary eq = (Binary) e("a || b = c");
        assertThat(eq.op()).isEqualTo(BinaryOp.EQ);
        assertThat(((Binary) eq.left()).op()).isEqualTo(BinaryOp.CONCAT);
        Binary concat = (Binary) e("a || b + c");
        assertThat(((Binary) concat.right()).op()).isEqualTo(BinaryOp.ADD);
    }

    @Test
    void arithmetic() {
        assertThat(f("1 + 2 * 3")).isEqualTo("1 + 2 * 3");
        assertThat(f("(1 + 2) * 3")).isEqualTo("(1 + 2) * 3");
        assertThat(f("1 - (2 - 3)")).isEqualTo("1 - (2 - 3)");
        assertThat(f("1 - 2 - 3")).isEqualTo("1 - 2 - 3");
        assertThat(f("a % b / c")).isEqualTo("a % b / c");
        assertThat(f("a=-1")).isEqualTo("a = -1");
        assertThat(f("2*-3")).isEqualTo("2 * -3");
        assertThat(f("- -a")).isEqualTo("- -a");
        assertThat(f("-(-2)")).isEqualTo("2");
    }

    @Test
    void isBindsLooserThanComparison() {
        IsNull n = (IsNull) e("a = b IS NULL");
        assertThat(n.expr()).isInstanceOf(Binary.class);
        assertThat(e("a ISNULL")).isEqualTo(new IsNull(1, new ColumnRef(1, List.of("a")), false));
        assertThat(e("a NOTNULL")).isEqualTo(new IsNull(1, new ColumnRef(1, List.of("a")), true));
        assertThat(e("a IS NOT TRUE")).isEqualTo(new IsTruth(1, new ColumnRef(1, List.of("a")), Truth.TRUE, true));
        assertThat(e("a IS UNKNOWN")).isInstanceOf(IsTruth.class);
        assertThat(e("a IS NOT DISTINCT FROM b + 1")).isInstanceOfSatisfying(IsDistinctFrom.class,
                d -> assertThat(d.negated()).isTrue());
        Unary not = (Unary) e("NOT a IS NULL");
        assertThat(not.operand()).isInstanceOf(IsNull.class);
    }

    @Test
    void comparisonsDoNotAssociate() {
        assertError("SELECT 1 = 1 = true", "42601", 14, "syntax error at or near \"=\"");
        assertThat(f("(1 = 1) = true")).isEqualTo("(1 = 1) = TRUE");
        assertThat(e("a <> b")).isInstanceOfSatisfying(Binary.class, b -> assertThat(b.op()).isEqualTo(BinaryOp.NE));
        assertThat(e("a != b")).isInstanceOfSatisfying(Binary.class, b -> assertThat(b.op()).isEqualTo(BinaryOp.NE));
        for (String op : List.of("<", "<=", ">", ">=")) {
            assertThat(((Binary) e("a " + op + " b")).op().symbol()).isEqualTo(op);
        }
    }

    @Test
    void betweenInLike() {
        Between b = (Between) e("x NOT BETWEEN SYMMETRIC 1 AND 2 + 3");
        assertThat(b.negated()).isTrue();
        assertThat(b.symmetric()).isTrue();
        assertThat(b.high()).isInstanceOf(Binary.class);
        Binary and = (Binary) e("x BETWEEN 1 AND 2 AND y");
        assertThat(and.op()).isEqualTo(BinaryOp.AND);
        assertThat(and.left()).isInstanceOf(Between.class);
        InList in = (InList) e("a NOT IN (1, 2, 3)");
        assertThat(in.negated()).isTrue();
        assertThat(in.list()).hasSize(3);
        assertThat(e("a IN (SELECT b FROM t)")).isInstanceOf(InSubquery.class);
        Like like = (Like) e("name ILIKE 'a%' ESCAPE '!'");
        assertThat(like.caseInsensitive()).isTrue();
        assertThat(like.escape()).isEqualTo(new StringLiteral(24, "!"));
        assertThat(e("a NOT LIKE b")).isInstanceOfSatisfying(Like.class, l -> assertThat(l.negated()).isTrue());
        assertThat(f("a ~~ 'x'")).isEqualTo("a LIKE 'x'");
        assertThat(f("a !~~* 'x'")).isEqualTo("a NOT ILIKE 'x'");
        assertThat(f("(a ~~ b) || c")).isEqualTo("(a LIKE b) || c");
        assertThat(f("a ~ 'x' AND b !~* 'y'")).isEqualTo("a ~ 'x' AND b !~* 'y'");
    }

    @Test
    void castsBindTightest() {
        Unary neg = (Unary) e("-x::int");
        assertThat(neg.operand()).isEqualTo(new Cast(2, new ColumnRef(2, List.of("x")), SqlType.INTEGER));
        assertThat(f("CAST(a + 1 AS bigint)")).isEqualTo("CAST(a + 1 AS bigint)");
        assertThat(f("a::text::varchar(3)")).isEqualTo("CAST(CAST(a AS text) AS character varying(3))");
    }

    @Test
    void notAsOperandOfComparison() {
        assertThat(f("a = NOT b")).isEqualTo("a = (NOT b)");
    }

    @Test
    void quantifiedSubquery() {
        Quantified q = (Quantified) e("a > ALL (SELECT b FROM t)");
        assertThat(q.quantifier()).isEqualTo(Quantifier.ALL);
        assertThat(q.op()).isEqualTo(BinaryOp.GT);
        assertThat(((Quantified) e("a = SOME (SELECT 1)")).quantifier()).isEqualTo(Quantifier.ANY);
    }

    // ------------------------------------------------------------------ literals

    @Test
    void numbers() {
        assertThat(e("42")).isEqualTo(new IntegerLiteral(1, 42));
        assertThat(e("9223372036854775807")).isEqualTo(new IntegerLiteral(1, Long.MAX_VALUE));
        assertThat(e("9223372036854775808")).isEqualTo(new NumericLiteral(1, new BigDecimal("9223372036854775808")));
        assertThat(e("-9223372036854775808")).isEqualTo(new IntegerLiteral(1, Long.MIN_VALUE));
        assertThat(e("1.50")).isEqualTo(new NumericLiteral(1, new BigDecimal("1.50")));
        assertThat(e(".5")).isEqualTo(new NumericLiteral(1, new BigDecimal("0.5")));
        assertThat(e("5.")).isEqualTo(new NumericLiteral(1, new BigDecimal("5")));
        assertThat(e("1e3")).isEqualTo(new NumericLiteral(1, new BigDecimal("1e3")));
        assertThat(e("2.5E-2")).isEqualTo(new NumericLiteral(1, new BigDecimal("0.025")));
        assertThat(e("-1.5")).isEqualTo(new NumericLiteral(1, new BigDecimal("-1.5")));
        assertThat(f("1e3")).isEqualTo("1E+3");
        assertError("SELECT 123abc", "42601", 8, "trailing junk after numeric literal at or near \"123a\"");
    }

    @Test
    void strings() {
        assertThat(e("'it''s'")).isEqualTo(new StringLiteral(1, "it's"));
        assertThat(e("'a\\nb'")).isEqualTo(new StringLiteral(1, "a\\nb"));
        assertThat(e("E'a\\nb\\t\\'c\\\\'")).isEqualTo(new StringLiteral(1, "a\nb\t'c\\"));
        assertThat(e("e'\\x41\\101\\u00e9'")).isEqualTo(new StringLiteral(1, "AAé"));
        assertThat(e("'foo'\n  'bar'")).isEqualTo(new StringLiteral(1, "foobar"));
        assertThat(e("$$it's$$")).isEqualTo(new StringLiteral(1, "it's"));
        assertThat(e("$tag$a$$b$tag$")).isEqualTo(new StringLiteral(1, "a$$b"));
        assertError("SELECT 'foo' 'bar'", "42601", 14, "syntax error at or near \"'bar'\"");
        assertThat(f("'a''b'")).isEqualTo("'a''b'");
    }

    @Test
    void typedLiterals() {
        assertThat(e("DATE '2024-01-02'")).isEqualTo(new TypedLiteral(1, SqlType.DATE, "2024-01-02", null));
        assertThat(e("time '12:00'")).isEqualTo(new TypedLiteral(1, SqlType.TIME, "12:00", null));
        assertThat(e("TIMESTAMP '2024-01-02 03:04:05'"))
                .isEqualTo(new TypedLiteral(1, SqlType.TIMESTAMP, "2024-01-02 03:04:05", null));
        assertThat(e("TIMESTAMPTZ 'x'")).isEqualTo(new TypedLiteral(1, SqlType.TIMESTAMPTZ, "x", null));
        assertThat(e("timestamp with time zone 'x'")).isEqualTo(new TypedLiteral(1, SqlType.TIMESTAMPTZ, "x", null));
        assertThat(e("INTERVAL '1' DAY")).isEqualTo(new TypedLiteral(1, SqlType.INTERVAL, "1", "day"));
        assertThat(e("INTERVAL '1:30' HOUR TO MINUTE"))
                .isEqualTo(new TypedLiteral(1, SqlType.INTERVAL, "1:30", "hour to minute"));
        assertThat(e("interval '3 days'")).isEqualTo(new TypedLiteral(1, SqlType.INTERVAL, "3 days", null));
        assertThat(e("int '5'")).isEqualTo(new TypedLiteral(1, SqlType.INTEGER, "5", null));
        assertThat(e("double precision '1.5'")).isEqualTo(new TypedLiteral(1, SqlType.DOUBLE, "1.5", null));
        assertThat(f("TIMESTAMPTZ '2024-01-01'")).isEqualTo("timestamp with time zone '2024-01-01'");
        assertThat(e("TRUE")).isEqualTo(new BooleanLiteral(1, true));
        assertThat(e("false")).isEqualTo(new BooleanLiteral(1, false));
        assertThat(e("NULL")).isEqualTo(new NullLiteral(1));
        assertThat(e("$2")).isEqualTo(new Param(1, 2));
        assertError("SELECT foo 'x'", "42704", 8, "type \"foo\" does not exist");
    }

    // ------------------------------------------------------------------ names

    @Test
    void identifiers() {
        assertThat(e("FooBar")).isEqualTo(new ColumnRef(1, List.of("foobar")));
        assertThat(e("\"FooBar\"")).isEqualTo(new ColumnRef(1, List.of("FooBar")));
        assertThat(e("\"a\"\"b\"")).isEqualTo(new ColumnRef(1, List.of("a\"b")));
        assertThat(e("S.T.C")).isEqualTo(new ColumnRef(1, List.of("s", "t", "c")));
        assertThat(e("t.\"select\"")).isEqualTo(new ColumnRef(1, List.of("t", "select")));
        assertThat(e("t.select")).isEqualTo(new ColumnRef(1, List.of("t", "select")));
        assertThat(e("ÄbC")).isEqualTo(new ColumnRef(1, List.of("Äbc")));
        assertThat(f("\"Foo\" + \"select\" + \"a b\" + x")).isEqualTo("\"Foo\" + \"select\" + \"a b\" + x");
        assertError("SELECT \"\" FROM t", "42601", 8, "zero-length delimited identifier at or near \"\"\"\"");
    }

    @Test
    void keywordsAreCaseInsensitive() {
        assertThat(SqlFormatter.format(stmt("sElEcT a FrOm t WhErE b")))
                .isEqualTo("SELECT a FROM t WHERE b");
    }

    // ------------------------------------------------------------------ functions and special forms

    @Test
    void functionCalls() {
        FunctionCall count = (FunctionCall) e("count(*)");
        assertThat(count.star()).isTrue();
        FunctionCall agg = (FunctionCall) e("string_agg(name, ',' ORDER BY name DESC) FILTER (WHERE x > 0)");
        assertThat(agg.args()).hasSize(2);
        assertThat(agg.orderBy()).singleElement().satisfies(o -> assertThat(o.descending()).isTrue());
        assertThat(agg.filter()).isInstanceOf(Binary.class);
        assertThat(((FunctionCall) e("count(DISTINCT x)")).distinct()).isTrue();
        assertThat(((FunctionCall) e("pg_catalog.now()")).name()).containsExactly("pg_catalog", "now");
        assertThat(f("left(s, 2) || right(s, 1)")).isEqualTo("left(s, 2) || right(s, 1)");
        assertThat(f("coalesce(a, b, 0) + nullif(a, 1) + greatest(1, 2) + least(3, 4)"))
                .isEqualTo("coalesce(a, b, 0) + nullif(a, 1) + greatest(1, 2) + least(3, 4)");
        assertThat(f("now()")).isEqualTo("now()");
    }

    @Test
    void specialForms() {
        assertThat(e("EXTRACT(YEAR FROM d)")).isEqualTo(new Extract(1, "year", new ColumnRef(19, List.of("d"))));
        assertThat(f("substring(s FROM 2 FOR 3)")).isEqualTo("substring(s, 2, 3)");
        assertThat(f("substring(s, 2, 3)")).isEqualTo("substring(s, 2, 3)");
        assertThat(f("substring(s FOR 3)")).isEqualTo("substring(s, 1, 3)");
        assertThat(f("POSITION('b' IN s)")).isEqualTo("strpos(s, 'b')");
        assertThat(f("TRIM(s)")).isEqualTo("btrim(s)");
        assertThat(f("TRIM(LEADING 'x' FROM s)")).isEqualTo("ltrim(s, 'x')");
        assertThat(f("TRIM(TRAILING FROM s)")).isEqualTo("rtrim(s)");
        assertThat(f("TRIM(BOTH 'xy' FROM s)")).isEqualTo("btrim(s, 'xy')");
        assertThat(e("CURRENT_TIMESTAMP")).isEqualTo(new CurrentValue(1, CurrentKind.CURRENT_TIMESTAMP));
        assertThat(e("current_date")).isEqualTo(new CurrentValue(1, CurrentKind.CURRENT_DATE));
        Case c = (Case) e("CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END");
        assertThat(c.operand()).isNull();
        assertThat(c.whens()).hasSize(2);
        Case c2 = (Case) e("CASE x WHEN 1 THEN 'one' END");
        assertThat(c2.operand()).isEqualTo(new ColumnRef(6, List.of("x")));
        assertThat(c2.elseExpr()).isNull();
        assertThat(e("EXISTS (SELECT 1)")).isInstanceOf(Exists.class);
        assertThat(e("(SELECT max(a) FROM t)")).isInstanceOf(ScalarSubquery.class);
        assertThat(f("((SELECT 1) + 1)")).isEqualTo("(SELECT 1) + 1");
        assertThat(f("((SELECT 1) - 1)")).isEqualTo("(SELECT 1) - 1");
        assertThat(f("((SELECT 1) NOT IN (1, 2))")).isEqualTo("(SELECT 1) NOT IN (1, 2)");
        assertThat(f("((SELECT 1) UNION (SELECT 2)) * 2")).isEqualTo("(SELECT 1 UNION SELECT 2) * 2");
        // a subquery first in an expression nested in further parentheses (found by the generated-query oracle)
        assertThat(f("(((SELECT 1) + 1) = 2)")).isEqualTo("(SELECT 1) + 1 = 2");
        assertThat(f("(((SELECT 1) IN (1)) AND true)")).isEqualTo("(SELECT 1) IN (1) AND TRUE");
        assertThat(f("(((SELECT 1) IS NULL) AND true)")).isEqualTo("(SELECT 1) IS NULL AND TRUE");
        assertThat(f("((((SELECT 1)) + 1) = 2)")).isEqualTo("(SELECT 1) + 1 = 2");
        assertThatThrownBy(() -> e("((SELECT 1) + )")).isInstanceOfSatisfying(SqlException.class, x -> assertThat(x.position()).isEqualTo(15));
        assertThat(e("((SELECT 1) + 1)")).isEqualTo(new Binary(2, BinaryOp.ADD,
                new ScalarSubquery(2, new Query(2, List.of(), new Select(3, false, List.of(),
                        List.of(new dev.tributary.sql.ast.SelectItem(10, new IntegerLiteral(10, 1), null)),
                        List.of(), null, List.of(), null), List.of(), null, null)),
                new IntegerLiteral(15, 1), 13));
    }

    // ------------------------------------------------------------------ queries

    @Test
    void selectClauses() {
        Select s = select("SELECT DISTINCT ON (a) a, b AS x, c y, t.*, count(*) FROM t "
                + "WHERE a > 1 GROUP BY 1, b HAVING count(*) > 2");
        assertThat(s.distinct()).isTrue();
        assertThat(s.distinctOn()).hasSize(1);
        assertThat(s.items()).extracting(i -> i.alias()).containsExactly(null, "x", "y", null, null);
        assertThat(s.items().get(3).expr()).isEqualTo(new QualifiedStar(40, List.of("t")));
        assertThat(s.groupBy().get(0)).isEqualTo(new IntegerLiteral(82, 1));
        assertThat(s.having()).isNotNull();
        assertThat(select("SELECT ALL a FROM t").distinct()).isFalse();
        assertThat(select("SELECT * FROM t").items().get(0).expr()).isEqualTo(new Star(8));
    }

    @Test
    void orderLimitOffsetFetch() {
        Query q = ((QueryStatement) stmt("SELECT a FROM t ORDER BY a DESC NULLS LAST, b ASC NULLS FIRST "
                + "LIMIT 10 OFFSET 5")).query();
        assertThat(q.orderBy()).extracting(OrderItem::nulls).containsExactly(OrderItem.Nulls.LAST, OrderItem.Nulls.FIRST);
        assertThat(q.limit()).isInstanceOf(IntegerLiteral.class);
        assertThat(q.offset()).isInstanceOf(IntegerLiteral.class);
        Query all = Parser.parseQuery("SELECT a FROM t LIMIT ALL");
        assertThat(all.limit()).isNull();
        Query fetch = Parser.parseQuery("SELECT a FROM t OFFSET 2 ROWS FETCH FIRST 3 ROWS ONLY");
        assertThat(fetch.limit()).isEqualTo(new IntegerLiteral(43, 3));
        assertThat(SqlFormatter.format(fetch)).isEqualTo("SELECT a FROM t LIMIT 3 OFFSET 2");
        // ClickHouse's LIMIT n [OFFSET m] BY exprs: the first rows of each group, before a plain LIMIT
        Query by = Parser.parseQuery("SELECT a FROM t LIMIT 2 OFFSET 1 BY a, b LIMIT 5");
        assertThat(by.limitBy().limit()).isEqualTo(new IntegerLiteral(23, 2));
        assertThat(by.limitBy().offset()).isEqualTo(new IntegerLiteral(32, 1));
        assertThat(by.limitBy().by()).hasSize(2);
        assertThat(by.limit()).isEqualTo(new IntegerLiteral(48, 5));
        assertThat(by.offset()).isNull();
        // a plain OFFSET after LIMIT is not the BY's
        Query plain = Parser.parseQuery("SELECT a FROM t LIMIT 2 OFFSET 1");
        assertThat(plain.limitBy()).isNull();
        assertThat(plain.offset()).isEqualTo(new IntegerLiteral(32, 1));
    }

    @Test
    void setOperationPrecedence() {
        Query q = Parser.parseQuery("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3");
        SetOperation union = (SetOperation) q.body();
        assertThat(union.op()).isEqualTo(SetOp.UNION);
        assertThat(((SetOperation) union.right()).op()).isEqualTo(SetOp.INTERSECT);
        SetOperation ex = (SetOperation) Parser.parseQuery("SELECT 1 EXCEPT ALL SELECT 2 UNION SELECT 3").body();
        assertThat(ex.op()).isEqualTo(SetOp.UNION);
        assertThat(((SetOperation) ex.left()).all()).isTrue();
        assertThat(SqlFormatter.format(Parser.parseQuery("(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3")))
                .isEqualTo("(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3");
        assertThat(SqlFormatter.format(Parser.parseQuery("SELECT 1 UNION (SELECT 2 UNION SELECT 3)")))
                .isEqualTo("SELECT 1 UNION (SELECT 2 UNION SELECT 3)");
        assertThat(SqlFormatter.format(Parser.parseQuery("(SELECT 1 ORDER BY 1 LIMIT 1) UNION DISTINCT (SELECT 2)")))
                .isEqualTo("(SELECT 1 ORDER BY 1 LIMIT 1) UNION SELECT 2");
        assertError("SELECT 1 ORDER BY 1 UNION SELECT 2", "42601", 21, "syntax error at or near \"UNION\"");
    }

    @Test
    void valuesAndWith() {
        Values v = (Values) Parser.parseQuery("VALUES (1, 'a'), (2, 'b')").body();
        assertThat(v.rows()).hasSize(2);
        assertError("VALUES (1), (1, 2)", "42601", 13, "VALUES lists must all be the same length");
        Query w = Parser.parseQuery("WITH x (a) AS (SELECT 1), y AS (SELECT * FROM x) SELECT * FROM y");
        assertThat(w.with()).hasSize(2);
        assertThat(w.with().get(0).columns()).containsExactly("a");
        Query r = Parser.parseQuery("WITH RECURSIVE t (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT * FROM t");
        assertThat(r.recursion()).isEqualTo(Query.Recursion.RECURSIVE);
        assertThat(SqlFormatter.format(r)).isEqualTo("WITH RECURSIVE t (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT * FROM t");
        Query m = Parser.parseQuery("WITH MUTUALLY RECURSIVE (RETURN AT RECURSION LIMIT 7) a (x int, y text) AS (SELECT * FROM b), b (x int, y text) AS (SELECT * FROM a) "
                + "SELECT * FROM a");
        assertThat(m.recursion()).isEqualTo(new Query.Recursion(Query.Recursion.Kind.MUTUALLY_RECURSIVE, 7, false));
        assertThat(m.with().get(1).types()).containsExactly(dev.tributary.sql.types.SqlType.INTEGER, dev.tributary.sql.types.SqlType.TEXT);
        assertThat(SqlFormatter.format(m)).isEqualTo("WITH MUTUALLY RECURSIVE (RETURN AT RECURSION LIMIT 7) a (x integer, y text) AS (SELECT * FROM b), "
                + "b (x integer, y text) AS (SELECT * FROM a) SELECT * FROM a");
        assertThat(Parser.parseQuery(SqlFormatter.format(m))).isEqualTo(Parser.parseQuery(SqlFormatter.format(Parser.parseQuery(SqlFormatter.format(m)))));
        assertError("WITH MUTUALLY RECURSIVE a (x) AS (SELECT 1) SELECT 1", "42601", 29, "syntax error at or near \")\"");
        assertError("WITH MUTUALLY RECURSIVE (ERROR AT RECURSION LIMIT 0) a (x int) AS (SELECT 1) SELECT 1", "22023", 51,
                "RECURSION LIMIT must be a positive integer");
        Query sc = Parser.parseQuery("with recursive t (n, m) as (select 1, 2 union all select n, m from t) search breadth first by n, m set o "
                + "cycle m set c to 'y' default 'n' using p select * from t");
        assertThat(sc.with().get(0).search()).isEqualTo(new dev.tributary.sql.ast.Cte.Search(71, true, List.of("n", "m"), "o"));
        assertThat(sc.with().get(0).cycle().markValue()).isEqualTo(new Expr.StringLiteral(123, "y"));
        assertThat(SqlFormatter.format(sc)).isEqualTo("WITH RECURSIVE t (n, m) AS (SELECT 1, 2 UNION ALL SELECT n, m FROM t) SEARCH BREADTH FIRST BY n, m SET o "
                + "CYCLE m SET c TO 'y' DEFAULT 'n' USING p SELECT * FROM t");
        assertThat(SqlFormatter.format(Parser.parseQuery(SqlFormatter.format(sc)))).isEqualTo(SqlFormatter.format(sc));
        assertThat(SqlFormatter.format(Parser.parseQuery("with recursive t (n) as (select 1 union all select n from t) search depth first by n set o cycle n set c using p select 1")))
                .isEqualTo("WITH RECURSIVE t (n) AS (SELECT 1 UNION ALL SELECT n FROM t) SEARCH DEPTH FIRST BY n SET o CYCLE n SET c USING p SELECT 1");
        // the cycle mark's values are constants, as in PostgreSQL's grammar
        assertError("WITH RECURSIVE t (n) AS (SELECT 1 UNION ALL SELECT n FROM t) CYCLE n SET c TO 1 + 1 DEFAULT 2 USING p SELECT * FROM t", "42601", 81,
                "syntax error at or near \"+\"");
        assertError("WITH RECURSIVE t (n) AS (SELECT 1 UNION ALL SELECT n FROM t) CYCLE n SET c TO n DEFAULT 2 USING p SELECT * FROM t", "42601", 79,
                "syntax error at or near \"n\"");
    }

    @Test
    void joins() {
        Select s = select("SELECT * FROM a LEFT OUTER JOIN b ON a.x = b.x JOIN c USING (y) "
                + "NATURAL FULL JOIN d CROSS JOIN e, f RIGHT JOIN g ON true");
        assertThat(s.from()).hasSize(2);
        Join top = (Join) s.from().get(0);
        assertThat(top.kind()).isEqualTo(JoinKind.CROSS);
        Join natural = (Join) top.left();
        assertThat(natural.kind()).isEqualTo(JoinKind.FULL);
        assertThat(natural.condition()).isInstanceOf(Natural.class);
        Join using = (Join) natural.left();
        assertThat(using.condition()).isEqualTo(new Using(List.of("y")));
        Join left = (Join) using.left();
        assertThat(left.kind()).isEqualTo(JoinKind.LEFT);
        assertThat(left.condition()).isInstanceOf(On.class);
        Join paren = (Join) select("SELECT * FROM a JOIN (b JOIN c ON p) ON q").from().get(0);
        assertThat(paren.right()).isInstanceOf(Join.class);
        assertError("SELECT * FROM a JOIN b", "42601", 23, "syntax error at end of input");
    }

    @Test
    void fromItems() {
        Select s = select("SELECT * FROM s.t AS x (a, b), (SELECT 1) AS sub (c), LATERAL (SELECT 2) l, "
                + "(VALUES (1), (2)) v (n), generate_series(1, 3) g");
        NamedTable t = (NamedTable) s.from().get(0);
        assertThat(t.name()).containsExactly("s", "t");
        assertThat(t.alias().columns()).containsExactly("a", "b");
        assertThat(((DerivedTable) s.from().get(1)).alias().name()).isEqualTo("sub");
        assertThat(((DerivedTable) s.from().get(2)).lateral()).isTrue();
        assertThat(((ValuesTable) s.from().get(3)).alias().columns()).containsExactly("n");
        assertThat(((FunctionTable) s.from().get(4)).alias().name()).isEqualTo("g");
        AsOfSystemTime a = (AsOfSystemTime) select("SELECT * FROM t AS OF SYSTEM TIME 10 SINCE 5 AS x").from().get(0);
        assertThat(a.asOf()).isEqualTo(new IntegerLiteral(35, 10));
        assertThat(a.since()).isEqualTo(new IntegerLiteral(44, 5));
        assertThat(a.alias().name()).isEqualTo("x");
        Changes c = (Changes) select("SELECT * FROM CHANGES(orders AS OF 7) ch").from().get(0);
        assertThat(c.name()).containsExactly("orders");
        assertThat(c.alias().name()).isEqualTo("ch");
    }

    @Test
    void emitChangesAndAsOf() {
        QueryStatement q = (QueryStatement) stmt("SELECT a FROM t AS OF now() - INTERVAL '1 hour' EMIT CHANGES");
        assertThat(q.emitChanges()).isTrue();
        assertThat(q.asOf()).isInstanceOf(Binary.class);
        assertThat(((Select) q.query().body()).from().get(0)).isInstanceOf(NamedTable.class);
        QueryStatement e = (QueryStatement) stmt("SELECT a FROM t EMIT CHANGES");
        assertThat(e.emitChanges()).isTrue();
        assertThat(((NamedTable) ((Select) e.query().body()).from().get(0)).alias()).isNull();
    }

    // ------------------------------------------------------------------ statements

    @Test
    void createTable() {
        CreateTable c = (CreateTable) stmt("CREATE TABLE IF NOT EXISTS s.Orders (id bigint PRIMARY KEY, "
                + "name varchar(20) NOT NULL, price numeric(10,2) DEFAULT 0, qty int NULL, f float(10), "
                + "g float(30), c char, d double precision, ts timestamp with time zone, t2 timestamp without time zone, "
                + "t3 time, i interval, b bytea, ok boolean DEFAULT true, x text DEFAULT 'a' || 'b')");
        assertThat(c.ifNotExists()).isTrue();
        assertThat(c.name()).containsExactly("s", "orders");
        assertThat(c.primaryKey()).containsExactly("id");
        assertThat(c.columns()).extracting(ColumnDef::type).containsExactly(SqlType.BIGINT, SqlType.varchar(20),
                SqlType.numeric(10, 2), SqlType.INTEGER, SqlType.REAL, SqlType.DOUBLE, SqlType.character(1),
                SqlType.DOUBLE, SqlType.TIMESTAMPTZ, SqlType.TIMESTAMP, SqlType.TIME, SqlType.INTERVAL, SqlType.BYTEA,
                SqlType.BOOLEAN, SqlType.TEXT);
        assertThat(c.columns().get(1).notNull()).isTrue();
        assertThat(c.columns().get(3).notNull()).isFalse();
        assertThat(c.columns().get(2).defaultExpr()).isEqualTo(new IntegerLiteral(116, 0));
        CreateTable k = (CreateTable) stmt("create table t (a int, b int, primary key (a, b))");
        assertThat(k.primaryKey()).containsExactly("a", "b");
        assertError("CREATE TABLE t (a int PRIMARY KEY, PRIMARY KEY (a))", "42P16", 36,
                "multiple primary keys for table \"t\" are not allowed");
        assertError("CREATE TABLE t (a int NOT NULL NULL)", "42601", 32,
                "conflicting NULL/NOT NULL declarations for column \"a\" of table \"t\"");
        assertError("CREATE TABLE t (a foo)", "42704", 19, "type \"foo\" does not exist");
        assertError("CREATE TABLE t (a double)", "42704", 19, "type \"double\" does not exist");
        assertError("CREATE TABLE t (a xml)", "0A000", 19, "type xml is not supported");
        assertThat(((Statement.CreateTable) Parser.parseStatement("CREATE TABLE t (a jsonb)")).columns().get(0).type()).isEqualTo(SqlType.JSONB);
        assertThat(((Statement.CreateTable) Parser.parseStatement("CREATE TABLE t (a uuid)")).columns().get(0).type()).isEqualTo(SqlType.UUID);
        assertThat(((Statement.CreateTable) Parser.parseStatement("CREATE TABLE t (a int[], b text ARRAY, c int2[3])")).columns())
                .extracting(Statement.ColumnDef::type)
                .containsExactly(SqlType.array(SqlType.INTEGER), SqlType.array(SqlType.TEXT), SqlType.array(SqlType.SMALLINT));
    }

    @Test
    void dml() {
        Insert i = (Insert) stmt("INSERT INTO t (a, b) VALUES (1, DEFAULT), (2, 3)");
        assertThat(i.columns()).containsExactly("a", "b");
        assertThat(((Values) i.source().body()).rows().get(0).get(1)).isEqualTo(new DefaultValue(33));
        Insert sel = (Insert) stmt("INSERT INTO t SELECT * FROM u");
        assertThat(sel.source().body()).isInstanceOf(Select.class);
        Insert paren = (Insert) stmt("INSERT INTO t (SELECT 1)");
        assertThat(paren.columns()).isEmpty();
        Update u = (Update) stmt("UPDATE t AS x SET a = a + 1, b = DEFAULT WHERE id = 3");
        assertThat(u.alias()).isEqualTo("x");
        assertThat(u.assignments()).hasSize(2);
        assertThat(u.where()).isNotNull();
        Delete d = (Delete) stmt("DELETE FROM t x WHERE x.a > 1");
        assertThat(d.alias()).isEqualTo("x");
        assertThat(((Delete) stmt("DELETE FROM t")).where()).isNull();
        assertError("SELECT DEFAULT", "42601", 8, "DEFAULT is not allowed in this context");
    }

    @Test
    void transactions() {
        assertThat(stmt("BEGIN")).isEqualTo(new Transaction(1, TransactionKind.BEGIN));
        assertThat(stmt("start transaction")).isEqualTo(new Transaction(1, TransactionKind.BEGIN));
        assertThat(stmt("COMMIT")).isEqualTo(new Transaction(1, TransactionKind.COMMIT));
        assertThat(stmt("END")).isEqualTo(new Transaction(1, TransactionKind.COMMIT));
        assertThat(stmt("ROLLBACK WORK")).isEqualTo(new Transaction(1, TransactionKind.ROLLBACK));
    }

    @Test
    void viewsIndexesDrops() {
        CreateView v = (CreateView) stmt("CREATE OR REPLACE VIEW v (a, b) AS SELECT 1, 2");
        assertThat(v.orReplace()).isTrue();
        assertThat(v.materialized()).isFalse();
        assertThat(v.columns()).containsExactly("a", "b");
        CreateView m = (CreateView) stmt("CREATE MATERIALIZED VIEW IF NOT EXISTS mv AS SELECT a FROM t");
        assertThat(m.materialized()).isTrue();
        assertThat(m.ifNotExists()).isTrue();
        CreateIndex idx = (CreateIndex) stmt("CREATE INDEX IF NOT EXISTS i ON mv (a, lower(b))");
        assertThat(idx.exprs()).hasSize(2);
        assertThat(idx.on()).containsExactly("mv");
        Drop d = (Drop) stmt("DROP MATERIALIZED VIEW IF EXISTS a, s.b CASCADE");
        assertThat(d.kind()).isEqualTo(ObjectKind.MATERIALIZED_VIEW);
        assertThat(d.names()).containsExactly(List.of("a"), List.of("s", "b"));
        assertThat(d.cascade()).isTrue();
        assertThat(((Drop) stmt("DROP TABLE t RESTRICT")).cascade()).isFalse();
        assertThat(((Drop) stmt("DROP INDEX i")).kind()).isEqualTo(ObjectKind.INDEX);
        assertThat(((Drop) stmt("DROP VIEW v")).kind()).isEqualTo(ObjectKind.VIEW);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SHOW TABLES|TABLES|",
        "SHOW VIEWS|VIEWS|",
        "SHOW MATERIALIZED VIEWS|MATERIALIZED_VIEWS|",
        "SHOW INDEXES|INDEXES|",
        "SHOW INDEXES FROM mv|INDEXES|mv",
        "SHOW COLUMNS FROM t|COLUMNS|t",
        "SHOW CREATE VIEW v|CREATE_VIEW|v",
        "SHOW CREATE MATERIALIZED VIEW mv|CREATE_MATERIALIZED_VIEW|mv",
        "SHOW CREATE TABLE t|CREATE_TABLE|t",
        "SHOW search_path|VARIABLE|search_path",
    })
    void show(String sql, String kind, String target) {
        Show s = (Show) stmt(sql);
        assertThat(s.kind()).isEqualTo(ShowKind.valueOf(kind));
        assertThat(s.target()).isEqualTo(target == null ? List.of() : List.of(target));
    }

    @Test
    void explain() {
        Explain e = (Explain) stmt("EXPLAIN (FORMAT TEXT, VERBOSE) SELECT 1");
        assertThat(e.options()).extracting(ExplainOption::name).containsExactly("format", "verbose");
        assertThat(e.options().get(0).value()).isEqualTo("text");
        assertThat(e.statement()).isInstanceOf(QueryStatement.class);
        assertThat(((Explain) stmt("EXPLAIN CREATE MATERIALIZED VIEW v AS SELECT 1")).statement())
                .isInstanceOf(CreateView.class);
    }

    @Test
    void subscribe() {
        Subscribe s = (Subscribe) stmt("SUBSCRIBE TO mv");
        assertThat(s.name()).containsExactly("mv");
        assertThat(s.snapshot()).isTrue();
        assertThat(s.progress()).isFalse();
        assertThat(s.upsertKey()).isNull();
        Subscribe q = (Subscribe) stmt("SUBSCRIBE (SELECT a, count(*) FROM t GROUP BY a) AS OF 100 "
                + "WITH (SNAPSHOT = false, PROGRESS true) ENVELOPE UPSERT (KEY (a))");
        assertThat(q.query()).isNotNull();
        assertThat(q.asOf()).isInstanceOf(IntegerLiteral.class);
        assertThat(q.snapshot()).isFalse();
        assertThat(q.progress()).isTrue();
        assertThat(q.upsertKey()).containsExactly("a");
        assertError("SUBSCRIBE t WITH (FOO)", "42601", 19, "unrecognized SUBSCRIBE option \"foo\"");
        Subscribe any = (Subscribe) stmt("SUBSCRIBE t UP TO 20 ENVELOPE UPSERT (KEY (a)) AS OF 10");
        assertThat(any.upTo()).isInstanceOf(IntegerLiteral.class);
        assertThat(any.asOf()).isInstanceOf(IntegerLiteral.class);
        assertThat(any.upsertKey()).containsExactly("a");
        assertError("SUBSCRIBE t AS OF 1 AS OF 2", "42601", 21, "AS OF given twice");
    }

    @Test
    void retainHistory() {
        CreateTable t = (CreateTable) stmt("CREATE TABLE t (a int) WITH (RETAIN HISTORY FOR '1 hour')");
        assertThat(t.retain().interval()).isInstanceOf(StringLiteral.class);
        assertThat(t.retain().pinAt()).isNull();
        CreateView v = (CreateView) stmt("CREATE MATERIALIZED VIEW v WITH (RETAIN HISTORY PIN AT 5) AS SELECT 1");
        assertThat(v.retain().pinAt()).isInstanceOf(IntegerLiteral.class);
        assertThat(((CreateIndex) stmt("CREATE INDEX i ON t (a) WITH (RETAIN HISTORY = FOR '1s')")).retain()).isNotNull();
        AlterRetainHistory a = (AlterRetainHistory) stmt("ALTER MATERIALIZED VIEW v RESET (RETAIN HISTORY)");
        assertThat(a.kind()).isEqualTo(ObjectKind.MATERIALIZED_VIEW);
        assertThat(a.retain()).isNull();
        assertError("CREATE TABLE t (a int) WITH (FILLFACTOR = 70)", "42601", 30, "unrecognized option \"fillfactor\"");
        assertError("CREATE VIEW v WITH (RETAIN HISTORY FOR '1h') AS SELECT 1", "42601", 15,
                "RETAIN HISTORY is an option of materialized views, tables and indexes, not of views");
        assertError("ALTER TABLE t ADD COLUMN b int", "0A000", 15, "ALTER TABLE ADD is not supported");
    }

    /** {@code WITH (APPEND ONLY)}, beside RETAIN HISTORY in either order, or RisingWave's bare {@code APPEND ONLY}; printed back as it reads. */
    @Test
    void appendOnlyTables() {
        for (String sql : List.of("CREATE TABLE t (a int) WITH (APPEND ONLY)", "CREATE TABLE t (a int) APPEND ONLY",
                "CREATE TABLE t (a int) WITH (APPEND ONLY = true)", "create table t (a int) with (retain history for '1 hour', append only)")) {
            CreateTable t = (CreateTable) stmt(sql);
            assertThat(t.appendOnly()).as(sql).isTrue();
            Statement once = Parser.parseStatement(SqlFormatter.format(t)); // positions as the printed text has them
            assertThat(((CreateTable) once).appendOnly()).isTrue();
            assertThat(((CreateTable) once).retain() != null).isEqualTo(t.retain() != null);
            assertThat(Parser.parseStatement(SqlFormatter.format(once))).as(sql).isEqualTo(once);
        }
        assertThat(((CreateTable) stmt("CREATE TABLE t (a int) WITH (RETAIN HISTORY FOR '1 hour', APPEND ONLY)")).retain()).isNotNull();
        assertThat(((CreateTable) stmt("CREATE TABLE t (a int)")).appendOnly()).isFalse();
        assertError("CREATE TABLE t (a int) WITH (APPEND ONLY, APPEND ONLY)", "42601", 43, "APPEND ONLY is given twice");
        assertError("CREATE TABLE t (a int) WITH (APPEND ONLY = false)", "42601", 44, "APPEND ONLY takes no value but true");
        assertError("CREATE TABLE t (a int) WITH (APPEND)", "42601", 36, "syntax error at or near \")\"");
    }

    @Test
    void clockAndSettings() {
        AdvanceClock by = (AdvanceClock) stmt("ADVANCE CLOCK BY INTERVAL '5 minutes'");
        assertThat(by.to()).isFalse();
        assertThat(by.value()).isEqualTo(new TypedLiteral(18, SqlType.INTERVAL, "5 minutes", null));
        AdvanceClock to = (AdvanceClock) stmt("ADVANCE CLOCK TO TIMESTAMP '2024-01-01 00:00:00'");
        assertThat(to.to()).isTrue();
        Statement.Set set = (Statement.Set) stmt("SET search_path = public, \"X\"");
        assertThat(set.name()).isEqualTo("search_path");
        assertThat(set.values()).containsExactly(new StringLiteral(19, "public"), new StringLiteral(27, "X"));
        Statement.Set to2 = (Statement.Set) stmt("SET statement_timeout TO 1000");
        assertThat(to2.values()).containsExactly(new IntegerLiteral(26, 1000));
        assertThat(((Statement.Set) stmt("SET x TO DEFAULT")).values()).isEmpty();
        assertThat(((Statement.Set) stmt("SET TIME ZONE 'UTC'")).name()).isEqualTo("timezone");
    }

    // ------------------------------------------------------------------ scripts, positions and errors

    @Test
    void scriptsSplitOnSemicolons() {
        String sql = "SELECT 1;; -- nothing\n  SELECT 'a;b' ; BEGIN";
        List<Parsed> all = Parser.parseScript(sql);
        assertThat(all).extracting(Parsed::text).containsExactly("SELECT 1", "SELECT 'a;b'", "BEGIN");
        assertThat(all.get(1).start()).isEqualTo(24);
        assertThat(all.get(1).statement().pos()).isEqualTo(25);
        assertThat(Parser.parse("  ;  ")).isEmpty();
        assertThat(Parser.parse("/* a /* nested */ comment */ SELECT 1 -- tail")).hasSize(1);
    }

    @Test
    void positionsOnNodes() {
        Select s = select("SELECT a,\n  b + c AS x\nFROM t");
        Binary sum = (Binary) s.items().get(1).expr();
        assertThat(sum.pos()).isEqualTo(13);
        assertThat(sum.opPos()).isEqualTo(15);
        assertThat(sum.right().pos()).isEqualTo(17);
        assertThat(s.from().get(0).pos()).isEqualTo(29);
        assertThat(s.items().get(1).pos()).isEqualTo(13);
    }

    @Test
    void syntaxErrorsArePostgresFaithful() {
        // "*" cannot take an alias, so FRM is the unexpected token...
        assertError("SELECT * FRM t", "42601", 10, "syntax error at or near \"FRM\"");
        // ...but after a column FRM is read as its alias, and t is unexpected.
        assertError("SELECT a FRM t", "42601", 14, "syntax error at or near \"t\"");
        assertError("SELECT 1 +", "42601", 11, "syntax error at end of input");
        assertError("SELECT 1 +;", "42601", 11, "syntax error at or near \";\"");
        assertError("SELEC 1", "42601", 1, "syntax error at or near \"SELEC\"");
        assertError("SELECT 'abc", "42601", 8, "unterminated quoted string at or near \"'abc\"");
        assertError("SELECT \"abc", "42601", 8, "unterminated quoted identifier at or near \"\"abc\"");
        assertError("SELECT 1 /* x", "42601", 10, "unterminated /* comment at or near \"/* x\"");
        assertError("SELECT a FROM t WHERE", "42601", 22, "syntax error at end of input");
        assertError("SELECT (1", "42601", 10, "syntax error at end of input");
        assertError("SELECT select", "42601", 8, "syntax error at or near \"select\"");
        assertError("SELECT 1 \\ 2", "42601", 10, "syntax error at or near \"\\\"");
        // windows: named, based on another, frames of every mode, bound and exclusion; PostgreSQL's refusals of impossible frames
        assertThat(SqlFormatter.format(Parser.parseStatement("select sum(a) over w, rank() over (w order by b), count(*) over (partition by c rows between 2 preceding"
                + " and current row exclude ties) from t window w as (partition by a), v as (w order by c range between interval '1 day' preceding and unbounded following)")))
                .isEqualTo("SELECT sum(a) OVER w, rank() OVER (w ORDER BY b), count(*) OVER (PARTITION BY c ROWS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE TIES) FROM t"
                        + " WINDOW w AS (PARTITION BY a), v AS (w ORDER BY c RANGE BETWEEN interval '1 day' PRECEDING AND UNBOUNDED FOLLOWING)");
        assertThat(SqlFormatter.format(Parser.parseStatement("select first_value(a) over (order by b groups 1 preceding) from t")))
                .isEqualTo("SELECT first_value(a) OVER (ORDER BY b GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t");
        assertError("SELECT sum(a) OVER (ROWS UNBOUNDED FOLLOWING) FROM t", "42P20", 21, "frame start cannot be UNBOUNDED FOLLOWING");
        assertError("SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM t", "42P20", 21, "frame end cannot be UNBOUNDED PRECEDING");
        assertError("SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t", "42P20", 21, "frame starting from current row cannot have preceding rows");
        assertError("SELECT sum(a) OVER (ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM t", "42P20", 21, "frame starting from following row cannot have preceding rows");
        assertThat(e("(1, 'a')")).isEqualTo(new Expr.RowConstructor(1, List.of(new Expr.IntegerLiteral(2, 1), new Expr.StringLiteral(5, "a"))));
        assertThat(f("row(a, (b, c))")).isEqualTo("ROW(a, ROW(b, c))");
        assertThat(f("row()")).isEqualTo("ROW()");
        assertError("SELECT a && b", "0A000", 10, "operator && is not supported");
        assertError("SELECT $0", "42P02", 8, "there is no parameter 0");
    }

    @Test
    void deepNestingIsAnErrorNotAStackOverflow() {
        String deep = "SELECT " + "(".repeat(100_000) + "1" + ")".repeat(100_000);
        assertThatThrownBy(() -> Parser.parse(deep)).isInstanceOfSatisfying(SqlException.class,
                ex -> assertThat(ex.sqlState()).isEqualTo("54001"));
        String negs = "SELECT " + "-".repeat(0) + "- ".repeat(50_000) + "1";
        assertThatThrownBy(() -> Parser.parse(negs)).isInstanceOf(SqlException.class);
        String chain = "SELECT " + "1 + ".repeat(50_000) + "1";
        assertThatThrownBy(() -> Parser.parse(chain)).isInstanceOfSatisfying(SqlException.class,
                ex -> assertThat(ex.sqlState()).isEqualTo("54001"));
        String subqueries = "SELECT * FROM " + "(SELECT * FROM ".repeat(10_000) + "t" + ") x".repeat(10_000);
        assertThatThrownBy(() -> Parser.parse(subqueries)).isInstanceOfSatisfying(SqlException.class,
                ex -> assertThat(ex.sqlState()).isEqualTo("54001"));
        // Subqueries as first operands of parenthesised expressions, nested: linear, not exponential.
        String mixed = "1";
        for (int k = 0; k < 60; k++) mixed = "((SELECT " + mixed + ") + 1)";
        String finalMixed = "SELECT " + mixed;
        try {
            assertThat(Parser.parse(finalMixed)).hasSize(1);
        } catch (SqlException ex) {
            assertThat(ex.sqlState()).isEqualTo("54001");
        }
        // Moderate nesting is fine.
        String ok = "SELECT " + "(".repeat(50) + "1" + ")".repeat(50) + " + " + "1 + ".repeat(300) + "1";
        assertThat(Parser.parse(ok)).hasSize(1);
    }

    /** Savepoints, TRUNCATE and REFRESH parse and format back; statements Tributary does not run are 0A000 naming them, never 42601. */
    @Test
    void savepointsTruncateRefreshAndStatementsNotSupported() {
        for (String sql : List.of("SAVEPOINT s1", "RELEASE SAVEPOINT s1", "ROLLBACK TO SAVEPOINT s1", "TRUNCATE TABLE t", "REFRESH MATERIALIZED VIEW mv")) {
            assertThat(SqlFormatter.format(Parser.parseStatement(sql))).isEqualTo(sql);
        }
        assertThat(SqlFormatter.format(Parser.parseStatement("release s1"))).isEqualTo("RELEASE SAVEPOINT s1");
        assertThat(SqlFormatter.format(Parser.parseStatement("rollback work to s1"))).isEqualTo("ROLLBACK TO SAVEPOINT s1");
        assertThat(SqlFormatter.format(Parser.parseStatement("truncate only t restart identity restrict"))).isEqualTo("TRUNCATE TABLE t");
        assertThat(SqlFormatter.format(Parser.parseStatement("refresh materialized view concurrently mv with data"))).isEqualTo("REFRESH MATERIALIZED VIEW mv");
        assertError("TRUNCATE a, b", "0A000", 11, "TRUNCATE of several tables is not supported");
        assertError("TRUNCATE a CASCADE", "0A000", 12, "TRUNCATE ... CASCADE is not supported");
        assertError("REFRESH MATERIALIZED VIEW mv WITH NO DATA", "0A000", 1, "REFRESH MATERIALIZED VIEW ... WITH NO DATA is not supported");
        assertError("VACUUM t", "0A000", 1, "VACUUM is not supported");
        assertError("ANALYZE t", "0A000", 1, "ANALYZE is not supported");
        assertError("LISTEN ch", "0A000", 1, "LISTEN is not supported");
        assertError("NOTIFY ch", "0A000", 1, "NOTIFY is not supported");
        assertError("COMMENT ON FUNCTION f IS 'x'", "0A000", 12, "COMMENT ON FUNCTION is not supported");
        assertThat(SqlFormatter.format(stmt("comment on column s.t.c is 'it''s'"))).isEqualTo("COMMENT ON COLUMN s.t.c IS 'it''s'");
        assertThat(SqlFormatter.format(stmt("COMMENT ON MATERIALIZED VIEW m IS NULL"))).isEqualTo("COMMENT ON MATERIALIZED VIEW m IS NULL");
        assertError("COMMENT ON COLUMN c IS 'x'", "42601", 21, "column name must be qualified");
        assertThat(SqlFormatter.format(stmt("create schema if not exists S authorization Bob"))).isEqualTo("CREATE SCHEMA IF NOT EXISTS s AUTHORIZATION bob");
        assertThat(stmt("CREATE SCHEMA AUTHORIZATION bob")).isEqualTo(new Statement.CreateSchema(1, "bob", false, "bob"));
        assertThat(SqlFormatter.format(stmt("drop schema if exists a, \"B\" cascade"))).isEqualTo("DROP SCHEMA IF EXISTS a, \"B\" CASCADE");
        assertThat(SqlFormatter.format(stmt("alter schema s owner to bob"))).isEqualTo("ALTER SCHEMA s OWNER TO bob");
        assertError("CREATE SCHEMA s CREATE TABLE t (a int)", "0A000", 17, "CREATE SCHEMA with schema elements (CREATE SCHEMA ... CREATE TABLE ...) is not supported");
        assertError("CREATE SCHEMA pg_x", "42939", 1, "unacceptable schema name \"pg_x\"");
        assertError("ALTER SCHEMA s RENAME TO t", "0A000", 16, "ALTER SCHEMA RENAME is not supported");
        assertThat(SqlFormatter.format(stmt("create table c (p int references t (a) initially deferred)")))
                .isEqualTo("CREATE TABLE c (p integer, FOREIGN KEY (p) REFERENCES t (a) DEFERRABLE INITIALLY DEFERRED)");
        assertError("CREATE TABLE x (a int UNIQUE DEFERRABLE)", "0A000", 30, "DEFERRABLE unique and primary key constraints is not supported");
        assertThat(SqlFormatter.format(stmt("CREATE TABLE x (a int PRIMARY KEY NOT DEFERRABLE INITIALLY IMMEDIATE)"))).isEqualTo("CREATE TABLE x (a integer, PRIMARY KEY (a))");
        assertThat(SqlFormatter.format(stmt("set constraints c1, s.c2 immediate"))).isEqualTo("SET CONSTRAINTS c1, s.c2 IMMEDIATE");
        assertThat(SqlFormatter.format(stmt("SET CONSTRAINTS ALL DEFERRED"))).isEqualTo("SET CONSTRAINTS ALL DEFERRED");
        assertError("CREATE TABLE c (p int REFERENCES t NOT DEFERRABLE INITIALLY DEFERRED)", "42601", 51, "constraint declared INITIALLY DEFERRED must be DEFERRABLE");
        assertError("CREATE EXTENSION pgcrypto", "0A000", 8, "CREATE EXTENSION is not supported");
        assertThat(SqlFormatter.format(Parser.parseStatement("insert into t values (1) on conflict (a, b) do nothing returning a, b + 1 as c")))
                .isEqualTo("INSERT INTO t VALUES (1) ON CONFLICT (a, b) DO NOTHING RETURNING a, b + 1 AS c");
        assertThat(SqlFormatter.format(Parser.parseStatement("insert into t values (1) on conflict (a) do update set b = excluded.b + t.b, c = default where t.c > 1")))
                .isEqualTo("INSERT INTO t VALUES (1) ON CONFLICT (a) DO UPDATE SET b = excluded.b + t.b, c = DEFAULT WHERE t.c > 1");
        assertThat(SqlFormatter.format(Parser.parseStatement("insert into t as x values (1) on conflict (a) do update set b = x.b returning x.a")))
                .isEqualTo("INSERT INTO t AS x VALUES (1) ON CONFLICT (a) DO UPDATE SET b = x.b RETURNING x.a");
        assertThat(SqlFormatter.format(Parser.parseStatement("insert into t values (1) on conflict on constraint t_pkey do nothing")))
                .isEqualTo("INSERT INTO t VALUES (1) ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING");
        assertError("INSERT INTO t VALUES (1) ON CONFLICT (a) WHERE a > 0 DO NOTHING", "0A000", 42, "ON CONFLICT (...) WHERE (a partial index's predicate) is not supported");
        // UNIQUE constraints, CREATE UNIQUE INDEX, ALTER TABLE ... ADD / DROP CONSTRAINT
        assertThat(SqlFormatter.format(Parser.parseStatement(
                "create table t (a int constraint t_pk primary key, b text unique, c int constraint c_u unique nulls distinct, unique (b, c), constraint bc unique (c, b))")))
                .isEqualTo("CREATE TABLE t (a integer, b text, c integer, CONSTRAINT t_pk PRIMARY KEY (a), UNIQUE (b), CONSTRAINT c_u UNIQUE (c), UNIQUE (b, c), CONSTRAINT bc UNIQUE (c, b))");
        assertThat(SqlFormatter.format(Parser.parseStatement("create unique index u on t (lower(b), c desc)"))).isEqualTo("CREATE UNIQUE INDEX u ON t (lower(b), c DESC)");
        assertThat(SqlFormatter.format(Parser.parseStatement("alter table t add constraint u unique (a, b)"))).isEqualTo("ALTER TABLE t ADD CONSTRAINT u UNIQUE (a, b)");
        assertThat(SqlFormatter.format(Parser.parseStatement("alter table t add unique (a)"))).isEqualTo("ALTER TABLE t ADD UNIQUE (a)");
        assertThat(SqlFormatter.format(Parser.parseStatement("alter table t drop constraint if exists u restrict"))).isEqualTo("ALTER TABLE t DROP CONSTRAINT IF EXISTS u");
        assertError("CREATE TABLE t (a int, UNIQUE NULLS NOT DISTINCT (a))", "0A000", 31, "NULLS NOT DISTINCT is not supported");
        assertThat(SqlFormatter.format(Parser.parseStatement("create table t (a int check (a > 0) no inherit, b int constraint bc check (b < a), check (a + b > 1))")))
                .isEqualTo("CREATE TABLE t (a integer, b integer, CHECK (a > 0), CONSTRAINT bc CHECK (b < a), CHECK (a + b > 1))");
        assertError("ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0) NOT VALID", "0A000", 46, "CHECK ... NOT VALID is not supported");
        assertThat(SqlFormatter.format(Parser.parseStatement("alter table t drop constraint c cascade"))).isEqualTo("ALTER TABLE t DROP CONSTRAINT c CASCADE");
        // foreign keys: column and table constraints, actions (ON UPDATE before ON DELETE, as PostgreSQL shows them), MATCH FULL
        assertThat(SqlFormatter.format(Parser.parseStatement("create table t (a int references u, b int constraint bf references s.v (x) on delete cascade"
                + " on update set null match full not deferrable initially immediate, c int, d int, foreign key (c, d) references w on delete set default)")))
                .isEqualTo("CREATE TABLE t (a integer, b integer, c integer, d integer, FOREIGN KEY (a) REFERENCES u, CONSTRAINT bf FOREIGN KEY (b) REFERENCES s.v (x)"
                        + " MATCH FULL ON UPDATE SET NULL ON DELETE CASCADE, FOREIGN KEY (c, d) REFERENCES w ON DELETE SET DEFAULT)");
        assertThat(SqlFormatter.format(Parser.parseStatement("alter table t add constraint f foreign key (a) references u (b) on delete restrict on update no action")))
                .isEqualTo("ALTER TABLE t ADD CONSTRAINT f FOREIGN KEY (a) REFERENCES u (b) ON DELETE RESTRICT");
        assertThat(Parser.parseStatement("CREATE TABLE t (a int REFERENCES u DEFERRABLE)") instanceof Statement.CreateTable c
                && c.foreignKeys().get(0).deferrable() && !c.foreignKeys().get(0).initiallyDeferred()).isTrue();
        assertError("CREATE TABLE t (a int REFERENCES u MATCH PARTIAL)", "0A000", 36, "MATCH PARTIAL is not supported");
        assertError("CREATE TABLE t (a int REFERENCES u ON DELETE SET NULL (a))", "0A000", 46, "SET NULL with a column list is not supported");
        assertError("CREATE TABLE t (a int REFERENCES u ON DELETE CASCADE ON DELETE RESTRICT)", "42601", 54, "conflicting or redundant ON DELETE actions");
        assertError("ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES u NOT VALID", "0A000", 48, "FOREIGN KEY ... NOT VALID is not supported");
        assertThat(SqlFormatter.format(Parser.parseStatement("update t as a set x = b.y from b, (select 1) s where a.k = b.k returning a.x")))
                .isEqualTo("UPDATE t AS a SET x = b.y FROM b, (SELECT 1) AS s WHERE a.k = b.k RETURNING a.x");
        assertThat(SqlFormatter.format(Parser.parseStatement("delete from t using u join v on u.a = v.a where t.a = u.a")))
                .isEqualTo("DELETE FROM t USING u JOIN v ON u.a = v.a WHERE t.a = u.a");
        assertThat(SqlFormatter.format(Parser.parseStatement("create table if not exists t (a, b) as select 1, 2 with no data")))
                .isEqualTo("CREATE TABLE IF NOT EXISTS t (a, b) AS SELECT 1, 2 WITH NO DATA");
        assertThat(SqlFormatter.format(Parser.parseStatement("create table t as select * from u with data"))).isEqualTo("CREATE TABLE t AS SELECT * FROM u");
        assertThat(SqlFormatter.format(Parser.parseStatement("select * from unnest(array[1]) with ordinality as x(v, n)")))
                .isEqualTo("SELECT * FROM unnest(ARRAY[1]) WITH ORDINALITY AS x (v, n)");
        // subscripts written together are one subscript of several dimensions; a parenthesis ends them
        assertThat(SqlFormatter.format(Parser.parseStatement("select a[1:2][3], (a[1])[2], array[[1,2],[3,4]]")))
                .isEqualTo("SELECT (a)[1:2][3], ((a)[1])[2], ARRAY[ARRAY[1, 2], ARRAY[3, 4]]");
        assertError("SELECT ARRAY[[1,2],3]", "42601", 20, "syntax error at or near \"3\"");
        // sequences, serial and identity columns, DEALLOCATE
        assertThat(SqlFormatter.format(Parser.parseStatement("create sequence if not exists s as integer increment by -2 minvalue -10 maxvalue 0 start 0 cache 5 no cycle owned by t.a")))
                .isEqualTo("CREATE SEQUENCE IF NOT EXISTS s AS integer INCREMENT BY -2 MINVALUE -10 MAXVALUE 0 START WITH 0 CACHE 5 NO CYCLE OWNED BY t.a");
        assertThat(SqlFormatter.format(Parser.parseStatement("create sequence s no minvalue no maxvalue"))).isEqualTo("CREATE SEQUENCE s");
        assertThat(SqlFormatter.format(Parser.parseStatement(
                "create table t (a serial, b bigserial primary key, c int generated always as identity, d smallint generated by default as identity (start with 5))")))
                .isEqualTo("CREATE TABLE t (a serial, b bigserial, c integer GENERATED ALWAYS AS IDENTITY, d smallint GENERATED BY DEFAULT AS IDENTITY (START WITH 5), PRIMARY KEY (b))");
        assertThat(SqlFormatter.format(Parser.parseStatement("deallocate prepare all"))).isEqualTo("DEALLOCATE ALL");
        assertThat(SqlFormatter.format(Parser.parseStatement("discard temporary"))).isEqualTo("DISCARD TEMP");
        assertThat(SqlFormatter.format(Parser.parseStatement("reset all"))).isEqualTo("SET \"all\" TO DEFAULT");
        assertError("INSERT INTO t (a) OVERRIDING SYSTEM VALUE VALUES (1)", "0A000", 19, "INSERT ... OVERRIDING SYSTEM VALUE is not supported");
        assertError("DISCARD everything", "42601", 9, "syntax error at or near \"everything\"");
        assertThat(SqlFormatter.format(Parser.parseStatement("deallocate s1"))).isEqualTo("DEALLOCATE s1");
        assertThat(SqlFormatter.format(Parser.parseStatement("drop sequence if exists s, t cascade"))).isEqualTo("DROP SEQUENCE IF EXISTS s, t CASCADE");
        assertError("CREATE SEQUENCE s START 1 START 2", "42601", 27, "conflicting or redundant options");
        assertError("CREATE TABLE t (a serial DEFAULT 1)", "42601", 17, "multiple default values specified for column \"a\" of table \"t\"");
        assertError("CREATE TABLE t (a int GENERATED ALWAYS AS (1) STORED)", "0A000", 43, "generated columns (GENERATED ALWAYS AS (expression) STORED) is not supported");
        // index key options are kept as written
        assertThat(SqlFormatter.format(Parser.parseStatement("create index i on t (a desc, b nulls first, c asc nulls last, d)")))
                .isEqualTo("CREATE INDEX i ON t (a DESC, b NULLS FIRST, c ASC NULLS LAST, d)");
    }

    @Test
    void orderedSetAggregatesAndAlterColumn() {
        Expr.FunctionCall f = (Expr.FunctionCall) ((Select) ((Statement.QueryStatement) stmt("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC) FROM t"))
                .query().body()).items().get(0).expr();
        assertThat(f.withinGroup()).isTrue();
        assertThat(f.args()).hasSize(1);
        assertThat(f.orderBy()).hasSize(1);
        assertThat(SqlFormatter.format(f)).isEqualTo("percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC)");
        assertError("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) WITHIN GROUP (ORDER BY y) FROM t", "42601", 62, "syntax error at or near \"GROUP\"");
        assertError("SELECT count(DISTINCT x) WITHIN GROUP (ORDER BY x) FROM t", "42601", 26, "cannot use DISTINCT with WITHIN GROUP");
        Statement.AlterColumn a = (Statement.AlterColumn) stmt("ALTER TABLE t ALTER COLUMN c SET DEFAULT 1 + 2");
        assertThat(a.change()).isEqualTo(Statement.ColumnChange.SET_DEFAULT);
        assertThat(SqlFormatter.format(a)).isEqualTo("ALTER TABLE t ALTER COLUMN c SET DEFAULT 1 + 2");
        assertThat(((Statement.AlterColumn) stmt("alter table t alter c drop not null")).change()).isEqualTo(Statement.ColumnChange.DROP_NOT_NULL);
        assertThat(SqlFormatter.format(stmt("ALTER TABLE t ADD CONSTRAINT k CHECK (a > 0)"))).isEqualTo("ALTER TABLE t ADD CONSTRAINT k CHECK (a > 0)");
        assertError("ALTER TABLE t ALTER COLUMN c TYPE int", "0A000", 30, "ALTER TABLE ... ALTER COLUMN ... TYPE is not supported");
    }
}
