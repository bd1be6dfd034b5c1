package dev.tributary.propertytests.sqlgrammar;

import dev.tributary.propertytests.sqlgrammar.Ast.Query;
import dev.tributary.propertytests.sqlgrammar.History.Tx;
import dev.tributary.propertytests.sqlgrammar.Schema.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * One input of the grammar oracle: a schema, one to three view queries over it, and a history of
 * transactions that write to the tables the views read.
 *
 * <p>All three are generated from plain lists of numbers ({@link #cases}), the schema's directly
 * and the queries' and statements' through {@link Choices}; jqwik shrinks those lists, so a
 * failure shrinks to fewer tables and columns, fewer views, simpler queries, and fewer and
 * simpler transactions. {@link #toString} is a SQL script that replays the case.
 */
record Case(Schema schema, List<QueryGen.Generated> views, List<Tx> txs, boolean indexed) {
    static final int MAX_VIEWS = 3;
    static final int MAX_TXS = 12;

    static Case of(List<List<Integer>> shape, List<List<Integer>> views, List<Tuple2<Integer, List<List<Integer>>>> txs, boolean indexed) {
        Schema schema = Schema.of(shape);
        List<QueryGen.Generated> generated = views.stream().map(v -> QueryGen.view(schema, v)).toList();
        Set<String> read = new TreeSet<>();
        for (QueryGen.Generated v : generated) read.addAll(v.query().tables());
        List<Table> written = schema.tables().stream().filter(t -> read.contains(t.name())).toList();
        return new Case(schema, generated, txs.stream().map(t -> History.tx(written, t.get1(), t.get2())).toList(), indexed);
    }

    static Arbitrary<Case> cases() {
        Arbitrary<List<Integer>> table = Arbitraries.integers().between(0, Schema.Type.values().length - 1)
                .list().ofMinSize(1).ofMaxSize(5);
        Arbitrary<List<List<Integer>>> shape = table.list().ofMinSize(2).ofMaxSize(5);
        Arbitrary<Integer> choice = Arbitraries.integers().between(0, Choices.RANGE - 1).withDistribution(RandomDistribution.uniform());
        Arbitrary<List<List<Integer>>> views = choice.list().ofMaxSize(160).withSizeDistribution(RandomDistribution.uniform())
                .list().ofMinSize(1).ofMaxSize(MAX_VIEWS);
        Arbitrary<List<Integer>> stmt = choice.list().ofMaxSize(24).withSizeDistribution(RandomDistribution.uniform());
        Arbitrary<Tuple2<Integer, List<List<Integer>>>> tx = Combinators.combine(
                Arbitraries.integers().between(0, 9), stmt.list().ofMinSize(1).ofMaxSize(3)).as(Tuple::of);
        Arbitrary<List<Tuple2<Integer, List<List<Integer>>>>> txs = tx.list().ofMinSize(1).ofMaxSize(MAX_TXS);
        return Combinators.combine(shape, views, txs, Arbitraries.of(false, true)).as(Case::of);
    }

    /**
     * With {@link #indexed}: an index on every column of every table the views read, made before
     * the views, so that their joins are planned through indexes (index and delta joins).
     */
    List<String> indexes() {
        if (!indexed) return List.of();
        Set<String> read = read();
        List<String> out = new ArrayList<>();
        for (Table t : schema.tables()) {
            if (!read.contains(t.name())) continue;
            for (Schema.Column c : t.columns()) out.add("CREATE INDEX " + t.name() + "_" + c.name() + " ON " + t.name() + " (" + c.name() + ")");
        }
        return out;
    }

    /** After how many transaction units the views are made again ({@code lv1, lv2, ...}) over the rows there are then. */
    int lateAfter() {
        return (units().size() + 1) / 2;
    }

    /** {@code CREATE MATERIALIZED VIEW lv<i>} for every view: the same queries over existing rows. */
    List<String> lateViews() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < views.size(); i++) out.add("CREATE MATERIALIZED VIEW lv" + (i + 1) + " AS " + views.get(i).query().sql());
        return out;
    }

    /** The tables the views read. */
    Set<String> read() {
        Set<String> out = new TreeSet<>();
        for (QueryGen.Generated v : views) out.addAll(v.query().tables());
        return out;
    }

    /**
     * A SQL script that replays the case up to transaction unit {@code upTo} (all when -1), for
     * {@code bin/tributary sql --clock manual -f}: the tables the views read, the views, and the
     * statements on those tables (statements on other tables cannot change a view and are left
     * out), then each view read back beside its query.
     */
    String script(int upTo) {
        Set<String> read = read();
        StringBuilder b = new StringBuilder();
        for (Table t : schema.tables()) if (read.contains(t.name())) b.append(t.ddl()).append(";\n");
        for (String ddl : indexes()) b.append(ddl).append(";\n");
        for (int i = 0; i < views.size(); i++) {
            b.append("CREATE MATERIALIZED VIEW mv").append(i + 1).append(" AS ").append(views.get(i).query().sql()).append(";\n");
        }
        int n = 0;
        int lateAfter = lateAfter();
        boolean late = false;
        replay:
        for (Tx tx : txs) {
            List<History.Stmt> kept = tx.stmts().stream().filter(s -> read.contains(s.table().name())).toList(); // all, today
            if (tx.end() == History.End.AUTOCOMMIT) {
                for (History.Stmt s : tx.stmts()) {
                    if (upTo >= 0 && n > upTo) break replay;
                    n++;
                    if (kept.contains(s)) b.append(s.sql()).append(";\n");
                    if (n == lateAfter) late = appendLate(b);
                }
            } else {
                if (upTo >= 0 && n > upTo) break;
                n++;
                if (!kept.isEmpty()) b.append(new Tx(tx.end(), kept).units().get(0)).append(";\n");
                if (n == lateAfter) late = appendLate(b);
            }
        }
        for (int i = 0; i < views.size(); i++) {
            b.append("SELECT * FROM mv").append(i + 1).append(";\n");
            if (late) b.append("SELECT * FROM lv").append(i + 1).append(";\n");
            b.append(views.get(i).query().sql()).append(";\n");
        }
        return b.toString();
    }

    private boolean appendLate(StringBuilder b) {
        for (String ddl : lateViews()) b.append(ddl).append(";\n");
        return true;
    }

    /** Every transaction unit as executed, in order. */
    List<String> units() {
        List<String> out = new ArrayList<>();
        for (Tx tx : txs) out.addAll(tx.units());
        return out;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("\n-- schema: ");
        for (Table t : schema.tables()) b.append(t.name()).append(t.columns().stream().map(Schema.Column::name).toList()).append(' ');
        if (indexed) b.append("(every column indexed)");
        b.append("\n").append(script(-1));
        return b.toString();
    }

    /** The queries, for reports. */
    List<Query> queries() {
        return views.stream().map(QueryGen.Generated::query).toList();
    }
}
