/**
 * The kernels this module ships: a clang offload bundle of AMD GPU code objects, one per target,
 * and a reader that lists each code object's kernels.
 */
package org.nccl4j.gpu.hip.codeobject;
