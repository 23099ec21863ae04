/**
 * The GPU backends' engine, written against {@link org.nccl4j.core.device.gpu.GpuRuntime}:
 * channels' connections in device, host-mapped, SHM and NET memory, the kernels' argument
 * structs, one launch per group, streams, completions and the kernel watchdog. Moved here from
 * the CUDA backend so that the HIP backend runs the same Java.
 */
package org.nccl4j.core.device.gpu.engine;
