/** The service interface an nccl4j implementation provides to {@link org.nccl4j.Nccl}. */
package org.nccl4j.spi;
