package org.nccl4j.core.transport;

/**
 * Tells a waiting kernel whether the peer at the other end can still make progress; looked at
 * now and then (a process check reads {@code /proc}: ~20 µs), not at every check of a wait.
 */
@FunctionalInterface
public interface PeerCheck {
    /** A check that never fails (same process: the peer cannot die alone). */
    PeerCheck ALWAYS = () -> null;

    /** @return {@code null} while the peer is there, else why it is not */
    String problem();

    /**
     * @param pid a process on this host (same pid namespace)
     * @param who the peer, for the message
     * @return a check that fails once the process has exited
     */
    static PeerCheck process(long pid, String who) {
        return () -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) ? null
                : who + " (pid " + pid + ") has exited";
    }
}
