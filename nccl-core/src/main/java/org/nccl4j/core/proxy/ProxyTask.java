package org.nccl4j.core.proxy;

/** Work the proxy thread progresses: one network connection's sends or receives. */
public interface ProxyTask {
    /**
     * Advances what can be advanced without blocking.
     *
     * @return whether anything moved (the proxy idles only when nothing does)
     * @throws Exception on failure; the proxy records it as the communicator's async error
     */
    boolean progress() throws Exception;

    /** Releases the task's requests and endpoints; called once, by the proxy or at close. */
    void close();
}
