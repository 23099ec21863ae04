/** The CUDA kernels' entry points, as the backend names them. */
package org.nccl4j.gpu.cuda.kernel;
