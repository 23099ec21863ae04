package org.nccl4j.net.ext;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.nccl4j.net.spi.nativelib.NativeStrings;

/**
 * The function pointers of one {@code ncclNet_vN_t}, read from the plugin's struct and bound as
 * FFM downcall handles with that version's signatures. A required pointer that is NULL fails
 * the load with its name rather than crashing at the first call.
 */
@SuppressWarnings("restricted") // native access is this module's purpose: --enable-native-access=org.nccl4j.net.ext
final class PluginTable {
    final NetAbi abi;
    final MethodHandle init;
    final MethodHandle devices;
    final MethodHandle getProperties;
    final MethodHandle listen;
    final MethodHandle connect;
    final MethodHandle accept;
    final MethodHandle regMr;
    final MethodHandle deregMr;
    final MethodHandle isend;
    final MethodHandle irecv;
    /** {@code null} if the plugin has none (then no flush is ever needed). */
    final MethodHandle iflush;
    final MethodHandle test;
    final MethodHandle closeSend;
    final MethodHandle closeRecv;
    final MethodHandle closeListen;

    /**
     * @param abi    the version's layout
     * @param struct the exported {@code ncclNetPlugin_vN} symbol
     * @throws IllegalArgumentException naming the first required function pointer that is NULL
     */
    PluginTable(NetAbi abi, MemorySegment struct) {
        this.abi = abi;
        MemorySegment s = struct.reinterpret(abi.structSize);
        init = bind(s, abi.init, "init", abi.initDescriptor(), true);
        devices = bind(s, abi.devices, "devices", NetAbi.devicesDescriptor(), true);
        getProperties = bind(s, abi.getProperties, "getProperties", NetAbi.getPropertiesDescriptor(), true);
        listen = bind(s, abi.listen, "listen", NetAbi.listenDescriptor(), true);
        connect = bind(s, abi.connect, "connect", abi.connectDescriptor(), true);
        accept = bind(s, abi.accept, "accept", abi.acceptDescriptor(), true);
        regMr = bind(s, abi.regMr, "regMr", abi.regMrDescriptor(), true);
        deregMr = bind(s, abi.deregMr, "deregMr", NetAbi.deregMrDescriptor(), true);
        isend = bind(s, abi.isend, "isend", abi.isendDescriptor(), true);
        irecv = bind(s, abi.irecv, "irecv", abi.irecvDescriptor(), true);
        iflush = bind(s, abi.iflush, "iflush", abi.iflushDescriptor(), false);
        test = bind(s, abi.test, "test", NetAbi.testDescriptor(), true);
        closeSend = bind(s, abi.closeSend, "closeSend", NetAbi.closeDescriptor(), true);
        closeRecv = bind(s, abi.closeRecv, "closeRecv", NetAbi.closeDescriptor(), true);
        closeListen = bind(s, abi.closeListen, "closeListen", NetAbi.closeDescriptor(), true);
    }

    /**
     * @param struct the exported symbol
     * @param abi    its version's layout
     * @return the plugin's name field, or {@code null} if NULL
     */
    static String name(MemorySegment struct, NetAbi abi) {
        return NativeStrings.read(struct.reinterpret(abi.structSize).get(ADDRESS, 0), 256);
    }

    private MethodHandle bind(MemorySegment s, long offset, String member, FunctionDescriptor fd, boolean required) {
        MemorySegment fn = s.get(ADDRESS, offset);
        if (fn.equals(MemorySegment.NULL)) {
            if (required) {
                throw new IllegalArgumentException(abi.symbol() + "." + member + " is NULL");
            }
            return null;
        }
        return Linker.nativeLinker().downcallHandle(fn, fd);
    }
}
