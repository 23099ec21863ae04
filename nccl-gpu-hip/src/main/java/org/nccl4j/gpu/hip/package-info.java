/** The HIP backend's provider, as the engine's device backend selection finds it. */
package org.nccl4j.gpu.hip;
