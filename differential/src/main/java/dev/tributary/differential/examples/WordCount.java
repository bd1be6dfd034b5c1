package dev.tributary.differential.examples;

import dev.tributary.differential.DataType;
import dev.tributary.differential.InputSession;
import dev.tributary.differential.KV;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Word count as a differential collection: each line is inserted at its own time, and the counts
 * change incrementally. Run with lines on standard input; prints each change as
 * {@code time word +/-count}.
 */
public final class WordCount {
    private WordCount() {}

    /** One change of the output: {@code (word, count)} gained ({@code diff > 0}) or lost at {@code time}. */
    public record Change(long time, String word, long count, long diff) {}

    /** Counts the words of {@code lines} (line {@code i} arrives at time {@code i}) on {@code workers} workers. */
    public static void run(int workers, List<String> lines, Consumer<Change> changes) {
        Timely.run(Config.workers(workers), worker -> {
            InputSession<String>[] input = new InputSession[1];
            Probe probe = worker.dataflow("wordcount", scope -> {
                input[0] = InputSession.create(scope, "lines", DataType.strings());
                return input[0].collection()
                        .flatMap(line -> Arrays.asList(line.trim().split("\\s+")), DataType.strings())
                        .filter(word -> !word.isEmpty())
                        .count()
                        .inspect((KV<String, Long> wc, long[] time, long diff) -> changes.accept(new Change(time[0], wc.key(), wc.val(), diff)))
                        .probe();
            });
            for (int t = 0; t < lines.size(); t++) {
                input[0].advanceTo(t);
                if (t % worker.peers() == worker.index()) input[0].insert(lines.get(t));
            }
            input[0].close();
            worker.stepWhile(() -> !probe.isDone());
        });
    }

    public static void main(String[] args) throws Exception {
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) lines.add(line);
        }
        run(1, lines, c -> System.out.println(c.time() + " " + c.word() + " " + (c.diff() > 0 ? "+" : "-") + c.count()));
    }
}
