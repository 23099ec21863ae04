package org.nccl4j.core.device;

import org.nccl4j.core.topo.xml.CNum;

/**
 * The device a rank runs on, before the ranks have met.
 *
 * @param backend  the backend's name
 * @param index    the device ordinal on this host, or -1 when the backend assigns it after
 *                 the ranks have met (host backend: the rank's index among the host's ranks)
 * @param busId    NCCL's int64 PCI bus id; two ranks of one host with the same bus id share a
 *                 device, which NCCL refuses
 * @param busIdText the printable bus id
 */
public record LocalDevice(String backend, int index, long busId, String busIdText) {
    /**
     * @param backend   the backend's name
     * @param index     the GPU's ordinal in this process
     * @param busIdText its PCI bus id as the runtime prints it ({@code 0000:c1:00.0})
     * @return the GPU, its numeric bus id read as NCCL's {@code busIdToInt64} reads it
     */
    public static LocalDevice gpu(String backend, int index, String busIdText) {
        return new LocalDevice(backend, index, busIdOf(busIdText), busIdText);
    }

    /**
     * A rank of a GPU that other ranks share ({@code NCCL4J_SHARED_DEVICE=1}): NCCL refuses two
     * ranks with one bus id, so each gets an identity of its own ({@link SharedDeviceId}).
     *
     * @param backend   the backend's name
     * @param index     the GPU's ordinal in this process
     * @param busIdText its PCI bus id as the runtime prints it
     * @return the rank's device, numbered after this process's shared ranks before it
     */
    public static LocalDevice sharedGpu(String backend, int index, String busIdText) {
        long id = SharedDeviceId.of(busIdOf(busIdText), ProcessHandle.current().pid(), SharedDeviceId.nextCount());
        return new LocalDevice(backend, index, id, busIdText);
    }

    /**
     * @param busIdText a bus id as the runtime prints it ({@code 0000:c1:00.0})
     * @return it as NCCL's {@code busIdToInt64} reads it
     */
    public static long busIdOf(String busIdText) {
        return CNum.busIdToInt64(busIdText);
    }

    /**
     * @param busId a numeric bus id
     * @return it as NCCL's {@code int64ToBusId} prints it ({@code 0000:c1:00.0})
     */
    public static String busIdText(long busId) {
        return CNum.int64ToBusId(busId);
    }
}
