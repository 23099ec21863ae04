package org.nccl4j.examples;

import org.nccl4j.Nccl;
import picocli.CommandLine.IVersionProvider;

/** Prints nccl4j's version for {@code --version}. */
final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {Nccl.version().toString()};
    }
}
