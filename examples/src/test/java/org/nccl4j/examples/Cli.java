package org.nccl4j.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs an {@code nccl4j} command in this JVM (ranks as threads) and keeps what it printed. */
final class Cli {
    /**
     * @param exitCode the command's exit code
     * @param lines    its standard output, line by line
     * @param stderr   its standard error
     */
    record Result(int exitCode, List<String> lines, String stderr) {
        String text() {
            return String.join("\n", lines) + "\n" + stderr;
        }
    }

    private Cli() {
    }

    /** Serialised: the command prints to System.out, which is global. */
    static synchronized Result run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code;
        try (PrintStream po = new PrintStream(o, true, StandardCharsets.UTF_8);
             PrintStream pe = new PrintStream(e, true, StandardCharsets.UTF_8)) {
            System.setOut(po);
            System.setErr(pe);
            code = Main.commandLine().execute(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        String text = o.toString(StandardCharsets.UTF_8);
        System.out.print(text); // keep it in the test report
        return new Result(code, text.lines().toList(), e.toString(StandardCharsets.UTF_8));
    }
}
