package dev.tributary.differential.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.differential.KV;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ExamplesTest {
    @Test
    void wordCountChangesAddUpToTheCountsAtEveryTime() {
        List<String> lines = List.of("the river", "the sea", "a river a delta", "", "rain");
        for (int workers = 1; workers <= 3; workers++) {
            List<WordCount.Change> changes = Collections.synchronizedList(new ArrayList<>());
            WordCount.run(workers, lines, changes::add);
            Map<String, Long> expected = new HashMap<>();
            for (int t = 0; t < lines.size(); t++) {
                for (String w : lines.get(t).trim().split("\\s+")) {
                    if (!w.isEmpty()) expected.merge(w, 1L, Long::sum);
                }
                Map<String, Long> actual = new HashMap<>();
                for (WordCount.Change c : changes) {
                    if (c.time() <= t && c.diff() != 0) actual.merge(c.word() + "=" + c.count(), c.diff(), Long::sum);
                }
                actual.values().removeIf(v -> v == 0);
                Map<String, Long> want = new HashMap<>();
                expected.forEach((w, n) -> want.put(w + "=" + n, 1L));
                assertThat(actual).as("workers %d, time %d", workers, t).isEqualTo(want);
            }
        }
    }

    @Test
    void reachabilityMatchesBreadthFirstSearchAfterEveryChange() {
        SplittableRandom random = new SplittableRandom(5);
        List<Reachability.EdgeChange> changes = new ArrayList<>();
        for (int i = 0; i < 60; i++) changes.add(new Reachability.EdgeChange(0, random.nextInt(30), random.nextInt(30), 1));
        for (int t = 1; t <= 8; t++) {
            changes.add(new Reachability.EdgeChange(t, random.nextInt(30), random.nextInt(30), 1));
            Reachability.EdgeChange old = changes.get(random.nextInt(60));
            changes.add(new Reachability.EdgeChange(t, old.src(), old.dst(), -1));
        }
        for (int workers = 1; workers <= 2; workers++) {
            List<KV<Long, Long>> out = Collections.synchronizedList(new ArrayList<>());
            Reachability.run(workers, changes, out::add);
            Map<Long, Long> reached = new HashMap<>();
            for (KV<Long, Long> c : out) reached.merge(c.key(), c.val(), Long::sum);
            reached.values().removeIf(v -> v == 0);
            assertThat(reached.values()).containsOnly(1L);
            assertThat(reached.keySet()).as("workers %d", workers).isEqualTo(bfs(changes));
        }
    }

    private static Set<Long> bfs(List<Reachability.EdgeChange> changes) {
        Map<List<Long>, Long> edges = new HashMap<>();
        for (Reachability.EdgeChange c : changes) edges.merge(List.of(c.src(), c.dst()), c.diff(), Long::sum);
        Set<Long> seen = new HashSet<>(List.of(0L));
        ArrayDeque<Long> queue = new ArrayDeque<>(seen);
        while (!queue.isEmpty()) {
            long n = queue.poll();
            edges.forEach((e, count) -> {
                if (count > 0 && e.get(0) == n && seen.add(e.get(1))) queue.add(e.get(1));
            });
        }
        return seen;
    }
}
