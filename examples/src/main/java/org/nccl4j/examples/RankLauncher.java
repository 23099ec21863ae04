package org.nccl4j.examples;

import java.io.IOException;
import java.util.List;
import java.util.function.ToIntFunction;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;

/** Runs a subcommand as N local rank JVMs with nccl4j's launcher. */
final class RankLauncher {
    private RankLauncher() {
    }

    /**
     * @param nranks  number of rank JVMs
     * @param args    the subcommand and its arguments each rank runs
     * @param options deadline
     * @return 0 if every rank succeeded, else 1
     */
    static int launch(int nranks, List<String> args, RankOptions options) {
        return launch(nranks, args, options, output -> 0);
    }

    /**
     * @param nranks  number of rank JVMs
     * @param args    the subcommand and its arguments each rank runs
     * @param options deadline
     * @param judge   once every rank succeeded: the exit code their output lines (by rank) deserve
     * @return the judge's code if every rank succeeded, else 1
     */
    static int launch(int nranks, List<String> args, RankOptions options, ToIntFunction<List<List<String>>> judge) {
        try {
            LocalLauncher.Outcome out = new LocalLauncher(Main.class.getName(), args)
                    .echo(System.out, false)
                    .run(nranks, Nccl.getUniqueId().toString(), options.timeout);
            if (out.success()) {
                return judge.applyAsInt(out.output());
            }
            System.err.println(out.timedOut() ? "ranks did not finish within " + options.timeout
                    : "rank exit codes: " + java.util.Arrays.toString(out.exitCodes()));
            return 1;
        } catch (IOException e) {
            System.err.println("cannot start rank JVMs: " + e.getMessage());
            return 1;
        }
    }
}
