/**
 * Channel connection of NCCL v2.10.3 ({@code src/graph/connect.cc}, {@code trees.cc},
 * {@code rings.cc} and the {@code initTransportsRank} glue around them): every rank's intra-node
 * ring and tree links from the searched graphs ({@link org.nccl4j.core.topo.connect.Preset}),
 * node detection and graph alignment over all ranks, and the inter-node rings and double binary
 * trees ({@link org.nccl4j.core.topo.connect.Postset}). {@link org.nccl4j.core.topo.connect.TopoConnect}
 * runs the steps in init's order.
 */
package org.nccl4j.core.topo.connect;
