/**
 * What the GPU backends share about their kernels: the entry names they launch, and a reader of
 * the symbols of the ELF images their compilers emit (cubins, AMD GPU code objects).
 */
package org.nccl4j.core.device.kernel;
