/**
 * NCCL's network plugin API ({@code ncclNet_v4} with room for later versions) in Java.
 *
 * <p>A plugin ships a {@link org.nccl4j.net.spi.NetProvider} registered for
 * {@link java.util.ServiceLoader} ({@code provides} in {@code module-info.java} and a
 * {@code META-INF/services/org.nccl4j.net.spi.NetProvider} file). nccl4j's initNet tries
 * providers by {@link org.nccl4j.net.spi.NetProvider#priority()}; the first whose
 * {@link org.nccl4j.net.spi.Net#init} succeeds and whose {@link org.nccl4j.net.spi.Net#devices()}
 * is at least 1 carries the communicator's traffic. Run the abstract tests of the test kit
 * ({@code nccl-net-spi} test-jar, class {@code org.nccl4j.net.spi.testkit.NetTestKit}) against
 * your plugin.
 */
package org.nccl4j.net.spi;
