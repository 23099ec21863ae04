/**
 * The CUDA driver API as nccl4j's CUDA backend uses it: {@link org.nccl4j.gpu.cuda.driver.CudaDriver}
 * (load, devices, primary contexts) and {@link org.nccl4j.gpu.cuda.driver.CudaContext} (memory,
 * streams, events, modules, launches, IPC, peer access), with handles and addresses as {@code long}s.
 */
package org.nccl4j.gpu.cuda.driver;
