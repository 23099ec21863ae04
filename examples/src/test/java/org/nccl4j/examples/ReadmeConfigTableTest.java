package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.param.Param;
import org.nccl4j.core.param.Params;

/** The README's configuration table lists exactly the registered parameters, with their defaults and meanings
 * (and, for knobs the host backend does not apply, why). */
class ReadmeConfigTableTest {
    private static final Pattern ROW = Pattern.compile("^\\| `(NCCL[A-Z0-9_]*)` \\| ([^|]*) \\| (.*) \\|$");

    @Test
    void tableMatchesRegistry() throws IOException {
        Path readme = Path.of(System.getProperty("user.dir")).getParent().resolve("README.md");
        Map<String, String> table = new LinkedHashMap<>();
        for (String line : Files.readAllLines(readme)) {
            Matcher m = ROW.matcher(line);
            if (m.matches()) {
                table.put(m.group(1), m.group(2).strip() + " | " + m.group(3).strip());
            }
        }
        Map<String, String> registry = new LinkedHashMap<>();
        for (Param p : Params.all()) {
            registry.put(p.envName(), (p.defaultValue() == null ? "unset" : p.defaultValue()) + " | " + p.documented());
        }
        assertEquals(registry, table);
    }
}
