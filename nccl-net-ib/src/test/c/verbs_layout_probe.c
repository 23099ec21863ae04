/*
 * Prints the layout of the libibverbs structs nccl4j's IB net reads, as the system's
 * <infiniband/verbs.h> declares it: one "name value" pair a line. VerbsLayoutTest compiles it
 * with gcc and compares every line with the offsets jnr-ffi computes for IbvDeviceAttr and
 * IbvPortAttr.
 */
#include <stddef.h>
#include <stdio.h>
#include <infiniband/verbs.h>

#define OFF(type, field) printf("%s.%s %zu\n", #type, #field, offsetof(struct type, field))

int main(void) {
    printf("ibv_device_attr.sizeof %zu\n", sizeof(struct ibv_device_attr));
    OFF(ibv_device_attr, fw_ver);
    OFF(ibv_device_attr, node_guid);
    OFF(ibv_device_attr, sys_image_guid);
    OFF(ibv_device_attr, vendor_id);
    OFF(ibv_device_attr, max_qp);
    OFF(ibv_device_attr, atomic_cap);
    OFF(ibv_device_attr, max_pkeys);
    OFF(ibv_device_attr, local_ca_ack_delay);
    OFF(ibv_device_attr, phys_port_cnt);

    /* The exported ibv_query_port fills struct _compat_ibv_port_attr, which verbs.h only
     * forward-declares: it is ibv_port_attr up to and including flags. */
    printf("ibv_port_attr.sizeof %zu\n", sizeof(struct ibv_port_attr));
    printf("ibv_port_attr.alignof %zu\n", _Alignof(struct ibv_port_attr));
    OFF(ibv_port_attr, state);
    OFF(ibv_port_attr, max_mtu);
    OFF(ibv_port_attr, active_mtu);
    OFF(ibv_port_attr, gid_tbl_len);
    OFF(ibv_port_attr, pkey_tbl_len);
    OFF(ibv_port_attr, lid);
    OFF(ibv_port_attr, sm_lid);
    OFF(ibv_port_attr, active_width);
    OFF(ibv_port_attr, active_speed);
    OFF(ibv_port_attr, phys_state);
    OFF(ibv_port_attr, link_layer);
    OFF(ibv_port_attr, flags);

    printf("enum.IBV_PORT_ACTIVE %d\n", (int) IBV_PORT_ACTIVE);
    printf("enum.IBV_LINK_LAYER_UNSPECIFIED %d\n", (int) IBV_LINK_LAYER_UNSPECIFIED);
    printf("enum.IBV_LINK_LAYER_INFINIBAND %d\n", (int) IBV_LINK_LAYER_INFINIBAND);
    printf("enum.IBV_LINK_LAYER_ETHERNET %d\n", (int) IBV_LINK_LAYER_ETHERNET);
    return 0;
}
