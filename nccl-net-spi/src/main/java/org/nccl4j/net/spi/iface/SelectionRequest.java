package org.nccl4j.net.spi.iface;

import java.net.InetAddress;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What an interface search is asked for: the user's settings and how many interfaces the
 * caller can use.
 *
 * @param socketIfname  {@code NCCL_SOCKET_IFNAME}, or {@code null} if unset
 * @param family        {@code NCCL_SOCKET_FAMILY} as parsed
 * @param commIdAddress the host address of {@code NCCL_COMM_ID}, or {@code null} if unset
 * @param maxIfs        most interfaces to return: 1 for bootstrap and IB out-of-band,
 *                      {@link InterfaceSelector#MAX_IFS} for the Socket net
 */
public record SelectionRequest(String socketIfname, SocketFamily family, InetAddress commIdAddress, int maxIfs) {
    /** Parameter name of the interface list. */
    public static final String SOCKET_IFNAME = "NCCL_SOCKET_IFNAME";
    /** Parameter name of the forced address family. */
    public static final String SOCKET_FAMILY = "NCCL_SOCKET_FAMILY";
    /** Parameter name of the fixed bootstrap root address. */
    public static final String COMM_ID = "NCCL_COMM_ID";

    /**
     * Validates the components.
     *
     * @throws NullPointerException     if {@code family} is null
     * @throws IllegalArgumentException if {@code maxIfs < 1}
     */
    public SelectionRequest {
        Objects.requireNonNull(family, "family");
        if (maxIfs < 1) {
            throw new IllegalArgumentException("maxIfs must be at least 1, got " + maxIfs);
        }
    }

    /**
     * Reads {@value #SOCKET_IFNAME}, {@value #SOCKET_FAMILY} and {@value #COMM_ID} from a
     * parameter source such as {@code NetContext::param}.
     *
     * @param params looks a parameter up by its {@code NCCL_*} name; {@code null} if unset
     * @param maxIfs most interfaces to return
     * @return the request
     * @throws IllegalArgumentException if {@code NCCL_COMM_ID} is set but malformed (see
     *     {@link CommIdAddress#parse})
     */
    public static SelectionRequest fromParams(UnaryOperator<String> params, int maxIfs) {
        String commId = params.apply(COMM_ID);
        InetAddress commIdAddress = commId == null || commId.length() <= 1 ? null : CommIdAddress.parse(commId).getAddress();
        return new SelectionRequest(params.apply(SOCKET_IFNAME), SocketFamily.parse(params.apply(SOCKET_FAMILY)),
                commIdAddress, maxIfs);
    }

    /**
     * @param maxIfs most interfaces to return
     * @return a request with no user settings: NCCL's default search
     */
    public static SelectionRequest defaults(int maxIfs) {
        return new SelectionRequest(null, SocketFamily.ANY, null, maxIfs);
    }
}
