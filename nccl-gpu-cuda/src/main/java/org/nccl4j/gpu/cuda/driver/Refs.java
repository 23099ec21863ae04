package org.nccl4j.gpu.cuda.driver;

import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUmod_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * JavaCPP pointers whose address is set from a plain {@code long}: the bindings take typed
 * {@link Pointer}s, our API hands out addresses, and setting the (protected) address field
 * bridges the two without copying memory or allocating per call. A {@link CallFrame} holds one
 * of each per thread; JNI reads the address while the call runs and keeps nothing.
 */
final class Refs {
    private Refs() {
    }

    /** Host memory ({@code void*}). */
    static final class Host extends Pointer {
        Host at(long a) {
            address = a;
            return this;
        }
    }

    /** {@code CUstream}; 0 is the legacy default stream. */
    static final class Stream extends CUstream_st {
        Stream at(long a) {
            address = a;
            return this;
        }
    }

    /** {@code CUevent}. */
    static final class Event extends CUevent_st {
        Event at(long a) {
            address = a;
            return this;
        }
    }

    /** {@code CUfunction}. */
    static final class Function extends CUfunc_st {
        Function at(long a) {
            address = a;
            return this;
        }
    }

    /** {@code CUmodule}. */
    static final class Module extends CUmod_st {
        Module at(long a) {
            address = a;
            return this;
        }
    }

    /** {@code CUcontext}. */
    static final class Context extends CUctx_st {
        Context at(long a) {
            address = a;
            return this;
        }
    }

    /** {@code void**}: an array of pointers in native memory. */
    static final class Slots extends PointerPointer<Pointer> {
        Slots at(long a) {
            address = a;
            return this;
        }
    }

    /** {@code int*} in native memory. */
    static final class Ints extends IntPointer {
        Ints at(long a) {
            address = a;
            return this;
        }
    }
}
