package org.nccl4j.net.ib;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code NCCL_IB_HCA}: which {@code device[:port]} pairs the IB net may use, with NCCL's list
 * syntax ({@code parseStringList} and {@code matchIfList} of {@code utils.cc}, and the
 * {@code ^}/{@code =} handling of {@code ncclIbInit}):
 * <ul>
 *   <li>comma-separated entries {@code name} or {@code name:port}; at most
 *       {@link #MAX_ENTRIES} entries, each name cut at {@link #MAX_NAME} characters;</li>
 *   <li>a leading {@code ^} excludes what the list matches; after it, a leading {@code =} makes
 *       every entry an exact name instead of a prefix ({@code mlx5_1} also matches
 *       {@code mlx5_11} without it); {@code =^x} is not an exclusion;</li>
 *   <li>a port is parsed like C's {@code atoi}; an entry without one has port -1, and -1 on either
 *       side matches any port;</li>
 *   <li>an empty list matches everything, so {@code "^"} alone excludes everything (NCCL does
 *       the same).</li>
 * </ul>
 */
final class IbHcaFilter {
    /** {@code MAX_IB_DEVS}: entries parsed. */
    static final int MAX_ENTRIES = 16;
    /** Characters of an entry's name kept ({@code char prefix[64]} with its terminator). */
    static final int MAX_NAME = 63;

    /** One entry. */
    record Entry(String name, int port) {
    }

    private static final IbHcaFilter ALL = new IbHcaFilter(null, false, false, List.of());

    private final String text;
    private final boolean exclude;
    private final boolean exact;
    private final List<Entry> entries;

    private IbHcaFilter(String text, boolean exclude, boolean exact, List<Entry> entries) {
        this.text = text;
        this.exclude = exclude;
        this.exact = exact;
        this.entries = entries;
    }

    /**
     * @param value the {@code NCCL_IB_HCA} value, or {@code null} if unset
     * @return the filter
     */
    static IbHcaFilter parse(String value) {
        if (value == null) {
            return ALL;
        }
        String s = value;
        boolean exclude = s.startsWith("^");
        if (exclude) {
            s = s.substring(1);
        }
        boolean exact = s.startsWith("=");
        if (exact) {
            s = s.substring(1);
        }
        return new IbHcaFilter(value, exclude, exact, List.copyOf(parseList(s)));
    }

    /** NCCL's {@code parseStringList}: empty names are dropped, text after {@code :port} ignored. */
    private static List<Entry> parseList(String s) {
        List<Entry> list = new ArrayList<>();
        StringBuilder name = new StringBuilder();
        int i = 0;
        while (list.size() < MAX_ENTRIES && i <= s.length()) {
            char c = i < s.length() ? s.charAt(i) : '\0';
            if (c == ':') {
                int end = s.indexOf(',', i);
                if (end < 0) {
                    end = s.length();
                }
                if (!name.isEmpty()) {
                    list.add(new Entry(name.toString(), atoi(s.substring(i + 1, end))));
                    name.setLength(0);
                }
                i = end;
                continue;
            }
            if (c == ',' || c == '\0') {
                if (!name.isEmpty()) {
                    list.add(new Entry(name.toString(), -1));
                    name.setLength(0);
                }
            } else if (name.length() < MAX_NAME) {
                name.append(c);
            }
            i++;
        }
        return list;
    }

    /** C's {@code atoi}: leading blanks, optional sign, digits; anything else ends it; none is 0. */
    static int atoi(String s) {
        int i = 0;
        while (i < s.length() && " \t\n\u000b\f\r".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        boolean negative = false;
        if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9' && v <= Integer.MAX_VALUE) {
            v = v * 10 + (s.charAt(i) - '0');
            i++;
        }
        v = negative ? -v : v;
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    /**
     * @param device the verbs device name, e.g. {@code mlx5_0}
     * @param port   the port number
     * @return whether the IB net may use that port
     */
    boolean accepts(String device, int port) {
        return matches(device, port) ^ exclude;
    }

    /** NCCL's {@code matchIfList}. */
    private boolean matches(String device, int port) {
        if (entries.isEmpty()) {
            return true;
        }
        for (Entry e : entries) {
            boolean name = exact ? device.equals(e.name()) : device.startsWith(e.name());
            if (name && (port == -1 || e.port() == -1 || port == e.port())) {
                return true;
            }
        }
        return false;
    }

    /** @return whether {@code NCCL_IB_HCA} was set */
    boolean isSet() {
        return text != null;
    }

    List<Entry> entries() {
        return entries;
    }

    boolean exclude() {
        return exclude;
    }

    boolean exact() {
        return exact;
    }

    @Override
    public String toString() {
        return text == null ? "(all)" : text;
    }
}
