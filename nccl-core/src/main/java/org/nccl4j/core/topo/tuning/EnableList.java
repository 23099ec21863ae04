package org.nccl4j.core.topo.tuning;

import java.util.Arrays;

/** NCCL's {@code parseList} for {@code NCCL_PROTO} and {@code NCCL_ALGO}. */
public final class EnableList {
    private EnableList() {
    }

    /**
     * Parses a comma list of names (case-insensitive, exact). A leading {@code ^} enables every
     * element except the listed ones; otherwise only the listed ones are enabled. Unknown names
     * are ignored.
     *
     * @param text  the list
     * @param names the elements' names, by code
     * @return {@code 1} (enabled) or {@code 0} per element
     */
    public static int[] parse(String text, String[] names) {
        int def = 0;
        int set = 1;
        String s = text;
        if (s.startsWith("^")) {
            def = 1;
            set = 0;
            s = s.substring(1);
        }
        int[] list = new int[names.length];
        Arrays.fill(list, def);
        for (String token : s.split(",")) {
            if (token.isEmpty()) {
                continue;
            }
            for (int i = 0; i < names.length; i++) {
                if (token.equalsIgnoreCase(names[i])) {
                    list[i] = set;
                }
            }
        }
        return list;
    }
}
