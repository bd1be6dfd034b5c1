package dev.tributary.sql.parser;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Alias;
import dev.tributary.sql.ast.BinaryOp;
import dev.tributary.sql.ast.Cte;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.Expr.*;
import dev.tributary.sql.ast.OrderItem;
import dev.tributary.sql.ast.Query;
import dev.tributary.sql.ast.QueryBody;
import dev.tributary.sql.ast.QueryBody.Select;
import dev.tributary.sql.ast.QueryBody.SetOp;
import dev.tributary.sql.ast.QueryBody.SetOperation;
import dev.tributary.sql.ast.QueryBody.Values;
import dev.tributary.sql.ast.SelectItem;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.ast.Statement.*;
import dev.tributary.sql.ast.TableRef;
import dev.tributary.sql.ast.TableRef.*;
import dev.tributary.sql.ast.Watermark;
import dev.tributary.sql.ast.WindowSpec;
import dev.tributary.sql.parser.Token.Type;
import dev.tributary.sql.types.SqlType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A recursive-descent parser for Tributary's PostgreSQL dialect.
 *
 * <p>Every failure is a {@link SqlException}: 42601 {@code syntax error at or near "tok"} at the
 * token's 1-based position (or {@code at end of input}), 42704 for an unknown type name, 0A000
 * naming a PostgreSQL feature Tributary does not support, and 54001 when nesting is deeper than
 * {@value #MAX_DEPTH}, so a hostile statement cannot overflow the stack of the thread parsing it.
 *
 * <p>Expression precedence is PostgreSQL's, loosest first: OR; AND; NOT; IS / ISNULL / NOTNULL;
 * comparisons (non-associative); BETWEEN / IN / LIKE / ILIKE (non-associative); other operators
 * ({@code ||}, {@code ~}); {@code + -}; {@code * / %}; {@code ^}; unary {@code + -}; {@code ::}.
 */
public final class Parser {
    /** Deepest nesting of expressions, subqueries and operator chains accepted. */
    static final int MAX_DEPTH = 1000;
    private static final int FRAME_COST = 8;

    private final String sql;
    private final List<Token> toks;
    private int p;
    private int depth;
    /** A primary already parsed, to be returned by the next call of {@link #primary}. */
    private Expr pending;
    /** Token positions of a {@code (} that turned out not to open a subquery. */
    private final java.util.Set<Integer> notAQuery = new java.util.HashSet<>();

    private Parser(String sql) {
        this.sql = sql;
        this.toks = Lexer.lex(sql);
    }

    // ------------------------------------------------------------------ public API

    /** The statements of {@code sql}, separated by semicolons; empty statements are skipped. */
    public static List<Statement> parse(String sql) {
        return parseScript(sql).stream().map(Parsed::statement).toList();
    }

    /** Like {@link #parse} but with each statement's place and text in {@code sql}. */
    public static List<Parsed> parseScript(String sql) {
        return guarded(() -> new Parser(sql).script());
    }

    /** Exactly one statement (a trailing semicolon is allowed). */
    public static Statement parseStatement(String sql) {
        List<Statement> all = parse(sql);
        if (all.size() != 1) {
            throw new SqlException("42601", all.isEmpty() ? "syntax error at end of input"
                    : "expected one statement, got " + all.size(), all.isEmpty() ? sql.length() + 1 : all.get(1).pos());
        }
        return all.get(0);
    }

    /** A standalone expression, the whole of {@code sql}. */
    public static Expr parseExpression(String sql) {
        return guarded(() -> {
            Parser ps = new Parser(sql);
            Expr e = ps.expr();
            ps.expect(Type.EOF);
            return e;
        });
    }

    /** A standalone query (SELECT, VALUES, WITH, set operations), the whole of {@code sql}. */
    public static Query parseQuery(String sql) {
        return guarded(() -> {
            Parser ps = new Parser(sql);
            Query q = ps.query();
            if (ps.peek().type() == Type.SEMI) ps.p++;
            ps.expect(Type.EOF);
            return q;
        });
    }

    private interface Body<T> {
        T run();
    }

    private static <T> T guarded(Body<T> body) {
        try {
            return body.run();
        } catch (StackOverflowError e) {
            throw stackDepth(0);
        }
    }

    private static SqlException stackDepth(int pos) {
        return new SqlException("54001", "stack depth limit exceeded", pos,
                "The statement nests expressions or subqueries too deeply; simplify it.");
    }

    // ------------------------------------------------------------------ token helpers

    private Token peek() {
        return toks.get(p);
    }

    private Token peek(int k) {
        return toks.get(Math.min(p + k, toks.size() - 1));
    }

    private Token next() {
        Token t = toks.get(p);
        if (t.type() != Type.EOF) p++;
        return t;
    }

    private int pos() {
        return peek().start() + 1;
    }

    private boolean is(Type t) {
        return peek().type() == t;
    }

    private boolean isKw(String kw) {
        return peek().isKeyword(kw);
    }

    private boolean isKw(int k, String kw) {
        return peek(k).isKeyword(kw);
    }

    private boolean acceptKw(String kw) {
        if (isKw(kw)) {
            p++;
            return true;
        }
        return false;
    }

    private void expectKw(String kw) {
        if (!acceptKw(kw)) throw syntaxError(peek());
    }

    private boolean isOp(String op) {
        return peek().isOp(op);
    }

    private boolean accept(Type t) {
        if (is(t)) {
            p++;
            return true;
        }
        return false;
    }

    private Token expect(Type t) {
        if (!is(t)) throw syntaxError(peek());
        return next();
    }

    private SqlException syntaxError(Token t) {
        if (t.type() == Type.EOF) return new SqlException("42601", "syntax error at end of input", t.start() + 1);
        return new SqlException("42601", "syntax error at or near \"" + sql.substring(t.start(), t.end()) + "\"",
                t.start() + 1);
    }

    /**
     * The identifiers a string holds, split at {@code separator} outside double quotes: a quoted
     * one as written ({@code ""} inside for a quote), an unquoted one folded to lower case, each
     * without the blanks around it ({@code 'Sales."Q1"'} at {@code .} gives {@code sales},
     * {@code Q1}): how PostgreSQL reads a regclass literal or a search_path value.
     */
    public static List<String> identifiers(String text, char separator) {
        List<String> parts = new ArrayList<>();
        StringBuilder b = new StringBuilder();
        boolean quoted = false;
        int end = 0; // b's length up to its last quoted or non-blank character
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"') {
                if (quoted && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    b.append('"');
                    i++;
                } else {
                    quoted = !quoted;
                }
                end = b.length();
            } else if (c == separator && !quoted) {
                parts.add(b.substring(0, end));
                b.setLength(0);
                end = 0;
            } else if (!quoted && Character.isWhitespace(c)) {
                if (end > 0) b.append(c);
            } else {
                b.append(quoted ? c : Character.toLowerCase(c));
                end = b.length();
            }
        }
        parts.add(b.substring(0, end));
        return parts;
    }

    private static SqlException unsupported(String feature, int pos) {
        return new SqlException("0A000", feature + " is not supported", pos);
    }

    private void enter() {
        if (++depth > MAX_DEPTH / FRAME_COST) throw stackDepth(pos());
    }

    private void leave() {
        depth--;
    }

    /** Guards a left-associative chain: its length counts toward the tree depth limit. */
    private void chain(int length) {
        if (depth * FRAME_COST + length > MAX_DEPTH) throw stackDepth(pos());
    }

    // ------------------------------------------------------------------ names

    /** An unquoted non-reserved word or a quoted identifier, as a column/table/alias name. */
    private String name() {
        Token t = peek();
        if (t.type() == Type.QUOTED_IDENT || (t.type() == Type.IDENT && Keywords.isName(t.value()))) {
            p++;
            return t.value();
        }
        throw syntaxError(t);
    }

    private boolean isName() {
        Token t = peek();
        return t.type() == Type.QUOTED_IDENT || (t.type() == Type.IDENT && Keywords.isName(t.value()));
    }

    /** Any word, reserved or not, or a quoted identifier: what may follow AS or a dot. */
    private String label() {
        Token t = peek();
        if (t.type() == Type.QUOTED_IDENT || t.type() == Type.IDENT) {
            p++;
            return t.value();
        }
        throw syntaxError(t);
    }

    private List<String> qualifiedName() {
        List<String> parts = new ArrayList<>();
        parts.add(name());
        while (is(Type.DOT)) {
            p++;
            parts.add(label());
        }
        return parts;
    }

    private List<String> nameList() {
        expect(Type.LPAREN);
        List<String> names = bareNameList();
        expect(Type.RPAREN);
        return names;
    }

    /** {@code a, b, ...}: one name or more, without parentheses. */
    private List<String> bareNameList() {
        List<String> names = new ArrayList<>();
        do {
            names.add(name());
        } while (accept(Type.COMMA));
        return names;
    }

    // ------------------------------------------------------------------ statements

    private List<Parsed> script() {
        List<Parsed> out = new ArrayList<>();
        while (true) {
            while (accept(Type.SEMI)) {}
            if (is(Type.EOF)) return out;
            int start = peek().start();
            Statement s = statement();
            if (!is(Type.SEMI) && !is(Type.EOF)) throw syntaxError(peek());
            int end = toks.get(p - 1).end();
            out.add(new Parsed(s, start, end, sql.substring(start, end)));
        }
    }

    private Statement statement() {
        Token t = peek();
        int pos = pos();
        if (t.type() == Type.LPAREN) return queryStatement();
        if (t.type() != Type.IDENT) throw syntaxError(t);
        return switch (t.value()) {
            case "select", "values", "with", "table" -> queryStatement();
            case "create" -> create();
            case "insert" -> insert();
            case "update" -> update();
            case "delete" -> delete();
            case "begin" -> {
                p++;
                if (!acceptKw("work")) acceptKw("transaction");
                yield new Transaction(pos, TransactionKind.BEGIN);
            }
            case "start" -> {
                p++;
                expectKw("transaction");
                yield new Transaction(pos, TransactionKind.BEGIN);
            }
            case "commit", "end" -> {
                p++;
                if (!acceptKw("work")) acceptKw("transaction");
                yield new Transaction(pos, TransactionKind.COMMIT);
            }
            case "rollback", "abort" -> {
                p++;
                if (!acceptKw("work")) acceptKw("transaction");
                if (t.value().equals("rollback") && acceptKw("to")) {
                    acceptKw("savepoint");
                    yield new Transaction(pos, TransactionKind.ROLLBACK_TO_SAVEPOINT, name());
                }
                yield new Transaction(pos, TransactionKind.ROLLBACK);
            }
            case "truncate" -> truncate();
            case "refresh" -> {
                // a materialized view is always up to date: REFRESH has nothing to do
                p++;
                expectKw("materialized");
                expectKw("view");
                acceptKw("concurrently");
                List<String> name = qualifiedName();
                if (acceptKw("with")) {
                    if (acceptKw("no")) throw unsupported("REFRESH MATERIALIZED VIEW ... WITH NO DATA", pos);
                    expectKw("data");
                }
                yield new Statement.Refresh(pos, name);
            }
            case "listen", "unlisten", "notify" -> throw unsupported(t.value().toUpperCase(Locale.ROOT), pos);
            case "deallocate" -> {
                p++;
                acceptKw("prepare");
                yield new Statement.Deallocate(pos, acceptKw("all") ? null : name());
            }
            case "vacuum", "analyze", "analyse", "cluster", "reindex", "lock", "prepare", "execute", "do", "call",
                 "import", "security", "load", "move", "merge" -> throw unsupported(t.value().toUpperCase(Locale.ROOT), pos);
            case "comment" -> comment();
            case "savepoint" -> {
                p++;
                yield new Transaction(pos, TransactionKind.SAVEPOINT, name());
            }
            case "release" -> {
                p++;
                acceptKw("savepoint");
                yield new Transaction(pos, TransactionKind.RELEASE_SAVEPOINT, name());
            }
            case "drop" -> drop();
            case "grant", "revoke" -> grant();
            case "reassign" -> {
                p++;
                expectKw("owned");
                expectKw("by");
                List<String> from = roleSpecs();
                expectKw("to");
                yield new Statement.ReassignOwned(pos, from, roleSpec());
            }
            case "reset" -> {
                if (isKw(1, "role")) {
                    p += 2;
                    yield new Statement.SetRole(pos, false, null, true);
                }
                if (isKw(1, "session") && isKw(2, "authorization")) {
                    p += 3;
                    yield new Statement.SetRole(pos, true, null, true);
                }
                p++;
                if (acceptKw("all")) yield new Statement.Set(pos, "all", List.of());
                // RESET name: SET name TO DEFAULT
                StringBuilder setting = new StringBuilder(name());
                while (accept(Type.DOT)) setting.append('.').append(name());
                yield new Statement.Set(pos, setting.toString(), List.of());
            }
            case "discard" -> {
                p++;
                String what = peek().type() == Type.IDENT ? next().value() : "";
                if (!List.of("all", "plans", "sequences", "temp", "temporary").contains(what)) throw syntaxError(toks.get(p - 1));
                yield new Statement.Discard(pos, what.equals("temporary") ? "temp" : what);
            }
            case "alter" -> {
                if (isKw(1, "role") || isKw(1, "user")) {
                    p += 2;
                    String name = name();
                    yield new Statement.AlterRole(pos, name, roleOptions());
                }
                yield alter();
            }
            case "show" -> show();
            case "explain" -> explain();
            case "subscribe" -> subscribe();
            case "advance" -> advance();
            case "checkpoint" -> {
                p++;
                yield new Statement.Checkpoint(pos);
            }
            case "set" -> set();
            case "copy" -> copy();
            case "declare" -> declare();
            case "fetch" -> fetch();
            case "close" -> close();
            default -> throw syntaxError(t);
        };
    }

    private Statement queryStatement() {
        int pos = pos();
        int streamsBefore = streamClauses;
        Query q = query();
        // a query over a stream never ends: it is served as EMIT CHANGES is
        boolean continuous = streamClauses > streamsBefore;
        Expr asOf = null;
        boolean emit = false;
        while (true) {
            if (asOf == null && isKw("as") && isKw(1, "of")) {
                p += 2;
                asOf = expr();
            } else if (!emit && isKw("emit")) {
                p++;
                expectKw("changes");
                emit = true;
            } else {
                break;
            }
        }
        return new QueryStatement(pos, q, asOf, emit || continuous);
    }

    /** How many STREAM clauses and EMIT ON WINDOW CLOSE this parser has read. */
    private int streamClauses;

    private Statement create() {
        int pos = pos();
        expectKw("create");
        boolean orReplace = false;
        if (acceptKw("or")) {
            expectKw("replace");
            orReplace = true;
        }
        if (!orReplace && (isKw("temp") || isKw("temporary") || isKw("unlogged"))) {
            throw unsupported(peek().value().toUpperCase(Locale.ROOT) + " tables", pos());
        }
        if (!orReplace && (isKw("role") || isKw("user"))) {
            boolean user = next().isKeyword("user");
            int namePos = pos();
            String name = name();
            if (name.equals("public") || name.equals("none")) {
                throw new SqlException("42939", "role name \"" + name + "\" is reserved", namePos);
            }
            return new Statement.CreateRole(pos, name, user, roleOptions());
        }
        if (!orReplace && acceptKw("table")) return createTable(pos);
        if (!orReplace && acceptKw("source")) return createSource(pos);
        if (!orReplace && acceptKw("sink")) return createSink(pos);
        if (!orReplace && acceptKw("job")) {
            boolean ifNotExists = ifNotExists();
            List<String> name = qualifiedName();
            expectKw("as");
            if (!isKw("insert")) throw new SqlException("42601", "a job is CREATE JOB name AS INSERT INTO table SELECT ...", pos());
            Statement insert = insert();
            if (insert instanceof Statement.InsertIntoUrl u) {
                // the durable form of INSERT INTO FUNCTION url: an HTTP sink of the query, made, shown and dropped as one
                return new Statement.CreateSink(pos, name, ifNotExists, List.of(), u.source(), "HTTP",
                        List.of(new Statement.SourceOption(u.pos(), "URL", u.url())), List.of(), null, List.of(), null);
            }
            return new Statement.CreateJob(pos, name, ifNotExists, (Statement.Insert) insert);
        }
        if (!orReplace && isKw("unique") && isKw(1, "index")) {
            p += 2;
            return createIndex(pos, true);
        }
        if (!orReplace && acceptKw("sequence")) return createSequence(pos);
        if (!orReplace && acceptKw("schema")) return createSchema(pos);
        for (String kind : List.of("database", "function", "procedure", "trigger", "type", "domain", "extension", "rule",
                "policy", "publication", "subscription", "tablespace", "aggregate", "operator", "cast", "collation", "language", "server")) {
            if (isKw(kind)) throw unsupported("CREATE " + kind.toUpperCase(Locale.ROOT), pos());
        }
        if (!orReplace && acceptKw("index")) return createIndex(pos, false);
        boolean materialized = !orReplace && acceptKw("materialized");
        boolean recursive = !materialized && acceptKw("recursive");
        expectKw("view");
        boolean ifNotExists = materialized && ifNotExists();
        List<String> name = qualifiedName();
        List<String> cols = is(Type.LPAREN) ? nameList() : List.of();
        RetainHistory retain = null;
        if (isKw("with")) {
            int wpos = pos();
            retain = withRetainHistory();
            if (!materialized) throw new SqlException("42601", "RETAIN HISTORY is an option of materialized views, tables and indexes, not of views", wpos);
        }
        expectKw("as");
        int qpos = pos();
        Query q = query();
        if (isKw("with")) throw unsupported("WITH options after a view's query", pos());
        if (recursive) {
            // PostgreSQL's shorthand: CREATE VIEW v AS WITH RECURSIVE v (cols) AS (query) SELECT cols FROM v
            if (cols.isEmpty()) throw new SqlException("42601", "CREATE RECURSIVE VIEW needs its column names: CREATE RECURSIVE VIEW name (column, ...) AS query", qpos);
            String self = name.get(name.size() - 1);
            List<dev.tributary.sql.ast.SelectItem> items = new ArrayList<>();
            for (String c : cols) items.add(new dev.tributary.sql.ast.SelectItem(qpos, new Expr.ColumnRef(qpos, List.of(c)), null));
            QueryBody.Select select = new QueryBody.Select(qpos, false, List.of(), items, List.of(new TableRef.NamedTable(qpos, List.of(self), null)), null, List.of(), null);
            q = new Query(qpos, Query.Recursion.RECURSIVE, List.of(new Cte(qpos, self, cols, q)), select, List.of(), null, null, false, null);
        }
        return new CreateView(pos, name, materialized, orReplace, ifNotExists, cols, q, retain);
    }

    private boolean ifNotExists() {
        if (isKw("if") && isKw(1, "not")) {
            p += 2;
            expectKw("exists");
            return true;
        }
        return false;
    }

    private boolean ifExists() {
        if (isKw("if") && isKw(1, "exists")) {
            p += 2;
            return true;
        }
        return false;
    }

    /**
     * {@code CREATE SOURCE [IF NOT EXISTS] name [(column type [NOT NULL] [PRIMARY KEY], ...
     * [, PRIMARY KEY (columns)])] FROM connector [(options)] [BODY] FORMAT format [(options)]
     * [INCLUDE word, ...] [ENVELOPE NONE | UPSERT | DEBEZIUM] [ON DECODE ERROR SKIP | STOP]}.
     * Which envelope takes (or needs) a key is checked where the source is made.
     */
    private Statement createSource(int pos) {
        boolean ifNotExists = ifNotExists();
        List<String> name = qualifiedName();
        List<ColumnDef> cols = new ArrayList<>();
        List<String> key = new ArrayList<>();
        int keyPos = 0;
        if (accept(Type.LPAREN)) {
            do {
                int cpos = pos();
                if (isKw("primary") && isKw(1, "key")) {
                    p += 2;
                    if (keyPos != 0) throw multipleKeys(name, cpos);
                    keyPos = cpos;
                    key.addAll(nameList());
                    continue;
                }
                String col = name();
                SqlType type = type();
                boolean notNull = false;
                while (true) {
                    if (isKw("not") && isKw(1, "null")) {
                        p += 2;
                        notNull = true;
                    } else if (isKw("primary") && isKw(1, "key")) {
                        int kpos = pos();
                        p += 2;
                        if (keyPos != 0) throw multipleKeys(name, kpos);
                        keyPos = kpos;
                        key.add(col);
                    } else if (!acceptKw("null")) {
                        break;
                    }
                }
                cols.add(new ColumnDef(cpos, col, type, notNull, null));
            } while (accept(Type.COMMA));
            expect(Type.RPAREN);
        }
        expectKw("from");
        if (!is(Type.IDENT)) throw syntaxError(peek());
        String connector = next().value().toUpperCase(Locale.ROOT);
        List<Statement.SourceOption> options = is(Type.LPAREN) ? sourceOptions() : List.of();
        String format = null;
        List<Statement.SourceOption> formatOptions = List.of();
        if (isKw("format") || (isKw("body") && isKw(1, "format"))) {
            if (acceptKw("body")) { /* the webhook's spelling */ }
            expectKw("format");
            if (!is(Type.IDENT)) throw syntaxError(peek());
            format = next().value().toUpperCase(Locale.ROOT);
            if (is(Type.LPAREN)) formatOptions = sourceOptions();
        }
        List<String> include = new ArrayList<>();
        if (acceptKw("include")) {
            do {
                // KEY, PARTITION, OFFSET, TIMESTAMP: words, some of them reserved elsewhere
                if (!is(Type.IDENT)) throw syntaxError(peek());
                include.add(next().value().toUpperCase(Locale.ROOT));
            } while (accept(Type.COMMA));
        }
        Statement.SourceEnvelope envelope = Statement.SourceEnvelope.NONE;
        if (isKw("envelope")) {
            int epos = pos();
            p++;
            if (!is(Type.IDENT)) throw syntaxError(peek());
            String word = next().value().toUpperCase(Locale.ROOT);
            try {
                envelope = Statement.SourceEnvelope.valueOf(word);
            } catch (IllegalArgumentException e) {
                throw new SqlException("42601", "a source's ENVELOPE is NONE, UPSERT or DEBEZIUM, not " + word, epos,
                        "ENVELOPE NONE appends each record; UPSERT and DEBEZIUM set or delete the row of the record's PRIMARY KEY.");
            }
        }
        boolean stop = false;
        if (isKw("on") && isKw(1, "decode")) {
            p += 2;
            expectKw("error");
            if (acceptKw("stop")) stop = true;
            else expectKw("skip");
        }
        return new Statement.CreateSource(pos, name, ifNotExists, cols, key, keyPos, connector, options, format, formatOptions, include,
                envelope, stop);
    }

    /**
     * {@code CREATE SINK [IF NOT EXISTS] name FROM relation | (query) INTO connector [(options)]
     * [KEY (columns)] [FORMAT f [(options)] ENVELOPE e]}, after SINK. FORMAT and ENVELOPE are optional here
     * because only some connectors take them (KAFKA needs them, HTTP takes none); the sink's
     * maker checks which.
     */
    private Statement createSink(int pos) {
        boolean ifNotExists = ifNotExists();
        List<String> name = qualifiedName();
        expectKw("from");
        List<String> from = List.of();
        Query query = null;
        if (is(Type.LPAREN)) {
            p++;
            query = query();
            expect(Type.RPAREN);
        } else {
            from = qualifiedName();
        }
        expectKw("into");
        if (!is(Type.IDENT)) throw syntaxError(peek());
        String connector = next().value().toUpperCase(Locale.ROOT);
        List<Statement.SourceOption> options = is(Type.LPAREN) ? sourceOptions() : List.of();
        List<String> key = List.of();
        if (acceptKw("key")) key = nameList();
        String format = null;
        List<Statement.SourceOption> formatOptions = List.of();
        String envelope = null;
        if (acceptKw("format")) {
            if (!is(Type.IDENT)) throw syntaxError(peek());
            format = next().value().toUpperCase(Locale.ROOT);
            if (is(Type.LPAREN)) formatOptions = sourceOptions();
            if (!isKw("envelope")) throw new SqlException("42601", "a sink needs its envelope: ... FORMAT " + format + " ENVELOPE UPSERT | DEBEZIUM", pos());
            p++;
            if (!is(Type.IDENT)) throw syntaxError(peek());
            envelope = next().value().toUpperCase(Locale.ROOT);
        }
        return new Statement.CreateSink(pos, name, ifNotExists, from, query, connector, options, key, format, formatOptions, envelope);
    }

    /**
     * {@code (NAME [=] value, ...)}: a name of one or more words; its value a string, a number or
     * a word (the last word before a comma or the closing parenthesis when there are two or more),
     * or none ({@code true}, as a flag such as {@code HEADER}).
     */
    private List<Statement.SourceOption> sourceOptions() {
        expect(Type.LPAREN);
        List<Statement.SourceOption> out = new ArrayList<>();
        do {
            int opos = pos();
            List<String> words = new ArrayList<>();
            while (is(Type.IDENT) || is(Type.QUOTED_IDENT)) words.add(next().value());
            if (words.isEmpty()) throw syntaxError(peek());
            String value;
            if (is(Type.OP) && peek().value().equals("=")) p++;
            Token v = peek();
            if (v.type() == Type.STRING || v.type() == Type.INTEGER || v.type() == Type.NUMBER) {
                value = next().value();
            } else if (v.type() == Type.OP && v.value().equals("-") && is(1, Type.INTEGER)) {
                p++;
                value = "-" + next().value();
            } else if (v.type() == Type.IDENT) {
                value = next().value();
            } else if (words.size() >= 2) {
                value = words.remove(words.size() - 1);
            } else {
                value = "true";
            }
            out.add(new Statement.SourceOption(opos, String.join(" ", words).toUpperCase(Locale.ROOT), value));
        } while (accept(Type.COMMA));
        expect(Type.RPAREN);
        return out;
    }

    private Statement createTable(int pos) {
        boolean ifNotExists = ifNotExists();
        List<String> name = qualifiedName();
        if (isKw("as") || (is(Type.LPAREN) && columnListThenAs())) {
            List<String> columns = isKw("as") ? List.of() : nameList();
            expectKw("as");
            Query query = query();
            boolean noData = false;
            if (isKw("with") && (isKw(1, "data") || (isKw(1, "no") && isKw(2, "data")))) {
                p++;
                noData = acceptKw("no");
                expectKw("data");
            }
            return new Statement.CreateTableAs(pos, name, ifNotExists, columns, query, noData);
        }
        expect(Type.LPAREN);
        List<ColumnDef> cols = new ArrayList<>();
        List<String> key = new ArrayList<>();
        String keyName = null;
        List<Statement.UniqueKey> uniques = new ArrayList<>();
        List<Statement.CheckDef> checks = new ArrayList<>();
        List<Statement.ForeignKeyDef> foreignKeys = new ArrayList<>();
        int keyPos = 0;
        Watermark watermark = null;
        do {
            int itemPos = pos();
            if (isKw("watermark") && isKw(1, "for")) {
                if (watermark != null) throw new SqlException("42601", "WATERMARK is given twice", itemPos);
                watermark = watermark();
                continue;
            }
            String constraint = null;
            if (acceptKw("constraint")) constraint = name();
            if (isKw("primary")) {
                p++;
                expectKw("key");
                if (keyPos != 0) throw multipleKeys(name, itemPos);
                keyPos = itemPos;
                keyName = constraint;
                key.addAll(nameList());
                keyNotDeferrable();
                continue;
            }
            if (acceptKw("unique")) {
                nullsDistinct();
                uniques.add(new Statement.UniqueKey(itemPos, constraint, nameList()));
                keyNotDeferrable();
                continue;
            }
            if (isKw("check")) {
                checks.add(check(constraint, null));
                continue;
            }
            if (acceptKw("foreign")) {
                expectKw("key");
                foreignKeys.add(references(itemPos, constraint, nameList()));
                continue;
            }
            if (constraint != null || isKw("exclude")) {
                throw unsupported("table constraint " + peek().value().toUpperCase(Locale.ROOT), pos());
            }
            if (isKw("like")) throw unsupported("CREATE TABLE ... LIKE", itemPos);
            String col = name();
            Statement.Identity identity = Statement.Identity.NONE;
            Statement.SequenceOptions sequence = null;
            SqlType type;
            String typeName = is(Type.IDENT) && !is(1, Type.DOT) && !is(1, Type.LBRACKET) ? peek().value() : "";
            switch (typeName) {
                case "serial", "serial4" -> type = SqlType.INTEGER;
                case "bigserial", "serial8" -> type = SqlType.BIGINT;
                case "smallserial", "serial2" -> type = SqlType.SMALLINT;
                default -> type = null;
            }
            if (type != null) {
                p++;
                identity = Statement.Identity.SERIAL;
            } else {
                type = type();
            }
            Boolean notNull = null;
            Expr dflt = null;
            while (true) {
                int cpos = pos();
                if (isKw("generated")) {
                    p++;
                    if (identity != Statement.Identity.NONE) {
                        throw new SqlException("42601", "multiple identity specifications for column \"" + col + "\" of table \"" + last(name) + "\"", cpos);
                    }
                    if (acceptKw("always")) identity = Statement.Identity.ALWAYS;
                    else {
                        expectKw("by");
                        expectKw("default");
                        identity = Statement.Identity.BY_DEFAULT;
                    }
                    expectKw("as");
                    if (!acceptKw("identity")) throw unsupported("generated columns (GENERATED ALWAYS AS (expression) STORED)", pos());
                    if (accept(Type.LPAREN)) {
                        sequence = sequenceOptions(true);
                        expect(Type.RPAREN);
                    }
                    notNull = true;
                    continue;
                }
                if (isKw("not") && isKw(1, "null")) {
                    p += 2;
                    if (Boolean.FALSE.equals(notNull)) throw nullConflict(col, name, cpos);
                    notNull = true;
                } else if (acceptKw("null")) {
                    if (Boolean.TRUE.equals(notNull)) throw nullConflict(col, name, cpos);
                    notNull = false;
                } else if (acceptKw("default")) {
                    if (dflt != null) {
                        throw new SqlException("42601", "multiple default values specified for column \""
                                + col + "\" of table \"" + last(name) + "\"", cpos);
                    }
                    dflt = otherOperator();
                } else if (isKw("primary") || (isKw("constraint") && isKw(2, "primary"))) {
                    String named = acceptKw("constraint") ? name() : null;
                    p++;
                    expectKw("key");
                    if (keyPos != 0) throw multipleKeys(name, cpos);
                    keyPos = cpos;
                    keyName = named;
                    key.add(col);
                    keyNotDeferrable();
                } else if (isKw("unique") || (isKw("constraint") && isKw(2, "unique"))) {
                    String named = acceptKw("constraint") ? name() : null;
                    p++;
                    nullsDistinct();
                    uniques.add(new Statement.UniqueKey(cpos, named, List.of(col)));
                    keyNotDeferrable();
                } else if (isKw("check") || (isKw("constraint") && isKw(2, "check"))) {
                    String named = acceptKw("constraint") ? name() : null;
                    checks.add(check(named, col));
                } else if (isKw("references") || (isKw("constraint") && isKw(2, "references"))) {
                    String named = acceptKw("constraint") ? name() : null;
                    foreignKeys.add(references(cpos, named, List.of(col)));
                } else if (isKw("constraint") || isKw("collate") || isKw("generated")) {
                    throw unsupported("column constraint " + peek().value().toUpperCase(Locale.ROOT), cpos);
                } else {
                    break;
                }
            }
            if (identity != Statement.Identity.NONE && dflt != null) {
                throw new SqlException("42601", identity == Statement.Identity.SERIAL
                        ? "multiple default values specified for column \"" + col + "\" of table \"" + last(name) + "\""
                        : "both default and identity specified for column \"" + col + "\" of table \"" + last(name) + "\"", itemPos);
            }
            if (identity == Statement.Identity.SERIAL) notNull = true;
            cols.add(new ColumnDef(itemPos, col, type, Boolean.TRUE.equals(notNull), dflt, identity, sequence));
        } while (accept(Type.COMMA));
        expect(Type.RPAREN);
        if (isKw("partition") || isKw("inherits")) throw unsupported("table options", pos());
        // options: WITH (APPEND ONLY, RETAIN HISTORY ...) in any order, each once; or RisingWave's bare APPEND ONLY
        RetainHistory retain = null;
        RetainRows retainRows = null;
        boolean appendOnly = false;
        if (isKw("append")) {
            appendOnly();
            appendOnly = true;
        }
        if (isKw("with")) {
            p++;
            expect(Type.LPAREN);
            do {
                int opos = pos();
                if (isKw("append")) {
                    if (appendOnly) throw new SqlException("42601", "APPEND ONLY is given twice", opos);
                    appendOnly();
                    appendOnly = true;
                } else if (isKw("retain") && isKw(1, "rows")) {
                    if (retainRows != null) throw new SqlException("42601", "RETAIN ROWS is given twice", opos);
                    p += 2;
                    if (isOp("=")) p++;
                    retainRows = retainRows(opos);
                } else if (isKw("retain")) {
                    if (retain != null) throw new SqlException("42601", "RETAIN HISTORY is given twice", opos);
                    retain = retainHistory();
                } else {
                    throw new SqlException("42601", "unrecognized option \"" + peek().value() + "\"", opos,
                            "The table options are APPEND ONLY, RETAIN ROWS FOR interval (or RETAIN ROWS n) and RETAIN HISTORY FOR interval (or PIN AT time).");
                }
            } while (accept(Type.COMMA));
            expect(Type.RPAREN);
        }
        return new CreateTable(pos, name, ifNotExists, cols, key, retain, appendOnly, watermark, keyName, uniques, checks, foreignKeys, retainRows);
    }

    /** What follows {@code RETAIN ROWS [=]}: {@code FOR interval} or a positive count of rows. */
    private RetainRows retainRows(int opos) {
        if (isKw("for")) {
            p++;
            return new RetainRows(opos, otherOperator(), -1);
        }
        int cpos = pos();
        if (peek().type() != Type.INTEGER) {
            throw new SqlException("42601", "RETAIN ROWS takes FOR interval or a number of rows", cpos,
                    "For example WITH (APPEND ONLY, RETAIN ROWS FOR '1 day') or WITH (APPEND ONLY, RETAIN ROWS 1000000).");
        }
        long count;
        try {
            count = Long.parseLong(next().value());
        } catch (NumberFormatException e) {
            count = -1;
        }
        if (count <= 0) throw new SqlException("22023", "RETAIN ROWS takes a positive number of rows", cpos);
        return new RetainRows(opos, null, count);
    }

    /**
     * {@code REFERENCES table [(columns)] [MATCH FULL | SIMPLE] [ON DELETE action] [ON UPDATE
     * action] [[NOT] DEFERRABLE] [INITIALLY IMMEDIATE | DEFERRED]} of a foreign key on
     * {@code columns} (MATCH PARTIAL is refused, as are SET NULL/SET DEFAULT with a column list).
     */
    private Statement.ForeignKeyDef references(int pos, String name, List<String> columns) {
        expectKw("references");
        List<String> table = qualifiedName();
        List<String> refColumns = is(Type.LPAREN) ? nameList() : List.of();
        boolean matchFull = false;
        Statement.ReferentialAction onDelete = null;
        Statement.ReferentialAction onUpdate = null;
        Boolean deferrable = null, initiallyDeferred = null;
        int deferredPos = 0;
        while (true) {
            int opos = pos();
            if (acceptKw("match")) {
                if (acceptKw("full")) matchFull = true;
                else if (isKw("partial")) throw unsupported("MATCH PARTIAL", opos);
                else expectKw("simple");
            } else if (isKw("on") && (isKw(1, "delete") || isKw(1, "update"))) {
                p++;
                boolean delete = acceptKw("delete");
                if (!delete) expectKw("update");
                Statement.ReferentialAction a = referentialAction();
                if (delete ? onDelete != null : onUpdate != null) {
                    throw new SqlException("42601", "conflicting or redundant ON " + (delete ? "DELETE" : "UPDATE") + " actions", opos);
                }
                if (delete) onDelete = a;
                else onUpdate = a;
            } else if (isKw("not") && isKw(1, "deferrable") || isKw("deferrable")) {
                boolean yes = !acceptKw("not");
                expectKw("deferrable");
                if (deferrable != null) throw new SqlException("42601", "multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed", opos);
                deferrable = yes;
            } else if (acceptKw("initially")) {
                boolean deferred = acceptKw("deferred");
                if (!deferred) expectKw("immediate");
                if (initiallyDeferred != null) throw new SqlException("42601", "multiple INITIALLY IMMEDIATE/DEFERRED clauses not allowed", opos);
                initiallyDeferred = deferred;
                deferredPos = opos;
            } else {
                break;
            }
        }
        if (Boolean.TRUE.equals(initiallyDeferred) && Boolean.FALSE.equals(deferrable)) {
            throw new SqlException("42601", "constraint declared INITIALLY DEFERRED must be DEFERRABLE", deferredPos);
        }
        boolean deferred = Boolean.TRUE.equals(initiallyDeferred);
        return new Statement.ForeignKeyDef(pos, name, columns, table, refColumns,
                onDelete == null ? Statement.ReferentialAction.NO_ACTION : onDelete, onUpdate == null ? Statement.ReferentialAction.NO_ACTION : onUpdate, matchFull,
                deferred || Boolean.TRUE.equals(deferrable), deferred);
    }

    /** After a PRIMARY KEY or UNIQUE: [NOT DEFERRABLE] [INITIALLY IMMEDIATE], what Tributary's keys are (0A000 for a deferrable one). */
    private void keyNotDeferrable() {
        while (true) {
            int opos = pos();
            if (isKw("not") && isKw(1, "deferrable")) {
                p += 2;
            } else if (isKw("deferrable") || (isKw("initially") && isKw(1, "deferred"))) {
                throw unsupported("DEFERRABLE unique and primary key constraints", opos);
            } else if (isKw("initially") && isKw(1, "immediate")) {
                p += 2;
            } else {
                return;
            }
        }
    }

    private Statement.ReferentialAction referentialAction() {
        int apos = pos();
        if (acceptKw("cascade")) return Statement.ReferentialAction.CASCADE;
        if (acceptKw("restrict")) return Statement.ReferentialAction.RESTRICT;
        if (acceptKw("no")) {
            expectKw("action");
            return Statement.ReferentialAction.NO_ACTION;
        }
        expectKw("set");
        Statement.ReferentialAction a;
        if (acceptKw("null")) a = Statement.ReferentialAction.SET_NULL;
        else {
            expectKw("default");
            a = Statement.ReferentialAction.SET_DEFAULT;
        }
        if (is(Type.LPAREN)) throw unsupported(a.sql() + " with a column list", apos);
        return a;
    }

    /** Whether the tokens from here are {@code (name, name, ...) AS}: CREATE TABLE AS's column names, not column definitions. */
    private boolean columnListThenAs() {
        int k = p + 1;
        while (k < toks.size() && (toks.get(k).type() == Type.IDENT || toks.get(k).type() == Type.QUOTED_IDENT)) {
            k++;
            if (toks.get(k).type() == Type.RPAREN) return toks.get(k + 1).isKeyword("as");
            if (toks.get(k).type() != Type.COMMA) return false;
            k++;
        }
        return false;
    }

    /** {@code APPEND ONLY [= true]}: {@code = false} is refused rather than meaning an ordinary table, which is what leaving it out says. */
    private void appendOnly() {
        expectKw("append");
        expectKw("only");
        if (isOp("=")) {
            p++;
            int vpos = pos();
            if (!acceptKw("true")) throw new SqlException("42601", "APPEND ONLY takes no value but true", vpos, "Leave the option out for a table that takes UPDATE and DELETE.");
        }
    }

    /** {@code CHECK (expr) [NO INHERIT]}, named {@code name} (null: PostgreSQL's name), written on {@code column} (null: on the table). */
    private Statement.CheckDef check(String name, String column) {
        int pos = pos();
        expectKw("check");
        expect(Type.LPAREN);
        Expr e = expr();
        expect(Type.RPAREN);
        if (isKw("no") && isKw(1, "inherit")) p += 2;
        if (isKw("not") && isKw(1, "valid")) throw unsupported("CHECK ... NOT VALID", pos());
        return new Statement.CheckDef(pos, name, e, column);
    }

    /** {@code [NULLS [NOT] DISTINCT]} after UNIQUE: NULLs are distinct (never conflict), as by default; NOT DISTINCT is refused. */
    private void nullsDistinct() {
        if (!isKw("nulls")) return;
        int npos = pos();
        p++;
        if (acceptKw("not")) {
            expectKw("distinct");
            throw unsupported("NULLS NOT DISTINCT", npos);
        }
        expectKw("distinct");
    }

    private static String last(List<String> name) {
        return name.get(name.size() - 1);
    }

    private static SqlException multipleKeys(List<String> table, int pos) {
        return new SqlException("42P16", "multiple primary keys for table \"" + last(table) + "\" are not allowed", pos);
    }

    private static SqlException nullConflict(String col, List<String> table, int pos) {
        return new SqlException("42601", "conflicting NULL/NOT NULL declarations for column \"" + col
                + "\" of table \"" + last(table) + "\"", pos);
    }

    private Statement createSequence(int pos) {
        boolean ifNotExists = ifNotExists();
        List<String> name = qualifiedName();
        Statement.SequenceOptions options = sequenceOptions(false);
        List<String> ownedBy = List.of();
        if (isKw("owned")) {
            p++;
            expectKw("by");
            if (!acceptKw("none")) ownedBy = qualifiedName();
        }
        return new Statement.CreateSequence(pos, name, ifNotExists, options, ownedBy);
    }

    /**
     * A sequence's options, each at most once (42601 for a repeat), as CREATE SEQUENCE and an
     * identity column's parentheses take them; {@code inParens} stops at ")".
     */
    private Statement.SequenceOptions sequenceOptions(boolean inParens) {
        SqlType type = null;
        Long increment = null, min = null, max = null, start = null, cache = null;
        Boolean cycle = null;
        java.util.Set<String> seen = new java.util.HashSet<>();
        while (is(Type.IDENT) && !(inParens && is(Type.RPAREN))) {
            int opos = pos();
            String option = peek().value();
            String key = option.equals("no") && is(1, Type.IDENT) ? toks.get(p + 1).value() : option;
            if (!List.of("as", "increment", "minvalue", "maxvalue", "start", "cache", "cycle", "restart").contains(key)) break;
            if (!seen.add(key)) throw new SqlException("42601", "conflicting or redundant options", opos);
            p++;
            switch (option) {
                case "as" -> type = type();
                case "increment" -> {
                    acceptKw("by");
                    increment = signedInteger();
                }
                case "minvalue" -> min = signedInteger();
                case "maxvalue" -> max = signedInteger();
                case "start" -> {
                    acceptKw("with");
                    start = signedInteger();
                }
                case "cache" -> cache = signedInteger();
                case "cycle" -> cycle = true;
                case "no" -> {
                    p++;
                    if (key.equals("cycle")) cycle = false;
                    else if (!key.equals("minvalue") && !key.equals("maxvalue")) throw syntaxError(toks.get(p - 1));
                }
                default -> throw unsupported("sequence option " + option.toUpperCase(Locale.ROOT), opos);
            }
        }
        return new Statement.SequenceOptions(type, increment, min, max, start, cache, cycle);
    }

    /** An integer constant, possibly negative. */
    private long signedInteger() {
        boolean negative = false;
        if (isOp("-")) {
            p++;
            negative = true;
        } else if (isOp("+")) {
            p++;
        }
        Token t = next();
        if (t.type() != Type.INTEGER) throw syntaxError(t);
        try {
            long v = Long.parseLong(t.value());
            return negative ? -v : v;
        } catch (NumberFormatException e) {
            throw new SqlException("22003", "value \"" + (negative ? "-" : "") + t.value() + "\" is out of range for type bigint", t.start() + 1);
        }
    }

    private Statement createIndex(int pos, boolean unique) {
        if (isKw("concurrently")) throw unsupported("CREATE INDEX CONCURRENTLY", pos());
        boolean ifNotExists = ifNotExists();
        if (isKw("on")) throw new SqlException("0A000", "an index must be named", pos());
        String name = name();
        expectKw("on");
        List<String> on = qualifiedName();
        if (isKw("using")) throw unsupported("CREATE INDEX ... USING", pos());
        expect(Type.LPAREN);
        List<Expr> exprs = new ArrayList<>();
        List<String> orders = new ArrayList<>();
        do {
            exprs.add(expr());
            if (isKw("collate")) throw unsupported("COLLATE in an index", pos());
            StringBuilder order = new StringBuilder();
            if (acceptKw("asc")) order.append("ASC");
            else if (acceptKw("desc")) order.append("DESC");
            if (acceptKw("nulls")) {
                if (!order.isEmpty()) order.append(' ');
                if (acceptKw("first")) order.append("NULLS FIRST");
                else {
                    expectKw("last");
                    order.append("NULLS LAST");
                }
            }
            orders.add(order.toString());
        } while (accept(Type.COMMA));
        expect(Type.RPAREN);
        if (unique) nullsDistinct();
        if (isKw("where") || isKw("include")) throw unsupported("index options", pos());
        RetainHistory retain = isKw("with") ? withRetainHistory() : null;
        return new CreateIndex(pos, name, ifNotExists, on, exprs, orders, retain, unique);
    }

    /** {@code WITH (RETAIN HISTORY [=] FOR interval | PIN AT time)}: the one object option there is. */
    private RetainHistory withRetainHistory() {
        expectKw("with");
        expect(Type.LPAREN);
        RetainHistory r = retainHistory();
        expect(Type.RPAREN);
        return r;
    }

    private RetainHistory retainHistory() {
        int pos = pos();
        if (!isKw("retain")) {
            throw new SqlException("42601", "unrecognized option \"" + peek().value() + "\"", pos, "The option there is RETAIN HISTORY FOR interval or RETAIN HISTORY PIN AT time.");
        }
        p++;
        expectKw("history");
        if (isOp("=")) p++;
        if (acceptKw("for")) return new RetainHistory(pos, otherOperator(), null);
        if (isKw("pin")) {
            p++;
            expectKw("at");
            return new RetainHistory(pos, null, otherOperator());
        }
        throw new SqlException("42601", "RETAIN HISTORY takes FOR interval or PIN AT time", pos());
    }

    /** COMMENT ON TABLE|VIEW|MATERIALIZED VIEW|INDEX|SEQUENCE name | COLUMN relation.column IS 'text' | NULL. */
    private Statement comment() {
        int pos = pos();
        expectKw("comment");
        expectKw("on");
        ObjectKind kind = objectKind();
        if (kind == null && !acceptKw("column")) throw unsupported("COMMENT ON " + peek().value().toUpperCase(Locale.ROOT), pos());
        List<String> name = qualifiedName();
        String column = null;
        if (kind == null) {
            if (name.size() < 2) throw new SqlException("42601", "column name must be qualified", pos());
            column = name.get(name.size() - 1);
            name = name.subList(0, name.size() - 1);
        }
        expectKw("is");
        String text;
        if (acceptKw("null")) text = null;
        else if (is(Type.STRING)) text = next().value();
        else throw syntaxError(peek());
        return new Statement.Comment(pos, kind, name, column, text);
    }

    /** TABLE, VIEW, MATERIALIZED VIEW, INDEX or SEQUENCE, taken; null (nothing taken) when none of them comes next. */
    private ObjectKind objectKind() {
        if (acceptKw("table")) return ObjectKind.TABLE;
        if (acceptKw("view")) return ObjectKind.VIEW;
        if (acceptKw("index")) return ObjectKind.INDEX;
        if (acceptKw("sequence")) return ObjectKind.SEQUENCE;
        if (acceptKw("source")) return ObjectKind.SOURCE;
        if (acceptKw("sink")) return ObjectKind.SINK;
        if (acceptKw("job")) return ObjectKind.JOB;
        if (!isKw("materialized")) return null;
        p++;
        expectKw("view");
        return ObjectKind.MATERIALIZED_VIEW;
    }

    /** ALTER TABLE|MATERIALIZED VIEW|INDEX [IF EXISTS] name SET (RETAIN HISTORY ...) | RESET (RETAIN HISTORY). */
    private Statement alter() {
        int pos = pos();
        expectKw("alter");
        if (isKw("sequence")) throw unsupported("ALTER SEQUENCE", pos());
        if (acceptKw("schema")) {
            String name = name();
            if (isKw("owner") && isKw(1, "to")) {
                p += 2;
                return new Statement.AlterSchemaOwner(pos, name, roleSpec());
            }
            throw unsupported("ALTER SCHEMA " + (peek().type() == Type.EOF ? "" : peek().value().toUpperCase(Locale.ROOT)), pos());
        }
        ObjectKind kind = objectKind();
        if (kind == null) throw unsupported("ALTER " + peek().value().toUpperCase(Locale.ROOT), pos());
        List<String> name = qualifiedName();
        if (kind == ObjectKind.JOB) {
            if (acceptKw("pause")) return new Statement.AlterJob(pos, name, true);
            if (acceptKw("resume")) return new Statement.AlterJob(pos, name, false);
            throw new SqlException("42601", "ALTER JOB name takes PAUSE or RESUME", pos());
        }
        if (kind == ObjectKind.SINK) {
            if (acceptKw("pause")) return new Statement.AlterSink(pos, name, true);
            if (acceptKw("resume")) return new Statement.AlterSink(pos, name, false);
            throw new SqlException("42601", "ALTER SINK name takes PAUSE or RESUME", pos());
        }
        if (isKw("owner") && isKw(1, "to")) {
            p += 2;
            return new Statement.AlterOwner(pos, kind, name, roleSpec());
        }
        if (kind == ObjectKind.VIEW) throw unsupported("ALTER VIEW " + (peek().type() == Type.EOF ? "" : peek().value().toUpperCase(Locale.ROOT)), pos());
        if (kind == ObjectKind.TABLE && isKw("alter") && !isKw(1, "constraint")) {
            p++;
            acceptKw("column");
            String column = name();
            Statement.ColumnChange change;
            Expr defaultExpr = null;
            int apos = pos();
            if (acceptKw("set")) {
                if (acceptKw("default")) {
                    change = Statement.ColumnChange.SET_DEFAULT;
                    defaultExpr = expr();
                } else if (acceptKw("not")) {
                    expectKw("null");
                    change = Statement.ColumnChange.SET_NOT_NULL;
                } else {
                    throw unsupported("ALTER TABLE ... ALTER COLUMN ... SET " + peek().value().toUpperCase(Locale.ROOT), pos());
                }
            } else if (acceptKw("drop")) {
                if (acceptKw("default")) {
                    change = Statement.ColumnChange.DROP_DEFAULT;
                } else if (acceptKw("not")) {
                    expectKw("null");
                    change = Statement.ColumnChange.DROP_NOT_NULL;
                } else {
                    throw unsupported("ALTER TABLE ... ALTER COLUMN ... DROP " + peek().value().toUpperCase(Locale.ROOT), pos());
                }
            } else {
                throw unsupported("ALTER TABLE ... ALTER COLUMN ... " + (peek().type() == Type.EOF ? "" : peek().value().toUpperCase(Locale.ROOT)), apos);
            }
            if (is(Type.COMMA)) throw unsupported("ALTER TABLE with several actions (run one ALTER TABLE per action)", pos());
            return new Statement.AlterColumn(pos, name, column, change, defaultExpr);
        }
        if (kind == ObjectKind.TABLE && isKw("add") && (isKw(1, "constraint") || isKw(1, "unique") || isKw(1, "foreign") || isKw(1, "check"))) {
            p++;
            int cpos = pos();
            String constraint = acceptKw("constraint") ? name() : null;
            if (acceptKw("check")) {
                expect(Type.LPAREN);
                Expr check = expr();
                expect(Type.RPAREN);
                if (isKw("not") && isKw(1, "valid")) throw unsupported("CHECK ... NOT VALID", pos());
                return new Statement.AddConstraint(pos, name, null, null, new Statement.CheckDef(cpos, constraint, check, null));
            }
            if (acceptKw("foreign")) {
                expectKw("key");
                Statement.ForeignKeyDef fk = references(cpos, constraint, nameList());
                if (isKw("not") && isKw(1, "valid")) throw unsupported("FOREIGN KEY ... NOT VALID", pos());
                return new Statement.AddConstraint(pos, name, null, fk);
            }
            if (!acceptKw("unique")) throw unsupported("ALTER TABLE ... ADD CONSTRAINT " + peek().value().toUpperCase(Locale.ROOT), pos());
            nullsDistinct();
            return new Statement.AddConstraint(pos, name, new Statement.UniqueKey(cpos, constraint, nameList()));
        }
        if (kind == ObjectKind.TABLE && isKw("drop") && isKw(1, "constraint")) {
            p += 2;
            boolean ifExists = ifExists();
            String constraint = name();
            boolean cascade = acceptKw("cascade");
            if (!cascade) acceptKw("restrict");
            return new Statement.DropConstraint(pos, name, constraint, ifExists, cascade);
        }
        if (acceptKw("set")) {
            expect(Type.LPAREN);
            RetainHistory r = retainHistory();
            expect(Type.RPAREN);
            return new AlterRetainHistory(pos, kind, name, r);
        }
        if (acceptKw("reset")) {
            expect(Type.LPAREN);
            expectKw("retain");
            expectKw("history");
            expect(Type.RPAREN);
            return new AlterRetainHistory(pos, kind, name, null);
        }
        throw unsupported("ALTER " + kind.sql() + " " + (peek().type() == Type.EOF ? "" : peek().value().toUpperCase(Locale.ROOT)), pos());
    }

    /** CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role] | CREATE SCHEMA [IF NOT EXISTS] AUTHORIZATION role (after CREATE SCHEMA). */
    private Statement createSchema(int pos) {
        boolean ifNotExists = ifNotExists();
        String name = null, owner = null;
        if (!isKw("authorization")) name = name();
        if (acceptKw("authorization")) owner = roleSpec();
        if (name == null && owner == null) throw syntaxError(peek());
        if (peek().type() != Type.EOF && peek().type() != Type.SEMI) {
            throw unsupported("CREATE SCHEMA with schema elements (CREATE SCHEMA ... CREATE TABLE ...)", pos());
        }
        if (name != null && name.startsWith("pg_")) {
            throw new SqlException("42939", "unacceptable schema name \"" + name + "\"", pos).withDetail("The prefix \"pg_\" is reserved for system schemas.");
        }
        return new Statement.CreateSchema(pos, name != null ? name : owner, ifNotExists, owner);
    }

    private Statement drop() {
        int pos = pos();
        expectKw("drop");
        if (acceptKw("schema")) {
            boolean ifExists = ifExists();
            List<String> names = new ArrayList<>();
            do {
                names.add(name());
            } while (accept(Type.COMMA));
            boolean cascade = acceptKw("cascade");
            if (!cascade) acceptKw("restrict");
            return new Statement.DropSchema(pos, ifExists, names, cascade);
        }
        if (isKw("owned") && isKw(1, "by")) {
            p += 2;
            List<String> roles = roleSpecs();
            boolean cascade = acceptKw("cascade");
            if (!cascade) acceptKw("restrict");
            return new Statement.DropOwned(pos, roles, cascade);
        }
        if (acceptKw("role") || acceptKw("user")) {
            boolean ifExists = ifExists();
            List<String> names = new ArrayList<>();
            do {
                names.add(name());
            } while (accept(Type.COMMA));
            return new Statement.DropRole(pos, ifExists, names);
        }
        ObjectKind kind = objectKind();
        if (kind == null) throw syntaxError(peek());
        boolean ifExists = ifExists();
        List<List<String>> names = new ArrayList<>();
        do {
            names.add(qualifiedName());
        } while (accept(Type.COMMA));
        boolean cascade = acceptKw("cascade");
        if (!cascade) acceptKw("restrict");
        return new Drop(pos, kind, ifExists, names, cascade);
    }

    private Statement insert() {
        int pos = pos();
        expectKw("insert");
        expectKw("into");
        if (isKw("function")) return insertIntoFunction(pos);
        List<String> table = qualifiedName();
        String alias = acceptKw("as") ? name() : null;
        List<String> cols = List.of();
        // "(" starts a column list unless it starts a parenthesised query.
        if (is(Type.LPAREN) && !queryStartsAt(p)) cols = nameList();
        if (isKw("overriding")) throw unsupported("INSERT ... OVERRIDING SYSTEM VALUE", pos());
        if (isKw("default") && isKw(1, "values")) throw unsupported("INSERT ... DEFAULT VALUES", pos());
        Query source;
        if (isKw("values")) {
            source = Query.of(values(true));
            source = queryTail(source.pos(), List.of(), source.body());
        } else {
            source = query();
        }
        Statement.OnConflict onConflict = null;
        if (isKw("on") && isKw(1, "conflict")) {
            int cpos = pos();
            p += 2;
            String constraint = null;
            List<String> target = List.of();
            if (isKw("on") && isKw(1, "constraint")) {
                p += 2;
                constraint = name();
            } else if (is(Type.LPAREN)) {
                target = nameList();
                if (isKw("where")) throw unsupported("ON CONFLICT (...) WHERE (a partial index's predicate)", pos());
            }
            expectKw("do");
            if (acceptKw("update")) {
                expectKw("set");
                List<Assignment> set = assignments();
                Expr where = acceptKw("where") ? expr() : null;
                onConflict = new Statement.OnConflict(cpos, target, constraint, set, where);
            } else {
                expectKw("nothing");
                onConflict = new Statement.OnConflict(cpos, target, constraint, null, null);
            }
        }
        return new Insert(pos, table, cols, source, returning(), onConflict, alias);
    }

    /**
     * {@code INSERT INTO FUNCTION url('http://...') query}, after INSERT INTO: the one table
     * function written to is {@code url}, with the receiver's URL as a string literal.
     */
    private Statement insertIntoFunction(int pos) {
        expectKw("function");
        int fpos = pos();
        String function = name();
        if (!function.equals("url")) {
            throw new SqlException("42883", "table function " + function + " cannot be written to", fpos,
                    "INSERT INTO FUNCTION writes to url('http://...') only: each batch of the query's rows is POSTed to it as JSON.");
        }
        expect(Type.LPAREN);
        if (!is(Type.STRING)) throw new SqlException("42601", "url() takes the receiver's URL as a string literal: url('https://host/path')", pos());
        String url = next().value();
        expect(Type.RPAREN);
        int streamsBefore = streamClauses;
        Query source = query();
        if (isKw("on") || isKw("returning")) throw new SqlException("42601", "INSERT INTO FUNCTION url takes neither ON CONFLICT nor RETURNING", pos());
        return new Statement.InsertIntoUrl(pos, url, source, streamClauses > streamsBefore);
    }

    /** {@code [RETURNING item, ...]} after INSERT, UPDATE or DELETE: select items over the written rows (empty when absent). */
    private List<SelectItem> returning() {
        if (!acceptKw("returning")) return List.of();
        List<SelectItem> items = new ArrayList<>();
        do items.add(selectItem()); while (accept(Type.COMMA));
        return items;
    }

    private String optionalAlias() {
        if (acceptKw("as")) return name();
        if (isName() && !isKw("set") && !isKw("where")) return name();
        return null;
    }

    /** {@code item, item, ...}: a FROM list's items (after FROM, or UPDATE's FROM, or DELETE's USING). */
    private List<TableRef> tableRefList() {
        List<TableRef> items = new ArrayList<>();
        do {
            items.add(tableRef());
        } while (accept(Type.COMMA));
        return items;
    }

    private Statement update() {
        int pos = pos();
        expectKw("update");
        acceptKw("only");
        List<String> table = qualifiedName();
        String alias = isKw("set") ? null : optionalAlias();
        expectKw("set");
        List<Assignment> set = assignments();
        List<TableRef> from = acceptKw("from") ? tableRefList() : List.of();
        Expr where = acceptKw("where") ? whereExpr() : null;
        return new Update(pos, table, alias, set, where, returning(), from);
    }

    /** {@code column = expr | DEFAULT, ...}: UPDATE's and ON CONFLICT DO UPDATE's SET list. */
    private List<Assignment> assignments() {
        List<Assignment> set = new ArrayList<>();
        do {
            int apos = pos();
            if (is(Type.LPAREN)) throw unsupported("multiple-column assignment", apos);
            String col = name();
            if (is(Type.DOT) || is(Type.LBRACKET)) throw unsupported("assignment to a field or element", pos());
            if (!isOp("=")) throw syntaxError(peek());
            p++;
            set.add(new Assignment(apos, col, isKw("default") ? new DefaultValue(next().start() + 1) : expr()));
        } while (accept(Type.COMMA));
        return set;
    }

    private Expr whereExpr() {
        if (isKw("current") && isKw(1, "of")) throw unsupported("WHERE CURRENT OF", pos());
        return expr();
    }

    /** TRUNCATE [TABLE] [ONLY] name [RESTART IDENTITY | CONTINUE IDENTITY] [CASCADE | RESTRICT]: one table. */
    private Statement truncate() {
        int pos = pos();
        expectKw("truncate");
        acceptKw("table");
        acceptKw("only");
        List<String> table = qualifiedName();
        if (is(Type.COMMA)) throw new SqlException("0A000", "TRUNCATE of several tables is not supported", pos(), "Truncate them one by one, in one transaction.");
        if (acceptKw("restart") || acceptKw("continue")) expectKw("identity");
        if (isKw("cascade")) throw unsupported("TRUNCATE ... CASCADE", pos());
        acceptKw("restrict");
        return new Delete(pos, table, null, null, true, List.of());
    }

    private Statement delete() {
        int pos = pos();
        expectKw("delete");
        expectKw("from");
        acceptKw("only");
        List<String> table = qualifiedName();
        String alias = isKw("where") ? null : optionalAlias();
        List<TableRef> using = acceptKw("using") ? tableRefList() : List.of();
        Expr where = acceptKw("where") ? whereExpr() : null;
        return new Delete(pos, table, alias, where, false, returning(), using);
    }

    private Statement show() {
        int pos = pos();
        expectKw("show");
        if (acceptKw("tables")) return new Show(pos, ShowKind.TABLES, List.of());
        if (acceptKw("views")) return new Show(pos, ShowKind.VIEWS, List.of());
        if (acceptKw("sources")) return new Show(pos, ShowKind.SOURCES, List.of());
        if (acceptKw("sinks")) return new Show(pos, ShowKind.SINKS, List.of());
        if (acceptKw("jobs")) return new Show(pos, ShowKind.JOBS, List.of());
        if (isKw("materialized") && isKw(1, "views")) {
            p += 2;
            return new Show(pos, ShowKind.MATERIALIZED_VIEWS, List.of());
        }
        if (acceptKw("indexes") || acceptKw("indices")) {
            List<String> from = (acceptKw("from") || acceptKw("in")) ? qualifiedName() : List.of();
            return new Show(pos, ShowKind.INDEXES, from);
        }
        if (acceptKw("columns")) {
            if (!acceptKw("from")) expectKw("in");
            return new Show(pos, ShowKind.COLUMNS, qualifiedName());
        }
        if (isKw("create")) {
            p++;
            ShowKind kind;
            if (acceptKw("table")) kind = ShowKind.CREATE_TABLE;
            else if (acceptKw("view")) kind = ShowKind.CREATE_VIEW;
            else if (acceptKw("materialized")) {
                expectKw("view");
                kind = ShowKind.CREATE_MATERIALIZED_VIEW;
            } else throw syntaxError(peek());
            return new Show(pos, kind, qualifiedName());
        }
        if (isKw("all")) {
            p++;
            return new Show(pos, ShowKind.VARIABLE, List.of("all"));
        }
        // PostgreSQL's spellings of two settings (SQLAlchemy asks for the isolation level so)
        if (isKw("transaction") && isKw(1, "isolation") && isKw(2, "level")) {
            p += 3;
            return new Show(pos, ShowKind.VARIABLE, List.of("transaction_isolation"));
        }
        if (isKw("time") && isKw(1, "zone")) {
            p += 2;
            return new Show(pos, ShowKind.VARIABLE, List.of("timezone"));
        }
        return new Show(pos, ShowKind.VARIABLE, qualifiedName());
    }

    private Statement explain() {
        int pos = pos();
        expectKw("explain");
        List<ExplainOption> options = new ArrayList<>();
        if (is(Type.LPAREN)) {
            p++;
            do {
                int opos = pos();
                String name = label();
                String value = null;
                Token v = peek();
                if (v.type() == Type.IDENT || v.type() == Type.QUOTED_IDENT || v.type() == Type.STRING
                        || v.type() == Type.INTEGER || v.type() == Type.NUMBER) {
                    value = next().value();
                }
                options.add(new ExplainOption(opos, name, value));
            } while (accept(Type.COMMA));
            expect(Type.RPAREN);
        } else {
            while (isKw("analyze") || isKw("analyse") || isKw("verbose")) {
                Token t = next();
                options.add(new ExplainOption(t.start() + 1, t.value().equals("analyse") ? "analyze" : t.value(), null));
            }
        }
        if (isKw("explain")) throw syntaxError(peek());
        return new Explain(pos, options, statement());
    }

    private Statement subscribe() {
        int pos = pos();
        expectKw("subscribe");
        acceptKw("to");
        List<String> name = List.of();
        Query query = null;
        if (is(Type.LPAREN)) {
            p++;
            query = query();
            expect(Type.RPAREN);
        } else {
            name = qualifiedName();
        }
        Expr asOf = null;
        Expr upTo = null;
        boolean snapshot = true;
        boolean progress = false;
        boolean with = false;
        List<String> key = null;
        // the clauses in any order, each at most once (the documented order: ENVELOPE, WITH, AS OF, UP TO)
        while (true) {
            int cpos = pos();
            if (isKw("as") && isKw(1, "of")) {
                if (asOf != null) throw new SqlException("42601", "AS OF given twice", cpos);
                p += 2;
                asOf = expr();
            } else if (isKw("up") && isKw(1, "to")) {
                if (upTo != null) throw new SqlException("42601", "UP TO given twice", cpos);
                p += 2;
                upTo = expr();
            } else if (acceptKw("with")) {
                if (with) throw new SqlException("42601", "WITH options given twice", cpos);
                with = true;
                expect(Type.LPAREN);
                do {
                    int opos = pos();
                    String opt = label();
                    if (isOp("=")) p++;
                    boolean value = true;
                    if (!is(Type.COMMA) && !is(Type.RPAREN)) value = booleanOption();
                    switch (opt) {
                        case "snapshot" -> snapshot = value;
                        case "progress" -> progress = value;
                        default -> throw new SqlException("42601", "unrecognized SUBSCRIBE option \"" + opt + "\"", opos,
                                "SUBSCRIBE accepts SNAPSHOT and PROGRESS.");
                    }
                } while (accept(Type.COMMA));
                expect(Type.RPAREN);
            } else if (acceptKw("envelope")) {
                if (key != null) throw new SqlException("42601", "ENVELOPE given twice", cpos);
                expectKw("upsert");
                expect(Type.LPAREN);
                expectKw("key");
                key = nameList();
                expect(Type.RPAREN);
            } else {
                break;
            }
        }
        return new Subscribe(pos, name, query, asOf, upTo, snapshot, progress, key);
    }

    private boolean booleanOption() {
        Token t = next();
        String v = switch (t.type()) {
            case IDENT, STRING, INTEGER -> t.value().toLowerCase(Locale.ROOT);
            default -> throw syntaxError(t);
        };
        return switch (v) {
            case "true", "on", "1", "yes" -> true;
            case "false", "off", "0", "no" -> false;
            default -> throw new SqlException("22023", "invalid value for a boolean option: \"" + t.value() + "\"",
                    t.start() + 1);
        };
    }

    /** The options of CREATE/ALTER ROLE after the name: {@code [WITH] {LOGIN | NOLOGIN | [ENCRYPTED] PASSWORD 'pw' | PASSWORD NULL}...}. */
    private List<Statement.RoleOption> roleOptions() {
        acceptKw("with");
        List<Statement.RoleOption> options = new ArrayList<>();
        boolean login = false;
        boolean password = false;
        while (!is(Type.SEMI) && !is(Type.EOF)) {
            int opos = pos();
            Token t = peek();
            if (t.type() != Type.IDENT) throw syntaxError(t);
            switch (t.value()) {
                case "login", "nologin" -> {
                    p++;
                    if (login) throw new SqlException("42601", "conflicting or redundant options", opos);
                    login = true;
                    options.add(new Statement.RoleOption.Login(opos, t.value().equals("login")));
                }
                case "password", "encrypted" -> {
                    p++;
                    if (t.value().equals("encrypted")) expectKw("password");
                    if (password) throw new SqlException("42601", "conflicting or redundant options", opos);
                    password = true;
                    if (acceptKw("null")) {
                        options.add(new Statement.RoleOption.Password(opos, null));
                    } else {
                        if (!is(Type.STRING)) throw syntaxError(peek());
                        options.add(new Statement.RoleOption.Password(opos, next().value()));
                    }
                }
                case "unencrypted" -> throw new SqlException("0A000", "UNENCRYPTED PASSWORD is no longer supported", opos,
                        "Remove UNENCRYPTED to store the password as a SCRAM-SHA-256 verifier.");
                case "superuser", "nosuperuser", "createdb", "nocreatedb", "createrole", "nocreaterole", "inherit",
                     "noinherit", "replication", "noreplication", "bypassrls", "nobypassrls" -> {
                    p++;
                    boolean value = !t.value().startsWith("no");
                    String attribute = value ? t.value() : t.value().substring(2);
                    for (Statement.RoleOption o : options) {
                        if (o instanceof Statement.RoleOption.Attribute a && a.name().equals(attribute)) {
                            throw new SqlException("42601", "conflicting or redundant options", opos);
                        }
                    }
                    options.add(new Statement.RoleOption.Attribute(opos, attribute, value));
                }
                case "connection", "valid", "in", "role", "admin", "sysid" -> throw unsupported("role option " + t.value().toUpperCase(Locale.ROOT), opos);
                default -> throw syntaxError(t);
            }
        }
        return options;
    }

    /** A role as GRANT, REVOKE, OWNER TO and SET ROLE name it: a name, or {@code PUBLIC} as {@code public}. */
    private String roleSpec() {
        Token t = peek();
        if (t.type() == Type.IDENT && (t.value().equals("current_user") || t.value().equals("session_user") || t.value().equals("current_role"))) {
            throw unsupported(t.value().toUpperCase(Locale.ROOT) + " as a role name", pos());
        }
        return name();
    }

    /** SET ROLE and SET SESSION AUTHORIZATION take a name or a string. */
    private String roleNameOrString() {
        if (is(Type.STRING)) return next().value();
        return roleSpec();
    }

    /**
     * GRANT/REVOKE of privileges on tables, views, materialized views and schemas, or of roles
     * to roles. Column lists, other object kinds and GRANTED BY are refused with 0A000.
     */
    private Statement grant() {
        int pos = pos();
        boolean grant = next().value().equals("grant");
        boolean option = false;
        if (!grant && (isKw("grant") || isKw("admin")) && isKw(1, "option") && isKw(2, "for")) {
            option = true;
            boolean admin = isKw("admin");
            p += 3;
            if (admin) return roleGrant(pos, false, true);
        }
        // a list of privileges (or ALL), then ON; otherwise a list of roles
        List<String> privileges = new ArrayList<>();
        int start = p;
        boolean all = false;
        if (acceptKw("all")) {
            all = true;
            acceptKw("privileges");
        } else {
            do {
                Token t = peek();
                if (t.type() != Type.IDENT && t.type() != Type.QUOTED_IDENT) throw syntaxError(t);
                p++;
                if (is(Type.LPAREN)) throw unsupported("column privileges", pos());
                privileges.add(t.value());
            } while (accept(Type.COMMA));
        }
        if (!isKw("on")) {
            if (all) throw syntaxError(peek());
            p = start;
            return roleGrant(pos, grant, false);
        }
        p++;
        Statement.GrantTarget target;
        if (acceptKw("schema")) {
            target = Statement.GrantTarget.SCHEMA;
        } else if (isKw("all") && (isKw(1, "tables"))) {
            p += 2;
            expectKw("in");
            expectKw("schema");
            target = Statement.GrantTarget.ALL_TABLES_IN_SCHEMA;
        } else {
            target = Statement.GrantTarget.TABLE;
            if (!acceptKw("table")) {
                Token t = peek();
                if (t.type() == Type.IDENT) {
                    switch (t.value()) {
                        case "sequence", "database", "function", "procedure", "routine", "language", "type", "domain", "tablespace",
                             "foreign", "large", "parameter", "all" -> throw unsupported("GRANT and REVOKE on " + t.value().toUpperCase(Locale.ROOT), pos());
                        default -> { }
                    }
                }
            }
        }
        List<List<String>> objects = new ArrayList<>();
        do {
            objects.add(target == Statement.GrantTarget.TABLE ? qualifiedName() : List.of(name()));
        } while (accept(Type.COMMA));
        if (grant) expectKw("to");
        else expectKw("from");
        List<String> grantees = roleSpecs();
        boolean cascade = false;
        if (grant) {
            if (isKw("with")) {
                p++;
                expectKw("grant");
                expectKw("option");
                option = true;
            }
        } else {
            cascade = acceptKw("cascade");
            if (!cascade) acceptKw("restrict");
        }
        if (isKw("granted")) throw unsupported("GRANTED BY", pos());
        return new Statement.Grant(pos, grant, privileges, target, objects, grantees, option, cascade);
    }

    private Statement roleGrant(int pos, boolean grant, boolean adminOption) {
        List<String> roles = roleSpecs();
        if (grant) expectKw("to");
        else expectKw("from");
        List<String> members = roleSpecs();
        if (grant && isKw("with")) {
            p++;
            expectKw("admin");
            expectKw("option");
            adminOption = true;
        }
        if (isKw("granted")) throw unsupported("GRANTED BY", pos());
        if (!grant && !acceptKw("cascade")) acceptKw("restrict");
        return new Statement.GrantRole(pos, grant, roles, members, adminOption);
    }

    private List<String> roleSpecs() {
        List<String> out = new ArrayList<>();
        do {
            acceptKw("group");
            out.add(roleSpec());
        } while (accept(Type.COMMA));
        return out;
    }

    private Statement advance() {
        int pos = pos();
        expectKw("advance");
        expectKw("clock");
        boolean to;
        if (acceptKw("by")) to = false;
        else if (acceptKw("to")) to = true;
        else throw syntaxError(peek());
        return new AdvanceClock(pos, to, expr());
    }

    private Statement set() {
        int pos = pos();
        expectKw("set");
        if (isKw("local")) throw unsupported("SET LOCAL", pos());
        if (isKw("constraints") && (isKw(1, "all") || peek(1).type() == Type.IDENT || peek(1).type() == Type.QUOTED_IDENT)) {
            p++;
            List<List<String>> names = new ArrayList<>();
            if (!acceptKw("all")) {
                do {
                    names.add(qualifiedName());
                } while (accept(Type.COMMA));
            }
            boolean deferred = acceptKw("deferred");
            if (!deferred) expectKw("immediate");
            return new Statement.SetConstraints(pos, names, deferred);
        }
        if (isKw("role") && !isKw(1, "to") && !(peek(1).isOp("="))) {
            p++;
            if (acceptKw("none")) return new Statement.SetRole(pos, false, null, false);
            return new Statement.SetRole(pos, false, roleNameOrString(), false);
        }
        if (isKw("session") && isKw(1, "authorization")) {
            p += 2;
            if (acceptKw("default")) return new Statement.SetRole(pos, true, null, false);
            return new Statement.SetRole(pos, true, roleNameOrString(), false);
        }
        acceptKw("session");
        String name;
        if (isKw("time") && isKw(1, "zone")) {
            p += 2;
            name = "timezone";
        } else {
            StringBuilder b = new StringBuilder(label());
            while (accept(Type.DOT)) b.append('.').append(label());
            name = b.toString();
            if (!acceptKw("to")) {
                if (!isOp("=")) throw syntaxError(peek());
                p++;
            }
            // SET role = x and SET session_authorization = x are SET ROLE and SET SESSION AUTHORIZATION
            boolean session = name.equals("session_authorization");
            if (name.equals("role") || session) {
                if (acceptKw("default")) return new Statement.SetRole(pos, session, null, false);
                if (!session && isKw("none")) {
                    p++;
                    return new Statement.SetRole(pos, false, null, false);
                }
                return new Statement.SetRole(pos, session, roleNameOrString(), false);
            }
        }
        List<Expr> values = new ArrayList<>();
        if (isKw("default")) {
            p++;
            return new Statement.Set(pos, name, values);
        }
        do {
            Token t = peek();
            int vpos = pos();
            if (t.type() == Type.IDENT || t.type() == Type.QUOTED_IDENT) {
                p++;
                values.add(switch (t.type() == Type.IDENT ? t.value() : "") {
                    case "true" -> new BooleanLiteral(vpos, true);
                    case "false" -> new BooleanLiteral(vpos, false);
                    default -> new StringLiteral(vpos, t.value());
                });
            } else {
                values.add(unary());
            }
        } while (accept(Type.COMMA));
        return new Statement.Set(pos, name, values);
    }

    // ------------------------------------------------------------------ COPY and cursors

    private Statement copy() {
        int pos = pos();
        expectKw("copy");
        List<String> table = List.of();
        List<String> cols = List.of();
        Statement query = null;
        if (is(Type.LPAREN)) {
            p++;
            query = isKw("subscribe") ? subscribe() : queryStatement();
            expect(Type.RPAREN);
        } else {
            table = qualifiedName();
            if (is(Type.LPAREN)) cols = nameList();
        }
        boolean from;
        String file = null;
        if (query == null && acceptKw("from")) {
            from = true;
            if (is(Type.STRING)) file = next().value();
            else if (!acceptKw("stdin")) throw copyEndpoint(peek(), "FROM", "STDIN");
        } else {
            expectKw("to");
            from = false;
            if (is(Type.STRING)) file = next().value();
            else if (!acceptKw("stdout")) throw copyEndpoint(peek(), "TO", "STDOUT");
        }
        if (file != null && query instanceof Statement.Subscribe) throw unsupported("COPY (SUBSCRIBE ...) TO a file", pos);
        return new Copy(pos, table, cols, query, from, file, copyOptions(from));
    }

    /** COPY from or to a program: PostgreSQL allows it to superusers; Tributary runs no programs. */
    private SqlException copyEndpoint(Token t, String dir, String std) {
        if (t.isKeyword("program")) {
            return new SqlException("0A000", "COPY " + dir + " a program is not supported", t.start() + 1,
                    "Use COPY ... " + dir + " " + std + " and pipe the data through the client.");
        }
        return syntaxError(t);
    }

    /**
     * COPY's options, in the parenthesized form ({@code WITH (FORMAT csv, HEADER, ...)}) or the old
     * one ({@code WITH CSV HEADER DELIMITER ','}), checked as PostgreSQL checks them.
     */
    private CopyOptions copyOptions(boolean from) {
        java.util.Map<String, Object> given = new java.util.LinkedHashMap<>();
        java.util.Map<String, Integer> at = new java.util.HashMap<>();
        boolean with = acceptKw("with");
        if (is(Type.LPAREN)) {
            p++;
            do {
                int opos = pos();
                String name = label();
                Object value = Boolean.TRUE;
                Token v = peek();
                if (v.type() == Type.STRING || v.type() == Type.IDENT || v.type() == Type.INTEGER) {
                    p++;
                    value = v.type() == Type.STRING ? v.value() : v.value().toLowerCase(Locale.ROOT);
                } else if (!is(Type.COMMA) && !is(Type.RPAREN)) {
                    throw syntaxError(v);
                }
                copyOption(given, at, name, value, opos);
            } while (accept(Type.COMMA));
            expect(Type.RPAREN);
        } else {
            while (true) {
                int opos = pos();
                if (acceptKw("binary")) copyOption(given, at, "format", "binary", opos);
                else if (acceptKw("csv")) copyOption(given, at, "format", "csv", opos);
                else if (acceptKw("header")) copyOption(given, at, "header", Boolean.TRUE, opos);
                else if (isKw("delimiter") || isKw("null") || isKw("quote") || isKw("escape")) {
                    String name = next().value();
                    acceptKw("as");
                    Token v = expect(Type.STRING);
                    copyOption(given, at, name, v.value(), opos);
                } else if (isKw("force")) {
                    throw unsupported("COPY ... FORCE", opos);
                } else {
                    break;
                }
            }
            if (with && given.isEmpty()) throw syntaxError(peek());
        }
        return resolveCopyOptions(given, at, from);
    }

    private static void copyOption(java.util.Map<String, Object> given, java.util.Map<String, Integer> at, String name, Object value, int pos) {
        switch (name) {
            case "format", "delimiter", "null", "header", "quote", "escape" -> {}
            case "freeze", "force_quote", "force_not_null", "force_null", "encoding" -> throw unsupported("COPY option \"" + name + "\"", pos);
            default -> throw new SqlException("42601", "option \"" + name + "\" not recognized", pos);
        }
        if (given.containsKey(name)) throw new SqlException("42601", "conflicting or redundant options", pos);
        given.put(name, value);
        at.put(name, pos);
    }

    private static CopyOptions resolveCopyOptions(java.util.Map<String, Object> given, java.util.Map<String, Integer> at, boolean from) {
        String format = given.containsKey("format") ? String.valueOf(given.get("format")).toLowerCase(Locale.ROOT) : "text";
        switch (format) {
            case "text", "csv" -> {}
            case "json" -> {
                // JSON lines: an object per line, its keys naming the columns; no other option applies
                if (!from) throw unsupported("COPY TO with FORMAT json", at.get("format"));
                for (String option : List.of("delimiter", "null", "header", "quote", "escape")) {
                    if (given.containsKey(option)) {
                        throw new SqlException("42601", "cannot specify " + option.toUpperCase(Locale.ROOT) + " in JSON mode", at.get(option));
                    }
                }
                return CopyOptions.JSON;
            }
            case "binary" -> throw unsupported("COPY BINARY", at.get("format"));
            default -> throw new SqlException("22023", "COPY format \"" + format + "\" not recognized", at.get("format"));
        }
        boolean csv = format.equals("csv");
        char delimiter = csv ? ',' : '\t';
        if (given.containsKey("delimiter")) {
            String d = String.valueOf(given.get("delimiter"));
            if (d.length() != 1 || d.charAt(0) > 127) throw new SqlException("0A000", "COPY delimiter must be a single one-byte character");
            delimiter = d.charAt(0);
            if (delimiter == '\n' || delimiter == '\r') throw new SqlException("22023", "COPY delimiter cannot be newline or carriage return");
            if (!csv && "\\.abcdefghijklmnopqrstuvwxyz0123456789".indexOf(delimiter) >= 0) {
                throw new SqlException("22023", "COPY delimiter cannot be \"" + d + "\"");
            }
        }
        String nullString = given.containsKey("null") ? String.valueOf(given.get("null")) : csv ? "" : "\\N";
        if (nullString.indexOf('\n') >= 0 || nullString.indexOf('\r') >= 0) {
            throw new SqlException("22023", "COPY null representation cannot use newline or carriage return");
        }
        CopyHeader header = CopyHeader.NONE;
        if (given.containsKey("header")) {
            Object h = given.get("header");
            String v = h instanceof Boolean b ? (b ? "true" : "false") : String.valueOf(h).toLowerCase(Locale.ROOT);
            header = switch (v) {
                case "true", "on", "1", "yes" -> CopyHeader.SKIP;
                case "false", "off", "0", "no" -> CopyHeader.NONE;
                case "match" -> {
                    if (!from) throw new SqlException("0A000", "cannot use \"match\" with HEADER in COPY TO");
                    yield CopyHeader.MATCH;
                }
                default -> throw new SqlException("22023", "header requires a Boolean value or \"match\"");
            };
        }
        char quote = '"';
        char escape;
        if (given.containsKey("quote")) {
            if (!csv) throw new SqlException("0A000", "COPY quote available only in CSV mode");
            String q = String.valueOf(given.get("quote"));
            if (q.length() != 1 || q.charAt(0) > 127) throw new SqlException("0A000", "COPY quote must be a single one-byte character");
            quote = q.charAt(0);
        }
        escape = quote;
        if (given.containsKey("escape")) {
            if (!csv) throw new SqlException("0A000", "COPY escape available only in CSV mode");
            String e = String.valueOf(given.get("escape"));
            if (e.length() != 1 || e.charAt(0) > 127) throw new SqlException("0A000", "COPY escape must be a single one-byte character");
            escape = e.charAt(0);
        }
        if (csv && delimiter == quote) throw new SqlException("22023", "COPY delimiter and quote must be different");
        if (nullString.indexOf(delimiter) >= 0) {
            throw new SqlException("22023", "COPY delimiter must not appear in the NULL specification");
        }
        if (csv && nullString.indexOf(quote) >= 0) {
            throw new SqlException("22023", "CSV quote character must not appear in the NULL specification");
        }
        return new CopyOptions(csv, delimiter, nullString, header, quote, escape);
    }

    private Statement declare() {
        int pos = pos();
        expectKw("declare");
        String name = name();
        if (isKw("binary")) throw unsupported("DECLARE ... BINARY", pos());
        if (!acceptKw("asensitive")) acceptKw("insensitive");
        if (isKw("scroll")) throw unsupported("DECLARE ... SCROLL", pos());
        if (acceptKw("no")) expectKw("scroll");
        expectKw("cursor");
        if (isKw("with") && isKw(1, "hold")) throw unsupported("DECLARE ... WITH HOLD", pos());
        if (isKw("without")) {
            p++;
            expectKw("hold");
        }
        expectKw("for");
        Statement query = isKw("subscribe") ? subscribe() : queryStatement();
        return new DeclareCursor(pos, name, query);
    }

    private Statement fetch() {
        int pos = pos();
        expectKw("fetch");
        long count = 1;
        if (isKw("prior") || isKw("first") || isKw("last") || isKw("absolute") || isKw("relative") || isKw("backward") || isOp("-")) {
            throw new SqlException("55000", "cursor can only scan forward", pos(), "Tributary's cursors go forward only: FETCH n, FETCH ALL, FETCH NEXT.");
        }
        if (acceptKw("next")) {
            count = 1;
        } else if (acceptKw("forward")) {
            if (acceptKw("all")) count = Fetch.ALL;
            else if (is(Type.INTEGER)) count = fetchCount();
        } else if (acceptKw("all")) {
            count = Fetch.ALL;
        } else if (is(Type.INTEGER)) {
            count = fetchCount();
        }
        if (!acceptKw("from")) acceptKw("in");
        String cursor = name();
        Expr timeout = null;
        if (acceptKw("with")) {
            expect(Type.LPAREN);
            int opos = pos();
            String opt = label();
            if (!opt.equals("timeout")) {
                throw new SqlException("42601", "unrecognized FETCH option \"" + opt + "\"", opos, "FETCH accepts TIMEOUT.");
            }
            if (isOp("=")) p++;
            timeout = unary();
            expect(Type.RPAREN);
        }
        return new Fetch(pos, cursor, count, timeout);
    }

    private long fetchCount() {
        Token t = next();
        try {
            return Long.parseLong(t.value());
        } catch (NumberFormatException e) {
            return Fetch.ALL; // more rows than can ever be: all of them
        }
    }

    private Statement close() {
        int pos = pos();
        expectKw("close");
        if (acceptKw("all")) return new CloseCursor(pos, null);
        return new CloseCursor(pos, name());
    }

    // ------------------------------------------------------------------ queries

    /** Whether the token at {@code k}, after any opening parentheses, starts a query. */
    private boolean queryStartsAt(int k) {
        while (toks.get(k).type() == Type.LPAREN) k++;
        Token t = toks.get(k);
        return t.isKeyword("select") || t.isKeyword("values") || t.isKeyword("with") || t.isKeyword("table");
    }

    private Query query() {
        enter();
        try {
            int pos = pos();
            List<Cte> with = new ArrayList<>();
            Query.Recursion recursion = Query.Recursion.NONE;
            if (acceptKw("with")) {
                if (acceptKw("recursive")) {
                    recursion = Query.Recursion.RECURSIVE;
                } else if (isKw("mutually") && isKw(1, "recursive")) {
                    p += 2;
                    recursion = recursionLimit();
                }
                do {
                    int cpos = pos();
                    String name = name();
                    List<String> cols = List.of();
                    List<SqlType> types = List.of();
                    if (recursion.kind() == Query.Recursion.Kind.MUTUALLY_RECURSIVE) {
                        // name (col type, ...): each binding's columns are declared, as its readers see them before it is computed
                        cols = new ArrayList<>();
                        types = new ArrayList<>();
                        expect(Type.LPAREN);
                        do {
                            cols.add(name());
                            types.add(type());
                        } while (accept(Type.COMMA));
                        expect(Type.RPAREN);
                    } else if (is(Type.LPAREN)) {
                        cols = nameList();
                    }
                    expectKw("as");
                    if (isKw("materialized") || (isKw("not") && isKw(1, "materialized"))) {
                        throw unsupported("WITH ... AS [NOT] MATERIALIZED", pos());
                    }
                    expect(Type.LPAREN);
                    Query q = query();
                    expect(Type.RPAREN);
                    Cte.Search search = isKw("search") ? searchClause() : null;
                    Cte.Cycle cycle = isKw("cycle") ? cycleClause() : null;
                    with.add(new Cte(cpos, name, cols, types, q, search, cycle));
                } while (accept(Type.COMMA));
            }
            QueryBody body = setExpr(0);
            return queryTail(pos, recursion, with, body);
        } finally {
            leave();
        }
    }

    /** {@code SEARCH {DEPTH | BREADTH} FIRST BY col, ... SET col} after a WITH query. */
    private Cte.Search searchClause() {
        int spos = pos();
        expectKw("search");
        boolean breadth;
        if (acceptKw("breadth")) breadth = true;
        else {
            expectKw("depth");
            breadth = false;
        }
        expectKw("first");
        expectKw("by");
        List<String> columns = bareNameList();
        expectKw("set");
        return new Cte.Search(spos, breadth, columns, name());
    }

    /** {@code CYCLE col, ... SET col [TO literal DEFAULT literal] USING col} after a WITH query. */
    private Cte.Cycle cycleClause() {
        int cpos = pos();
        expectKw("cycle");
        List<String> columns = bareNameList();
        expectKw("set");
        String mark = name();
        Expr value = null;
        Expr otherwise = null;
        if (acceptKw("to")) {
            value = markLiteral();
            expectKw("default");
            otherwise = markLiteral();
        }
        expectKw("using");
        return new Cte.Cycle(cpos, columns, mark, value, otherwise, name());
    }

    /** A cycle mark value: a constant, as PostgreSQL's grammar takes there (no expression). */
    private Expr markLiteral() {
        Token t = peek();
        Expr e = primary();
        boolean constant = e instanceof NullLiteral || e instanceof BooleanLiteral || e instanceof IntegerLiteral || e instanceof NumericLiteral
                || e instanceof StringLiteral || e instanceof TypedLiteral;
        if (!constant) throw syntaxError(t);
        return e;
    }

    /** ORDER BY, LIMIT, OFFSET and FETCH after a body. */
    /** After {@code WITH MUTUALLY RECURSIVE}: {@code [( {RETURN | ERROR} AT RECURSION LIMIT n )]}. */
    private Query.Recursion recursionLimit() {
        if (!is(Type.LPAREN)) return new Query.Recursion(Query.Recursion.Kind.MUTUALLY_RECURSIVE, 0, true);
        expect(Type.LPAREN);
        boolean error;
        if (acceptKw("error")) error = true;
        else {
            expectKw("return");
            error = false;
        }
        expectKw("at");
        expectKw("recursion");
        expectKw("limit");
        int npos = pos();
        Token t = next();
        long n;
        try {
            n = t.type() == Type.INTEGER ? Long.parseLong(t.value()) : -1;
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 1) throw new SqlException("22023", "RECURSION LIMIT must be a positive integer", npos);
        expect(Type.RPAREN);
        return new Query.Recursion(Query.Recursion.Kind.MUTUALLY_RECURSIVE, n, error);
    }

    private Query queryTail(int pos, List<Cte> with, QueryBody body) {
        return queryTail(pos, Query.Recursion.NONE, with, body);
    }

    private Query queryTail(int pos, Query.Recursion recursion, List<Cte> with, QueryBody body) {
        List<OrderItem> order = List.of();
        if (isKw("order") && isKw(1, "by")) {
            p += 2;
            order = orderList();
        }
        Expr limit = null;
        Expr offset = null;
        Query.LimitBy limitBy = null;
        boolean sawLimit = false;
        boolean sawOffset = false;
        while (true) {
            if (!sawLimit && isKw("limit")) {
                int lpos = pos();
                p++;
                Expr n = acceptKw("all") ? null : expr();
                if (is(Type.COMMA)) {
                    throw new SqlException("0A000", "LIMIT #,# syntax is not supported", pos(),
                            "Use separate LIMIT and OFFSET clauses.");
                }
                // LIMIT n [OFFSET m] BY expr, ...: the first rows per group, before a plain LIMIT
                Expr byOffset = null;
                if (limitBy == null && n != null && isKw("offset") && byFollowsOffset()) {
                    p++;
                    byOffset = otherOperator();
                }
                if (limitBy == null && n != null && isKw("by")) {
                    p++;
                    List<Expr> by = new ArrayList<>();
                    do by.add(expr()); while (accept(Type.COMMA));
                    limitBy = new Query.LimitBy(lpos, n, byOffset, by);
                    continue;
                }
                sawLimit = true;
                limit = n;
            } else if (!sawOffset && isKw("offset")) {
                p++;
                sawOffset = true;
                offset = otherOperator();
                if (!acceptKw("rows")) acceptKw("row");
            } else if (!sawLimit && isKw("fetch")) {
                p++;
                sawLimit = true;
                if (!acceptKw("first")) expectKw("next");
                if (isKw("row") || isKw("rows")) limit = new IntegerLiteral(pos(), 1);
                else limit = otherOperator();
                if (!acceptKw("rows")) expectKw("row");
                if (isKw("with") && isKw(1, "ties")) throw unsupported("FETCH ... WITH TIES", pos());
                expectKw("only");
            } else {
                break;
            }
        }
        if (isKw("for")) throw unsupported("FOR UPDATE/SHARE", pos());
        boolean onWindowClose = false;
        if (isKw("emit") && isKw(1, "on")) {
            p += 2;
            expectKw("window");
            expectKw("close");
            onWindowClose = true;
            streamClauses++;
        }
        return new Query(pos, recursion, with, body, order, limit, offset, onWindowClose, limitBy);
    }

    /** Whether the OFFSET at the cursor is a LIMIT ... BY's: {@code OFFSET m BY}. */
    private boolean byFollowsOffset() {
        int save = p;
        try {
            p++;
            otherOperator();
            return isKw("by");
        } catch (SqlException e) {
            return false;
        } finally {
            p = save;
        }
    }

    private List<OrderItem> orderList() {
        List<OrderItem> order = new ArrayList<>();
        do {
            int opos = pos();
            Expr e = expr();
            boolean desc = false;
            if (acceptKw("desc")) desc = true;
            else if (!acceptKw("asc") && isKw("using")) throw unsupported("ORDER BY ... USING", pos());
            OrderItem.Nulls nulls = OrderItem.Nulls.DEFAULT;
            if (acceptKw("nulls")) {
                if (acceptKw("first")) nulls = OrderItem.Nulls.FIRST;
                else {
                    expectKw("last");
                    nulls = OrderItem.Nulls.LAST;
                }
            }
            order.add(new OrderItem(opos, e, desc, nulls));
        } while (accept(Type.COMMA));
        return order;
    }

    private static int setPrecedence(Token t) {
        if (t.isKeyword("union") || t.isKeyword("except")) return 1;
        if (t.isKeyword("intersect")) return 2;
        return -1;
    }

    private QueryBody setExpr(int minPrec) {
        QueryBody left = setPrimary();
        int n = 0;
        while (true) {
            Token t = peek();
            int prec = setPrecedence(t);
            if (prec < 0 || prec < minPrec) return left;
            chain(++n);
            p++;
            SetOp op = t.isKeyword("union") ? SetOp.UNION : t.isKeyword("except") ? SetOp.EXCEPT : SetOp.INTERSECT;
            boolean all = acceptKw("all");
            if (!all) acceptKw("distinct");
            enter();
            QueryBody right;
            try {
                right = setExpr(prec + 1);
            } finally {
                leave();
            }
            left = new SetOperation(left.pos(), op, all, left, right);
        }
    }

    private QueryBody setPrimary() {
        if (is(Type.LPAREN)) {
            p++;
            Query q = query();
            expect(Type.RPAREN);
            return q.isBare() ? q.body() : q;
        }
        if (isKw("select")) return select();
        if (isKw("values")) return values(false);
        if (isKw("table")) throw unsupported("TABLE name as a query", pos());
        throw syntaxError(peek());
    }

    private Values values(boolean allowDefault) {
        int pos = pos();
        expectKw("values");
        List<List<Expr>> rows = new ArrayList<>();
        int width = -1;
        do {
            int rpos = pos();
            expect(Type.LPAREN);
            List<Expr> row = new ArrayList<>();
            do {
                if (allowDefault && isKw("default")) row.add(new DefaultValue(next().start() + 1));
                else row.add(expr());
            } while (accept(Type.COMMA));
            expect(Type.RPAREN);
            if (width >= 0 && row.size() != width) {
                throw new SqlException("42601", "VALUES lists must all be the same length", rpos);
            }
            width = row.size();
            rows.add(row);
        } while (accept(Type.COMMA));
        return new Values(pos, rows);
    }

    private Select select() {
        int pos = pos();
        expectKw("select");
        boolean distinct = false;
        List<Expr> distinctOn = List.of();
        if (acceptKw("distinct")) {
            distinct = true;
            if (acceptKw("on")) {
                expect(Type.LPAREN);
                distinctOn = exprList();
                expect(Type.RPAREN);
            }
        } else {
            acceptKw("all");
        }
        List<SelectItem> items = new ArrayList<>();
        if (!selectListEnds()) {
            do {
                items.add(selectItem());
            } while (accept(Type.COMMA));
        }
        if (isKw("into")) throw unsupported("SELECT INTO", pos());
        List<TableRef> from = acceptKw("from") ? tableRefList() : new ArrayList<>();
        Expr where = acceptKw("where") ? expr() : null;
        List<Expr> groupBy = List.of();
        if (isKw("group") && isKw(1, "by")) {
            p += 2;
            if (isKw("rollup") || isKw("cube") || isKw("grouping")) throw unsupported("GROUPING SETS", pos());
            acceptKw("all");
            groupBy = exprList();
        }
        Expr having = acceptKw("having") ? expr() : null;
        List<WindowSpec.Named> windows = new ArrayList<>();
        if (acceptKw("window")) {
            do {
                int wpos = pos();
                String wname = name();
                expectKw("as");
                expect(Type.LPAREN);
                windows.add(new WindowSpec.Named(wpos, wname, windowSpec(wpos)));
            } while (accept(Type.COMMA));
        }
        return new Select(pos, distinct, distinctOn, items, from, where, groupBy, having, windows);
    }

    /**
     * The inside of {@code ( [base] [PARTITION BY ...] [ORDER BY ...] [frame] )}, after its
     * opening parenthesis, through its closing one.
     */
    private WindowSpec windowSpec(int pos) {
        String base = null;
        if (is(Type.IDENT) && !isKw("partition") && !isKw("order") && !isKw("rows") && !isKw("range") && !isKw("groups")) base = name();
        List<Expr> partition = List.of();
        List<OrderItem> order = List.of();
        if (isKw("partition") && isKw(1, "by")) {
            p += 2;
            partition = exprList();
        }
        if (isKw("order") && isKw(1, "by")) {
            p += 2;
            order = orderList();
        }
        WindowSpec.Frame frame = null;
        if (isKw("rows") || isKw("range") || isKw("groups")) {
            int fpos = pos();
            WindowSpec.Mode mode = WindowSpec.Mode.valueOf(next().value().toUpperCase(Locale.ROOT));
            WindowSpec.Bound start;
            WindowSpec.Bound end;
            if (acceptKw("between")) {
                start = frameBound();
                expectKw("and");
                end = frameBound();
            } else {
                start = frameBound();
                end = new WindowSpec.Bound(WindowSpec.BoundKind.CURRENT_ROW, null);
            }
            if (start.kind() == WindowSpec.BoundKind.UNBOUNDED_FOLLOWING) throw new SqlException("42P20", "frame start cannot be UNBOUNDED FOLLOWING", fpos);
            if (end.kind() == WindowSpec.BoundKind.UNBOUNDED_PRECEDING) throw new SqlException("42P20", "frame end cannot be UNBOUNDED PRECEDING", fpos);
            if (start.kind() == WindowSpec.BoundKind.CURRENT_ROW && end.kind() == WindowSpec.BoundKind.PRECEDING) {
                throw new SqlException("42P20", "frame starting from current row cannot have preceding rows", fpos);
            }
            if (start.kind() == WindowSpec.BoundKind.FOLLOWING && (end.kind() == WindowSpec.BoundKind.PRECEDING || end.kind() == WindowSpec.BoundKind.CURRENT_ROW)) {
                throw new SqlException("42P20", "frame starting from following row cannot have preceding rows", fpos);
            }
            WindowSpec.Exclusion exclusion = WindowSpec.Exclusion.NO_OTHERS;
            if (acceptKw("exclude")) {
                if (acceptKw("current")) {
                    expectKw("row");
                    exclusion = WindowSpec.Exclusion.CURRENT_ROW;
                } else if (acceptKw("group")) {
                    exclusion = WindowSpec.Exclusion.GROUP;
                } else if (acceptKw("ties")) {
                    exclusion = WindowSpec.Exclusion.TIES;
                } else {
                    expectKw("no");
                    expectKw("others");
                }
            }
            frame = new WindowSpec.Frame(fpos, mode, start, end, exclusion);
        }
        expect(Type.RPAREN);
        return new WindowSpec(pos, base, partition, order, frame);
    }

    /** {@code UNBOUNDED PRECEDING | offset PRECEDING | CURRENT ROW | offset FOLLOWING | UNBOUNDED FOLLOWING}. */
    private WindowSpec.Bound frameBound() {
        if (acceptKw("unbounded")) {
            if (acceptKw("preceding")) return new WindowSpec.Bound(WindowSpec.BoundKind.UNBOUNDED_PRECEDING, null);
            expectKw("following");
            return new WindowSpec.Bound(WindowSpec.BoundKind.UNBOUNDED_FOLLOWING, null);
        }
        if (isKw("current") && isKw(1, "row")) {
            p += 2;
            return new WindowSpec.Bound(WindowSpec.BoundKind.CURRENT_ROW, null);
        }
        Expr offset = additive();
        if (acceptKw("preceding")) return new WindowSpec.Bound(WindowSpec.BoundKind.PRECEDING, offset);
        expectKw("following");
        return new WindowSpec.Bound(WindowSpec.BoundKind.FOLLOWING, offset);
    }

    private boolean selectListEnds() {
        Token t = peek();
        return t.type() == Type.EOF || t.type() == Type.SEMI || t.type() == Type.RPAREN
                || t.isKeyword("from") || t.isKeyword("where") || t.isKeyword("group") || t.isKeyword("having")
                || t.isKeyword("union") || t.isKeyword("intersect") || t.isKeyword("except")
                || t.isKeyword("order") || t.isKeyword("limit") || t.isKeyword("offset");
    }

    private SelectItem selectItem() {
        int pos = pos();
        if (isOp("*")) {
            p++;
            return new SelectItem(pos, new Star(pos), null);
        }
        Expr e = expr();
        String alias = null;
        if (isKw("as") && !isKw(1, "of")) {
            p++;
            alias = label();
        } else if (isName() && !Keywords.NOT_BARE_ALIAS.contains(peek().value())) {
            alias = name();
        }
        return new SelectItem(pos, e, alias);
    }

    private List<Expr> exprList() {
        List<Expr> list = new ArrayList<>();
        do {
            list.add(expr());
        } while (accept(Type.COMMA));
        return list;
    }

    // ------------------------------------------------------------------ FROM

    private TableRef tableRef() {
        TableRef left = tablePrimary();
        int n = 0;
        while (true) {
            JoinKind kind;
            boolean natural = false;
            if (isKw("cross") && isKw(1, "join")) {
                p += 2;
                chain(++n);
                TableRef right = tablePrimary();
                left = new Join(left.pos(), JoinKind.CROSS, left, right, new NoCondition());
                continue;
            }
            if (acceptKw("natural")) natural = true;
            if (acceptKw("join")) {
                kind = JoinKind.INNER;
            } else if (isKw("inner") && isKw(1, "join")) {
                p += 2;
                kind = JoinKind.INNER;
            } else if (!natural && isKw("asof") && (isKw(1, "join") || isKw(1, "left"))) {
                // DuckDB's ASOF [LEFT] JOIN; Snowflake's MATCH_CONDITION(...) before ON is read below
                p++;
                kind = JoinKind.ASOF;
                if (acceptKw("left")) {
                    acceptKw("outer");
                    kind = JoinKind.ASOF_LEFT;
                }
                expectKw("join");
            } else if (isKw("left") || isKw("right") || isKw("full")) {
                String k = next().value();
                kind = k.equals("left") ? JoinKind.LEFT : k.equals("right") ? JoinKind.RIGHT : JoinKind.FULL;
                acceptKw("outer");
                expectKw("join");
            } else if (natural) {
                throw syntaxError(peek());
            } else {
                return left;
            }
            chain(++n);
            TableRef right = tablePrimary();
            JoinCondition cond;
            Expr match = null;
            if ((kind == JoinKind.ASOF || kind == JoinKind.ASOF_LEFT) && isKw("match_condition") && is(1, Type.LPAREN)) {
                p += 2;
                match = expr();
                expect(Type.RPAREN);
            }
            if (natural) {
                cond = new Natural();
            } else if (acceptKw("on")) {
                Expr on = expr();
                cond = new On(match == null ? on : new Binary(match.pos(), BinaryOp.AND, match, on, match.pos()));
            } else if (match != null) {
                cond = new On(match);
            } else if (acceptKw("using")) {
                cond = new Using(nameList());
                if (isKw("as")) throw unsupported("JOIN ... USING (...) AS alias", pos());
            } else {
                throw syntaxError(peek());
            }
            if (right instanceof AsOfSystemTime a && a.since() == null && cond instanceof On on && (kind == JoinKind.INNER || kind == JoinKind.LEFT)) {
                // t FOR SYSTEM_TIME AS OF e AS a ON cond: JOIN LATERAL (SELECT * FROM t AS OF SYSTEM TIME e AS a WHERE cond) AS a ON true
                Alias alias = a.alias() != null ? a.alias() : new Alias(a.pos(), a.name().get(a.name().size() - 1), List.of());
                QueryBody.Select select = new QueryBody.Select(a.pos(), false, List.of(), List.of(new SelectItem(a.pos(), new Star(a.pos()), null)),
                        List.of(new AsOfSystemTime(a.pos(), a.name(), a.asOf(), null, new Alias(alias.pos(), alias.name(), List.of()))),
                        on.condition(), List.of(), null);
                right = new DerivedTable(a.pos(), true, new Query(a.pos(), List.of(), select, List.of(), null, null, false), alias);
                cond = new On(new BooleanLiteral(a.pos(), true));
            }
            left = new Join(left.pos(), kind, left, right, cond);
        }
    }

    private TableRef tablePrimary() {
        enter();
        try {
            int pos = pos();
            boolean lateral = acceptKw("lateral");
            if (is(Type.LPAREN)) {
                if (queryStartsAt(p + 1)) {
                    p++;
                    Query q = query();
                    expect(Type.RPAREN);
                    Alias alias = alias();
                    if (!lateral && q.isBare() && q.body() instanceof Values v) return new ValuesTable(pos, v, alias);
                    return new DerivedTable(pos, lateral, q, alias);
                }
                if (lateral) throw syntaxError(peek(1));
                p++;
                TableRef inner = tableRef();
                expect(Type.RPAREN);
                if (isKw("as") || isName()) throw unsupported("an alias on a parenthesised join", pos());
                return inner;
            }
            if (isKw("changes") && peek(1).type() == Type.LPAREN && !lateral) {
                p += 2;
                List<String> name = qualifiedName();
                expectKw("as");
                expectKw("of");
                Expr asOf = expr();
                expect(Type.RPAREN);
                return new Changes(pos, name, asOf, alias());
            }
            if (!lateral && is(Type.IDENT) && WINDOW_FUNCTIONS.contains(peek().value()) && is(1, Type.LPAREN)) {
                String function = next().value();
                p++;
                return windowTable(pos, function, false);
            }
            if (!lateral && isKw("table") && is(1, Type.LPAREN)) {
                // Flink's spelling: TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size))
                p += 2;
                if (!(is(Type.IDENT) && WINDOW_FUNCTIONS.contains(peek().value()) && is(1, Type.LPAREN))) {
                    throw unsupported("TABLE(...) in FROM but for the window functions TUMBLE, HOP, CUMULATE and SESSION", pos);
                }
                String function = next().value();
                p++;
                return windowTable(pos, function, true);
            }
            if (isKw("only")) throw unsupported("ONLY", pos);
            List<String> name = qualifiedName();
            if (is(Type.LPAREN)) {
                Expr call = functionCall(pos, name);
                if (!(call instanceof FunctionCall f)) throw syntaxError(peek());
                boolean ordinality = isKw("with") && isKw(1, "ordinality");
                if (ordinality) p += 2;
                return new FunctionTable(pos, lateral, f, alias(), ordinality);
            }
            if (lateral) throw syntaxError(toks.get(p - 1));
            if (isKw("as") && isKw(1, "of") && isKw(2, "system")) {
                p += 3;
                expectKw("time");
                Expr asOf = otherOperator();
                Expr since = null;
                if (acceptKw("since")) since = otherOperator();
                return new AsOfSystemTime(pos, name, asOf, since, alias());
            }
            if (isKw("for") && isKw(1, "system_time") && isKw(2, "as") && isKw(3, "of")) {
                // Flink's temporal join: JOIN t FOR SYSTEM_TIME AS OF expr [AS] a ON cond, made
                // a lookup once the ON is read (see tableRef)
                p += 4;
                Expr asOf = otherOperator();
                return new AsOfSystemTime(pos, name, asOf, null, alias());
            }
            if (isKw("tablesample")) throw unsupported("TABLESAMPLE", pos());
            return streamOr(new NamedTable(pos, name, isKw("stream") ? null : alias()));
        } finally {
            leave();
        }
    }

    /**
     * {@code table}, or the stream of it when a STREAM clause follows: {@code STREAM [FROM
     * BEGINNING | FROM NOW] [WATERMARK FOR col AS expr] [TUMBLE INTERVAL size | HOP INTERVAL size
     * EVERY slide]}, then the alias (one written before STREAM is kept).
     */
    private TableRef streamOr(NamedTable table) {
        if (!isKw("stream")) return table;
        p++;
        streamClauses++;
        boolean fromNow = false;
        Expr cursor = null;
        if (acceptKw("from")) {
            if (acceptKw("now")) {
                fromNow = true;
            } else if (acceptKw("cursor")) {
                cursor = otherOperator();
            } else {
                expectKw("beginning");
            }
        }
        String group = null;
        if (isKw("consumer") && isKw(1, "group")) {
            p += 2;
            if (!is(Type.STRING)) throw new SqlException("42601", "CONSUMER GROUP takes the group's name as a string: CONSUMER GROUP 'name'", pos());
            group = next().value();
            if (group.isEmpty()) throw new SqlException("42601", "a consumer group's name is not empty", pos());
        }
        Watermark watermark = isKw("watermark") ? watermark() : null;
        TableRef.StreamWindow window = null;
        int wpos = pos();
        if (isKw("tumble") && isKw(1, "interval")) {
            p++;
            window = new TableRef.StreamWindow(wpos, "tumble", List.of(otherOperator()), List.of());
        } else if (isKw("hop") && isKw(1, "interval")) {
            p++;
            Expr size = otherOperator();
            expectKw("every");
            Expr slide = otherOperator();
            window = new TableRef.StreamWindow(wpos, "hop", List.of(slide, size), List.of());
        } else if (isKw("session") && isKw(1, "gap")) {
            p += 2;
            Expr gap = otherOperator();
            window = new TableRef.StreamWindow(wpos, "session", List.of(gap), partitionBy());
        }
        Alias alias = table.alias() != null ? table.alias() : alias();
        return new TableRef.Stream(table.pos(), new NamedTable(table.pos(), table.name(), null), fromNow, cursor, watermark, window, alias, group);
    }

    /** {@code WATERMARK FOR column AS expr}. */
    private Watermark watermark() {
        int pos = pos();
        expectKw("watermark");
        expectKw("for");
        int cpos = pos();
        ColumnRef column = new ColumnRef(cpos, List.of(name()));
        expectKw("as");
        return new Watermark(pos, column, otherOperator());
    }

    /** The windowing table functions, which take a relation as their first argument. */
    private static final java.util.Set<String> WINDOW_FUNCTIONS = java.util.Set.of("tumble", "hop", "cumulate", "session");

    /**
     * The rest of a window function's call after its opening parenthesis: the relation (a name,
     * {@code TABLE name}, or a parenthesised query), the time column (a name, or
     * {@code DESCRIPTOR(name)}), the other arguments, the closing parenthesis (two in Flink's
     * spelling, whose {@code TABLE(} was read), and the alias.
     */
    private TableRef windowTable(int pos, String function, boolean flink) {
        int inputPos = pos();
        TableRef input;
        if (!flink && is(Type.LPAREN) && queryStartsAt(p + 1)) {
            p++;
            Query q = query();
            expect(Type.RPAREN);
            input = new DerivedTable(inputPos, false, q, null);
        } else {
            if (flink) expectKw("table");
            else acceptKw("table");
            input = streamOr(new NamedTable(inputPos, qualifiedName(), null));
        }
        List<ColumnRef> partitionBy = partitionBy();
        expect(Type.COMMA);
        int columnPos = pos();
        boolean descriptor = isKw("descriptor") && is(1, Type.LPAREN);
        if (descriptor) p += 2;
        ColumnRef timeColumn = new ColumnRef(columnPos, List.of(name()));
        if (descriptor) expect(Type.RPAREN);
        List<Expr> args = new ArrayList<>();
        while (accept(Type.COMMA)) args.add(expr());
        expect(Type.RPAREN);
        if (flink) expect(Type.RPAREN);
        return new WindowTable(pos, function, input, partitionBy, timeColumn, args, alias());
    }

    /**
     * A SESSION window's {@code PARTITION BY col} or {@code PARTITION BY (col, ...)} (Flink's
     * spelling for a table argument: a comma after one column ends the partition), or none.
     */
    private List<ColumnRef> partitionBy() {
        if (!(isKw("partition") && isKw(1, "by"))) return List.of();
        p += 2;
        List<ColumnRef> columns = new ArrayList<>();
        boolean list = accept(Type.LPAREN);
        do {
            int cpos = pos();
            columns.add(new ColumnRef(cpos, qualifiedName()));
        } while (list && accept(Type.COMMA));
        if (list) expect(Type.RPAREN);
        return columns;
    }

    private Alias alias() {
        int pos = pos();
        String name;
        if (isKw("partition") && isKw(1, "by")) return null; // a SESSION's PARTITION BY, after its input
        if (isKw("asof") && (isKw(1, "join") || isKw(1, "left"))) return null; // ASOF JOIN after a table
        if (isKw("as") && !isKw(1, "of")) {
            p++;
            name = name();
        } else if (isName() && !Keywords.NOT_BARE_ALIAS.contains(peek().value())) {
            name = name();
        } else {
            return null;
        }
        List<String> cols = is(Type.LPAREN) ? nameList() : List.of();
        return new Alias(pos, name, cols);
    }

    // ------------------------------------------------------------------ expressions

    /** An expression at the loosest precedence. */
    Expr expr() {
        enter();
        try {
            return or();
        } finally {
            leave();
        }
    }

    private Expr or() {
        Expr left = and();
        int n = 0;
        while (isKw("or")) {
            int opPos = pos();
            p++;
            chain(++n);
            left = new Binary(left.pos(), BinaryOp.OR, left, and(), opPos);
        }
        return left;
    }

    private Expr and() {
        Expr left = not();
        int n = 0;
        while (isKw("and")) {
            int opPos = pos();
            p++;
            chain(++n);
            left = new Binary(left.pos(), BinaryOp.AND, left, not(), opPos);
        }
        return left;
    }

    private Expr not() {
        if (pending == null && isKw("not")) {
            int pos = pos();
            p++;
            enter();
            try {
                return new Unary(pos, UnaryOp.NOT, not());
            } finally {
                leave();
            }
        }
        return isTest();
    }

    private Expr isTest() {
        Expr e = comparison();
        int pos = e.pos();
        if (acceptKw("isnull")) return new IsNull(pos, e, false);
        if (acceptKw("notnull")) return new IsNull(pos, e, true);
        if (!acceptKw("is")) return e;
        boolean neg = acceptKw("not");
        if (acceptKw("null")) return new IsNull(pos, e, neg);
        if (acceptKw("true")) return new IsTruth(pos, e, Truth.TRUE, neg);
        if (acceptKw("false")) return new IsTruth(pos, e, Truth.FALSE, neg);
        if (acceptKw("unknown")) return new IsTruth(pos, e, Truth.UNKNOWN, neg);
        if (acceptKw("distinct")) {
            expectKw("from");
            return new IsDistinctFrom(pos, e, comparison(), neg);
        }
        if (isKw("of") || isKw("document") || isKw("normalized") || isKw("json")) {
            throw unsupported("IS " + peek().value().toUpperCase(Locale.ROOT), pos());
        }
        throw syntaxError(peek());
    }

    private BinaryOp comparisonOp() {
        Token t = peek();
        if (t.type() != Type.OP) return null;
        return switch (t.value()) {
            case "=" -> BinaryOp.EQ;
            case "<>" -> BinaryOp.NE;
            case "<" -> BinaryOp.LT;
            case "<=" -> BinaryOp.LE;
            case ">" -> BinaryOp.GT;
            case ">=" -> BinaryOp.GE;
            default -> null;
        };
    }

    private Expr comparison() {
        Expr left = likeLevel();
        BinaryOp op = comparisonOp();
        if (op == null) return left;
        int opPos = pos();
        p++;
        Expr result;
        if ((isKw("any") || isKw("some") || isKw("all")) && peek(1).type() == Type.LPAREN) {
            Quantifier qn = isKw("all") ? Quantifier.ALL : Quantifier.ANY;
            p++;
            if (!queryStartsAt(p + 1)) {
                p++;
                Expr array = expr();
                expect(Type.RPAREN);
                result = new QuantifiedArray(left.pos(), op, left, qn, array);
            } else {
                p++;
                Query q = query();
                expect(Type.RPAREN);
                result = new Quantified(left.pos(), op, left, qn, q);
            }
        } else {
            result = new Binary(left.pos(), op, left, likeLevel(), opPos);
        }
        if (comparisonOp() != null) throw syntaxError(peek());
        return result;
    }

    private Expr likeLevel() {
        Expr e = otherOperator();
        int pos = e.pos();
        boolean neg = false;
        if (isKw("not") && (isKw(1, "in") || isKw(1, "between") || isKw(1, "like") || isKw(1, "ilike")
                || isKw(1, "similar"))) {
            p++;
            neg = true;
        }
        if (acceptKw("between")) {
            boolean symmetric = acceptKw("symmetric");
            if (!symmetric) acceptKw("asymmetric");
            Expr low = otherOperator();
            expectKw("and");
            Expr high = otherOperator();
            return new Between(pos, e, low, high, neg, symmetric);
        }
        if (acceptKw("in")) {
            if (!is(Type.LPAREN)) throw syntaxError(peek());
            if (queryStartsAt(p + 1)) {
                p++;
                Query q = query();
                expect(Type.RPAREN);
                return new InSubquery(pos, e, q, neg);
            }
            p++;
            List<Expr> list = exprList();
            expect(Type.RPAREN);
            return new InList(pos, e, list, neg);
        }
        boolean ilike = isKw("ilike");
        if (acceptKw("like") || acceptKw("ilike")) {
            if (isKw("any") || isKw("all") || isKw("some")) throw unsupported("LIKE ANY/ALL", pos());
            Expr pattern = otherOperator();
            Expr escape = acceptKw("escape") ? otherOperator() : null;
            return new Like(pos, e, pattern, escape, neg, ilike);
        }
        if (isKw("similar")) throw unsupported("SIMILAR TO", pos());
        return e;
    }

    private Expr otherOperator() {
        Expr left = additive();
        int n = 0;
        while (is(Type.OP) || isOperatorSyntax()) {
            int opPos = pos();
            if (isOperatorSyntax()) {
                BinaryOp explicit = operatorSyntax();
                chain(++n);
                Expr right = additive();
                left = new Binary(left.pos(), explicit, left, right, opPos);
                continue;
            }
            String op = peek().value();
            BinaryOp bin = switch (op) {
                case "||" -> BinaryOp.CONCAT;
                case "~" -> BinaryOp.MATCH;
                case "~*" -> BinaryOp.IMATCH;
                case "!~" -> BinaryOp.NOT_MATCH;
                case "!~*" -> BinaryOp.NOT_IMATCH;
                case "&" -> BinaryOp.BIT_AND;
                case "|" -> BinaryOp.BIT_OR;
                case "#" -> BinaryOp.BIT_XOR;
                case "<<" -> BinaryOp.SHIFT_LEFT;
                case ">>" -> BinaryOp.SHIFT_RIGHT;
                case "->" -> BinaryOp.JSON_GET;
                case "->>" -> BinaryOp.JSON_GET_TEXT;
                case "#>" -> BinaryOp.JSON_PATH;
                case "#>>" -> BinaryOp.JSON_PATH_TEXT;
                case "@>" -> BinaryOp.CONTAINS;
                case "<@" -> BinaryOp.CONTAINED_BY;
                case "?" -> BinaryOp.HAS_KEY;
                case "?|" -> BinaryOp.HAS_ANY_KEY;
                case "?&" -> BinaryOp.HAS_ALL_KEYS;
                case "#-" -> BinaryOp.DELETE_PATH;
                case "@?" -> BinaryOp.JSONPATH_EXISTS;
                case "@@" -> BinaryOp.JSONPATH_MATCH;
                default -> null;
            };
            boolean like = op.equals("~~") || op.equals("~~*") || op.equals("!~~") || op.equals("!~~*");
            if (bin == null && !like) {
                if (isKnownOperator(op)) return left;
                throw new SqlException("0A000", "operator " + op + " is not supported", opPos);
            }
            p++;
            chain(++n);
            Expr right = additive();
            left = like ? new Like(left.pos(), left, right, null, op.startsWith("!"), op.endsWith("*"))
                    : new Binary(left.pos(), bin, left, right, opPos);
        }
        return left;
    }

    /** Whether {@code OPERATOR(...)} starts here. */
    private boolean isOperatorSyntax() {
        return isKw("operator") && peek(1).type() == Type.LPAREN;
    }

    /**
     * {@code OPERATOR([pg_catalog.] op)}: an operator named explicitly, as psql writes its
     * regular-expression matches; only the built-in (pg_catalog) operators exist.
     */
    private BinaryOp operatorSyntax() {
        int pos = pos();
        p += 2;
        String schema = null;
        if ((is(Type.IDENT) || is(Type.QUOTED_IDENT)) && is(1, Type.DOT)) {
            schema = next().value();
            p++;
        }
        Token t = peek();
        if (t.type() != Type.OP) throw syntaxError(t);
        p++;
        expect(Type.RPAREN);
        BinaryOp op = null;
        for (BinaryOp b : BinaryOp.values()) if (b.symbol().equals(t.value()) && b != BinaryOp.AND && b != BinaryOp.OR) op = b;
        if (t.value().equals("!=")) op = BinaryOp.NE;
        if (op == null || (schema != null && !schema.equals("pg_catalog"))) {
            throw new SqlException("42883", "operator does not exist: " + (schema == null ? "" : schema + ".") + t.value(), pos);
        }
        return op;
    }

    private static boolean isKnownOperator(String op) {
        return switch (op) {
            case "=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "^" -> true;
            default -> false;
        };
    }

    private Expr additive() {
        Expr left = multiplicative();
        int n = 0;
        while (isOp("+") || isOp("-")) {
            int opPos = pos();
            BinaryOp op = next().value().equals("+") ? BinaryOp.ADD : BinaryOp.SUB;
            chain(++n);
            left = new Binary(left.pos(), op, left, multiplicative(), opPos);
        }
        return left;
    }

    private Expr multiplicative() {
        Expr left = power();
        int n = 0;
        while (isOp("*") || isOp("/") || isOp("%")) {
            int opPos = pos();
            String s = next().value();
            BinaryOp op = s.equals("*") ? BinaryOp.MUL : s.equals("/") ? BinaryOp.DIV : BinaryOp.MOD;
            chain(++n);
            left = new Binary(left.pos(), op, left, power(), opPos);
        }
        return left;
    }

    private Expr power() {
        Expr left = unary();
        int n = 0;
        while (isOp("^")) {
            int opPos = pos();
            p++;
            chain(++n);
            left = new Binary(left.pos(), BinaryOp.POW, left, unary(), opPos);
        }
        return left;
    }

    private Expr unary() {
        if (pending != null) return postfix();
        if (isOp("-") || isOp("+")) {
            int pos = pos();
            boolean neg = next().value().equals("-");
            enter();
            try {
                Expr operand = unary();
                if (!neg) return new Unary(pos, UnaryOp.PLUS, operand);
                // PostgreSQL folds a minus into a numeric constant as it parses.
                if (operand instanceof IntegerLiteral i) {
                    return i.value() == Long.MIN_VALUE
                            ? new NumericLiteral(pos, BigDecimal.valueOf(i.value()).negate())
                            : new IntegerLiteral(pos, -i.value());
                }
                if (operand instanceof NumericLiteral nl) return numeric(pos, nl.value().negate());
                return new Unary(pos, UnaryOp.NEG, operand);
            } finally {
                leave();
            }
        }
        if (isKw("not")) return not(); // NOT is a prefix; it reaches as far as its precedence allows
        return postfix();
    }

    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);

    /** A negated numeric constant: -9223372036854775808 is a bigint, as in PostgreSQL. */
    private static Expr numeric(int pos, BigDecimal v) {
        return v.equals(LONG_MIN) ? new IntegerLiteral(pos, Long.MIN_VALUE) : new NumericLiteral(pos, v);
    }

    private Expr postfix() {
        boolean parenthesized = pending == null && is(Type.LPAREN);
        Expr e = primary();
        while (true) {
            if (is(Type.CAST)) {
                p++;
                e = castTo(e.pos(), e);
            } else if (is(Type.LBRACKET)) {
                int bracket = pos();
                List<Subscript.Index> indexes = new ArrayList<>();
                while (accept(Type.LBRACKET)) indexes.add(subscriptIndex());
                e = new Subscript(bracket, e, indexes);
            } else if (isKw("at") && (isKw(1, "time") || isKw(1, "local"))) {
                throw unsupported("AT TIME ZONE", pos());
            } else if (is(Type.DOT) && parenthesized && toks.get(p - 1).type() == Type.RPAREN
                    && (is(1, Type.IDENT) || is(1, Type.QUOTED_IDENT))) {
                // (expr).field
                p++;
                e = new FieldSelection(e.pos(), e, label());
            } else if (isKw("collate")) {
                collation();
            } else {
                return e;
            }
        }
    }

    /** One subscript after its {@code [}, to and with its {@code ]}: {@code i}, {@code lo:hi}, {@code :hi}, {@code lo:} or {@code :}. */
    private Subscript.Index subscriptIndex() {
        Expr lower = is(Type.COLON) ? null : expr();
        Subscript.Index index;
        if (accept(Type.COLON)) index = new Subscript.Index(lower, is(Type.RBRACKET) ? null : expr(), true);
        else index = new Subscript.Index(null, lower, false);
        expect(Type.RBRACKET);
        return index;
    }

    /**
     * {@code [e1, e2, ...]} after ARRAY, from its {@code [}: the elements, or ({@code [[1,2],[3,4]]})
     * the bracketed lists of a multidimensional array's sub-arrays, each read as an ARRAY of its own.
     */
    private ArrayConstructor arrayElements(int pos) {
        expect(Type.LBRACKET);
        List<Expr> elements = new ArrayList<>();
        if (is(Type.LBRACKET)) {
            do {
                elements.add(arrayElements(pos()));
            } while (accept(Type.COMMA));
        } else if (!is(Type.RBRACKET)) {
            elements = exprList();
        }
        expect(Type.RBRACKET);
        return new ArrayConstructor(pos, elements);
    }

    private Expr primary() {
        if (pending != null) {
            Expr e = pending;
            pending = null;
            return e;
        }
        Token t = peek();
        int pos = pos();
        switch (t.type()) {
            case INTEGER -> {
                p++;
                try {
                    return new IntegerLiteral(pos, Long.parseLong(t.value()));
                } catch (NumberFormatException e) {
                    return new NumericLiteral(pos, numericLiteral(t.value(), pos));
                }
            }
            case NUMBER -> {
                p++;
                return new NumericLiteral(pos, numericLiteral(t.value(), pos));
            }
            case STRING -> {
                p++;
                return new StringLiteral(pos, t.value());
            }
            case PARAM -> {
                p++;
                try {
                    int n = Integer.parseInt(t.value());
                    if (n >= 1) return new Param(pos, n);
                } catch (NumberFormatException e) {
                    // falls through to the error below
                }
                throw new SqlException("42P02", "there is no parameter " + t.value(), pos);
            }
            case LPAREN -> {
                if (queryStartsAt(p + 1) && !notAQuery.contains(p)) {
                    int start = p;
                    p++;
                    Query q;
                    try {
                        q = query();
                    } catch (SqlException e) {
                        // (((SELECT 1) + 1) = 2): the parentheses hold an expression whose first
                        // operand is a subquery; read them as an expression (each place is tried
                        // as a query once, so nesting stays cheap)
                        if (!"42601".equals(e.sqlState())) throw e;
                        notAQuery.add(start);
                        p = start;
                        try {
                            return primary();
                        } catch (SqlException asExpression) {
                            // neither: report whichever reading got further
                            throw asExpression.position() >= e.position() ? asExpression : e;
                        }
                    }
                    if (accept(Type.RPAREN)) return new ScalarSubquery(pos, q);
                    if (q.isBare() && toks.get(p - 1).type() == Type.RPAREN) {
                        // ((SELECT 1) + 1): the query was only the parenthesised first operand of a
                        // larger expression; carry on with it as that operand.
                        pending = new ScalarSubquery(q.pos(), q);
                        Expr e = expr();
                        if (pending != null) throw syntaxError(peek());
                        expect(Type.RPAREN);
                        return e;
                    }
                    throw syntaxError(peek());
                }
                p++;
                Expr e = expr();
                if (is(Type.COMMA)) {
                    List<Expr> fields = new ArrayList<>(List.of(e));
                    while (accept(Type.COMMA)) fields.add(expr());
                    expect(Type.RPAREN);
                    return new RowConstructor(pos, fields);
                }
                expect(Type.RPAREN);
                return e;
            }
            case QUOTED_IDENT -> {
                return nameExpr(pos);
            }
            case IDENT -> {
                return word(t, pos);
            }
            default -> throw syntaxError(t);
        }
    }

    private Expr word(Token t, int pos) {
        String w = t.value();
        switch (w) {
            case "true" -> {
                p++;
                return new BooleanLiteral(pos, true);
            }
            case "false" -> {
                p++;
                return new BooleanLiteral(pos, false);
            }
            case "null" -> {
                p++;
                return new NullLiteral(pos);
            }
            case "case" -> {
                return caseExpr();
            }
            case "cast" -> {
                p++;
                expect(Type.LPAREN);
                Expr e = expr();
                expectKw("as");
                Expr cast = castTo(pos, e);
                expect(Type.RPAREN);
                return cast;
            }
            case "exists" -> {
                if (peek(1).type() == Type.LPAREN && queryStartsAt(p + 2)) {
                    p += 2;
                    Query q = query();
                    expect(Type.RPAREN);
                    return new Exists(pos, q);
                }
            }
            case "current_date", "current_time", "current_timestamp", "localtime", "localtimestamp" -> {
                p++;
                if (is(Type.LPAREN)) throw unsupported(w.toUpperCase(Locale.ROOT) + " with a precision", pos());
                return new CurrentValue(pos, CurrentKind.valueOf(w.toUpperCase(Locale.ROOT)));
            }
            case "current_catalog", "current_user", "session_user", "current_role", "current_schema" -> {
                // SQL's parameterless functions (current_schema may also be called with parentheses)
                if (!(w.equals("current_schema") && peek(1).type() == Type.LPAREN)) {
                    p++;
                    return new FunctionCall(pos, List.of(w), List.of(), false, false, List.of(), null);
                }
            }
            case "interval" -> {
                if (peek(1).type() == Type.STRING) {
                    p++;
                    String text = next().value();
                    return new TypedLiteral(pos, SqlType.INTERVAL, text, intervalQualifier());
                }
            }
            case "array" -> {
                if (peek(1).type() == Type.LBRACKET) {
                    p++;
                    return arrayElements(pos);
                }
                if (peek(1).type() == Type.LPAREN && queryStartsAt(p + 2)) {
                    p += 2;
                    Query q = query();
                    expect(Type.RPAREN);
                    return new ArraySubquery(pos, q);
                }
                throw syntaxError(peek(1));
            }
            case "row" -> {
                if (peek(1).type() == Type.LPAREN) {
                    p += 2;
                    List<Expr> fields = is(Type.RPAREN) ? List.of() : exprList();
                    expect(Type.RPAREN);
                    return new RowConstructor(pos, fields);
                }
            }
            case "default" -> throw new SqlException("42601", "DEFAULT is not allowed in this context", pos);
            default -> {
            }
        }
        if (peek(1).type() == Type.LPAREN && Keywords.isFunctionName(w)) {
            Expr special = specialForm(w, pos);
            if (special != null) return special;
        }
        // A typed literal: a type name directly followed by a string, e.g. DATE '2024-01-01'.
        if (TYPE_WORDS.contains(w) || (Keywords.isName(w) && peek(1).type() == Type.STRING)) {
            int save = p;
            SqlType type = null;
            try {
                type = type();
            } catch (SqlException e) {
                if (peek(1).type() == Type.STRING || !TYPE_WORDS.contains(w)) throw e;
            }
            if (type != null && is(Type.STRING)) {
                String text = next().value();
                return new TypedLiteral(pos, type, text, null);
            }
            p = save;
        }
        if (Keywords.RESERVED.contains(w)) throw syntaxError(t);
        if (Keywords.TYPE_FUNC.contains(w) && peek(1).type() != Type.LPAREN) throw syntaxError(t);
        return nameExpr(pos);
    }

    /** Words that begin a type name, for typed literals. */
    private static final java.util.Set<String> TYPE_WORDS = java.util.Set.of(
            "bool", "boolean", "int2", "smallint", "int", "int4", "integer", "int8", "bigint", "float4", "real",
            "float8", "float", "double", "numeric", "decimal", "dec", "text", "varchar", "character", "char",
            "bytea", "date", "time", "timestamp", "timestamptz");

    /** A column reference, qualified star or function call starting with a name. */
    private Expr nameExpr(int pos) {
        List<String> parts = new ArrayList<>();
        Token first = next();
        parts.add(first.value());
        while (is(Type.DOT)) {
            p++;
            if (isOp("*")) {
                p++;
                return new QualifiedStar(pos, parts);
            }
            parts.add(label());
        }
        if (is(Type.LPAREN)) return functionCall(pos, parts);
        return new ColumnRef(pos, parts);
    }

    private Expr functionCall(int pos, List<String> name) {
        expect(Type.LPAREN);
        boolean distinct = false;
        boolean star = false;
        List<Expr> args = new ArrayList<>();
        List<OrderItem> order = List.of();
        if (isOp("*") && peek(1).type() == Type.RPAREN) {
            p++;
            star = true;
        } else if (!is(Type.RPAREN)) {
            if (acceptKw("distinct")) distinct = true;
            else acceptKw("all");
            if (isKw("variadic")) throw unsupported("VARIADIC", pos());
            do {
                if (peek(1).isOp("=>") || (peek(1).type() == Type.COLON && peek(2).isOp("="))) {
                    throw unsupported("named function arguments", pos());
                }
                args.add(expr());
            } while (accept(Type.COMMA));
            if (isKw("order") && isKw(1, "by")) {
                p += 2;
                order = orderList();
            }
        }
        expect(Type.RPAREN);
        boolean withinGroup = false;
        if (isKw("within") && isKw(1, "group")) {
            int wpos = pos();
            p += 2;
            if (distinct || star || !order.isEmpty()) {
                throw new SqlException("42601", "cannot use " + (distinct ? "DISTINCT" : star ? "*" : "multiple ORDER BY clauses") + " with WITHIN GROUP", wpos);
            }
            expect(Type.LPAREN);
            expectKw("order");
            expectKw("by");
            order = orderList();
            expect(Type.RPAREN);
            withinGroup = true;
        }
        Expr filter = null;
        if (isKw("filter") && peek(1).type() == Type.LPAREN) {
            p += 2;
            expectKw("where");
            filter = expr();
            expect(Type.RPAREN);
        }
        FunctionCall call = new FunctionCall(pos, name, args, distinct, star, order, filter, withinGroup);
        if (withinGroup && !isKw("over")) {
            Expr hypothetical = HypotheticalSets.desugar(call);
            if (hypothetical != null) return hypothetical;
        }
        if (isKw("over")) {
            p++;
            int wpos = pos();
            if (!accept(Type.LPAREN)) return new WindowCall(pos, call, new WindowSpec(wpos, name(), List.of(), List.of(), null));
            return new WindowCall(pos, call, windowSpec(wpos));
        }
        return call;
    }

    /** EXTRACT, SUBSTRING, POSITION, TRIM and OVERLAY with their SQL-standard argument syntax. */
    private Expr specialForm(String w, int pos) {
        switch (w) {
            case "extract" -> {
                p += 2;
                Token f = peek();
                String field;
                if (f.type() == Type.IDENT || f.type() == Type.QUOTED_IDENT || f.type() == Type.STRING) {
                    field = next().value().toLowerCase(Locale.ROOT);
                } else {
                    throw syntaxError(f);
                }
                expectKw("from");
                Expr source = expr();
                expect(Type.RPAREN);
                return new Extract(pos, field, source);
            }
            case "substring" -> {
                p += 2;
                Expr s = expr();
                List<Expr> args = new ArrayList<>();
                args.add(s);
                if (acceptKw("from")) {
                    args.add(expr());
                    if (acceptKw("for")) args.add(expr());
                } else if (acceptKw("for")) {
                    args.add(new IntegerLiteral(pos, 1));
                    args.add(expr());
                } else if (isKw("similar")) {
                    throw unsupported("SUBSTRING ... SIMILAR", pos());
                } else {
                    while (accept(Type.COMMA)) args.add(expr());
                }
                expect(Type.RPAREN);
                return new FunctionCall(pos, List.of("substring"), args, false, false, List.of(), null);
            }
            case "position" -> {
                p += 2;
                Expr needle = otherOperator(); // b_expr: IN here is not the IN operator
                expectKw("in");
                Expr haystack = expr();
                expect(Type.RPAREN);
                return new FunctionCall(pos, List.of("strpos"), List.of(haystack, needle), false, false, List.of(),
                        null);
            }
            case "trim" -> {
                p += 2;
                String fn = "btrim";
                if (acceptKw("leading")) fn = "ltrim";
                else if (acceptKw("trailing")) fn = "rtrim";
                else acceptKw("both");
                List<Expr> args = new ArrayList<>();
                if (acceptKw("from")) {
                    args.addAll(exprList());
                } else {
                    Expr first = expr();
                    if (acceptKw("from")) {
                        args.addAll(exprList());
                        args.add(first);
                    } else {
                        args.add(first);
                        while (accept(Type.COMMA)) args.add(expr());
                    }
                }
                expect(Type.RPAREN);
                return new FunctionCall(pos, List.of(fn), args, false, false, List.of(), null);
            }
            case "overlay" -> throw unsupported("OVERLAY", pos);
            default -> {
                return null;
            }
        }
    }

    private Expr caseExpr() {
        int pos = pos();
        expectKw("case");
        Expr operand = isKw("when") ? null : expr();
        List<When> whens = new ArrayList<>();
        while (isKw("when")) {
            int wpos = pos();
            p++;
            Expr cond = expr();
            expectKw("then");
            whens.add(new When(wpos, cond, expr()));
        }
        if (whens.isEmpty()) throw syntaxError(peek());
        Expr elseExpr = acceptKw("else") ? expr() : null;
        expectKw("end");
        return new Case(pos, operand, whens, elseExpr);
    }

    private static final java.util.Set<String> INTERVAL_FIELDS =
            java.util.Set.of("year", "month", "day", "hour", "minute", "second");

    /** {@code YEAR}, {@code DAY TO SECOND}, ... after an interval literal; null when absent. */
    private String intervalQualifier() {
        if (!(is(Type.IDENT) && INTERVAL_FIELDS.contains(peek().value()))) return null;
        String from = next().value();
        if (from.equals("second") && is(Type.LPAREN)) throw unsupported("interval second precision", pos());
        if (isKw("to") && is(1, Type.IDENT) && INTERVAL_FIELDS.contains(peek(1).value())) {
            p++;
            String to = next().value();
            if (is(Type.LPAREN)) throw unsupported("interval second precision", pos());
            return from + " to " + to;
        }
        return from;
    }

    private boolean is(int k, Type t) {
        return peek(k).type() == t;
    }

    // ------------------------------------------------------------------ types

    /**
     * {@code COLLATE name}: Tributary compares text in code point order, which is PostgreSQL's
     * {@code C} collation and the database default; those are accepted (and change nothing),
     * any other collation does not exist here (42704).
     */
    private void collation() {
        int pos = pos();
        p++;
        List<String> name = new ArrayList<>();
        name.add(label());
        while (accept(Type.DOT)) name.add(label());
        String last = name.get(name.size() - 1);
        boolean schemaOk = name.size() == 1 || (name.size() == 2 && name.get(0).equals("pg_catalog"));
        boolean known = last.equals("default") || last.equals("C") || last.equals("POSIX") || last.equals("ucs_basic");
        if (!schemaOk || !known) {
            throw new SqlException("42704", "collation \"" + String.join(".", name) + "\" for encoding \"UTF8\" does not exist", pos);
        }
    }

    /**
     * The object identifier alias types: a cast to one of them reads a name as the object's OID
     * (and is PostgreSQL's function-style cast {@code regclass('t')}, bound with the catalog).
     */
    private static final java.util.Set<String> OID_ALIAS_TYPES = java.util.Set.of("regclass", "regtype", "regnamespace", "regproc", "regrole");

    /** The cast of {@code e} to the type that follows ({@code ::type} or {@code CAST(e AS type)}). */
    private Expr castTo(int pos, Expr e) {
        int k = p;
        if (is(Type.IDENT) && peek().value().equals("pg_catalog") && is(1, Type.DOT)) k += 2;
        Token t = toks.get(k);
        if (t.type() == Type.IDENT && OID_ALIAS_TYPES.contains(t.value()) && toks.get(k + 1).type() != Type.LBRACKET) {
            p = k + 1;
            return new FunctionCall(pos, List.of("pg_catalog", t.value()), List.of(e), false, false, List.of(), null);
        }
        return new Cast(pos, e, type());
    }

    /** PostgreSQL types that exist but Tributary does not store. */
    private static final java.util.Set<String> UNSUPPORTED_TYPES = java.util.Set.of(
            "bit", "varbit", "timetz", "money", "xml", "inet", "cidr", "macaddr",
            "serial", "serial4", "bigserial", "serial8", "smallserial", "serial2", "point", "tsvector",
            "bpchar");

    /** A type name, resolved to a {@link SqlType}. */
    SqlType type() {
        int pos = pos();
        Token t = peek();
        if (t.type() != Type.IDENT && t.type() != Type.QUOTED_IDENT) throw syntaxError(t);
        p++;
        String name = t.value();
        if (is(Type.DOT) && name.equals("pg_catalog")) {
            p++;
            t = peek();
            if (t.type() != Type.IDENT && t.type() != Type.QUOTED_IDENT) throw syntaxError(t);
            pos = pos();
            p++;
            name = t.value();
        } else if (is(Type.DOT)) {
            p++;
            label();
            throw new SqlException("42704", "type \"" + sql.substring(t.start(), toks.get(p - 1).end())
                    + "\" does not exist", pos);
        }
        if (t.type() == Type.QUOTED_IDENT && !name.equals(name.toLowerCase(Locale.ROOT))) {
            throw new SqlException("42704", "type \"" + name + "\" does not exist", pos);
        }
        SqlType type = switch (name) {
            case "bool", "boolean" -> SqlType.BOOLEAN;
            case "int2", "smallint" -> SqlType.SMALLINT;
            case "int", "int4", "integer" -> SqlType.INTEGER;
            case "int8", "bigint" -> SqlType.BIGINT;
            case "float4", "real" -> SqlType.REAL;
            case "float8" -> SqlType.DOUBLE;
            case "double" -> {
                if (t.type() == Type.IDENT && acceptKw("precision")) yield SqlType.DOUBLE;
                throw new SqlException("42704", "type \"double\" does not exist", pos);
            }
            case "float" -> {
                if (!accept(Type.LPAREN)) yield SqlType.DOUBLE;
                int bits = intModifier();
                expect(Type.RPAREN);
                if (bits < 1) throw new SqlException("22023", "precision for type float must be at least 1 bit", pos);
                if (bits > 53) throw new SqlException("22023", "precision for type float must be less than 54 bits", pos);
                yield bits <= 24 ? SqlType.REAL : SqlType.DOUBLE;
            }
            case "numeric", "decimal", "dec" -> {
                if (!accept(Type.LPAREN)) yield SqlType.NUMERIC;
                int precision = intModifier();
                int scale = 0;
                if (accept(Type.COMMA)) scale = intModifier();
                expect(Type.RPAREN);
                if (precision < 1 || precision > 1000) {
                    throw new SqlException("22023", "NUMERIC precision " + precision + " must be between 1 and 1000", pos);
                }
                if (scale < 0 || scale > precision) {
                    throw new SqlException("22023", "NUMERIC scale " + scale + " must be between 0 and precision "
                            + precision, pos);
                }
                yield SqlType.numeric(precision, scale);
            }
            case "text" -> SqlType.TEXT;
            // the catalogs' own types, modelled on the stored ones: an OID is a bigint (its
            // range is 0..2^32-1), a name and PostgreSQL's one-byte "char" are text
            case "oid", "xid", "regclass", "regtype", "regnamespace", "regproc", "regrole" -> SqlType.BIGINT;
            case "name" -> SqlType.TEXT;
            case "varchar" -> varchar(pos);
            case "character", "char" -> {
                if (t.type() == Type.QUOTED_IDENT && name.equals("char")) yield SqlType.TEXT;
                if (t.type() == Type.IDENT && acceptKw("varying")) yield varchar(pos);
                if (!accept(Type.LPAREN)) yield SqlType.character(1);
                int n = lengthModifier(name, pos);
                yield SqlType.character(n);
            }
            case "bytea" -> SqlType.BYTEA;
            case "uuid" -> SqlType.UUID;
            case "json" -> SqlType.JSON;
            case "jsonb" -> SqlType.JSONB;
            case "date" -> SqlType.DATE;
            case "time" -> {
                skipTimePrecision();
                if (isKw("with") && isKw(1, "time")) throw unsupported("type time with time zone", pos);
                withoutTimeZone();
                yield SqlType.TIME;
            }
            case "timestamp" -> {
                skipTimePrecision();
                if (isKw("with") && isKw(1, "time")) {
                    p += 2;
                    expectKw("zone");
                    yield SqlType.TIMESTAMPTZ;
                }
                withoutTimeZone();
                yield SqlType.TIMESTAMP;
            }
            case "timestamptz" -> {
                skipTimePrecision();
                yield SqlType.TIMESTAMPTZ;
            }
            case "interval" -> {
                if (is(Type.IDENT) && INTERVAL_FIELDS.contains(peek().value())) intervalQualifier();
                yield SqlType.INTERVAL;
            }
            default -> {
                if (UNSUPPORTED_TYPES.contains(name)) throw unsupported("type " + name, pos);
                throw new SqlException("42704", "type \"" + name + "\" does not exist", pos);
            }
        };
        boolean array = false;
        while (is(Type.LBRACKET)) {
            p++;
            if (is(Type.INTEGER)) p++;
            expect(Type.RBRACKET);
            array = true;
        }
        if (!array && isKw("array")) {
            p++;
            if (accept(Type.LBRACKET)) {
                if (is(Type.INTEGER)) p++;
                expect(Type.RBRACKET);
            }
            array = true;
        }
        return array ? SqlType.array(type) : type;
    }

    private SqlType varchar(int pos) {
        if (!accept(Type.LPAREN)) return SqlType.VARCHAR;
        return SqlType.varchar(lengthModifier("varchar", pos));
    }

    private int lengthModifier(String name, int pos) {
        int n = intModifier();
        expect(Type.RPAREN);
        if (n < 1) throw new SqlException("22023", "length for type " + name + " must be at least 1", pos);
        if (n > 10_485_760) {
            throw new SqlException("22023", "length for type " + name + " cannot exceed 10485760", pos);
        }
        return n;
    }

    private int intModifier() {
        Token t = peek();
        if (t.type() != Type.INTEGER) throw syntaxError(t);
        p++;
        try {
            return Integer.parseInt(t.value());
        } catch (NumberFormatException e) {
            throw new SqlException("22023", "type modifier " + t.value() + " is out of range", t.start() + 1);
        }
    }

    private void skipTimePrecision() {
        if (is(Type.LPAREN) && is(1, Type.INTEGER) && is(2, Type.RPAREN)) {
            int pos = pos();
            int precision = Integer.parseInt(peek(1).value().length() > 3 ? "999" : peek(1).value());
            if (precision > 6) {
                throw unsupported("time precision above 6", pos);
            }
            p += 3;
        }
    }

    private void withoutTimeZone() {
        if (isKw("without") && isKw(1, "time")) {
            p += 2;
            expectKw("zone");
        }
    }

    /** A numeric literal's value, within PostgreSQL's limits (22003 at its position otherwise). */
    private static BigDecimal numericLiteral(String text, int pos) {
        try {
            return dev.tributary.sql.types.Values.numeric(text);
        } catch (SqlException e) {
            throw new SqlException(e.sqlState(), e.getMessage(), pos);
        }
    }
}
