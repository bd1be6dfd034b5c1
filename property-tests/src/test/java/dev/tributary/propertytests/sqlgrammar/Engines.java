package dev.tributary.propertytests.sqlgrammar;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

/**
 * Opens the database a case runs on, with one or more workers.
 *
 * <p>One worker is {@code Tributary.inMemory(Clock.manual(0))}. More need
 * {@code Tributary.inMemory(Clock, int workers)}, which is being added on another branch; it is
 * looked up reflectively so that this test compiles without it, and the properties that need it
 * are skipped ({@link RequiresWorkers}) while it is absent.
 */
final class Engines {
    private Engines() {}

    static Tributary open(int workers) {
        if (workers == 1) return Tributary.inMemory(Clock.manual(0));
        Method m = multiWorker().orElseThrow(() -> new IllegalStateException(ABSENT));
        try {
            return (Tributary) m.invoke(null, Clock.manual(0), workers);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException(e.getCause());
        }
    }

    static final String ABSENT = "Tributary.inMemory(Clock, int workers) does not exist in this build; "
            + "the multi-worker properties run once the multi-worker engine is merged";

    static Optional<Method> multiWorker() {
        try {
            return Optional.of(Tributary.class.getMethod("inMemory", Clock.class, int.class));
        } catch (NoSuchMethodException e) {
            return Optional.empty();
        }
    }

    /** Skips a property that needs more than one worker while the engine cannot have them. */
    static final class RequiresWorkers implements SkipExecutionHook {
        @Override
        public SkipResult shouldBeSkipped(LifecycleContext context) {
            return multiWorker().isPresent() ? SkipResult.doNotSkip() : SkipResult.skip(ABSENT);
        }
    }
}
