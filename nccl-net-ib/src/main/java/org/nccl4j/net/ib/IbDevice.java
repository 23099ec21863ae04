package org.nccl4j.net.ib;

import jnr.ffi.Pointer;

/**
 * One usable (device, port) pair, NCCL's {@code struct ncclIbDev}: each becomes one net device.
 *
 * @param index    the verbs device's index in {@code ibv_get_device_list}
 * @param name     the verbs device name, e.g. {@code mlx5_0}
 * @param port     the verbs port number (1-based)
 * @param link     {@code IBV_LINK_LAYER_INFINIBAND} or {@code IBV_LINK_LAYER_ETHERNET}
 * @param speed    Mbps, from {@link IbSpeed}
 * @param guid     {@code sys_image_guid}, raw
 * @param pciPath  the merged PCI path (last character {@code 0}), or {@code null} if sysfs has none
 * @param realPort how many earlier devices share {@code pciPath}
 * @param maxQp    {@code max_qp}
 * @param context  the open {@code ibv_context}, shared by the ports of one device
 */
record IbDevice(int index, String name, int port, int link, int speed, long guid, String pciPath, int realPort,
                int maxQp, Pointer context) {

    /** @return {@code IB} or {@code RoCE}, as NCCL prints the link layer */
    String linkName() {
        return link == Verbs.IBV_LINK_LAYER_INFINIBAND ? "IB" : "RoCE";
    }
}
