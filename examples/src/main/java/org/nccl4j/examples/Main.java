package org.nccl4j.examples;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code nccl4j} command. */
@Command(name = "nccl4j", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "NCCL's collective communication on the JVM.",
        subcommands = {HelloCommand.class, PerfCommand.class, TrainCommand.class, SoakCommand.class, DoctorCommand.class, TopoCommand.class,
                CommandLine.HelpCommand.class})
public final class Main {
    private Main() {
    }

    /**
     * @param args command line
     */
    public static void main(String[] args) {
        int code = commandLine().execute(args);
        ExitHold.hold();
        System.exit(code);
    }

    /** @return the command line parser of {@code nccl4j}, for {@link #main} and in-process tests */
    static CommandLine commandLine() {
        return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
    }
}
