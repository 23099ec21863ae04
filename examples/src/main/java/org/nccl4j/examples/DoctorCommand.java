package org.nccl4j.examples;

import java.util.concurrent.Callable;
import org.nccl4j.core.diag.Doctor;
import org.nccl4j.core.param.Config;
import picocli.CommandLine.Command;

/** {@code nccl4j doctor}: what nccl4j sees and would choose, and why. */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = "Print the JDK, nccl4j version, interfaces, net plugins, device backends and every parameter, with reasons.")
final class DoctorCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        Doctor.report(Config.global()).forEach(System.out::println);
        return 0;
    }
}
