/**
 * The host backend's reduction kernels: NCCL's {@code FuncSum}, {@code FuncProd},
 * {@code FuncMax}, {@code FuncMin} and {@code FuncAvg} (with their pre- and post-ops) for every
 * {@link org.nccl4j.DataType}, over {@link java.lang.foreign.MemorySegment}s.
 *
 * <p>The operands go through two heap arrays of 2 KiB per thread: bulk copies in, a plain array
 * loop, a bulk copy out. The kernels were loops of segment accesses before; measured (float SUM
 * of 2,300 elements, 2-core VM) those took 150-390 µs a call for the first hundred calls, as the
 * interpreter and C1 run each access through the {@code VarHandle} machinery, so the first
 * epochs of a training loop paid milliseconds per AllReduce. The array loops cost 5 times less
 * until C2 compiles them. Compiled, JMH ({@code nccl-bench}'s {@code ReduceBench}, 16 KiB / 1 MiB
 * / 16 MiB) measured them against the segment loops at 1.66 / 1.67 / 1.05 times for float32 SUM,
 * 1.5 / 1.3 / 1.3 for int32 SUM, 3.5-5.5 for int8, 0.9-1.2 for the 16-bit floats, 1.09 / 1.0
 * / 0.94 for float64 MAX and 1.7 / 1.6 / 1.4 for float32 MIN (Math.max/min in one loop, which C2
 * vectorizes, and NaN's rule in a second: with the rule inside, 0.75-0.83). Larger chunks
 * measured slower from memory (4 KiB: half as fast at 16 MiB). Vector API loops were tried
 * before: twice as fast as segment loops once compiled, but allocating until C2 compiles them
 * (about 500 times slower).
 */
package org.nccl4j.core.reduce;
