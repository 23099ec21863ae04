package org.nccl4j.examples;

/**
 * {@code NCCL4J_EXIT_HOLD_MS}: the CLI's process stays this long after its command has ended, its
 * communicators closed or aborted, before it exits, so that tools outside it ({@code /proc},
 * {@code ss}, {@code jcmd}) can see what it left: nccl4j's threads, sockets and shared-memory
 * mappings should be gone by then. The wait runs on a thread named {@value #THREAD}, the sign an
 * observer looks for.
 */
final class ExitHold {
    /** The holding thread's name (and its name as the kernel lists it). */
    static final String THREAD = "exit-hold";

    private ExitHold() {
    }

    /** Holds for {@code NCCL4J_EXIT_HOLD_MS} (unset, 0 or not a number: not at all). */
    static void hold() {
        long ms;
        try {
            ms = Long.parseLong(System.getenv().getOrDefault("NCCL4J_EXIT_HOLD_MS", "0").trim());
        } catch (NumberFormatException e) {
            return;
        }
        if (ms <= 0) {
            return;
        }
        Thread t = Thread.ofPlatform().name(THREAD).start(() -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
