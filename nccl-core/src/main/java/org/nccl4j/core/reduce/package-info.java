/**
 * The host backend's reduction kernels: NCCL's {@code FuncSum}, {@code FuncProd},
 * {@code FuncMax}, {@code FuncMin} and {@code FuncAvg} (with their pre- and post-ops) for every
 * {@link org.nccl4j.DataType}, over {@link java.lang.foreign.MemorySegment}s.
 *
 * <p>{@link org.nccl4j.core.reduce.Reducer#of} picks a kernel: Vector API loops for 8-, 32- and
 * 64-bit integers and for float32/float64 when {@code jdk.incubator.vector} is in the boot layer
 * (start the JVM with {@code --add-modules jdk.incubator.vector}), plain loops otherwise and for
 * float16/bfloat16. {@link org.nccl4j.core.reduce.ScalarReducers} gives the plain loops alone.
 * Both compute the same bits.
 */
package org.nccl4j.core.reduce;
