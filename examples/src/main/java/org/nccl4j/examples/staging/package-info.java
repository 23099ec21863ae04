/**
 * Host memory staged to and from a communicator's device memory, for the examples' {@code --device cuda}:
 * inputs are computed and outputs checked in host memory, collectives run on the device twin.
 */
package org.nccl4j.examples.staging;
