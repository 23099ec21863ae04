package org.nccl4j.core.topo.tuning;

import org.nccl4j.core.topo.system.Cpu;

/**
 * The first CPU's type as {@code ncclTopoCpuType} reports it, with NCCL's codes ({@code graph.h}).
 *
 * @param arch   {@link Cpu#ARCH_X86}, {@link Cpu#ARCH_POWER}, {@link Cpu#ARCH_ARM}, or 0 if unknown
 * @param vendor {@link Cpu#VENDOR_INTEL}, {@link Cpu#VENDOR_AMD}, {@link Cpu#VENDOR_ZHAOXIN}, or 0
 * @param model  {@link Cpu#TYPE_BDW}, {@link Cpu#TYPE_SKL} (Intel), {@link Cpu#TYPE_YONGFENG} (Zhaoxin), or 0
 */
public record CpuType(int arch, int vendor, int model) {
}
