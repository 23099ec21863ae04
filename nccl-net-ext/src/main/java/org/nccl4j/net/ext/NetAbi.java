package org.nccl4j.net.ext;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.net.spi.nativelib.NativeStrings;

/**
 * The layout of one {@code ncclNet_vN_t} (N = 4 to 10) on Linux x86-64: where each function
 * pointer sits in the struct, the C signature of each, the size of the properties struct and of
 * the connection handle, and how to read the properties. Checked against NCCL's
 * {@code plugins/net/example/nccl/net_v*.h}.
 */
final class NetAbi {
    /** The versions probed, newest first. */
    static final int[] VERSIONS = {10, 9, 8, 7, 6, 5, 4};
    /**
     * Older versions plugins still export beside v4 (aws-ofi-nccl, fastsocket): probed only to say
     * why they are not used. NCCL 2.10.3 looks up {@code ncclNetPlugin_v4} and nothing else
     * ({@code initNetPlugin} in {@code src/init.cc}), so neither does nccl4j.
     */
    static final int[] OLD_VERSIONS = {3, 2};
    /** A slot a version does not have. */
    static final long ABSENT = -1;

    private static final int P = 8; // pointer size

    final int version;
    /** Bytes of the struct: name plus the function pointers. */
    final long structSize;
    /** {@code NCCL_NET_HANDLE_MAXSIZE}: 64 for v4, 128 after. */
    final int handleSize;
    /** Bytes of {@code ncclNetProperties_vN_t}. */
    final long propertiesSize;

    final long init = P;
    final long devices = 2 * P;
    final long getProperties = 3 * P;
    final long listen = 4 * P;
    final long connect = 5 * P;
    final long accept = 6 * P;
    final long regMr = 7 * P;
    final long regMrDmaBuf;
    final long deregMr;
    final long isend;
    final long irecv;
    final long iflush;
    final long test;
    final long closeSend;
    final long closeRecv;
    final long closeListen;
    final long getDeviceMr;
    final long irecvConsumed;
    final long makeVDevice;

    private NetAbi(int version) {
        this.version = version;
        this.handleSize = version == 4 ? 64 : 128;
        int s = version >= 6 ? 9 : 8; // first slot after regMr (regMrDmaBuf from v6)
        this.regMrDmaBuf = version >= 6 ? 8 * P : ABSENT;
        this.deregMr = s * P;
        this.isend = (s + 1) * P;
        this.irecv = (s + 2) * P;
        this.iflush = (s + 3) * P;
        this.test = (s + 4) * P;
        this.closeSend = (s + 5) * P;
        this.closeRecv = (s + 6) * P;
        this.closeListen = (s + 7) * P;
        this.getDeviceMr = version >= 7 ? 17 * P : ABSENT;
        this.irecvConsumed = version >= 7 ? 18 * P : ABSENT;
        this.makeVDevice = version >= 9 ? 19 * P : ABSENT;
        this.structSize = version >= 9 ? 160 : version >= 7 ? 152 : version == 6 ? 136 : 128;
        this.propertiesSize = switch (version) {
            case 4 -> 40;
            case 5, 6 -> 48;
            case 7 -> 56;
            case 8 -> 64;
            default -> 104;
        };
    }

    /**
     * @param version 4 to 10
     * @return that version's layout
     */
    static NetAbi of(int version) {
        if (version < 4 || version > 10) {
            throw new IllegalArgumentException("ncclNet v" + version + " is not supported (v4 to v10 are)");
        }
        return new NetAbi(version);
    }

    /**
     * @param version one of {@link #OLD_VERSIONS}
     * @return why that symbol is not used, for the plugin search report and the log
     */
    static String notUsed(int version) {
        String why = version == 3 ? "v3's flush blocks and returns no request, v4 replaced it with iflush"
                : "v2 has pciPath and ptrSupport instead of getProperties, and v3's blocking flush";
        return "ncclNetPlugin_v" + version + " found, not used: NCCL 2.10 loads only ncclNetPlugin_v4 (nccl4j v4 to v10); "
                + why;
    }

    /** @return the exported symbol, e.g. {@code ncclNetPlugin_v10} */
    String symbol() {
        return "ncclNetPlugin_v" + version;
    }

    // ---- signatures ----

    FunctionDescriptor initDescriptor() {
        return version >= 10 ? FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS) : FunctionDescriptor.of(JAVA_INT, ADDRESS);
    }

    static FunctionDescriptor devicesDescriptor() {
        return FunctionDescriptor.of(JAVA_INT, ADDRESS);
    }

    static FunctionDescriptor getPropertiesDescriptor() {
        return FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);
    }

    static FunctionDescriptor listenDescriptor() {
        return FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    }

    FunctionDescriptor connectDescriptor() {
        if (version >= 10) {
            return FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
        }
        return version >= 7 ? FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS)
                : FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    }

    FunctionDescriptor acceptDescriptor() {
        return version >= 7 ? FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)
                : FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    }

    FunctionDescriptor regMrDescriptor() {
        return FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, version >= 8 ? JAVA_LONG : JAVA_INT, JAVA_INT, ADDRESS);
    }

    static FunctionDescriptor deregMrDescriptor() {
        return FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    }

    FunctionDescriptor isendDescriptor() {
        return switch (version) {
            case 4 -> FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
            case 5, 6, 7, 8 -> FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
            case 9 -> FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS);
            default -> FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        };
    }

    FunctionDescriptor irecvDescriptor() {
        return switch (version) {
            case 4 -> FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
            case 5, 6, 7, 8, 9 -> FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
            default -> FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
        };
    }

    FunctionDescriptor iflushDescriptor() {
        return version == 4 ? FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS)
                : FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    }

    static FunctionDescriptor testDescriptor() {
        return FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    }

    static FunctionDescriptor closeDescriptor() {
        return FunctionDescriptor.of(JAVA_INT, ADDRESS);
    }

    /** @return whether {@code irecv}'s sizes are {@code size_t} (v9+) rather than {@code int} */
    boolean sizeTSizes() {
        return version >= 9;
    }

    /** @return the largest message the signatures carry: {@code int} sizes, and test() reports an {@code int} */
    static long sizeLimit() {
        return Integer.MAX_VALUE;
    }

    // ---- properties ----

    /**
     * Reads a properties struct the plugin filled (zeroed before the call).
     *
     * @param p   the struct
     * @param dev the device index, for a name if the plugin gave none
     * @return the device
     */
    PluginDevice readProperties(MemorySegment p, int dev) {
        String name = NativeStrings.read(p.get(ADDRESS, 0), 256);
        String pci = NativeStrings.read(p.get(ADDRESS, 8), 4096);
        long guid = p.get(JAVA_LONG, 16);
        int ptrSupport = p.get(JAVA_INT, 24);
        int speed;
        int port;
        float latency = 0;
        int maxComms;
        int maxRecvs = 1;
        int deviceType = 0;
        long maxP2pBytes = 0;
        switch (version) {
            case 4 -> {
                speed = p.get(JAVA_INT, 28);
                port = p.get(JAVA_INT, 32);
                maxComms = p.get(JAVA_INT, 36);
            }
            case 5, 6, 7 -> {
                speed = p.get(JAVA_INT, 28);
                port = p.get(JAVA_INT, 32);
                latency = p.get(ValueLayout.JAVA_FLOAT, 36);
                maxComms = p.get(JAVA_INT, 40);
                maxRecvs = p.get(JAVA_INT, 44);
                deviceType = version == 7 ? p.get(JAVA_INT, 48) : 0;
            }
            case 8 -> {
                speed = p.get(JAVA_INT, 32);
                port = p.get(JAVA_INT, 36);
                latency = p.get(ValueLayout.JAVA_FLOAT, 40);
                maxComms = p.get(JAVA_INT, 44);
                maxRecvs = p.get(JAVA_INT, 48);
                deviceType = p.get(JAVA_INT, 52);
            }
            default -> {
                speed = p.get(JAVA_INT, 36);
                port = p.get(JAVA_INT, 40);
                latency = p.get(ValueLayout.JAVA_FLOAT, 44);
                maxComms = p.get(JAVA_INT, 48);
                maxRecvs = p.get(JAVA_INT, 52);
                deviceType = p.get(JAVA_INT, 56);
                maxP2pBytes = p.get(JAVA_LONG, 88);
            }
        }
        if (name == null || name.isEmpty()) {
            name = "dev" + dev;
        }
        if (Float.isNaN(latency) || latency < 0) {
            latency = 0;
        }
        long limit = sizeLimit();
        if (maxP2pBytes > 0 && maxP2pBytes < limit) {
            limit = maxP2pBytes;
        }
        return new PluginDevice(dev, new org.nccl4j.net.spi.NetProperties(name, pci, guid, ptrSupport, speed, port,
                maxComms, latency, Math.max(1, maxRecvs)), deviceType, limit);
    }

    /** @return a zeroed-struct layout of the properties, for allocation */
    MemoryLayout propertiesLayout() {
        return MemoryLayout.sequenceLayout(propertiesSize / 8, JAVA_LONG);
    }
}
