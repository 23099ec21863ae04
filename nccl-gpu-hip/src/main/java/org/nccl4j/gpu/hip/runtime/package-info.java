/**
 * The HIP runtime API ({@code libamdhip64}) through java.lang.foreign: every function the backend
 * calls, declared once with its C prototype ({@link org.nccl4j.gpu.hip.runtime.HipFunction}), so
 * that the descriptors can be checked against the real headers and library.
 */
package org.nccl4j.gpu.hip.runtime;
