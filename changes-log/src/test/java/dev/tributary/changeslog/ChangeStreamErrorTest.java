package dev.tributary.changeslog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.differential.DataType;
import dev.tributary.differential.InputSession;
import dev.tributary.timely.Config;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An error in the error collection ends the stream at its time: earlier times are delivered, that time's changes and later ones are not. */
class ChangeStreamErrorTest {
    @Test
    void anErrorEndsTheStreamAtItsTime() {
        List<String> seen = new ArrayList<>();
        Timely.run(Config.workers(2), w -> {
            InputSession<Long>[] data = new InputSession[1];
            InputSession<String>[] errors = new InputSession[1];
            w.dataflow("subscribe", scope -> {
                data[0] = InputSession.create(scope, "t", DataType.longs());
                errors[0] = InputSession.create(scope, "errors", DataType.strings());
                ChangeStream.subscribe(data[0].collection(), errors[0].collection(), new ChangeStream.Options(1, true, false, Long.MAX_VALUE),
                        new ChangeStream.Sink<Long, String>() {
                            @Override
                            public void changes(long time, ChangeStream.Changes<Long> changes) {
                                seen.add("changes " + time + " " + changes.toMap());
                            }

                            @Override
                            public void progressed(long frontier) {
                                seen.add("progressed " + frontier);
                            }

                            @Override
                            public void failed(long time, Map<String, Long> errs) {
                                seen.add("failed " + time + " " + errs);
                            }

                            @Override
                            public void done() {
                                seen.add("done");
                            }
                        });
                return data[0].collection().probe();
            });
            for (long t = 0; t < 6; t++) {
                data[0].advanceTo(t);
                errors[0].advanceTo(t);
                if (w.index() == 0) data[0].insert(10 + t);
                if (w.index() == 1 && t == 4) errors[0].insert("division by zero");
            }
            w.drain();
        });
        // the snapshot at 1 folds times 0 and 1; nothing follows the failure, not even done
        assertThat(seen).containsExactly("changes 1 {10=1, 11=1}", "changes 2 {12=1}", "changes 3 {13=1}", "failed 4 {division by zero=1}");
    }
}
