package org.nccl4j.core.param;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An {@code nccl.conf} file: {@code NAME=VALUE} lines split at the first {@code =}; lines without
 * one, blank lines and {@code #} comments are skipped; a trailing {@code \r} is dropped (NCCL 2.23).
 *
 * @param path    where it was read from
 * @param entries name to value, in file order; empty if the file does not exist
 */
public record ConfFile(Path path, Map<String, String> entries) {
    /**
     * @param path the file
     * @return its entries; empty if it is missing or unreadable
     */
    public static ConfFile read(Path path) {
        Map<String, String> map = new LinkedHashMap<>();
        if (path != null && Files.isReadable(path)) {
            try {
                for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
                    if (line.endsWith("\r")) {
                        line = line.substring(0, line.length() - 1);
                    }
                    int eq = line.indexOf('=');
                    if (line.startsWith("#") || eq <= 0) {
                        continue;
                    }
                    map.putIfAbsent(line.substring(0, eq).strip(), line.substring(eq + 1));
                }
            } catch (IOException e) {
                map.clear();
            }
        }
        return new ConfFile(path, Collections.unmodifiableMap(map));
    }
}
