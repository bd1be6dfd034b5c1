package dev.tributary.arrangements;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainerHook;
import net.jqwik.api.lifecycle.BeforeContainerHook;
import net.jqwik.api.lifecycle.ContainerLifecycleContext;

/**
 * Paging at sizes so small that every merge of a few updates is parted (parts of a few keys) and
 * almost every part read is decoded again from its file: the property tests of traces and cursors
 * run again under it ({@code Paged*PropertyTest}, annotated {@link Tiny}), so a parted batch must
 * read, merge, compact and seek exactly as a plain one does.
 */
final class PagedTraces {
    private PagedTraces() {}

    /** Encoded bytes per part: a batch's header alone takes about 60. */
    static final long PART_BYTES = 16;

    private static Path dir;
    private static Paging.Stats before;

    /** Runs the annotated container's properties with tiny paging on. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @AddLifecycleHook(Hook.class)
    @interface Tiny {}

    static final class Hook implements BeforeContainerHook, AfterContainerHook {
        @Override
        public void beforeContainer(ContainerLifecycleContext context) {
            try {
                if (dir == null) dir = Files.createTempDirectory("tributary-paged-test");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Paging.enable(dir, 4 * PART_BYTES, PART_BYTES);
            before = Paging.stats();
        }

        @Override
        public void afterContainer(ContainerLifecycleContext context) {
            Paging.disable();
            Paging.evictAll();
            Paging.Stats after = Paging.stats();
            // else the properties ran again for nothing
            if (after.spilledBytes() == before.spilledBytes() || after.loads() == before.loads()) {
                throw new AssertionError(context.label() + " parted no batch or read no part back: " + before + " -> " + after);
            }
        }
    }
}
