package org.nccl4j.core.proxy;

/** Work the proxy thread progresses: one network connection's sends or receives. */
public interface ProxyTask extends AutoCloseable {
    /**
     * Advances what can be advanced without blocking.
     *
     * @return whether anything moved (the proxy idles only when nothing does)
     * @throws Exception on failure; the proxy records it as the communicator's async error
     */
    boolean progress() throws Exception;

    /**
     * @return whether requests of this task are in flight on the network: the proxy then keeps
     *     polling (yielding) instead of parking, as NCCL's proxy polls while it has operations,
     *     since a completion arrives without waking anyone and a park costs tens of microseconds
     */
    default boolean inFlight() {
        return false;
    }

    /**
     * @return whether this task holds a step the peer waits for that only a round can move on (a
     *     send posted or in flight): the proxy thread is then woken when no kernel runs its rounds
     *     any more. Received steps are not owed: the kernel that needs one waits on it and helps.
     *     Called by whoever holds the round, as {@link #progress} is.
     */
    default boolean owes() {
        return false;
    }

    /**
     * @return whether nothing the kernel handed over is still unsent: a communicator's destroy
     *     stops the proxy only once every task is drained (or its deadline passed), as NCCL's proxy
     *     thread runs until its operations are done, since a kernel ends as soon as it has posted
     *     its last step, before the network has carried it
     */
    default boolean drained() {
        return true;
    }

    /** Releases the task's requests and endpoints; called once, by the proxy or at close. */
    @Override
    void close();
}
