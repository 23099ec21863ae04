package org.nccl4j.examples;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code nccl4j} command. */
@Command(name = "nccl4j", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "NCCL's collective communication on the JVM.",
        subcommands = {HelloCommand.class, DoctorCommand.class, CommandLine.HelpCommand.class})
public final class Main {
    private Main() {
    }

    /**
     * @param args command line
     */
    public static void main(String[] args) {
        int code = new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
        System.exit(code);
    }
}
