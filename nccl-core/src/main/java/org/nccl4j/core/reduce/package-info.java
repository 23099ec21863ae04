/**
 * The host backend's reduction kernels: NCCL's {@code FuncSum}, {@code FuncProd},
 * {@code FuncMax}, {@code FuncMin} and {@code FuncAvg} (with their pre- and post-ops) for every
 * {@link org.nccl4j.DataType}, over {@link java.lang.foreign.MemorySegment}s.
 *
 * <p>The kernels are plain loops, which C2 vectorizes (about 33 GB/s of float32 SUM per core on
 * the development machine, several times what a rank moves). They were Vector API loops, twice
 * as fast once C2 has compiled them; but until then (C2 compiles a method after some 600
 * calls) Vector API code runs as allocating calls, about 500 times slower than compiled, and a
 * training loop makes only a few reduce calls per step: its first hundreds of steps paid
 * milliseconds per AllReduce. Plain loops are usable from C1 within the first calls.
 */
package org.nccl4j.core.reduce;
