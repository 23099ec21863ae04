package org.nccl4j.core.net;

import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceMemory;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.SendComm;

/**
 * Whether a rank's GPU supports GPU Direct RDMA, as NCCL's {@code ncclGpuGdrSupport} finds out:
 * on the first network device that takes {@link Net#PTR_CUDA} memory, connect to itself and
 * register 2 MiB of the GPU's memory with both ends. What the network accepts is the answer (a
 * peer-memory module being loaded says nothing of a plugin that cannot use it, and a plugin may
 * take device memory without one). Any failure means no.
 */
public final class GdrProbe {
    /** NCCL's {@code GPU_BUF_SIZE}. */
    static final long BYTES = 2L << 20;

    private GdrProbe() {
    }

    /**
     * @param net       the network initNet chose, or {@code null}
     * @param backend   the rank's device backend
     * @param device    the rank's device
     * @param timeoutMs how long the loopback connection may take
     * @param abort     ends the wait for it at once
     * @return whether the network registers the device's memory
     */
    public static boolean supported(NetSelection net, DeviceBackend backend, LocalDevice device, long timeoutMs,
                                    AbortFlag abort) {
        if (net == null) {
            return false;
        }
        for (int dev = 0; dev < net.devices(); dev++) {
            try {
                if ((net.net().getProperties(dev).ptrSupport() & Net.PTR_CUDA) == 0) {
                    continue;
                }
            } catch (NetException e) {
                Log.info(Subsys.INIT | Subsys.NET, "GPU Direct RDMA probe: %s/%d: getProperties failed: %s",
                        net.net().name(), dev, e.getMessage());
                continue;
            }
            // NCCL probes the first device that takes CUDA memory only.
            Optional<DeviceMemory> memory;
            try {
                memory = backend.allocate(device, BYTES);
            } catch (RuntimeException e) {
                Log.info(Subsys.INIT | Subsys.NET, "GPU Direct RDMA probe: no device memory: %s", e.getMessage());
                return false;
            }
            if (memory.isEmpty()) {
                return false;
            }
            try (DeviceMemory m = memory.get()) {
                return registers(net.net(), dev, m, Deadline.afterMillis(timeoutMs), abort);
            }
        }
        return false;
    }

    private static boolean registers(Net net, int dev, DeviceMemory m, Deadline deadline, AbortFlag abort) {
        ListenComm l = null;
        SendComm s = null;
        RecvComm r = null;
        try {
            byte[] handle = new byte[Net.HANDLE_MAXSIZE];
            l = net.listen(dev, handle);
            // Non-blocking connect and accept (v5+ plugins): each may wait for the other.
            while (true) {
                if (s == null) {
                    s = net.connect(dev, handle);
                }
                if (r == null) {
                    r = net.accept(l);
                }
                if (s != null && r != null) {
                    break;
                }
                if (deadline.expired() || abort.isSet()) {
                    Log.info(Subsys.INIT | Subsys.NET, "GPU Direct RDMA probe: no loopback connection on %s/%d%s",
                            net.name(), dev, abort.isSet() ? " (aborted)" : "");
                    return false;
                }
                LockSupport.parkNanos(10_000);
            }
            MemoryHandle h = net.regMr(s, m.segment(), Net.PTR_CUDA);
            net.deregMr(s, h);
            h = net.regMr(r, m.segment(), Net.PTR_CUDA);
            net.deregMr(r, h);
            return true;
        } catch (NetException | RuntimeException e) {
            Log.info(Subsys.INIT | Subsys.NET, "GPU Direct RDMA probe on %s/%d: %s", net.name(), dev, e.getMessage());
            return false;
        } finally {
            close(net, l, s, r);
        }
    }

    private static void close(Net net, ListenComm l, SendComm s, RecvComm r) {
        quietly(net, () -> {
            if (r != null) {
                net.closeRecv(r);
            }
        });
        quietly(net, () -> {
            if (s != null) {
                net.closeSend(s);
            }
        });
        quietly(net, () -> {
            if (l != null) {
                net.closeListen(l);
            }
        });
    }

    @FunctionalInterface
    private interface Close {
        void run() throws NetException;
    }

    private static void quietly(Net net, Close c) {
        try {
            c.run();
        } catch (NetException | RuntimeException e) {
            Log.info(Subsys.NET, "GPU Direct RDMA probe on %s: close failed: %s", net.name(), e.getMessage());
        }
    }
}
