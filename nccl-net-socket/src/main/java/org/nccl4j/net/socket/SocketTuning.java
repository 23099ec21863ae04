package org.nccl4j.net.socket;

import org.nccl4j.net.spi.NetLogger;

/**
 * How many data connections a Socket connection opens: NCCL's {@code NCCL_SOCKET_NTHREADS} ×
 * {@code NCCL_NSOCKS_PERTHREAD} ({@code ncclSocketGetNsockNthread}).
 *
 * <p>In NCCL each connection gets {@code nThreads} helper threads, each driving
 * {@code nSocksPerThread} sockets. Here the sockets of all connections share the network's
 * Netty event loops; {@code nThreads} is how many distinct event loops one connection's data
 * sockets are spread over (socket {@code i} on loop {@code i % nThreads}).
 *
 * @param nThreads        event loops per connection for data sockets, 0 to {@value #MAX_THREADS}
 * @param nSocksPerThread data sockets per event loop
 */
record SocketTuning(int nThreads, int nSocksPerThread) {
    /** NCCL's cap on {@code NCCL_SOCKET_NTHREADS}. */
    static final int MAX_THREADS = 16;
    /** NCCL's cap on data sockets per connection. */
    static final int MAX_SOCKETS = 64;
    /** The parameters' "choose for me" value. */
    static final int AUTO = -2;
    /** PCI vendor of AWS ENA/EFA NICs. */
    static final String VENDOR_AWS = "0x1d0f";
    /** PCI vendor of Google's gVNIC. */
    static final String VENDOR_GCP = "0x1ae0";
    /** Cores from which an ordinary NIC's connections get data sockets by default (see {@link #resolve}). */
    static final int MANY_CORES = 16;

    /** @return data sockets per connection; 0 means all data goes over the control connection */
    int nSocks() {
        return nThreads * nSocksPerThread;
    }

    /**
     * Resolves the parameters as NCCL does: a value left at {@link #AUTO} takes the automatic
     * choice for the NIC's vendor (AWS 2 × 8, GCP 4 × 1); {@code nThreads} is capped at
     * {@value #MAX_THREADS}, and the product at {@value #MAX_SOCKETS} by lowering the per-thread
     * count.
     *
     * <p>For any other NIC, virtual interfaces included, NCCL's automatic choice is 0 × 1 (every
     * message on the control connection); here that holds below {@value #MANY_CORES} cores, and
     * from there it is 2 × 2. Data sockets carry only messages of 128 KiB or more
     * ({@link SocketComm#striped}), on event loops that need cores of their own: measured (2 rank
     * JVMs, AllReduce over the Socket net, module README), on 16 cores 2 × 2 is faster from a few
     * MiB up (1.4-2x at 16 MiB) and the same below, with 4-8 cores no faster, on 2 cores slower.
     *
     * @param nThreadsParam        {@code NCCL_SOCKET_NTHREADS}, or {@link #AUTO}
     * @param nSocksPerThreadParam {@code NCCL_NSOCKS_PERTHREAD}, or {@link #AUTO}
     * @param vendor               the NIC's PCI vendor id, or {@code null}
     * @param cores                the cores this process may run on
     * @param log                  where warnings go
     * @return the tuning
     */
    static SocketTuning resolve(int nThreadsParam, int nSocksPerThreadParam, String vendor, int cores, NetLogger log) {
        int nThreads = nThreadsParam;
        int nSocksPerThread = nSocksPerThreadParam;
        if (nThreads > MAX_THREADS) {
            log.log(NetLogger.WARN, NetLogger.NET, "NET/Socket : NCCL_SOCKET_NTHREADS is greater than the maximum allowed,"
                    + " setting to " + MAX_THREADS);
            nThreads = MAX_THREADS;
        }
        if (nThreads == AUTO || nSocksPerThread == AUTO) {
            int autoThreads = 0;
            int autoSocks = 1;
            if (VENDOR_AWS.equals(vendor)) {
                autoThreads = 2;
                autoSocks = 8;
            } else if (VENDOR_GCP.equals(vendor)) {
                autoThreads = 4;
                autoSocks = 1;
            } else if (cores >= MANY_CORES) {
                autoThreads = 2;
                autoSocks = 2;
            }
            if (nThreads == AUTO) {
                nThreads = autoThreads;
            }
            if (nSocksPerThread == AUTO) {
                nSocksPerThread = autoSocks;
            }
        }
        if (nThreads < 0 || nSocksPerThread < 0) {
            log.log(NetLogger.WARN, NetLogger.NET, "NET/Socket : ignoring negative NCCL_SOCKET_NTHREADS=" + nThreads
                    + " / NCCL_NSOCKS_PERTHREAD=" + nSocksPerThread + ", using no data sockets");
            return new SocketTuning(0, 1);
        }
        if ((long) nThreads * nSocksPerThread > MAX_SOCKETS) {
            nSocksPerThread = MAX_SOCKETS / nThreads;
            log.log(NetLogger.WARN, NetLogger.NET, "NET/Socket : the total number of sockets is greater than the maximum"
                    + " allowed, setting NCCL_NSOCKS_PERTHREAD to " + nSocksPerThread);
        }
        return new SocketTuning(nThreads, nSocksPerThread);
    }

    /**
     * Reads an integer parameter the way NCCL's {@code NCCL_PARAM} does ({@code strtoll} with
     * base 0: decimal, {@code 0x} hex, leading-0 octal); unset or malformed means {@code fallback}.
     *
     * @param value    the parameter's text, or {@code null}
     * @param name     its name, for the warning
     * @param fallback the default
     * @param log      where a malformed value is reported
     * @return the value
     */
    static int parseParam(String value, String name, int fallback, NetLogger log) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        String v = value.strip();
        try {
            boolean negative = v.startsWith("-");
            String digits = negative || v.startsWith("+") ? v.substring(1) : v;
            long parsed;
            if (digits.startsWith("0x") || digits.startsWith("0X")) {
                parsed = Long.parseLong(digits.substring(2), 16);
            } else if (digits.length() > 1 && digits.startsWith("0")) {
                parsed = Long.parseLong(digits.substring(1), 8);
            } else {
                parsed = Long.parseLong(digits);
            }
            return Math.toIntExact(negative ? -parsed : parsed);
        } catch (NumberFormatException | ArithmeticException e) {
            log.log(NetLogger.INFO, NetLogger.NET, "Invalid value " + value + " for " + name + ", using default "
                    + fallback + ".");
            return fallback;
        }
    }
}
