/**
 * Native libraries nccl4j loads itself: {@code dlopen} with
 * {@code dlerror}'s own words (net plugins, the CUDA driver, the HIP runtime), and bounded reads
 * of the C strings they return.
 */
package org.nccl4j.net.spi.nativelib;
