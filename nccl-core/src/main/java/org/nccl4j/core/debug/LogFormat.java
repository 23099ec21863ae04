package org.nccl4j.core.debug;

/**
 * NCCL's log line formats ({@code ncclDebugLog}).
 */
final class LogFormat {
    private LogFormat() {
    }

    /** {@code host:pid:tid [dev] NCCL INFO msg}. */
    static String info(String host, long pid, long tid, int dev, String msg) {
        return host + ":" + pid + ":" + tid + " [" + dev + "] NCCL INFO " + msg;
    }

    /** A newline, then {@code host:pid:tid [dev] file:line NCCL WARN msg}. */
    static String warn(String host, long pid, long tid, int dev, String site, String msg) {
        return "\n" + host + ":" + pid + ":" + tid + " [" + dev + "] " + site + " NCCL WARN " + msg;
    }

    /** {@code host:pid:tid [dev] ms func:line NCCL TRACE msg}. */
    static String trace(String host, long pid, long tid, int dev, double ms, String site, String msg) {
        return host + ":" + pid + ":" + tid + " [" + dev + "] " + String.format("%f", ms) + " " + site
                + " NCCL TRACE " + msg;
    }

    /**
     * Expands {@code NCCL_DEBUG_FILE}: {@code %h} host, {@code %p} pid, {@code %%} percent; any
     * other {@code %x} is kept.
     */
    static String expandFileName(String pattern, String host, long pid) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '%' && i + 1 < pattern.length()) {
                char n = pattern.charAt(++i);
                switch (n) {
                    case 'h' -> sb.append(host);
                    case 'p' -> sb.append(pid);
                    case '%' -> sb.append('%');
                    default -> sb.append('%').append(n);
                }
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** The host name up to its first dot, as NCCL prints it. */
    static String shortHost(String host) {
        int dot = host.indexOf('.');
        return dot < 0 ? host : host.substring(0, dot);
    }
}
