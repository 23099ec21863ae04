/**
 * nccl4j: NCCL's collective communication for Java. Start at {@link org.nccl4j.Nccl}.
 */
package org.nccl4j;
