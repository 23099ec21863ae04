package org.nccl4j.core.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/**
 * Linux anonymous memory files ({@code memfd_create}, {@code ftruncate}, {@code close}) through
 * the foreign function API. Other processes of the same user open one as
 * {@code /proc/<pid>/fd/<fd>} while its creator keeps the descriptor.
 */
final class MemFd {
    private static final int MFD_CLOEXEC = 1;
    private static final StructLayout STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle CREATE;
    private static final MethodHandle TRUNCATE;
    private static final MethodHandle CLOSE;
    /** Whether memfds can be made here (Linux, glibc 2.27 or later, native access granted). */
    static final boolean AVAILABLE;

    static {
        MethodHandle create = null;
        MethodHandle truncate = null;
        MethodHandle close = null;
        if (System.getProperty("os.name").startsWith("Linux")) {
            try {
                Linker linker = Linker.nativeLinker();
                Linker.Option errno = Linker.Option.captureCallState("errno");
                create = linker.downcallHandle(linker.defaultLookup().find("memfd_create").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), errno);
                truncate = linker.downcallHandle(linker.defaultLookup().find("ftruncate").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), errno);
                close = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            } catch (RuntimeException | LinkageError e) {
                Log.info(Subsys.ALLOC, "memfds unavailable (%s): memAlloc gives ordinary native memory", e);
                create = null;
            }
        }
        CREATE = create;
        TRUNCATE = truncate;
        CLOSE = close;
        AVAILABLE = create != null;
    }

    private MemFd() {
    }

    /**
     * @param name  its name ({@code /proc/<pid>/fd/<fd>} links to {@code /memfd:<name> (deleted)})
     * @param bytes its size
     * @return the descriptor of a new memfd of that size (its pages are allocated when touched)
     * @throws NcclException SYSTEM_ERROR with the errno if the kernel refuses
     */
    static int create(String name, long bytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(STATE);
            int fd = (int) CREATE.invokeExact(state, a.allocateFrom(name), MFD_CLOEXEC);
            if (fd < 0) {
                throw failed("memfd_create", state, bytes);
            }
            if ((int) TRUNCATE.invokeExact(state, fd, bytes) != 0) {
                NcclException e = failed("ftruncate", state, bytes);
                close(fd);
                throw e;
            }
            return fd;
        } catch (NcclException e) {
            throw e;
        } catch (Throwable t) {
            throw NcclException.of(Result.SYSTEM_ERROR, "memfd_create failed: " + t, null, t);
        }
    }

    /** @param fd a descriptor to close (errors ignored: nothing more can be done) */
    static void close(int fd) {
        try {
            int unused = (int) CLOSE.invokeExact(fd);
        } catch (Throwable ignored) {
            // The descriptor is lost either way.
        }
    }

    private static NcclException failed(String call, MemorySegment state, long bytes) {
        int errno = (int) ERRNO.get(state, 0L);
        return NcclException.of(Result.SYSTEM_ERROR, call + " of " + bytes + " bytes failed: errno " + errno,
                "errno 12 or 28: not enough memory (memfd pages count as shared memory: see /proc/meminfo Shmem)");
    }
}
