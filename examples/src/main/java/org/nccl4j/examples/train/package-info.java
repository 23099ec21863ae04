/**
 * {@code nccl4j train}: data-parallel training of a small MLP, the job NCCL exists for. Every rank
 * holds a replica of the model, computes gradients on its shard of the data, averages them with
 * one AllReduce per step and applies the same update, so the replicas stay bit-identical (each
 * rank prints a {@link org.nccl4j.examples.train.ReplicaDigest} that the launcher compares).
 */
package org.nccl4j.examples.train;
