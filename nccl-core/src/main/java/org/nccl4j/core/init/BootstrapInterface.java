package org.nccl4j.core.init;

import java.net.InetSocketAddress;
import java.net.SocketException;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.net.spi.iface.InterfaceSelection;
import org.nccl4j.net.spi.iface.InterfaceSelector;
import org.nccl4j.net.spi.iface.NetInterface;
import org.nccl4j.net.spi.iface.SelectionRequest;
import org.nccl4j.net.spi.iface.SocketFamily;

/**
 * NCCL's {@code bootstrapNetInit}: the one interface bootstrap listens on, found by NCCL's
 * interface search ({@code NCCL_SOCKET_IFNAME}, {@code NCCL_SOCKET_FAMILY}, the subnet of
 * {@code NCCL_COMM_ID}, then the default order).
 */
public final class BootstrapInterface {
    private BootstrapInterface() {
    }

    /**
     * @param config   parameters
     * @param commRoot the {@code NCCL_COMM_ID} root, or {@code null}
     * @return the search's full outcome, for {@code nccl4j doctor}
     * @throws NcclException with {@link Result#SYSTEM_ERROR} if the interfaces cannot be listed
     */
    public static InterfaceSelection search(Config config, InetSocketAddress commRoot) {
        SelectionRequest req = new SelectionRequest(config.string(Params.SOCKET_IFNAME),
                SocketFamily.parse(config.string(Params.SOCKET_FAMILY)),
                commRoot == null ? null : commRoot.getAddress(), 1);
        try {
            return InterfaceSelector.select(req);
        } catch (SocketException e) {
            throw NcclException.of(Result.SYSTEM_ERROR, "Bootstrap : cannot list network interfaces: " + e.getMessage(),
                    null, e);
        }
    }

    /**
     * @param config   parameters
     * @param commRoot the {@code NCCL_COMM_ID} root, or {@code null}
     * @return the interface bootstrap uses
     * @throws NcclException with {@link Result#SYSTEM_ERROR} if none matches
     */
    public static NetInterface select(Config config, InetSocketAddress commRoot) {
        InterfaceSelection s = search(config, commRoot);
        if (s.isEmpty()) {
            String seen = s.seen().stream().map(NetInterface::describe).toList().toString();
            Log.warn("Bootstrap : no socket interface found (%s)", s.reason());
            throw NcclException.of(Result.SYSTEM_ERROR, "Bootstrap : no socket interface found: " + s.reason()
                    + "; interfaces seen: " + seen,
                    "set NCCL_SOCKET_IFNAME to one of the interfaces seen (prefix match; =name for exact)");
        }
        NetInterface ni = s.interfaces().get(0);
        Log.info(Subsys.INIT, "Bootstrap : Using %s", ni.describe());
        return ni;
    }
}
