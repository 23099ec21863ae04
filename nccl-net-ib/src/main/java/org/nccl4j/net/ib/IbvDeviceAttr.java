package org.nccl4j.net.ib;

import jnr.ffi.NativeType;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;

/**
 * {@code struct ibv_device_attr} from {@code infiniband/verbs.h}, every field in declaration order
 * so jnr-ffi computes the C offsets and size. {@code VerbsLayoutTest} checks them against the
 * header with a C probe compiled by gcc.
 */
final class IbvDeviceAttr extends Struct {
    final UTF8String fwVer = new UTF8String(64);
    /** {@code __be64}: big-endian on the wire; read raw like NCCL. */
    final Unsigned64 nodeGuid = new Unsigned64();
    /** {@code __be64}: kept as the raw 64-bit value, as NCCL stores it in {@code ncclIbDev.guid}. */
    final Unsigned64 sysImageGuid = new Unsigned64();
    final Unsigned64 maxMrSize = new Unsigned64();
    final Unsigned64 pageSizeCap = new Unsigned64();
    final Unsigned32 vendorId = new Unsigned32();
    final Unsigned32 vendorPartId = new Unsigned32();
    final Unsigned32 hwVer = new Unsigned32();
    final Signed32 maxQp = new Signed32();
    final Signed32 maxQpWr = new Signed32();
    final Unsigned32 deviceCapFlags = new Unsigned32();
    final Signed32 maxSge = new Signed32();
    final Signed32 maxSgeRd = new Signed32();
    final Signed32 maxCq = new Signed32();
    final Signed32 maxCqe = new Signed32();
    final Signed32 maxMr = new Signed32();
    final Signed32 maxPd = new Signed32();
    final Signed32 maxQpRdAtom = new Signed32();
    final Signed32 maxEeRdAtom = new Signed32();
    final Signed32 maxResRdAtom = new Signed32();
    final Signed32 maxQpInitRdAtom = new Signed32();
    final Signed32 maxEeInitRdAtom = new Signed32();
    /** {@code enum ibv_atomic_cap}. */
    final Signed32 atomicCap = new Signed32();
    final Signed32 maxEe = new Signed32();
    final Signed32 maxRdd = new Signed32();
    final Signed32 maxMw = new Signed32();
    final Signed32 maxRawIpv6Qp = new Signed32();
    final Signed32 maxRawEthyQp = new Signed32();
    final Signed32 maxMcastGrp = new Signed32();
    final Signed32 maxMcastQpAttach = new Signed32();
    final Signed32 maxTotalMcastQpAttach = new Signed32();
    final Signed32 maxAh = new Signed32();
    final Signed32 maxFmr = new Signed32();
    final Signed32 maxMapPerFmr = new Signed32();
    final Signed32 maxSrq = new Signed32();
    final Signed32 maxSrqWr = new Signed32();
    final Signed32 maxSrqSge = new Signed32();
    final Unsigned16 maxPkeys = new Unsigned16();
    final Unsigned8 localCaAckDelay = new Unsigned8();
    final Unsigned8 physPortCnt = new Unsigned8();
    /**
     * C pads the struct to its 8-byte alignment (sizeof 232); jnr-ffi does not add trailing
     * padding by itself, and {@code ibv_query_device} writes all 232 bytes.
     */
    private final Padding tailPadding = new Padding(NativeType.UCHAR, 4);

    IbvDeviceAttr(Runtime runtime) {
        super(runtime);
    }
}
