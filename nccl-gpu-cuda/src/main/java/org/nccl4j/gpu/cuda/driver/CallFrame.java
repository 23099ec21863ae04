package org.nccl4j.gpu.cuda.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One thread's scratch for driver calls: the address-settable pointers, the native blocks that
 * {@code cuLaunchKernel} and {@code cuPointerGetAttributes} read, and which context this thread
 * last made current. Nothing is allocated per call. The native blocks come from an automatic
 * arena, so they are freed once the thread (and its frame) is gone.
 */
final class CallFrame {
    private static final ThreadLocal<CallFrame> FRAMES = ThreadLocal.withInitial(CallFrame::new);

    /** The attributes {@link CudaContext#pointerInfo} asks for, in this order. */
    static final int[] POINTER_ATTRIBUTES = {2 /* MEMORY_TYPE */, 9 /* DEVICE_ORDINAL */, 8 /* IS_MANAGED */};

    /** The context this thread made current last; a virtual thread's carrier may change, so it never trusts this. */
    CudaContext current;
    final boolean virtual = Thread.currentThread().isVirtual();

    final Refs.Host host = new Refs.Host();
    final Refs.Stream stream = new Refs.Stream();
    final Refs.Event event = new Refs.Event();
    final Refs.Event event2 = new Refs.Event();
    final Refs.Function function = new Refs.Function();
    final Refs.Module module = new Refs.Module();
    final long[] longOut = new long[1];
    final int[] intOut = new int[1];
    final float[] floatOut = new float[1];

    /**
     * cuLaunchKernel's {@code extra}: {BUFFER_POINTER, args, BUFFER_SIZE, &size, END, size}; the
     * last slot is where the size lives, so &size points into the block itself.
     */
    /**
     * The presets bind cuLaunchKernel's {@code kernelParams} as {@code @ByPtrPtr}: they pass the
     * address of a pointer holding this one's address, i.e. a one-element array whose element
     * points at the packed struct that is the kernel's one parameter.
     */
    final Refs.Host kernelParam = new Refs.Host();

    /** cuPointerGetAttributes: three data pointers, then the three values they point at. */
    private final MemorySegment attributeData;
    final Refs.Slots attributeSlots = new Refs.Slots();
    final Refs.Ints attributeIds = new Refs.Ints();

    private CallFrame() {
        Arena arena = Arena.ofAuto();

        attributeData = arena.allocate(ValueLayout.JAVA_LONG, 6);
        for (int i = 0; i < 3; i++) {
            attributeData.setAtIndex(ValueLayout.JAVA_LONG, i, attributeData.address() + (3 + i) * Long.BYTES);
        }
        attributeSlots.at(attributeData.address());
        MemorySegment ids = arena.allocate(ValueLayout.JAVA_INT, POINTER_ATTRIBUTES.length);
        MemorySegment.copy(POINTER_ATTRIBUTES, 0, ids, ValueLayout.JAVA_INT, 0, POINTER_ATTRIBUTES.length);
        attributeIds.at(ids.address());
    }

    /** @return this thread's frame */
    static CallFrame get() {
        return FRAMES.get();
    }

    /** Zeroes the attribute values before a cuPointerGetAttributes call. */
    void clearAttributes() {
        attributeData.asSlice(3 * Long.BYTES).fill((byte) 0);
    }

    /**
     * @param i the attribute's position in {@link #POINTER_ATTRIBUTES}
     * @return its value as the driver wrote it (an int, or a bool in the low byte)
     */
    int attribute(int i) {
        return attributeData.getAtIndex(ValueLayout.JAVA_INT, 2 * (3 + i));
    }
}
