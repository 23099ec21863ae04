package org.nccl4j.core.topo.detection;

import java.util.Locale;

/**
 * What NCCL reads with {@code cpuid} for a {@code <cpu>} element, taken from
 * {@code /proc/cpuinfo} instead (a JVM cannot run {@code cpuid}), converted so that the values
 * equal NCCL's: {@code familyid} = base family + (extended family << 4), i.e. Linux's
 * {@code cpu family} when below 15 and {@code 15 + ((family - 15) << 4)} above (AMD Zen 2:
 * 23 becomes 143); {@code modelid} = Linux's {@code model}, which already includes the extended
 * model.
 *
 * @param arch     "x86_64", "arm64" or "ppc64"
 * @param vendor   {@code vendor_id} (x86 only, else {@code null})
 * @param familyId NCCL's family id (x86 only, else -1)
 * @param modelId  NCCL's model id (x86 only, else -1)
 */
public record CpuIdentity(String arch, String vendor, int familyId, int modelId) {

    /**
     * @param cpuinfo the text of {@code /proc/cpuinfo}
     * @param osArch  {@code os.arch}
     * @return the identity
     */
    public static CpuIdentity parse(String cpuinfo, String osArch) {
        String arch = arch(osArch);
        if (!"x86_64".equals(arch)) {
            return new CpuIdentity(arch, null, -1, -1);
        }
        String vendor = field(cpuinfo, "vendor_id");
        int family = intField(cpuinfo, "cpu family");
        int model = intField(cpuinfo, "model");
        int familyId = family < 15 ? family : 15 + ((family - 15) << 4);
        return new CpuIdentity(arch, vendor, familyId, model);
    }

    /**
     * @param osArch {@code os.arch}
     * @return NCCL's arch string
     */
    static String arch(String osArch) {
        String a = osArch.toLowerCase(Locale.ROOT);
        if (a.equals("amd64") || a.equals("x86_64")) {
            return "x86_64";
        }
        if (a.equals("aarch64") || a.equals("arm64")) {
            return "arm64";
        }
        if (a.startsWith("ppc64")) {
            return "ppc64";
        }
        return a;
    }

    private static String field(String cpuinfo, String key) {
        for (String line : cpuinfo.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
                return line.substring(colon + 1).trim();
            }
        }
        return null;
    }

    private static int intField(String cpuinfo, String key) {
        String v = field(cpuinfo, key);
        try {
            return v == null ? 0 : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
