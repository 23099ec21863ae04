/**
 * nccl4j's CUDA device backend: {@link org.nccl4j.gpu.cuda.CudaBackendProvider}, found by
 * {@code ServiceLoader} and chosen before the host backend where a usable NVIDIA GPU is.
 */
package org.nccl4j.gpu.cuda;
