package org.nccl4j.examples;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
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
        return launch(nranks, args, options, new DeviceOption(), Map.of(), output -> 0);
    }

    /**
     * @param nranks  number of rank JVMs
     * @param args    the subcommand and its arguments each rank runs
     * @param options deadline
     * @param device  the ranks' device: its option goes to every rank, with the rank's GPU
     * @param exits   exit codes other than 0 that ranks are to end with, by rank (a rank killed on purpose)
     * @param judge   once every rank succeeded: the exit code their output lines (by rank) deserve
     * @return the judge's code if every rank succeeded, else 1
     * @throws org.nccl4j.NcclException at once when the device cannot run here
     */
    static int launch(int nranks, List<String> args, RankOptions options, DeviceOption device,
                      Map<Integer, Integer> exits, ToIntFunction<List<List<String>>> judge) {
        IntFunction<Map<String, String>> env = device.rankEnv(nranks, System.out);
        List<String> all = new ArrayList<>(args);
        all.addAll(device.childOptions());
        try {
            LocalLauncher launcher = new LocalLauncher(Main.class.getName(), all);
            exits.forEach(launcher::expectExit);
            LocalLauncher.Outcome out = launcher
                    .envPerRank(env)
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
