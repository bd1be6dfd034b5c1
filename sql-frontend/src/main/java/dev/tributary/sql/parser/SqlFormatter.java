package dev.tributary.sql.parser;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Alias;
import dev.tributary.sql.ast.BinaryOp;
import dev.tributary.sql.ast.Cte;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.Expr.*;
import dev.tributary.sql.ast.Node;
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
import dev.tributary.sql.ast.WindowSpec;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Canonical SQL text for a syntax tree: keywords in upper case, one space between tokens,
 * identifiers quoted only when they must be, parentheses only where precedence needs them.
 *
 * <p>The text parses back to the same tree (positions aside), so
 * {@code format(parse(format(parse(s))))} equals {@code format(parse(s))}; SHOW CREATE VIEW
 * prints a view's query this way.
 */
public final class SqlFormatter {
    private SqlFormatter() {}

    private static final Pattern PLAIN = Pattern.compile("[a-z_][a-z0-9_$]*");
    /** Unreserved words that would be read as a clause keyword where a name is printed. */
    private static final Set<String> QUOTE_ALSO = Set.of("of", "emit");
    /** Function names the parser reads as SQL-standard special forms. */
    private static final Set<String> SPECIAL_FUNCTIONS = Set.of("extract", "position", "trim", "overlay");

    /** The SQL text of a statement, query, query body, table reference or expression. */
    public static String format(Node node) {
        StringBuilder b = new StringBuilder();
        try {
            switch (node) {
                case Statement s -> statement(b, s);
                case Query q -> query(b, q);
                case QueryBody qb -> body(b, qb);
                case TableRef t -> table(b, t);
                case Expr e -> expr(b, e, 0);
                default -> throw new SqlException("0A000", "cannot format " + node.getClass().getSimpleName());
            }
        } catch (StackOverflowError e) {
            throw new SqlException("54001", "stack depth limit exceeded");
        }
        return b.toString();
    }

    /** {@code s} as an identifier, quoted when it would not read back as itself. */
    /** A source's options as {@code (NAME 'value', ...)}, nothing when there are none. */
    private static void sourceOptions(StringBuilder b, List<Statement.SourceOption> options) {
        if (options.isEmpty()) return;
        b.append(" (");
        for (int i = 0; i < options.size(); i++) {
            Statement.SourceOption o = options.get(i);
            b.append(i > 0 ? ", " : "").append(o.name()).append(" ").append(string(o.value()));
        }
        b.append(')');
    }

    public static String ident(String s) {
        if (PLAIN.matcher(s).matches() && !Keywords.RESERVED.contains(s) && !Keywords.TYPE_FUNC.contains(s)
                && !QUOTE_ALSO.contains(s)) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    private static String name(List<String> parts) {
        StringBuilder b = new StringBuilder();
        for (String part : parts) {
            if (!b.isEmpty()) b.append('.');
            b.append(ident(part));
        }
        return b.toString();
    }

    private static String functionName(List<String> parts) {
        if (parts.size() == 1) {
            String s = parts.get(0);
            if (PLAIN.matcher(s).matches() && !Keywords.RESERVED.contains(s) && !SPECIAL_FUNCTIONS.contains(s)) return s;
        }
        return name(parts);
    }

    private static String names(List<String> names) {
        return "(" + bareNames(names) + ")";
    }

    /** {@code a, b}: quoted as needed, without parentheses. */
    private static String bareNames(List<String> names) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) b.append(", ");
            b.append(ident(names.get(i)));
        }
        return b.toString();
    }

    /** {@code s} as a standard-conforming string literal. */
    public static String string(String s) {
        return '\'' + s.replace("'", "''") + '\'';
    }

    // ------------------------------------------------------------------ statements

    private static void assignments(StringBuilder b, List<Assignment> set) {
        for (int i = 0; i < set.size(); i++) {
            Assignment a = set.get(i);
            if (i > 0) b.append(", ");
            expr(b.append(ident(a.column())).append(" = "), a.value(), 0);
        }
    }

    private static StringBuilder sequenceOptions(StringBuilder b, SequenceOptions o) {
        List<String> parts = new java.util.ArrayList<>();
        if (o.type() != null) parts.add("AS " + o.type());
        if (o.increment() != null) parts.add("INCREMENT BY " + o.increment());
        if (o.min() != null) parts.add("MINVALUE " + o.min());
        if (o.max() != null) parts.add("MAXVALUE " + o.max());
        if (o.start() != null) parts.add("START WITH " + o.start());
        if (o.cache() != null) parts.add("CACHE " + o.cache());
        if (o.cycle() != null) parts.add(o.cycle() ? "CYCLE" : "NO CYCLE");
        return b.append(String.join(" ", parts));
    }

    private static StringBuilder unique(StringBuilder b, UniqueKey u) {
        if (u.name() != null) b.append("CONSTRAINT ").append(ident(u.name())).append(' ');
        return b.append("UNIQUE ").append(names(u.columns()));
    }

    /** A table's FOREIGN KEY constraint as written (actions and MATCH FULL only when not the defaults). */
    public static StringBuilder foreignKey(StringBuilder b, ForeignKeyDef f) {
        if (f.name() != null) b.append("CONSTRAINT ").append(ident(f.name())).append(' ');
        b.append("FOREIGN KEY ").append(names(f.columns())).append(" REFERENCES ").append(name(f.refTable()));
        if (!f.refColumns().isEmpty()) b.append(' ').append(names(f.refColumns()));
        if (f.matchFull()) b.append(" MATCH FULL");
        if (f.onUpdate() != ReferentialAction.NO_ACTION) b.append(" ON UPDATE ").append(f.onUpdate().sql());
        if (f.onDelete() != ReferentialAction.NO_ACTION) b.append(" ON DELETE ").append(f.onDelete().sql());
        if (f.deferrable()) b.append(" DEFERRABLE");
        if (f.initiallyDeferred()) b.append(" INITIALLY DEFERRED");
        return b;
    }

    /** {@code ([base] [PARTITION BY ...] [ORDER BY ...] [frame])}. */
    private static void window(StringBuilder b, WindowSpec w) {
        List<String> parts = new java.util.ArrayList<>();
        if (w.base() != null) parts.add(ident(w.base()));
        if (!w.partitionBy().isEmpty()) {
            StringBuilder p = new StringBuilder("PARTITION BY ");
            list(p, w.partitionBy());
            parts.add(p.toString());
        }
        if (!w.orderBy().isEmpty()) {
            StringBuilder o = new StringBuilder();
            orderBy(o.append("ORDER BY "), w.orderBy());
            parts.add(o.toString());
        }
        WindowSpec.Frame f = w.frame();
        if (f != null) {
            StringBuilder fr = new StringBuilder(f.mode().name()).append(" BETWEEN ");
            bound(fr, f.start());
            bound(fr.append(" AND "), f.end());
            if (f.exclusion() != WindowSpec.Exclusion.NO_OTHERS) fr.append(" EXCLUDE ").append(f.exclusion().sql());
            parts.add(fr.toString());
        }
        b.append('(').append(String.join(" ", parts)).append(')');
    }

    private static void bound(StringBuilder b, WindowSpec.Bound bound) {
        if (bound.offset() != null) expr(b, bound.offset(), 5);
        if (bound.offset() != null) b.append(' ');
        b.append(bound.kind().sql());
    }

    /** {@code keyword} and the items of a FROM list, if there are any. */
    private static void tables(StringBuilder b, String keyword, List<TableRef> items) {
        if (items.isEmpty()) return;
        b.append(keyword);
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) b.append(", ");
            table(b, items.get(i));
        }
    }

    private static void statement(StringBuilder b, Statement s) {
        switch (s) {
            case QueryStatement q -> {
                query(b, q.query());
                if (q.asOf() != null) expr(b.append(" AS OF "), q.asOf(), 0);
                if (q.emitChanges()) b.append(" EMIT CHANGES");
            }
            case CreateTableAs c -> {
                b.append("CREATE TABLE ");
                if (c.ifNotExists()) b.append("IF NOT EXISTS ");
                b.append(name(c.name()));
                if (!c.columns().isEmpty()) b.append(' ').append(names(c.columns()));
                query(b.append(" AS "), c.query());
                if (c.withNoData()) b.append(" WITH NO DATA");
            }
            case CreateTable c -> {
                b.append("CREATE TABLE ");
                if (c.ifNotExists()) b.append("IF NOT EXISTS ");
                b.append(name(c.name())).append(" (");
                for (int i = 0; i < c.columns().size(); i++) {
                    ColumnDef col = c.columns().get(i);
                    if (i > 0) b.append(", ");
                    b.append(ident(col.name())).append(' ');
                    if (col.identity() == Identity.SERIAL) {
                        b.append(col.type().kind() == dev.tributary.sql.types.SqlType.Kind.BIGINT ? "bigserial"
                                : col.type().kind() == dev.tributary.sql.types.SqlType.Kind.SMALLINT ? "smallserial" : "serial");
                    } else {
                        b.append(col.type());
                    }
                    if (col.notNull() && col.identity() == Identity.NONE) b.append(" NOT NULL");
                    if (col.defaultExpr() != null) expr(b.append(" DEFAULT "), col.defaultExpr(), 7);
                    if (col.identity() == Identity.ALWAYS || col.identity() == Identity.BY_DEFAULT) {
                        b.append(col.identity() == Identity.ALWAYS ? " GENERATED ALWAYS AS IDENTITY" : " GENERATED BY DEFAULT AS IDENTITY");
                        if (col.sequence() != null) sequenceOptions(b.append(" ("), col.sequence()).append(')');
                    }
                }
                if (!c.primaryKey().isEmpty()) {
                    if (c.primaryKeyName() != null) b.append(", CONSTRAINT ").append(ident(c.primaryKeyName())).append(" PRIMARY KEY ");
                    else b.append(", PRIMARY KEY ");
                    b.append(names(c.primaryKey()));
                }
                for (UniqueKey u : c.uniques()) unique(b.append(", "), u);
                for (ForeignKeyDef f : c.foreignKeys()) foreignKey(b.append(", "), f);
                for (CheckDef k : c.checks()) {
                    b.append(", ");
                    if (k.name() != null) b.append("CONSTRAINT ").append(ident(k.name())).append(' ');
                    expr(b.append("CHECK ("), k.expr(), 0);
                    b.append(')');
                }
                if (c.watermark() != null) watermark(b.append(", "), c.watermark());
                b.append(')');
                if (c.appendOnly()) {
                    b.append(" WITH (APPEND ONLY");
                    if (c.retainRows() != null) retainRows(b.append(", "), c.retainRows());
                    if (c.retain() != null) retainOption(b.append(", "), c.retain());
                    b.append(')');
                } else if (c.retainRows() != null) {
                    retainRows(b.append(" WITH ("), c.retainRows());
                    if (c.retain() != null) retainOption(b.append(", "), c.retain());
                    b.append(')');
                } else {
                    retain(b, c.retain());
                }
            }
            case CreateView v -> {
                b.append("CREATE ");
                if (v.orReplace()) b.append("OR REPLACE ");
                if (v.materialized()) b.append("MATERIALIZED ");
                b.append("VIEW ");
                if (v.ifNotExists()) b.append("IF NOT EXISTS ");
                b.append(name(v.name()));
                if (!v.columns().isEmpty()) b.append(' ').append(names(v.columns()));
                retain(b, v.retain());
                query(b.append(" AS "), v.query());
            }
            case CreateIndex i -> {
                b.append(i.unique() ? "CREATE UNIQUE INDEX " : "CREATE INDEX ");
                if (i.ifNotExists()) b.append("IF NOT EXISTS ");
                b.append(ident(i.name())).append(" ON ").append(name(i.on())).append(" (");
                for (int k = 0; k < i.exprs().size(); k++) {
                    if (k > 0) b.append(", ");
                    expr(b, i.exprs().get(k), 0);
                    if (!i.orders().get(k).isEmpty()) b.append(' ').append(i.orders().get(k));
                }
                b.append(')');
                retain(b, i.retain());
            }
            case CreateSequence q -> {
                b.append("CREATE SEQUENCE ");
                if (q.ifNotExists()) b.append("IF NOT EXISTS ");
                b.append(name(q.name()));
                int at = b.length();
                sequenceOptions(b.append(' '), q.options());
                if (b.length() == at + 1) b.setLength(at);
                if (!q.ownedBy().isEmpty()) b.append(" OWNED BY ").append(name(q.ownedBy()));
            }
            case AddConstraint a -> {
                b.append("ALTER TABLE ").append(name(a.table())).append(" ADD ");
                if (a.key() != null) unique(b, a.key());
                else if (a.foreignKey() != null) foreignKey(b, a.foreignKey());
                else {
                    if (a.check().name() != null) b.append("CONSTRAINT ").append(ident(a.check().name())).append(' ');
                    expr(b.append("CHECK ("), a.check().expr(), 0);
                    b.append(')');
                }
            }
            case Comment c -> {
                b.append("COMMENT ON ").append(c.kind() == null ? "COLUMN" : c.kind().sql()).append(' ').append(name(c.name()));
                if (c.column() != null) b.append('.').append(ident(c.column()));
                b.append(" IS ").append(c.text() == null ? "NULL" : string(c.text()));
            }
            case AlterColumn a -> {
                b.append("ALTER TABLE ").append(name(a.table())).append(" ALTER COLUMN ").append(ident(a.column()));
                switch (a.change()) {
                    case SET_DEFAULT -> expr(b.append(" SET DEFAULT "), a.defaultExpr(), 7);
                    case DROP_DEFAULT -> b.append(" DROP DEFAULT");
                    case SET_NOT_NULL -> b.append(" SET NOT NULL");
                    case DROP_NOT_NULL -> b.append(" DROP NOT NULL");
                }
            }
            case DropConstraint d -> {
                b.append("ALTER TABLE ").append(name(d.table())).append(" DROP CONSTRAINT ");
                if (d.ifExists()) b.append("IF EXISTS ");
                b.append(ident(d.name()));
                if (d.cascade()) b.append(" CASCADE");
            }
            case AlterRetainHistory a -> {
                b.append("ALTER ").append(a.kind().sql()).append(' ').append(name(a.name()));
                if (a.retain() == null) b.append(" RESET (RETAIN HISTORY)");
                else retainOption(b.append(" SET ("), a.retain()).append(')');
            }
            case Drop d -> {
                b.append("DROP ").append(d.kind().sql()).append(' ');
                if (d.ifExists()) b.append("IF EXISTS ");
                for (int i = 0; i < d.names().size(); i++) {
                    if (i > 0) b.append(", ");
                    b.append(name(d.names().get(i)));
                }
                if (d.cascade()) b.append(" CASCADE");
            }
            case Statement.InsertIntoUrl u -> query(b.append("INSERT INTO FUNCTION url(").append(string(u.url())).append(") "), u.source());
            case Insert i -> {
                b.append("INSERT INTO ").append(name(i.table()));
                if (i.alias() != null) b.append(" AS ").append(ident(i.alias()));
                if (!i.columns().isEmpty()) b.append(' ').append(names(i.columns()));
                query(b.append(' '), i.source());
                if (i.onConflict() != null) {
                    b.append(" ON CONFLICT");
                    OnConflict c = i.onConflict();
                    if (!c.columns().isEmpty()) b.append(' ').append(names(c.columns()));
                    if (c.constraint() != null) b.append(" ON CONSTRAINT ").append(ident(c.constraint()));
                    if (c.doUpdate()) {
                        assignments(b.append(" DO UPDATE SET "), c.updates());
                        if (c.where() != null) expr(b.append(" WHERE "), c.where(), 0);
                    } else {
                        b.append(" DO NOTHING");
                    }
                }
                returning(b, i.returning());
            }
            case Update u -> {
                b.append("UPDATE ").append(name(u.table()));
                if (u.alias() != null) b.append(" AS ").append(ident(u.alias()));
                assignments(b.append(" SET "), u.assignments());
                tables(b, " FROM ", u.from());
                if (u.where() != null) expr(b.append(" WHERE "), u.where(), 0);
                returning(b, u.returning());
            }
            case Delete d when d.truncate() -> b.append("TRUNCATE TABLE ").append(name(d.table()));
            case Delete d -> {
                b.append("DELETE FROM ").append(name(d.table()));
                if (d.alias() != null) b.append(" AS ").append(ident(d.alias()));
                tables(b, " USING ", d.using());
                if (d.where() != null) expr(b.append(" WHERE "), d.where(), 0);
                returning(b, d.returning());
            }
            case Transaction t -> {
                switch (t.kind()) {
                    case SAVEPOINT -> b.append("SAVEPOINT ").append(ident(t.savepoint()));
                    case RELEASE_SAVEPOINT -> b.append("RELEASE SAVEPOINT ").append(ident(t.savepoint()));
                    case ROLLBACK_TO_SAVEPOINT -> b.append("ROLLBACK TO SAVEPOINT ").append(ident(t.savepoint()));
                    default -> b.append(t.kind().name());
                }
            }
            case Show sh -> {
                b.append("SHOW ");
                switch (sh.kind()) {
                    case TABLES -> b.append("TABLES");
                    case VIEWS -> b.append("VIEWS");
                    case MATERIALIZED_VIEWS -> b.append("MATERIALIZED VIEWS");
                    case SOURCES -> b.append("SOURCES");
                    case SINKS -> b.append("SINKS");
                    case JOBS -> b.append("JOBS");
                    case INDEXES -> {
                        b.append("INDEXES");
                        if (!sh.target().isEmpty()) b.append(" FROM ").append(name(sh.target()));
                    }
                    case COLUMNS -> b.append("COLUMNS FROM ").append(name(sh.target()));
                    case CREATE_TABLE -> b.append("CREATE TABLE ").append(name(sh.target()));
                    case CREATE_VIEW -> b.append("CREATE VIEW ").append(name(sh.target()));
                    case CREATE_MATERIALIZED_VIEW -> b.append("CREATE MATERIALIZED VIEW ").append(name(sh.target()));
                    case VARIABLE -> b.append(sh.target().equals(List.of("all")) ? "ALL" : name(sh.target()));
                }
            }
            case Explain e -> {
                b.append("EXPLAIN ");
                if (!e.options().isEmpty()) {
                    b.append('(');
                    for (int i = 0; i < e.options().size(); i++) {
                        ExplainOption o = e.options().get(i);
                        if (i > 0) b.append(", ");
                        b.append(ident(o.name()));
                        if (o.value() != null) {
                            b.append(' ').append(PLAIN.matcher(o.value()).matches() ? o.value() : string(o.value()));
                        }
                    }
                    b.append(") ");
                }
                statement(b, e.statement());
            }
            case Subscribe sub -> {
                b.append("SUBSCRIBE ");
                if (sub.query() != null) query(b.append('('), sub.query()).append(')');
                else b.append(name(sub.name()));
                if (sub.upsertKey() != null) b.append(" ENVELOPE UPSERT (KEY ").append(names(sub.upsertKey())).append(')');
                if (!sub.snapshot() || sub.progress()) {
                    b.append(" WITH (");
                    if (!sub.snapshot()) b.append("SNAPSHOT = false");
                    if (!sub.snapshot() && sub.progress()) b.append(", ");
                    if (sub.progress()) b.append("PROGRESS = true");
                    b.append(')');
                }
                if (sub.asOf() != null) expr(b.append(" AS OF "), sub.asOf(), 0);
                if (sub.upTo() != null) expr(b.append(" UP TO "), sub.upTo(), 0);
            }
            case Statement.CreateRole r -> roleOptions(b.append(r.user() ? "CREATE USER " : "CREATE ROLE ").append(ident(r.name())), r.options());
            case Statement.AlterRole r -> roleOptions(b.append("ALTER ROLE ").append(ident(r.name())), r.options());
            case Statement.SetConstraints c -> {
                b.append("SET CONSTRAINTS ");
                if (c.names().isEmpty()) b.append("ALL");
                for (int i = 0; i < c.names().size(); i++) b.append(i > 0 ? ", " : "").append(name(c.names().get(i)));
                b.append(c.deferred() ? " DEFERRED" : " IMMEDIATE");
            }
            case Statement.CreateJob j -> {
                b.append("CREATE JOB ").append(j.ifNotExists() ? "IF NOT EXISTS " : "").append(name(j.name())).append(" AS ");
                statement(b, j.insert());
            }
            case Statement.CreateSink c -> {
                b.append("CREATE SINK ").append(c.ifNotExists() ? "IF NOT EXISTS " : "").append(name(c.name())).append(" FROM ");
                if (c.query() != null) query(b.append('('), c.query()).append(')');
                else b.append(name(c.from()));
                b.append(" INTO ").append(c.connector());
                sourceOptions(b, c.options());
                if (!c.key().isEmpty()) b.append(" KEY ").append(names(c.key()));
                if (c.format() != null) {
                    b.append(" FORMAT ").append(c.format());
                    sourceOptions(b, c.formatOptions());
                    b.append(" ENVELOPE ").append(c.envelope());
                }
            }
            case Statement.AlterSink a -> b.append("ALTER SINK ").append(name(a.name())).append(a.pause() ? " PAUSE" : " RESUME");
            case Statement.AlterJob a -> b.append("ALTER JOB ").append(name(a.name())).append(a.pause() ? " PAUSE" : " RESUME");
            case Statement.CreateSource c -> {
                b.append("CREATE SOURCE ");
                if (c.ifNotExists()) b.append("IF NOT EXISTS ");
                b.append(name(c.name()));
                if (!c.columns().isEmpty()) {
                    b.append(" (");
                    for (int i = 0; i < c.columns().size(); i++) {
                        ColumnDef col = c.columns().get(i);
                        b.append(i > 0 ? ", " : "").append(ident(col.name())).append(' ').append(col.type());
                        if (col.notNull()) b.append(" NOT NULL");
                    }
                    if (!c.primaryKey().isEmpty()) b.append(", PRIMARY KEY ").append(names(c.primaryKey()));
                    b.append(')');
                }
                b.append(" FROM ").append(c.connector());
                sourceOptions(b, c.options());
                if (c.format() != null) {
                    b.append(" FORMAT ").append(c.format());
                    sourceOptions(b, c.formatOptions());
                }
                if (!c.include().isEmpty()) b.append(" INCLUDE ").append(String.join(", ", c.include()));
                if (c.envelope() != Statement.SourceEnvelope.NONE) b.append(" ENVELOPE ").append(c.envelope());
                if (c.stopOnDecodeError()) b.append(" ON DECODE ERROR STOP");
            }
            case Statement.CreateSchema c -> {
                b.append("CREATE SCHEMA ").append(c.ifNotExists() ? "IF NOT EXISTS " : "").append(ident(c.name()));
                if (c.owner() != null) b.append(" AUTHORIZATION ").append(ident(c.owner()));
            }
            case Statement.DropSchema d -> {
                b.append("DROP SCHEMA ").append(d.ifExists() ? "IF EXISTS " : "");
                for (int i = 0; i < d.names().size(); i++) b.append(i > 0 ? ", " : "").append(ident(d.names().get(i)));
                if (d.cascade()) b.append(" CASCADE");
            }
            case Statement.AlterSchemaOwner a -> b.append("ALTER SCHEMA ").append(ident(a.name())).append(" OWNER TO ").append(ident(a.owner()));
            case Statement.DropRole r -> {
                b.append("DROP ROLE ").append(r.ifExists() ? "IF EXISTS " : "");
                for (int i = 0; i < r.names().size(); i++) b.append(i > 0 ? ", " : "").append(ident(r.names().get(i)));
            }
            case Statement.Grant g -> {
                b.append(g.grant() ? "GRANT " : "REVOKE ");
                if (!g.grant() && g.grantOption()) b.append("GRANT OPTION FOR ");
                if (g.privileges().isEmpty()) b.append("ALL");
                for (int i = 0; i < g.privileges().size(); i++) b.append(i > 0 ? ", " : "").append(g.privileges().get(i).toUpperCase(java.util.Locale.ROOT));
                b.append(switch (g.target()) {
                    case TABLE -> " ON TABLE ";
                    case ALL_TABLES_IN_SCHEMA -> " ON ALL TABLES IN SCHEMA ";
                    case SCHEMA -> " ON SCHEMA ";
                });
                for (int i = 0; i < g.objects().size(); i++) b.append(i > 0 ? ", " : "").append(name(g.objects().get(i)));
                b.append(g.grant() ? " TO " : " FROM ");
                for (int i = 0; i < g.grantees().size(); i++) {
                    String r = g.grantees().get(i);
                    b.append(i > 0 ? ", " : "").append(r.equals("public") ? "PUBLIC" : ident(r));
                }
                if (g.grant() && g.grantOption()) b.append(" WITH GRANT OPTION");
                if (g.cascade()) b.append(" CASCADE");
            }
            case Statement.GrantRole g -> {
                b.append(g.grant() ? "GRANT " : "REVOKE ");
                if (!g.grant() && g.adminOption()) b.append("ADMIN OPTION FOR ");
                for (int i = 0; i < g.roles().size(); i++) b.append(i > 0 ? ", " : "").append(ident(g.roles().get(i)));
                b.append(g.grant() ? " TO " : " FROM ");
                for (int i = 0; i < g.members().size(); i++) b.append(i > 0 ? ", " : "").append(ident(g.members().get(i)));
                if (g.grant() && g.adminOption()) b.append(" WITH ADMIN OPTION");
            }
            case Statement.ReassignOwned r -> {
                b.append("REASSIGN OWNED BY ");
                for (int i = 0; i < r.from().size(); i++) b.append(i > 0 ? ", " : "").append(ident(r.from().get(i)));
                b.append(" TO ").append(ident(r.to()));
            }
            case Statement.DropOwned d -> {
                b.append("DROP OWNED BY ");
                for (int i = 0; i < d.roles().size(); i++) b.append(i > 0 ? ", " : "").append(ident(d.roles().get(i)));
                if (d.cascade()) b.append(" CASCADE");
            }
            case Statement.AlterOwner a -> b.append("ALTER ").append(a.kind().sql()).append(' ').append(name(a.name())).append(" OWNER TO ").append(ident(a.owner()));
            case Statement.SetRole r -> {
                if (r.reset()) b.append(r.session() ? "RESET SESSION AUTHORIZATION" : "RESET ROLE");
                else if (r.role() == null) b.append(r.session() ? "SET SESSION AUTHORIZATION DEFAULT" : "SET ROLE NONE");
                else b.append(r.session() ? "SET SESSION AUTHORIZATION " : "SET ROLE ").append(ident(r.role()));
            }
            case Statement.Checkpoint c -> b.append("CHECKPOINT");
            case Statement.Refresh r -> b.append("REFRESH MATERIALIZED VIEW ").append(name(r.name()));
            case Statement.Discard d -> b.append("DISCARD ").append(d.what().toUpperCase(java.util.Locale.ROOT));
            case Statement.Deallocate d -> b.append("DEALLOCATE ").append(d.name() == null ? "ALL" : ident(d.name()));
            case AdvanceClock a -> expr(b.append("ADVANCE CLOCK ").append(a.to() ? "TO " : "BY "), a.value(), 0);
            case Statement.Set set -> {
                b.append("SET ");
                String[] parts = set.name().split("\\.", -1);
                for (int i = 0; i < parts.length; i++) b.append(i > 0 ? "." : "").append(ident(parts[i]));
                if (set.values().isEmpty()) b.append(" TO DEFAULT");
                else list(b.append(" = "), set.values());
            }
            case Copy c -> {
                b.append("COPY ");
                if (c.query() != null) {
                    statement(b.append('('), c.query());
                    b.append(')');
                } else {
                    b.append(name(c.table()));
                    if (!c.columns().isEmpty()) b.append(' ').append(names(c.columns()));
                }
                if (c.file() != null) b.append(c.from() ? " FROM " : " TO ").append(string(c.file()));
                else b.append(c.from() ? " FROM STDIN" : " TO STDOUT");
                CopyOptions o = c.options();
                if (o.json()) {
                    b.append(" WITH (FORMAT json)");
                } else {
                    b.append(" WITH (FORMAT ").append(o.csv() ? "csv" : "text");
                    b.append(", DELIMITER ").append(string(String.valueOf(o.delimiter())));
                    b.append(", NULL ").append(string(o.nullString()));
                    if (o.header() != CopyHeader.NONE) b.append(", HEADER ").append(o.header() == CopyHeader.MATCH ? "match" : "true");
                    if (o.csv()) {
                        b.append(", QUOTE ").append(string(String.valueOf(o.quote())));
                        b.append(", ESCAPE ").append(string(String.valueOf(o.escape())));
                    }
                    b.append(')');
                }
            }
            case DeclareCursor d -> statement(b.append("DECLARE ").append(ident(d.name())).append(" CURSOR FOR "), d.query());
            case Fetch f -> {
                b.append("FETCH ").append(f.count() == Fetch.ALL ? "ALL" : String.valueOf(f.count())).append(" FROM ").append(ident(f.cursor()));
                if (f.timeout() != null) {
                    expr(b.append(" WITH (TIMEOUT = "), f.timeout(), 0);
                    b.append(')');
                }
            }
            case CloseCursor c -> b.append("CLOSE ").append(c.cursor() == null ? "ALL" : ident(c.cursor()));
        }
    }

    private static void roleOptions(StringBuilder b, List<Statement.RoleOption> options) {
        for (Statement.RoleOption o : options) {
            switch (o) {
                case Statement.RoleOption.Login l -> b.append(l.login() ? " LOGIN" : " NOLOGIN");
                case Statement.RoleOption.Password pw -> b.append(" PASSWORD ").append(pw.password() == null ? "NULL" : string(pw.password()));
                case Statement.RoleOption.Attribute a -> b.append(a.value() ? " " : " NO").append(a.name().toUpperCase(java.util.Locale.ROOT));
            }
        }
    }

    // ------------------------------------------------------------------ queries

    /** Select items, each after a space (the first) or a comma. */
    private static void items(StringBuilder b, List<SelectItem> items) {
        for (int i = 0; i < items.size(); i++) {
            SelectItem item = items.get(i);
            b.append(i > 0 ? ", " : " ");
            expr(b, item.expr(), 0);
            if (item.alias() != null) b.append(" AS ").append(ident(item.alias()));
        }
    }

    private static void returning(StringBuilder b, List<SelectItem> items) {
        if (!items.isEmpty()) items(b.append(" RETURNING"), items);
    }

    private static StringBuilder query(StringBuilder b, Query q) {
        if (!q.with().isEmpty()) {
            b.append("WITH ");
            Query.Recursion r = q.recursion();
            switch (r.kind()) {
                case NONE -> {}
                case RECURSIVE -> b.append("RECURSIVE ");
                case MUTUALLY_RECURSIVE -> {
                    b.append("MUTUALLY RECURSIVE ");
                    if (r.limit() > 0) b.append(r.errorAtLimit() ? "(ERROR" : "(RETURN").append(" AT RECURSION LIMIT ").append(r.limit()).append(") ");
                }
            }
            for (int i = 0; i < q.with().size(); i++) {
                Cte c = q.with().get(i);
                if (i > 0) b.append(", ");
                b.append(ident(c.name()));
                if (!c.types().isEmpty()) {
                    b.append(" (");
                    for (int j = 0; j < c.columns().size(); j++) {
                        if (j > 0) b.append(", ");
                        b.append(ident(c.columns().get(j))).append(' ').append(c.types().get(j));
                    }
                    b.append(')');
                } else if (!c.columns().isEmpty()) b.append(' ').append(names(c.columns()));
                query(b.append(" AS ("), c.query()).append(')');
                if (c.search() != null) {
                    b.append(c.search().breadthFirst() ? " SEARCH BREADTH FIRST BY " : " SEARCH DEPTH FIRST BY ").append(bareNames(c.search().columns()));
                    b.append(" SET ").append(ident(c.search().sequenceColumn()));
                }
                if (c.cycle() != null) {
                    b.append(" CYCLE ").append(bareNames(c.cycle().columns())).append(" SET ").append(ident(c.cycle().markColumn()));
                    if (c.cycle().markValue() != null) {
                        expr(b.append(" TO "), c.cycle().markValue(), 0);
                        expr(b.append(" DEFAULT "), c.cycle().markDefault(), 0);
                    }
                    b.append(" USING ").append(ident(c.cycle().pathColumn()));
                }
            }
            b.append(' ');
        }
        body(b, q.body());
        if (!q.orderBy().isEmpty()) orderBy(b.append(" ORDER BY "), q.orderBy());
        if (q.limitBy() != null) {
            expr(b.append(" LIMIT "), q.limitBy().limit(), 0);
            if (q.limitBy().offset() != null) expr(b.append(" OFFSET "), q.limitBy().offset(), 7);
            b.append(" BY ");
            for (int i = 0; i < q.limitBy().by().size(); i++) expr(i > 0 ? b.append(", ") : b, q.limitBy().by().get(i), 0);
        }
        if (q.limit() != null) expr(b.append(" LIMIT "), q.limit(), 0);
        if (q.offset() != null) expr(b.append(" OFFSET "), q.offset(), 7);
        if (q.emitOnWindowClose()) b.append(" EMIT ON WINDOW CLOSE");
        return b;
    }

    private static void orderBy(StringBuilder b, List<OrderItem> items) {
        for (int i = 0; i < items.size(); i++) {
            OrderItem o = items.get(i);
            if (i > 0) b.append(", ");
            expr(b, o.expr(), 0);
            if (o.descending()) b.append(" DESC");
            if (o.nulls() != OrderItem.Nulls.DEFAULT) b.append(" NULLS ").append(o.nulls().name());
        }
    }

    private static int setPrecedence(SetOp op) {
        return op == SetOp.INTERSECT ? 2 : 1;
    }

    private static void body(StringBuilder b, QueryBody body) {
        switch (body) {
            case Select s -> select(b, s);
            case Values v -> values(b, v);
            case Query q -> query(b.append('('), q).append(')');
            case SetOperation s -> {
                int prec = setPrecedence(s.op());
                setOperand(b, s.left(), prec);
                b.append(' ').append(s.op().name()).append(s.all() ? " ALL " : " ");
                setOperand(b, s.right(), prec + 1);
            }
        }
    }

    private static void setOperand(StringBuilder b, QueryBody operand, int minPrec) {
        if (operand instanceof SetOperation s && setPrecedence(s.op()) < minPrec) {
            body(b.append('('), s);
            b.append(')');
        } else {
            body(b, operand);
        }
    }

    private static void values(StringBuilder b, Values v) {
        b.append("VALUES ");
        for (int i = 0; i < v.rows().size(); i++) {
            if (i > 0) b.append(", ");
            list(b.append('('), v.rows().get(i)).append(')');
        }
    }

    private static void select(StringBuilder b, Select s) {
        b.append("SELECT");
        if (s.distinct()) {
            b.append(" DISTINCT");
            if (!s.distinctOn().isEmpty()) list(b.append(" ON ("), s.distinctOn()).append(')');
        }
        items(b, s.items());
        tables(b, " FROM ", s.from());
        if (s.where() != null) expr(b.append(" WHERE "), s.where(), 0);
        if (!s.groupBy().isEmpty()) list(b.append(" GROUP BY "), s.groupBy());
        if (s.having() != null) expr(b.append(" HAVING "), s.having(), 0);
        for (int i = 0; i < s.windows().size(); i++) {
            b.append(i == 0 ? " WINDOW " : ", ").append(ident(s.windows().get(i).name())).append(" AS ");
            window(b, s.windows().get(i).spec());
        }
    }

    private static void watermark(StringBuilder b, dev.tributary.sql.ast.Watermark w) {
        b.append("WATERMARK FOR ").append(name(w.column().parts())).append(" AS ");
        expr(b, w.expr(), 7);
    }

    private static void alias(StringBuilder b, Alias a) {
        if (a == null) return;
        b.append(" AS ").append(ident(a.name()));
        if (!a.columns().isEmpty()) b.append(' ').append(names(a.columns()));
    }

    private static void table(StringBuilder b, TableRef t) {
        switch (t) {
            case NamedTable n -> {
                b.append(name(n.name()));
                alias(b, n.alias());
            }
            case DerivedTable d -> {
                if (d.lateral()) b.append("LATERAL ");
                query(b.append('('), d.query()).append(')');
                alias(b, d.alias());
            }
            case ValuesTable v -> {
                values(b.append('('), v.values());
                b.append(')');
                alias(b, v.alias());
            }
            case FunctionTable f -> {
                if (f.lateral()) b.append("LATERAL ");
                expr(b, f.call(), 0);
                if (f.ordinality()) b.append(" WITH ORDINALITY");
                alias(b, f.alias());
            }
            case Join j -> {
                table(b, j.left());
                b.append(' ');
                if (j.condition() instanceof Natural) b.append("NATURAL ");
                b.append(switch (j.kind()) {
                    case INNER -> "JOIN ";
                    case LEFT -> "LEFT JOIN ";
                    case RIGHT -> "RIGHT JOIN ";
                    case FULL -> "FULL JOIN ";
                    case CROSS -> "CROSS JOIN ";
                    case ASOF -> "ASOF JOIN ";
                    case ASOF_LEFT -> "ASOF LEFT JOIN ";
                });
                if (j.right() instanceof Join) {
                    table(b.append('('), j.right());
                    b.append(')');
                } else {
                    table(b, j.right());
                }
                switch (j.condition()) {
                    case On on -> expr(b.append(" ON "), on.condition(), 0);
                    case Using u -> b.append(" USING ").append(names(u.columns()));
                    case Natural n -> {
                    }
                    case NoCondition n -> {
                    }
                }
            }
            case WindowTable w -> {
                b.append(w.function().toUpperCase(java.util.Locale.ROOT)).append('(');
                table(b, w.input());
                partitionBy(b, w.partitionBy());
                b.append(", ").append(name(w.timeColumn().parts()));
                for (Expr a : w.args()) expr(b.append(", "), a, 0);
                b.append(')');
                alias(b, w.alias());
            }
            case TableRef.Stream s -> {
                b.append(name(s.input().name())).append(" STREAM");
                if (s.fromNow()) b.append(" FROM NOW");
                if (s.cursor() != null) expr(b.append(" FROM CURSOR "), s.cursor(), 7);
                if (s.group() != null) b.append(" CONSUMER GROUP ").append(string(s.group()));
                if (s.watermark() != null) watermark(b.append(' '), s.watermark());
                if (s.window() != null) {
                    TableRef.StreamWindow w = s.window();
                    if (w.function().equals("tumble")) {
                        expr(b.append(" TUMBLE "), w.args().get(0), 7);
                    } else if (w.function().equals("session")) {
                        expr(b.append(" SESSION GAP "), w.args().get(0), 7);
                        partitionBy(b, w.partitionBy());
                    } else {
                        expr(b.append(" HOP "), w.args().get(1), 7);
                        expr(b.append(" EVERY "), w.args().get(0), 7);
                    }
                }
                alias(b, s.alias());
            }
            case AsOfSystemTime a -> {
                b.append(name(a.name())).append(" AS OF SYSTEM TIME ");
                expr(b, a.asOf(), 7);
                if (a.since() != null) expr(b.append(" SINCE "), a.since(), 7);
                alias(b, a.alias());
            }
            case Changes c -> {
                b.append("CHANGES(").append(name(c.name())).append(" AS OF ");
                expr(b, c.asOf(), 0);
                b.append(')');
                alias(b, c.alias());
            }
        }
    }

    private static void partitionBy(StringBuilder b, List<Expr.ColumnRef> columns) {
        if (columns.isEmpty()) return;
        b.append(" PARTITION BY (");
        for (int i = 0; i < columns.size(); i++) b.append(i == 0 ? "" : ", ").append(name(columns.get(i).parts()));
        b.append(')');
    }

    // ------------------------------------------------------------------ expressions

    private static StringBuilder list(StringBuilder b, List<Expr> exprs) {
        for (int i = 0; i < exprs.size(); i++) {
            if (i > 0) b.append(", ");
            expr(b, exprs.get(i), 0);
        }
        return b;
    }

    /** PostgreSQL's precedence levels, loosest 1 to atoms 13; see {@link Parser}. */
    private static int precedence(Expr e) {
        return switch (e) {
            case Binary bin -> switch (bin.op()) {
                case OR -> 1;
                case AND -> 2;
                case EQ, NE, LT, LE, GT, GE -> 5;
                case CONCAT, MATCH, IMATCH, NOT_MATCH, NOT_IMATCH, BIT_AND, BIT_OR, BIT_XOR, SHIFT_LEFT, SHIFT_RIGHT, JSON_GET, JSON_GET_TEXT,
                        JSON_PATH, JSON_PATH_TEXT, CONTAINS, CONTAINED_BY, HAS_KEY, HAS_ANY_KEY, HAS_ALL_KEYS, DELETE_PATH, JSONPATH_EXISTS,
                        JSONPATH_MATCH -> 7;
                case ADD, SUB -> 8;
                case MUL, DIV, MOD -> 9;
                case POW -> 10;
            };
            case Unary u -> u.op() == UnaryOp.NOT ? 3 : 11;
            case IsNull x -> 4;
            case IsTruth x -> 4;
            case IsDistinctFrom x -> 4;
            case Quantified x -> 5;
            case Between x -> 6;
            case InList x -> 6;
            case InSubquery x -> 6;
            case Like x -> 6;
            case IntegerLiteral i -> i.value() < 0 ? 11 : 13;
            case NumericLiteral n -> n.value().signum() < 0 ? 11 : 13;
            default -> 13;
        };
    }

    private static boolean nonAssociative(int prec) {
        return prec == 4 || prec == 5 || prec == 6;
    }

    /** Appends {@code e}, in parentheses if its precedence is below {@code min}. */
    private static void expr(StringBuilder b, Expr e, int min) {
        int prec = precedence(e);
        if (prec < min) {
            b.append('(');
            bare(b, e, prec);
            b.append(')');
        } else {
            bare(b, e, prec);
        }
    }

    private static void bare(StringBuilder b, Expr e, int prec) {
        int operand = nonAssociative(prec) ? prec + 1 : prec;
        switch (e) {
            case NullLiteral n -> b.append("NULL");
            case BooleanLiteral bl -> b.append(bl.value() ? "TRUE" : "FALSE");
            case IntegerLiteral i -> b.append(i.value());
            case NumericLiteral n -> {
                // A numeric with no point or exponent would read back as an integer: keep it numeric.
                String text = n.value().toString();
                b.append(text);
                if (text.indexOf('.') < 0 && text.indexOf('E') < 0) b.append('.');
            }
            case StringLiteral s -> b.append(string(s.value()));
            case TypedLiteral t -> {
                b.append(t.type()).append(' ').append(string(t.text()));
                if (t.qualifier() != null) b.append(' ').append(t.qualifier().toUpperCase(java.util.Locale.ROOT));
            }
            case Param p -> b.append('$').append(p.index());
            case DefaultValue d -> b.append("DEFAULT");
            case ColumnRef c -> b.append(name(c.parts()));
            case Star s -> b.append('*');
            case QualifiedStar q -> b.append(name(q.qualifier())).append(".*");
            case Unary u -> {
                switch (u.op()) {
                    case NOT -> expr(b.append("NOT "), u.operand(), 3);
                    case NEG, PLUS -> {
                        b.append(u.op() == UnaryOp.NEG ? '-' : '+');
                        int at = b.length();
                        expr(b, u.operand(), 11);
                        char c = b.charAt(at);
                        if (c == '-' || c == '+') b.insert(at, ' ');
                    }
                }
            }
            case Binary bin -> {
                boolean nonAssoc = bin.op().isComparison();
                expr(b, bin.left(), nonAssoc ? prec + 1 : prec);
                b.append(' ').append(bin.op().symbol()).append(' ');
                expr(b, bin.right(), prec + 1);
            }
            case Cast c -> {
                expr(b.append("CAST("), c.operand(), 0);
                b.append(" AS ").append(c.type()).append(')');
            }
            case Between x -> {
                expr(b, x.expr(), 7);
                b.append(x.negated() ? " NOT BETWEEN " : " BETWEEN ");
                if (x.symmetric()) b.append("SYMMETRIC ");
                expr(b, x.low(), 7);
                expr(b.append(" AND "), x.high(), 7);
            }
            case Like x -> {
                expr(b, x.expr(), 7);
                b.append(x.negated() ? " NOT" : "").append(x.caseInsensitive() ? " ILIKE " : " LIKE ");
                expr(b, x.pattern(), 7);
                if (x.escape() != null) expr(b.append(" ESCAPE "), x.escape(), 7);
            }
            case IsNull x -> {
                expr(b, x.expr(), operand);
                b.append(x.negated() ? " IS NOT NULL" : " IS NULL");
            }
            case IsTruth x -> {
                expr(b, x.expr(), operand);
                b.append(x.negated() ? " IS NOT " : " IS ").append(x.value().name());
            }
            case IsDistinctFrom x -> {
                expr(b, x.left(), operand);
                b.append(x.negated() ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ");
                expr(b, x.right(), operand);
            }
            case InList x -> {
                expr(b, x.expr(), 7);
                list(b.append(x.negated() ? " NOT IN (" : " IN ("), x.list()).append(')');
            }
            case InSubquery x -> {
                expr(b, x.expr(), 7);
                query(b.append(x.negated() ? " NOT IN (" : " IN ("), x.query()).append(')');
            }
            case Quantified x -> {
                expr(b, x.left(), operand);
                b.append(' ').append(x.op().symbol()).append(' ').append(x.quantifier().name()).append(" (");
                query(b, x.query()).append(')');
            }
            case Exists x -> query(b.append("EXISTS ("), x.query()).append(')');
            case ScalarSubquery x -> query(b.append('('), x.query()).append(')');
            case FunctionCall f -> {
                b.append(functionName(f.name())).append('(');
                if (f.star()) {
                    b.append('*');
                } else {
                    if (f.distinct()) b.append("DISTINCT ");
                    list(b, f.args());
                    if (!f.orderBy().isEmpty() && !f.withinGroup()) orderBy(b.append(" ORDER BY "), f.orderBy());
                }
                b.append(')');
                if (f.withinGroup()) {
                    orderBy(b.append(" WITHIN GROUP (ORDER BY "), f.orderBy());
                    b.append(')');
                }
                if (f.filter() != null) {
                    expr(b.append(" FILTER (WHERE "), f.filter(), 0);
                    b.append(')');
                }
            }
            case Extract x -> {
                b.append("EXTRACT(").append(PLAIN.matcher(x.field()).matches() ? x.field() : string(x.field()));
                expr(b.append(" FROM "), x.source(), 0);
                b.append(')');
            }
            case CurrentValue c -> b.append(c.kind().name());
            case QuantifiedArray q -> {
                expr(b, q.left(), 7);
                b.append(' ').append(q.op().symbol()).append(' ').append(q.quantifier().name()).append(" (");
                expr(b, q.array(), 0);
                b.append(')');
            }
            case WindowCall w -> {
                expr(b, w.call(), 0);
                WindowSpec ws = w.window();
                if (ws.base() != null && ws.partitionBy().isEmpty() && ws.orderBy().isEmpty() && ws.frame() == null) b.append(" OVER ").append(ident(ws.base()));
                else window(b.append(" OVER "), ws);
            }
            case FieldSelection f -> {
                b.append('(');
                expr(b, f.expr(), 0);
                b.append(").").append(ident(f.field()));
            }
            case ArrayConstructor a -> {
                b.append("ARRAY[");
                list(b, a.elements());
                b.append(']');
            }
            case RowConstructor r -> {
                b.append("ROW(");
                list(b, r.fields());
                b.append(')');
            }
            case ArraySubquery a -> {
                b.append("ARRAY(");
                query(b, a.query());
                b.append(')');
            }
            case Subscript s -> {
                b.append('(');
                expr(b, s.array(), 0);
                b.append(')');
                for (Subscript.Index i : s.indexes()) {
                    b.append('[');
                    if (i.lower() != null) expr(b, i.lower(), 0);
                    if (i.slice()) b.append(':');
                    if (i.upper() != null) expr(b, i.upper(), 0);
                    b.append(']');
                }
            }
            case Case c -> {
                b.append("CASE");
                if (c.operand() != null) expr(b.append(' '), c.operand(), 0);
                for (When w : c.whens()) {
                    expr(b.append(" WHEN "), w.condition(), 0);
                    expr(b.append(" THEN "), w.result(), 0);
                }
                if (c.elseExpr() != null) expr(b.append(" ELSE "), c.elseExpr(), 0);
                b.append(" END");
            }
        }
    }

    private static void retain(StringBuilder b, Statement.RetainHistory r) {
        if (r != null) retainOption(b.append(" WITH ("), r).append(')');
    }

    private static void retainRows(StringBuilder b, Statement.RetainRows r) {
        if (r.age() != null) expr(b.append("RETAIN ROWS FOR "), r.age(), 7);
        else b.append("RETAIN ROWS ").append(r.count());
    }

    private static StringBuilder retainOption(StringBuilder b, Statement.RetainHistory r) {
        if (r.interval() != null) expr(b.append("RETAIN HISTORY FOR "), r.interval(), 7);
        else expr(b.append("RETAIN HISTORY PIN AT "), r.pinAt(), 7);
        return b;
    }

}
