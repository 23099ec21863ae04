package org.nccl4j.net.ib;

import java.util.ArrayList;
import java.util.List;

import jnr.ffi.LastError;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.byref.IntByReference;
import jnr.ffi.types.u_int8_t;

/**
 * The libibverbs binding: the few verbs that device discovery needs, loaded with jnr-ffi the way
 * NCCL's {@code ibvwrap.cc} {@code dlopen}s the library at run time instead of linking it.
 *
 * <p>Package-private on purpose (jnr-unixsocket's {@code Native}): nothing outside this package
 * sees a jnr type; callers get Java values and {@link VerbsException}s.
 *
 * <p>Symbols are resolved with {@code dlsym}, which returns each symbol's default version; in
 * every rdma-core release that is {@code IBVERBS_1.1}, the version NCCL asks {@code dlvsym} for.
 */
final class Verbs {
    /**
     * Names tried in order, as NCCL does: {@code libibverbs.so} (present with libibverbs-dev),
     * then the runtime package's {@code libibverbs.so.1}.
     */
    static final List<String> LIBRARY_NAMES = List.of("ibverbs", "libibverbs.so.1");

    /** {@code enum ibv_port_state}: {@code IBV_PORT_ACTIVE}. */
    static final int IBV_PORT_ACTIVE = 4;
    /** {@code IBV_LINK_LAYER_UNSPECIFIED}. */
    static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    /** {@code IBV_LINK_LAYER_INFINIBAND}. */
    static final int IBV_LINK_LAYER_INFINIBAND = 1;
    /** {@code IBV_LINK_LAYER_ETHERNET} (RoCE). */
    static final int IBV_LINK_LAYER_ETHERNET = 2;

    /**
     * The exported symbols. Public only because jnr-ffi generates its implementation in another
     * class loader; the enclosing class keeps it out of sight.
     */
    public interface LibIbverbs {
        int ibv_fork_init();

        @SaveError
        Pointer ibv_get_device_list(@Out IntByReference numDevices);

        void ibv_free_device_list(Pointer list);

        String ibv_get_device_name(Pointer device);

        @SaveError
        Pointer ibv_open_device(Pointer device);

        int ibv_close_device(Pointer context);

        /** {@code int ibv_query_device(struct ibv_context*, struct ibv_device_attr*)}; 0 or an errno. */
        int ibv_query_device(Pointer context, Pointer deviceAttr);

        /**
         * The <em>exported</em> {@code ibv_query_port}, not the {@code static inline} wrapper of the
         * same name in {@code verbs.h}: it takes {@code struct _compat_ibv_port_attr*}, the
         * {@code ibv_port_attr} prefix that ends at {@code flags} ({@link IbvPortAttr}), and writes
         * exactly that many bytes (rdma-core {@code __lib_query_port} copies from a temporary
         * full-size struct when the caller's is smaller). 0 or an errno.
         */
        int ibv_query_port(Pointer context, @u_int8_t byte portNum, Pointer compatPortAttr);
    }

    /** Thrown when a verb fails; carries what to log. */
    static final class VerbsException extends Exception {
        private static final long serialVersionUID = 1L;

        VerbsException(String message) {
            super(message);
        }
    }

    /** What {@link #load()} found, once per process (NCCL keeps one static handle too). */
    private static final class Loaded {
        static final Verbs VERBS;
        static final UnsatisfiedLinkError FAILURE;

        static {
            Verbs verbs = null;
            UnsatisfiedLinkError failure = null;
            try {
                verbs = load(LIBRARY_NAMES);
            } catch (UnsatisfiedLinkError e) {
                failure = e;
            } catch (LinkageError | RuntimeException e) {
                failure = new UnsatisfiedLinkError("jnr-ffi could not bind libibverbs: " + e);
                failure.initCause(e);
            }
            VERBS = verbs;
            FAILURE = failure;
        }
    }

    private final LibIbverbs lib;
    private final Runtime runtime;
    private final String libraryName;

    private Verbs(LibIbverbs lib, String libraryName) {
        this.lib = lib;
        this.runtime = Runtime.getRuntime(lib);
        this.libraryName = libraryName;
    }

    /**
     * @return the process-wide binding
     * @throws UnsatisfiedLinkError with jnr-ffi's message if libibverbs could not be loaded; it has a
     *     cause when jnr-ffi itself failed rather than the library being absent
     */
    static Verbs load() {
        if (Loaded.VERBS == null) {
            // A fresh error each time, so callers' stack traces are their own.
            UnsatisfiedLinkError e = new UnsatisfiedLinkError(Loaded.FAILURE.getMessage());
            if (Loaded.FAILURE.getCause() != null) {
                e.initCause(Loaded.FAILURE.getCause());
            }
            throw e;
        }
        return Loaded.VERBS;
    }

    /**
     * Loads the first of {@code names} that jnr-ffi can open and that exports every symbol.
     *
     * @param names library names in jnr-ffi's form ({@code "ibverbs"}) or file names
     * @return a new binding
     * @throws UnsatisfiedLinkError naming each attempt and why it failed
     */
    static Verbs load(List<String> names) {
        List<String> failures = new ArrayList<>();
        for (String name : names) {
            try {
                LibIbverbs lib = LibraryLoader.create(LibIbverbs.class).failImmediately().load(name);
                return new Verbs(lib, name);
            } catch (UnsatisfiedLinkError e) {
                failures.add(name + ": " + firstLine(e.getMessage()));
            } catch (LinkageError | RuntimeException e) {
                // jnr-ffi itself is broken (a missing ASM, a jffi without its native stub): no other
                // name will do better.
                UnsatisfiedLinkError error = new UnsatisfiedLinkError(
                        "jnr-ffi could not bind " + name + ": " + e);
                error.initCause(e);
                throw error;
            }
        }
        throw new UnsatisfiedLinkError(String.join("; ", failures));
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "(no message)";
        }
        int nl = message.indexOf('\n');
        return (nl < 0 ? message : message.substring(0, nl)).strip();
    }

    /** @return the errno with its name and, for the usual ones, what it means here */
    static String errnoText(int errno) {
        return switch (errno) {
            case 38 -> "errno 38 (ENOSYS: the kernel exposes no RDMA devices, /sys/class/infiniband_verbs is absent)";
            case 2 -> "errno 2 (ENOENT)";
            case 12 -> "errno 12 (ENOMEM)";
            case 13 -> "errno 13 (EACCES: no permission on /dev/infiniband)";
            case 1 -> "errno 1 (EPERM)";
            default -> "errno " + errno;
        };
    }

    /** @return the name the library was loaded under */
    String libraryName() {
        return libraryName;
    }

    Runtime runtime() {
        return runtime;
    }

    /** @return 0 on success or the error code of {@code ibv_fork_init} */
    int forkInit() {
        return lib.ibv_fork_init();
    }

    /** The device list of {@code ibv_get_device_list}, freed by {@link #close()}. */
    final class DeviceList implements AutoCloseable {
        private final Pointer list;
        private final int count;

        private DeviceList(Pointer list, int count) {
            this.list = list;
            this.count = count;
        }

        int count() {
            return count;
        }

        Pointer device(int i) {
            return list.getPointer((long) i * runtime.addressSize());
        }

        String name(int i) {
            return lib.ibv_get_device_name(device(i));
        }

        @Override
        public void close() {
            if (list != null) {
                lib.ibv_free_device_list(list);
            }
        }
    }

    /**
     * @return the devices; none when the call fails (as NCCL's {@code wrap_ibv_get_device_list})
     * @throws VerbsException only to report {@code NULL} with its errno, after which the caller
     *     carries on with zero devices
     */
    DeviceList deviceList() throws VerbsException {
        IntByReference num = new IntByReference(0);
        Pointer list = lib.ibv_get_device_list(num);
        if (list == null) {
            int errno = LastError.getLastError(runtime);
            throw new VerbsException("ibv_get_device_list failed: " + errnoText(errno));
        }
        return new DeviceList(list, Math.max(0, num.intValue()));
    }

    /**
     * @param device an entry of the device list
     * @return the opened context
     * @throws VerbsException if {@code ibv_open_device} returns {@code NULL}
     */
    Pointer open(Pointer device) throws VerbsException {
        Pointer context = lib.ibv_open_device(device);
        if (context == null) {
            throw new VerbsException("ibv_open_device failed: " + errnoText(LastError.getLastError(runtime)));
        }
        return context;
    }

    /** @return 0 or the error of {@code ibv_close_device} */
    int close(Pointer context) {
        return lib.ibv_close_device(context);
    }

    /**
     * @param context an open context
     * @return the device attributes, read into zeroed memory
     * @throws VerbsException if the query fails
     */
    IbvDeviceAttr queryDevice(Pointer context) throws VerbsException {
        IbvDeviceAttr attr = new IbvDeviceAttr(runtime);
        Pointer memory = Memory.allocateDirect(runtime, IbvDeviceAttr.size(attr), true);
        attr.useMemory(memory);
        int rc = lib.ibv_query_device(context, memory);
        if (rc != 0) {
            throw new VerbsException("ibv_query_device failed: " + rc);
        }
        return attr;
    }

    /**
     * @param context an open context
     * @param port    port number, 1 to {@code phys_port_cnt}
     * @return the port attributes (compat layout)
     * @throws VerbsException if the query fails
     */
    IbvPortAttr queryPort(Pointer context, int port) throws VerbsException {
        IbvPortAttr attr = new IbvPortAttr(runtime);
        // Room for the full struct ibv_port_attr of any rdma-core, zeroed, although the exported
        // symbol writes only the compat prefix.
        Pointer memory = Memory.allocateDirect(runtime, IbvPortAttr.ALLOCATION, true);
        attr.useMemory(memory);
        int rc = lib.ibv_query_port(context, (byte) port, memory);
        if (rc != 0) {
            throw new VerbsException("ibv_query_port failed: " + rc);
        }
        return attr;
    }
}
