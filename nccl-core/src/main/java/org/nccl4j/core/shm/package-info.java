/**
 * Shared-memory segments under {@code /dev/shm} that the ranks of one host map: the host SHM
 * transport's buffers, and a device backend's host-pinned connection memory.
 */
package org.nccl4j.core.shm;
