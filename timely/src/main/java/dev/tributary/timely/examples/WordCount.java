package dev.tributary.timely.examples;

import dev.tributary.timely.Capability;
import dev.tributary.timely.Config;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.Notificator;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Stream;
import dev.tributary.timely.Timely;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A running word count: line {@code i} of the input arrives at time {@code i}; words are routed
 * to the worker that owns them, and once a time is complete (its frontier has passed) that
 * worker reports how the counts of its words changed at that time.
 *
 * <p>Run it with {@code bin/tributary wordcount [--workers N]}, typing lines or piping a file;
 * with no lines on standard input it counts a short built-in text.
 */
public final class WordCount {
    private WordCount() {}

    /** The count of {@code word} went from {@code before} to {@code after} at {@code time}. */
    public record Change(long time, String word, long before, long after) {
        @Override
        public String toString() {
            return "time " + time + ": " + word + " " + before + " -> " + after;
        }
    }

    private record Handles(InputHandle<ListContainer<String>> input, Probe probe) {}

    /**
     * Counts the words of {@code lines} on {@code workers} workers and passes every change to
     * {@code out} (called from worker threads, one time at a time per worker).
     */
    public static void run(int workers, List<String> lines, Consumer<Change> out) {
        Timely.run(Config.workers(workers), worker -> {
            Handles h = worker.dataflow("wordcount", scope -> {
                InputHandle<ListContainer<String>> input = scope.input("lines", ListContainer.type());
                Stream<ListContainer<String>> words = input.stream().unary("split", Pact.pipeline(), ListContainer.<String>type(), (in, o) ->
                        in.forEach((cap, data) -> {
                            ListContainer<String> w = o.newContainer();
                            for (String line : data) {
                                for (String word : line.toLowerCase().split("[^\\p{L}\\p{N}']+")) {
                                    if (!word.isEmpty()) w.add(word);
                                }
                            }
                            o.send(cap, w);
                        }));
                Map<String, Long> counts = new HashMap<>();
                Map<Long, List<String>> waiting = new TreeMap<>();
                Notificator notificator = new Notificator();
                Stream<ListContainer<Change>> changes = words.unary("count", Pact.exchange(ListContainer.type(String::hashCode)),
                        ListContainer.<Change>type(), (in, o) -> {
                            in.forEach((cap, data) -> {
                                waiting.computeIfAbsent(cap.time()[0], t -> new ArrayList<>()).addAll(data);
                                notificator.notifyAt(cap.retain());
                            });
                            notificator.forEachReady((Capability cap) -> {
                                long t = cap.time()[0];
                                Map<String, long[]> delta = new TreeMap<>();
                                for (String word : waiting.remove(t)) {
                                    long before = counts.getOrDefault(word, 0L);
                                    delta.computeIfAbsent(word, k -> new long[] {before, before})[1]++;
                                    counts.put(word, before + 1);
                                }
                                ListContainer<Change> batch = o.newContainer();
                                delta.forEach((word, c) -> batch.add(new Change(t, word, c[0], c[1])));
                                o.send(cap, batch);
                            }, in.frontier());
                        });
                changes.sink("print", Pact.pipeline(), (cap, data) -> data.forEach(out));
                return new Handles(input, changes.probe());
            });
            for (int t = 0; t < lines.size(); t++) {
                if (t % worker.peers() == worker.index()) h.input().staged().add(lines.get(t));
                h.input().advanceTo(t + 1);
                final long done = t;
                worker.stepWhile(() -> h.probe().lessEqual(done));
            }
        });
    }

    public static void main(String[] args) throws IOException {
        int workers = Math.max(1, Runtime.getRuntime().availableProcessors());
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--workers") && i + 1 < args.length) {
                workers = Integer.parseInt(args[++i]);
            } else {
                System.err.println("usage: wordcount [--workers N]   (lines on standard input)");
                System.exit(2);
            }
        }
        List<String> lines = new ArrayList<>();
        if (System.console() == null) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) lines.add(l);
            }
        }
        if (lines.isEmpty()) {
            lines = List.of("the river meets the sea", "a tributary feeds the river", "the sea is wide");
            System.out.println("(no input on stdin: counting a built-in text)");
        }
        System.out.println("counting " + lines.size() + " lines on " + workers + " workers");
        run(workers, lines, change -> {
            synchronized (System.out) {
                System.out.println(change);
            }
        });
    }
}
