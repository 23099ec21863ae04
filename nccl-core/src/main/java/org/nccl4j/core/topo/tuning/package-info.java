/**
 * NCCL v2.10.3's tuning ({@code src/graph/tuning.cc}, {@code getAlgoInfo} of
 * {@code src/enqueue.cc}; buffer sizes are {@code org.nccl4j.core.conn.BuffSizes}): the latency and
 * bandwidth model of every collective, algorithm and protocol, the per-call choice of algorithm,
 * protocol, channels and threads,. Constant tables live in a
 * {@link org.nccl4j.core.topo.tuning.TuningProfile}; the formulas are shared by all profiles.
 */
package org.nccl4j.core.topo.tuning;
