package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SendArityTest {
    @Test
    void sendingATimeOfTheWrongArityIsAClearError() {
        for (long[] bad : new long[][] {new long[0], new long[] {1, 2}}) {
            assertThatThrownBy(() -> Timely.run(Config.workers(1), worker -> worker.dataflow("arity", scope -> {
                OperatorBuilder b = scope.operator("src");
                OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
                b.build(cap -> () -> {
                    if (cap.isValid()) {
                        try {
                            out.send(cap, bad, LongContainer.of(1));
                        } finally {
                            cap.drop();
                        }
                    }
                });
                return null;
            })))
                    .isInstanceOf(OperatorFailedException.class)
                    .hasMessageContaining("src#0")
                    .cause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("arity " + bad.length);
        }
    }
}
