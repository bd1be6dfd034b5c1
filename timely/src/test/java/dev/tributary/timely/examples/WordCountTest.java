package dev.tributary.timely.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WordCountTest {
    @Test
    void changesMatchCountingFromScratchOnEveryWorkerCount() {
        Random random = new Random(7);
        String[] vocabulary = {"river", "sea", "the", "a", "delta", "rain"};
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            StringBuilder sb = new StringBuilder();
            for (int j = random.nextInt(5); j >= 0; j--) sb.append(vocabulary[random.nextInt(vocabulary.length)]).append(' ');
            lines.add(sb.toString());
        }
        for (int workers = 1; workers <= 3; workers++) {
            List<WordCount.Change> changes = Collections.synchronizedList(new ArrayList<>());
            WordCount.run(workers, lines, changes::add);
            Map<String, Long> counts = new HashMap<>();
            List<WordCount.Change> expected = new ArrayList<>();
            for (int t = 0; t < lines.size(); t++) {
                Map<String, Long> before = new HashMap<>(counts);
                for (String w : lines.get(t).trim().split(" ")) {
                    if (!w.isEmpty()) counts.merge(w, 1L, Long::sum);
                }
                for (var e : counts.entrySet()) {
                    long b = before.getOrDefault(e.getKey(), 0L);
                    if (b != e.getValue()) expected.add(new WordCount.Change(t, e.getKey(), b, e.getValue()));
                }
            }
            assertThat(changes).as("workers = %d", workers).containsExactlyInAnyOrderElementsOf(expected);
            for (int i = 1; i < changes.size(); i++) {
                assertThat(changes.get(i).time()).as("changes arrive in time order").isGreaterThanOrEqualTo(changes.get(i - 1).time());
            }
        }
    }
}
