/**
 * NCCL's {@code IB} network: InfiniBand and RoCE through libibverbs, bound with jnr-ffi.
 * {@link org.nccl4j.net.ib.IbNetProvider} registers {@link org.nccl4j.net.ib.IbNet} with nccl4j;
 * {@link org.nccl4j.net.ib.IbVerbs} says whether it can run here.
 */
package org.nccl4j.net.ib;
