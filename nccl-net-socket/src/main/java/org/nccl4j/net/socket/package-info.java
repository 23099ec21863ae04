/**
 * NCCL's {@code Socket} network ({@code ncclNetSocket}) on Netty.
 *
 * <p>{@link org.nccl4j.net.socket.SocketNetProvider} (name {@code "Socket"}, priority 300)
 * creates a {@link org.nccl4j.net.socket.SocketNet}. Each device is one network interface
 * chosen as NCCL chooses it ({@code NCCL_SOCKET_IFNAME}, {@code NCCL_SOCKET_FAMILY}); a
 * connection is one control TCP connection plus {@code NCCL_SOCKET_NTHREADS} ×
 * {@code NCCL_NSOCKS_PERTHREAD} data connections over which large messages are split.
 */
package org.nccl4j.net.socket;
