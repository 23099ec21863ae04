/**
 * NCCL's bootstrap: the unique id ({@link org.nccl4j.core.bootstrap.BootstrapId}), the root that
 * ranks meet at ({@link org.nccl4j.core.bootstrap.BootstrapRoot}) and each rank's out-of-band
 * TCP network for init-time all-gathers, tagged messages and barriers
 * ({@link org.nccl4j.core.bootstrap.Bootstrap}). Plain java.nio socket channels; every wait has a
 * deadline and observes the communicator's abort flag.
 */
package org.nccl4j.core.bootstrap;
