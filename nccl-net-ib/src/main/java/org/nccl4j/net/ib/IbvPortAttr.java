package org.nccl4j.net.ib;

import jnr.ffi.Runtime;
import jnr.ffi.Struct;

/**
 * {@code struct _compat_ibv_port_attr}: the layout the <em>exported</em> {@code ibv_query_port}
 * symbol fills. It is {@code struct ibv_port_attr} of {@code infiniband/verbs.h} up to and
 * including {@code flags}; newer headers append fields ({@code port_cap_flags2},
 * {@code active_speed_ex}) that only the {@code static inline} wrapper can return.
 * {@code VerbsLayoutTest} checks each offset against the header's {@code ibv_port_attr}.
 */
final class IbvPortAttr extends Struct {
    /** Bytes allocated for a query: more than any rdma-core's full {@code ibv_port_attr}. */
    static final int ALLOCATION = 128;

    /** {@code enum ibv_port_state}. */
    final Signed32 state = new Signed32();
    /** {@code enum ibv_mtu}. */
    final Signed32 maxMtu = new Signed32();
    /** {@code enum ibv_mtu}. */
    final Signed32 activeMtu = new Signed32();
    final Signed32 gidTblLen = new Signed32();
    final Unsigned32 portCapFlags = new Unsigned32();
    final Unsigned32 maxMsgSz = new Unsigned32();
    final Unsigned32 badPkeyCntr = new Unsigned32();
    final Unsigned32 qkeyViolCntr = new Unsigned32();
    final Unsigned16 pkeyTblLen = new Unsigned16();
    final Unsigned16 lid = new Unsigned16();
    final Unsigned16 smLid = new Unsigned16();
    final Unsigned8 lmc = new Unsigned8();
    final Unsigned8 maxVlNum = new Unsigned8();
    final Unsigned8 smSl = new Unsigned8();
    final Unsigned8 subnetTimeout = new Unsigned8();
    final Unsigned8 initTypeReply = new Unsigned8();
    final Unsigned8 activeWidth = new Unsigned8();
    final Unsigned8 activeSpeed = new Unsigned8();
    final Unsigned8 physState = new Unsigned8();
    final Unsigned8 linkLayer = new Unsigned8();
    final Unsigned8 flags = new Unsigned8();

    IbvPortAttr(Runtime runtime) {
        super(runtime);
    }
}
