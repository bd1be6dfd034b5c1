package dev.tributary.server.pgwire;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The heap of a child JVM ({@link ChildServer}), read through its platform MXBean: the test
 * attaches to the child by its process id and starts the child's local management agent, so the
 * child needs no option for it. What a test compares is the heap in use after full collections,
 * that is what is live.
 */
final class ChildHeap implements AutoCloseable {
    private final JMXConnector connector;
    private final MemoryMXBean memory;

    private ChildHeap(JMXConnector connector, MemoryMXBean memory) {
        this.connector = connector;
        this.memory = memory;
    }

    /** Attaches to the JVM of process {@code pid}. */
    static ChildHeap attach(long pid) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(String.valueOf(pid));
        String address;
        try {
            address = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
        MemoryMXBean memory = ManagementFactory.newPlatformMXBeanProxy(connector.getMBeanServerConnection(), ManagementFactory.MEMORY_MXBEAN_NAME,
                MemoryMXBean.class);
        return new ChildHeap(connector, memory);
    }

    /** The heap in use after full collections, in MB: the least of three, each after its own collection (what a collection leaves varies a little). */
    long liveMegabytes() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            memory.gc();
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        return least >> 20;
    }

    /**
     * The child's live objects by class, largest first ({@code GC.class_histogram}, the first
     * {@code lines} lines): what a failed heap check reports, so the failure names what is held.
     */
    String histogram(int lines) {
        try {
            Object text = connector.getMBeanServerConnection().invoke(new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram", new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return String.join("\n", String.valueOf(text).lines().limit(lines).toList());
        } catch (Exception e) {
            return "(no class histogram: " + e + ")";
        }
    }

    /** The child's threads and their stacks ({@code Thread.print}): what a hung attack reports, so the failure shows where the server waits. */
    String threads() {
        try {
            Object text = connector.getMBeanServerConnection().invoke(new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "threadPrint", new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return String.valueOf(text);
        } catch (Exception e) {
            return "(no thread dump: " + e + ")";
        }
    }

    /** The largest the heap may grow, in MB. */
    long maxMegabytes() {
        return memory.getHeapMemoryUsage().getMax() >> 20;
    }

    @Override
    public void close() throws IOException {
        connector.close();
    }
}
