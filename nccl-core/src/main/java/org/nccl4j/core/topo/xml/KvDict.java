package org.nccl4j.core.topo.xml;

import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/**
 * NCCL's {@code struct kvDict} string/int dictionaries. Lookup by string is a prefix match in
 * table order ({@code strncmp(str, key, strlen(key))}), falling back to the table's default.
 */
public final class KvDict {
    /** {@code kvDictPciClass}: PCI class → node type (GPU 0, PCI 1, NVS 2, CPU 3, NIC 4); default PCI. */
    public static final KvDict PCI_CLASS = new KvDict(new String[] {"0x060400", "0x068000", "0x068001", "0x03", "0x02"},
            new int[] {1, 2, 3, 0, 4}, 1);
    /** {@code kvDictPciGen}: link speed → 100 Mbps per lane; default 60 (gen3). */
    public static final KvDict PCI_GEN = new KvDict(new String[] {"2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s"},
            new int[] {15, 30, 60, 120}, 60);
    /** {@code kvDictCpuArch}: x86_64 1, arm64 3, ppc64 2; default 0. */
    public static final KvDict CPU_ARCH = new KvDict(new String[] {"x86_64", "arm64", "ppc64"}, new int[] {1, 3, 2}, 0);
    /** {@code kvDictCpuVendor}: Intel 1, AMD 2, Zhaoxin 3; default 0. */
    public static final KvDict CPU_VENDOR = new KvDict(
            new String[] {"GenuineIntel", "AuthenticAMD", "CentaurHauls", "  Shanghai  "}, new int[] {1, 2, 3, 3}, 0);
    /** {@code kvDictLinkType} of graph files: path type names → path type codes; default 0. */
    public static final KvDict PATH_TYPE = new KvDict(new String[] {"SYS", "PHB", "PIX", "PXB", "NVL", "NVB", "LOC"},
            new int[] {6, 5, 3, 4, 1, 2, 0}, 0);

    private final String[] keys;
    private final int[] values;
    private final int fallback;

    private KvDict(String[] keys, int[] values, int fallback) {
        this.keys = keys;
        this.values = values;
        this.fallback = fallback;
    }

    /**
     * {@code kvConvertToInt}.
     *
     * @param str the text ({@code null} behaves as no match)
     * @return the value of the first key that prefixes {@code str}, else the default
     */
    public int toInt(String str) {
        if (str != null) {
            for (int i = 0; i < keys.length; i++) {
                if (str.startsWith(keys[i])) {
                    return values[i];
                }
            }
        }
        Log.info(Subsys.GRAPH, "KV Convert to int : could not find value of '%s' in dictionary, falling back to %d", str, fallback);
        return fallback;
    }

    /**
     * {@code kvConvertToStr}.
     *
     * @param value a value
     * @return the first key with that value
     * @throws NcclException INTERNAL_ERROR when none
     */
    public String toStr(int value) {
        for (int i = 0; i < keys.length; i++) {
            if (values[i] == value) {
                return keys[i];
            }
        }
        throw NcclException.of(Result.INTERNAL_ERROR, "KV Convert to str : could not find value " + value + " in dictionary", null);
    }
}
