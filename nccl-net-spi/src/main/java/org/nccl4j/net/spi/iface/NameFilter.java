package org.nccl4j.net.spi.iface;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * NCCL's interface/device list syntax, used by {@code NCCL_SOCKET_IFNAME} and
 * {@code NCCL_IB_HCA} ({@code parseStringList} + {@code matchIfList}).
 *
 * <p>A comma-separated list of {@code name} or {@code name:port} entries. A leading {@code ^}
 * turns the list into an exclusion list. After the optional {@code ^}, a leading {@code =}
 * makes every entry an exact match; otherwise an entry matches every name it is a prefix of
 * ({@code eth} matches {@code eth0} and {@code eth10}; {@code mlx5_1} also matches
 * {@code mlx5_11}). {@code =^x} is not an exclusion (the {@code ^} must come first). An empty
 * list matches everything (and, with {@code ^}, nothing). Empty entries are skipped, at most
 * {@value #MAX_ENTRIES} entries are read, and entry text is cut at {@value #MAX_ENTRY_LENGTH}
 * characters. A port is read like C's {@code atoi} ({@code eth0:} has port 0); port -1 on either
 * side matches any port.
 *
 * @param exclude whether the list names what to leave out ({@code ^})
 * @param exact   whether entries must equal the name rather than prefix it ({@code =})
 * @param entries the entries, in order
 */
public record NameFilter(boolean exclude, boolean exact, List<Entry> entries) {
    /** Most entries NCCL reads from a list ({@code MAX_IFS}). */
    public static final int MAX_ENTRIES = 16;
    /** Longest entry text NCCL keeps (its buffer holds 64 bytes with the terminator). */
    public static final int MAX_ENTRY_LENGTH = 63;
    /** Port value meaning "any port". */
    public static final int ANY_PORT = -1;

    /**
     * One list entry.
     *
     * @param name the name or name prefix
     * @param port the port, or {@link #ANY_PORT}
     */
    public record Entry(String name, int port) {
        /** @throws NullPointerException if {@code name} is null */
        public Entry {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * Copies the entry list.
     *
     * @throws NullPointerException if {@code entries} is null
     */
    public NameFilter {
        entries = List.copyOf(entries);
    }

    /**
     * Parses a list.
     *
     * @param list the list text, or {@code null} (an empty list)
     * @return the filter
     */
    public static NameFilter parse(String list) {
        if (list == null) {
            return new NameFilter(false, false, List.of());
        }
        int pos = 0;
        boolean exclude = list.startsWith("^");
        if (exclude) {
            pos++;
        }
        boolean exact = list.startsWith("=", pos);
        if (exact) {
            pos++;
        }
        return new NameFilter(exclude, exact, parseEntries(list.substring(pos)));
    }

    /** NCCL's parseStringList: entries end at ',' or end of text; ':' starts a port that runs to the next ','. */
    private static List<Entry> parseEntries(String text) {
        List<Entry> entries = new ArrayList<>();
        StringBuilder name = new StringBuilder();
        int i = 0;
        while (i <= text.length() && entries.size() < MAX_ENTRIES) {
            char c = i < text.length() ? text.charAt(i) : '\0';
            if (c == ':') {
                int end = text.indexOf(',', i);
                if (end < 0) {
                    end = text.length();
                }
                if (!name.isEmpty()) {
                    entries.add(new Entry(name.toString(), atoi(text, i + 1, end)));
                    name.setLength(0);
                }
                i = end + 1;
                continue;
            }
            if (c == ',' || c == '\0') {
                if (!name.isEmpty()) {
                    entries.add(new Entry(name.toString(), ANY_PORT));
                    name.setLength(0);
                }
            } else if (name.length() < MAX_ENTRY_LENGTH) {
                name.append(c);
            }
            i++;
        }
        return entries;
    }

    /** C's atoi over text[from, to): leading blanks, optional sign, digits; 0 when there are none. */
    private static int atoi(String text, int from, int to) {
        int i = from;
        while (i < to && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        boolean negative = false;
        if (i < to && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
            negative = text.charAt(i) == '-';
            i++;
        }
        long value = 0;
        while (i < to && text.charAt(i) >= '0' && text.charAt(i) <= '9' && value <= Integer.MAX_VALUE) {
            value = value * 10 + (text.charAt(i) - '0');
            i++;
        }
        return (int) (negative ? -value : value);
    }

    /**
     * @param name an interface or device name
     * @return whether the filter keeps {@code name} (any port)
     */
    public boolean matches(String name) {
        return matches(name, ANY_PORT);
    }

    /**
     * @param name an interface or device name
     * @param port its port, or {@link #ANY_PORT}
     * @return whether the filter keeps {@code name} on {@code port}
     */
    public boolean matches(String name, int port) {
        return listed(name, port) != exclude;
    }

    /** NCCL's matchIfList: an empty list lists everything. */
    private boolean listed(String name, int port) {
        if (entries.isEmpty()) {
            return true;
        }
        for (Entry e : entries) {
            boolean nameMatches = exact ? name.equals(e.name()) : name.startsWith(e.name());
            boolean portMatches = port == ANY_PORT || e.port() == ANY_PORT || port == e.port();
            if (nameMatches && portMatches) {
                return true;
            }
        }
        return false;
    }

    /** @return the list in NCCL's syntax */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        if (exclude) {
            sb.append('^');
        }
        if (exact) {
            sb.append('=');
        }
        for (int i = 0; i < entries.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(entries.get(i).name());
            if (entries.get(i).port() != ANY_PORT) {
                sb.append(':').append(entries.get(i).port());
            }
        }
        return sb.toString();
    }
}
