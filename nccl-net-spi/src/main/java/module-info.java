/**
 * The network plugin SPI: NCCL's {@code ncclNet} and {@code ncclCollNet} in Java. Plugins
 * implement {@link org.nccl4j.net.spi.NetProvider} and are found with {@link java.util.ServiceLoader}.
 * {@link org.nccl4j.net.spi.iface} holds NCCL's network interface selection, shared by nccl4j's
 * bootstrap and by plugins; {@link org.nccl4j.net.spi.auth} the shared-secret authentication of
 * connections ({@code NCCL4J_AUTH_KEY}) that bootstrap and the Socket net use;
 * {@link org.nccl4j.net.spi.nativelib} {@code dlopen} with {@code dlerror}'s words, for native
 * net plugins and the GPU runtimes (native access: {@code --enable-native-access=org.nccl4j.net.spi}).
 */
module org.nccl4j.net.spi {
    exports org.nccl4j.net.spi;
    exports org.nccl4j.net.spi.iface;
    exports org.nccl4j.net.spi.auth;
    exports org.nccl4j.net.spi.nativelib;
}
