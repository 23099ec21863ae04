package org.nccl4j;

/**
 * The device a rank runs on: which backend drives it and its identity.
 *
 * @param backend the device backend's name: {@code "host"} for CPU ranks, {@code "cuda"},
 *                {@code "hip"}
 * @param index   the device ordinal within its backend on this host (NCCL's {@code cudaDev})
 * @param busId   the PCI bus id ({@code 0000:3b:00.0}) of a GPU, or a host backend's identity
 */
public record Device(String backend, int index, String busId) {
    @Override
    public String toString() {
        return backend + ":" + index + " (" + busId + ")";
    }
}
