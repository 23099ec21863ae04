/**
 * The network plugin test kit: abstract JUnit 5 tests that any {@link org.nccl4j.net.spi.Net}
 * must pass, and the helpers they use. Shipped as the {@code nccl-net-spi} test-jar; a plugin
 * extends {@link org.nccl4j.net.spi.testkit.NetTestKit} and implements
 * {@link org.nccl4j.net.spi.testkit.NetTestKit#createNet()}.
 */
package org.nccl4j.net.spi.testkit;
