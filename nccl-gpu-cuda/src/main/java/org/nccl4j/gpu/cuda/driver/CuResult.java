package org.nccl4j.gpu.cuda.driver;

import static org.bytedeco.cuda.global.cudart.cuGetErrorName;
import static org.bytedeco.cuda.global.cudart.cuGetErrorString;

import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * Turns a failed driver call's {@code CUresult} into an {@link NcclException}
 * ({@link Result#UNHANDLED_DEVICE_ERROR}) that names the call, its arguments, the error's name,
 * code and description, and what to try. Callers test {@code rc != 0} themselves, so the
 * message is only built on failure.
 */
final class CuResult {
    /** {@code CUDA_SUCCESS}. */
    static final int SUCCESS = cudart.CUDA_SUCCESS;
    /** {@code CUDA_ERROR_NOT_READY}: a stream or event query found work still running. */
    static final int NOT_READY = cudart.CUDA_ERROR_NOT_READY;

    private CuResult() {
    }

    /**
     * @param rc   the call's result
     * @param call the call and its arguments, e.g. {@code cuMemAlloc(1048576)}
     * @throws NcclException if {@code rc} is not {@code CUDA_SUCCESS}
     */
    static void check(int rc, String call) {
        if (rc != SUCCESS) {
            throw error(rc, call);
        }
    }

    /**
     * @param rc   a failed call's result
     * @param call the call and its arguments
     * @return the exception to throw
     */
    static NcclException error(int rc, String call) {
        return NcclException.of(Result.UNHANDLED_DEVICE_ERROR, describe(call, rc), hint(rc));
    }

    /**
     * @param call what failed
     * @param rc   its result
     * @return {@code call failed: NAME (code): description}
     */
    static String describe(String call, int rc) {
        return call + " failed: " + name(rc) + " (" + rc + "): " + description(rc);
    }

    /**
     * @param rc a {@code CUresult}
     * @return its name, e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}
     */
    static String name(int rc) {
        String s = text(rc, true);
        return s == null ? "unknown CUresult" : s;
    }

    private static String description(int rc) {
        String s = text(rc, false);
        return s == null ? "no description" : s;
    }

    /** cuGetErrorName/cuGetErrorString point {@code text} at a static string of the driver's. */
    private static String text(int rc, boolean name) {
        BytePointer text = new BytePointer((Pointer) null);
        int r = name ? cuGetErrorName(rc, text) : cuGetErrorString(rc, text);
        return r == SUCCESS && !text.isNull() ? text.getString() : null;
    }

    private static String hint(int rc) {
        return switch (rc) {
            case cudart.CUDA_ERROR_OUT_OF_MEMORY -> "free device memory (fewer or smaller buffers); nvidia-smi shows "
                    + "what else holds this GPU's memory";
            case cudart.CUDA_ERROR_NO_DEVICE, cudart.CUDA_ERROR_INVALID_DEVICE -> "check nvidia-smi and "
                    + "CUDA_VISIBLE_DEVICES; NCCL4J_CUDA_DEVICE must name a visible device";
            case cudart.CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
                 cudart.CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE -> "the NVIDIA driver and its libcuda.so.1 do not "
                    + "match or are too old: update the driver, or put the driver's own libcuda.so.1 first on "
                    + "LD_LIBRARY_PATH";
            case cudart.CUDA_ERROR_NO_BINARY_FOR_GPU -> "the kernels were not built for this GPU's architecture: add "
                    + "its -gencode to nccl-gpu-cuda/src/main/sh/build-fatbin.sh";
            case cudart.CUDA_ERROR_INVALID_PTX, cudart.CUDA_ERROR_UNSUPPORTED_PTX_VERSION -> "the driver is older than "
                    + "the nvcc that built the PTX: update the NVIDIA driver, or build SASS for this GPU";
            case cudart.CUDA_ERROR_ILLEGAL_ADDRESS, cudart.CUDA_ERROR_LAUNCH_FAILED, cudart.CUDA_ERROR_MISALIGNED_ADDRESS,
                 cudart.CUDA_ERROR_ILLEGAL_INSTRUCTION, cudart.CUDA_ERROR_HARDWARE_STACK_ERROR,
                 cudart.CUDA_ERROR_INVALID_ADDRESS_SPACE, cudart.CUDA_ERROR_INVALID_PC -> "a kernel faulted; the "
                    + "context stays unusable (a sticky error): restart the process, and run it under "
                    + "compute-sanitizer to find the bad access";
            case cudart.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES -> "the launch asks for more threads, registers or shared "
                    + "memory than a multiprocessor has: use fewer threads per block or less shared memory";
            case cudart.CUDA_ERROR_INVALID_CONTEXT, cudart.CUDA_ERROR_CONTEXT_IS_DESTROYED -> "no usable context on "
                    + "this thread: the primary context was reset or destroyed by other code in this process";
            default -> "run with NCCL_DEBUG=INFO; CUDA_LAUNCH_BLOCKING=1 reports a kernel's error at the call that "
                    + "launched it";
        };
    }
}
