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
 * until C2 compiles them, and compiled they are faster too: 0.33 against 0.55 µs for 2,300
 * floats in cache, 0.93-1.17 against 1.14-1.26 ms for 4M floats from memory. Vector API loops
 * were tried before them: twice as fast as segment loops once compiled, but allocating until
 * C2 compiles them (about 500 times slower).
 */
package org.nccl4j.core.reduce;
