package org.nccl4j.gpu.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.device.gpu.GpuPointer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.gpu.cuda.NvidiaDriver;
import org.nccl4j.gpu.cuda.fatbin.FatbinResource;
import org.nccl4j.core.device.kernel.KernelEntries;

/** The driver wrapper on a real GPU (device 0); skipped, saying why, where there is none. */
@Tag("gpu")
class CudaContextGpuTest {
    private static final int MIB = 1 << 20;
    private CudaDriver driver;
    private CudaContext ctx;

    /** Per test, so that each is reported skipped with the reason. */
    @BeforeEach
    void load() {
        driver = NvidiaDriver.loadOrSkip();
        ctx = driver.primaryContext(0);
    }

    /**
     * {@code fill(FillArgs a)}, with {@code struct FillArgs { uint32_t* dst; uint32_t value;
     * uint64_t count; }} (24 bytes): {@code dst[i] = value + i}. nvcc -ptx -arch=compute_75 output
     * of that kernel, kept as text so that the driver JITs it on any GPU without nvcc.
     */
    private static final String FILL_PTX = """
            .version 7.8
            .target sm_75
            .address_size 64
            .visible .entry fill(
            	.param .align 8 .b8 fill_param_0[24]
            )
            {
            	.reg .pred %p<3>;
            	.reg .b32 %r<9>;
            	.reg .b64 %rd<16>;
            	ld.param.u64 %rd9, [fill_param_0+16];
            	ld.param.u32 %r2, [fill_param_0+8];
            	ld.param.u64 %rd8, [fill_param_0];
            	mov.u32 %r3, %ctaid.x;
            	mov.u32 %r4, %ntid.x;
            	cvt.u64.u32 %rd1, %r4;
            	mul.wide.u32 %rd10, %r3, %r4;
            	mov.u32 %r5, %tid.x;
            	cvt.u64.u32 %rd11, %r5;
            	add.s64 %rd15, %rd10, %rd11;
            	setp.ge.u64 %p1, %rd15, %rd9;
            	@%p1 bra $L__BB0_3;
            	mov.u32 %r6, %nctaid.x;
            	cvt.u64.u32 %rd12, %r6;
            	mul.lo.s64 %rd4, %rd12, %rd1;
            	cvta.to.global.u64 %rd5, %rd8;
            $L__BB0_2:
            	cvt.u32.u64 %r7, %rd15;
            	add.s32 %r8, %r2, %r7;
            	shl.b64 %rd13, %rd15, 2;
            	add.s64 %rd14, %rd5, %rd13;
            	st.global.u32 [%rd14], %r8;
            	add.s64 %rd15, %rd15, %rd4;
            	setp.lt.u64 %p2, %rd15, %rd9;
            	@%p2 bra $L__BB0_2;
            $L__BB0_3:
            	ret;
            }
            """;

    private static byte pattern(long i) {
        return (byte) (i * 31 + 7);
    }

    @Test
    void describesItsDevices() {
        assertTrue(driver.deviceCount() >= 1);
        assertTrue(driver.pciBusId(0).matches("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]"), driver.pciBusId(0));
        assertTrue(driver.computeCapability(0) >= 75, "cc " + driver.computeCapability(0));
        assertTrue(driver.multiProcessorCount(0) >= 1);
        assertTrue(driver.totalMemory(0) >= MIB);
        assertTrue(!driver.deviceName(0).isBlank());
        assertEquals(ctx, driver.primaryContext(0), "the primary context is retained once");
        NcclException bad = assertThrows(NcclException.class, () -> driver.deviceName(driver.deviceCount()));
        assertEquals(Result.INVALID_ARGUMENT, bad.result());
    }

    @Test
    void aPatternGoesToTheDeviceAndBackExactly() {
        long dptr = ctx.memAlloc(MIB);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(MIB);
            MemorySegment dst = arena.allocate(MIB);
            for (long i = 0; i < MIB; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, pattern(i));
            }
            ctx.copyHtoD(dptr, src.address(), MIB, 0);
            ctx.copyDtoH(dst.address(), dptr, MIB, 0);
            assertEquals(-1, src.mismatch(dst), "first differing byte");

            GpuPointer device = ctx.pointerInfo(dptr);
            assertEquals(new GpuPointer(GpuPointer.DEVICE, 0, false), device);
            assertEquals(new GpuPointer(0, -1, false), ctx.pointerInfo(src.address()));
        } finally {
            ctx.memFree(dptr);
        }
    }

    @Test
    @SuppressWarnings("restricted") // views the pinned memory the driver allocated
    void streamsEventsAndMappedHostMemory() {
        long dptr = ctx.memAlloc(MIB);
        long host = ctx.hostAllocMapped(MIB);
        long stream = ctx.streamCreate();
        long start = ctx.eventCreate(true);
        long end = ctx.eventCreate(true);
        try {
            MemorySegment pinned = MemorySegment.ofAddress(host).reinterpret(MIB);
            assertEquals(-1, pinned.mismatch(Arena.ofAuto().allocate(MIB)), "hostAllocMapped zeroes");
            assertEquals(GpuPointer.HOST, ctx.pointerInfo(host).memoryType());
            assertNotEquals(0, ctx.devicePointerOf(host));
            ctx.eventRecord(start, stream);
            ctx.memsetD8(dptr, 0xa5, MIB, stream);
            ctx.copyDtoH(host, dptr, MIB, stream);
            ctx.eventRecord(end, stream);
            ctx.streamSynchronize(stream);
            assertTrue(ctx.streamQuery(stream));
            ctx.eventSynchronize(end);
            assertTrue(ctx.eventQuery(end));
            assertTrue(ctx.eventElapsedMillis(start, end) >= 0);
            for (long i = 0; i < MIB; i++) {
                assertEquals((byte) 0xa5, pinned.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
            }
            assertEquals(CudaContext.IPC_HANDLE_BYTES, ctx.ipcHandle(dptr).length);
        } finally {
            ctx.eventDestroy(start);
            ctx.eventDestroy(end);
            ctx.streamDestroy(stream);
            ctx.freeHost(host);
            ctx.memFree(dptr);
        }
    }

    @Test
    void aKernelRunsWithItsPackedArguments() {
        int n = 1 << 16;
        long module = ctx.moduleLoad(FILL_PTX.getBytes(StandardCharsets.US_ASCII));
        long dptr = ctx.memAlloc(4L * n);
        long stream = ctx.streamCreate();
        try (Arena arena = Arena.ofConfined()) {
            long fill = ctx.function(module, "fill");
            MemorySegment args = arena.allocate(24, 8);
            args.set(ValueLayout.JAVA_LONG, 0, dptr);
            args.set(ValueLayout.JAVA_INT, 8, 1000);
            args.set(ValueLayout.JAVA_LONG, 16, n);
            ctx.launch(fill, 64, 256, 0, stream, args.address(), args.byteSize());
            ctx.streamSynchronize(stream);
            MemorySegment out = arena.allocate(ValueLayout.JAVA_INT, n);
            ctx.copyDtoH(out.address(), dptr, 4L * n, 0);
            for (int i = 0; i < n; i++) {
                assertEquals(1000 + i, out.getAtIndex(ValueLayout.JAVA_INT, i), "element " + i);
            }
            NcclException none = assertThrows(NcclException.class,
                    () -> ctx.launch(fill, 0, 256, 0, stream, args.address(), args.byteSize()));
            assertEquals(Result.UNHANDLED_DEVICE_ERROR, none.result());
            assertTrue(none.detail().startsWith("cuLaunchKernel(0x" + Long.toHexString(fill) + ", grid 0"), none.detail());
        } finally {
            ctx.streamDestroy(stream);
            ctx.memFree(dptr);
            ctx.moduleUnload(module);
        }
    }

    @Test
    void theShippedFatbinLoadsAndHasEveryKernel() {
        long module = ctx.moduleLoad(FatbinResource.bytes());
        try {
            for (String name : KernelEntries.ALL) {
                assertNotEquals(0, ctx.function(module, name), name);
            }
            NcclException missing = assertThrows(NcclException.class, () -> ctx.function(module, "nccl4j_NoSuchKernel"));
            assertEquals(Result.UNHANDLED_DEVICE_ERROR, missing.result());
            assertTrue(missing.detail().contains("CUDA_ERROR_NOT_FOUND"), missing.detail());
        } finally {
            ctx.moduleUnload(module);
        }
    }
}
