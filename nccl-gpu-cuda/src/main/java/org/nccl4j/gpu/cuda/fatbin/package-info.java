/**
 * The fatbin container nvcc writes (PTX and ELF entries per architecture) and the kernels
 * shipped in this module's jar.
 */
package org.nccl4j.gpu.cuda.fatbin;
