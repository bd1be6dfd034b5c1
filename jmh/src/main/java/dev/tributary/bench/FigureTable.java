package dev.tributary.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * The report of the side-by-side harnesses ({@link RealisticWorkload}, {@link
 * DurableWriteHarness}): the figures of all targets, a row per (phase, figure) in the phases'
 * order and then in order of first appearance, a column per target, printed as a Markdown table.
 */
final class FigureTable {
    private record Row(int phase, int seq, String phaseName, String figure, String format) {}

    private final ToIntFunction<String> phaseOrder;
    private final Map<String, Row> rows = new LinkedHashMap<>();
    private final Map<String, Map<String, Double>> values = new HashMap<>();

    /** @param phaseOrder a phase's place among the phases, by its name */
    FigureTable(ToIntFunction<String> phaseOrder) {
        this.phaseOrder = phaseOrder;
    }

    /** Target {@code target}'s {@code figure} of phase {@code phase}, printed with {@code format}. */
    synchronized void put(String phase, String figure, String format, String target, double value) {
        String key = phase + "\0" + figure;
        int ordinal = phaseOrder.applyAsInt(phase);
        rows.computeIfAbsent(key, k -> new Row(ordinal, rows.size(), phase, figure, format));
        values.computeIfAbsent(key, k -> new HashMap<>()).put(target, value);
    }

    /** A Markdown table; with two targets, a last column of the first's figure over the second's. */
    synchronized String table(List<Target> targets) {
        StringBuilder out = new StringBuilder("| phase | figure |");
        StringBuilder rule = new StringBuilder("|---|---|");
        for (Target t : targets) {
            out.append(' ').append(t.name()).append(" |");
            rule.append("---:|");
        }
        boolean ratio = targets.size() == 2;
        if (ratio) {
            out.append(' ').append(targets.get(0).name()).append(" / ").append(targets.get(1).name()).append(" |");
            rule.append("---:|");
        }
        out.append('\n').append(rule).append('\n');
        List<Map.Entry<String, Row>> sorted = new ArrayList<>(rows.entrySet());
        sorted.sort(Comparator.comparingInt((Map.Entry<String, Row> en) -> en.getValue().phase()).thenComparingInt(en -> en.getValue().seq()));
        for (var en : sorted) {
            Row row = en.getValue();
            Map<String, Double> v = values.get(en.getKey());
            out.append("| ").append(row.phaseName()).append(" | ").append(row.figure()).append(" |");
            for (Target t : targets) {
                Double x = v.get(t.name());
                out.append(' ').append(x == null ? "" : String.format(Locale.ROOT, row.format(), x)).append(" |");
            }
            if (ratio) {
                Double a = v.get(targets.get(0).name());
                Double b = v.get(targets.get(1).name());
                out.append(a == null || b == null || b == 0 ? " |" : String.format(Locale.ROOT, " %.2f |", a / b));
            }
            out.append('\n');
        }
        return out.toString();
    }
}
