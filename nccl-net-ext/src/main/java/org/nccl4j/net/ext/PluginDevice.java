package org.nccl4j.net.ext;

import org.nccl4j.net.spi.NetProperties;

/**
 * One device of a plugin, as its {@code getProperties} described it.
 *
 * @param index      the device index
 * @param properties what the SPI reports
 * @param deviceType {@code ncclNetDeviceType} (v7+): 0 = host, 1 = unpack
 * @param maxBytes   the largest message this adapter posts on the device: {@code INT_MAX}
 *                   (the {@code int} sizes of v4 to v8 and of every version's {@code test}), or
 *                   the plugin's {@code maxP2pBytes} (v9+) if smaller
 */
record PluginDevice(int index, NetProperties properties, int deviceType, long maxBytes) {
}
