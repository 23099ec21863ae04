/**
 * Native NCCL net plugins ({@code libnccl-net*.so}, {@code ncclNet_v4} to {@code ncclNet_v10})
 * adapted to nccl4j's net SPI through {@code java.lang.foreign}. Found by initNet with priority
 * 100, before IB (200) and Socket (300).
 */
module org.nccl4j.net.ext {
    requires org.nccl4j.net.spi;

    exports org.nccl4j.net.ext;

    provides org.nccl4j.net.spi.NetProvider with org.nccl4j.net.ext.ExtNetProvider;
}
