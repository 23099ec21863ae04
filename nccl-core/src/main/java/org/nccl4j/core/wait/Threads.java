package org.nccl4j.core.wait;

import org.nccl4j.core.debug.Log;

/** Bounded joins for teardown: a thread that outlives its bound is reported, never waited for forever. */
public final class Threads {
    private Threads() {
    }

    /**
     * @param t      the thread
     * @param millis the bound
     * @return whether the thread has ended; if not, a WARN names it and where it is (the caller
     *     says what it keeps because of it)
     */
    public static boolean join(Thread t, long millis) {
        try {
            t.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!t.isAlive()) {
            return true;
        }
        StackTraceElement[] stack = t.getStackTrace();
        Log.warn("thread %s still running after %d ms%s", t.getName(), millis,
                stack.length == 0 ? "" : " (at " + stack[0] + ")");
        return false;
    }
}
