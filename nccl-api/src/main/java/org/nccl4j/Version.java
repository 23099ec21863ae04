package org.nccl4j;

/**
 * The version of nccl4j and of the NCCL release whose behaviour it ports.
 *
 * @param nccl4j   nccl4j's own version, e.g. {@code 0.1.0-SNAPSHOT}
 * @param ncclCode the ported NCCL's version code ({@code ncclGetVersion}), e.g. {@code 21003}
 */
public record Version(String nccl4j, int ncclCode) {
    /** @return the NCCL version as {@code major.minor.patch} */
    public String ncclVersion() {
        return ncclCode / 10000 + "." + ncclCode / 100 % 100 + "." + ncclCode % 100;
    }

    @Override
    public String toString() {
        return "nccl4j " + nccl4j + " (NCCL " + ncclVersion() + ")";
    }
}
