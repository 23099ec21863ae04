/**
 * What the GPU engine needs of a GPU runtime, whichever vendor's: a device's memory, host memory it
 * maps, copies, streams, events, modules and launches, and IPC handles, all as plain addresses and
 * handles. The CUDA backend's driver context implements it; the HIP backend's is to.
 */
package org.nccl4j.core.device.gpu;
