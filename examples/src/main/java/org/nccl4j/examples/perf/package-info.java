/**
 * {@code nccl4j perf}: NVIDIA's nccl-tests ({@code all_reduce_perf} and friends) for nccl4j, with
 * nccl-tests' flags, size sweep, timing, bandwidth formulas, data check and output format.
 *
 * <p>{@link org.nccl4j.examples.perf.PerfRank} is what one rank runs; the other classes are its
 * parts: the collectives and their byte counts ({@link org.nccl4j.examples.perf.Collective}),
 * element types by nccl-tests' names ({@link org.nccl4j.examples.perf.ElementType}), input
 * generation and checking ({@link org.nccl4j.examples.perf.TestData}) and the printed report
 * ({@link org.nccl4j.examples.perf.PerfReport}). With {@code --device cuda} the same test runs on
 * device buffers, staged from and to host memory for the data check.
 */
package org.nccl4j.examples.perf;
