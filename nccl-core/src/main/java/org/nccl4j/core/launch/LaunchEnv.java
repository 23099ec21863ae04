package org.nccl4j.core.launch;

import java.util.Map;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * A rank as a launcher describes it through environment variables.
 *
 * @param rank     this process's rank
 * @param nranks   number of ranks
 * @param launcher which variables described it, e.g. {@code OMPI_COMM_WORLD_RANK/SIZE}
 * @param uniqueId the printable unique id from {@code NCCL4J_UNIQUE_ID} (nccl4j's launcher),
 *                 or {@code null}
 * @param root     otherwise the bootstrap root as {@code host:port} ({@code NCCL_COMM_ID} or
 *                 {@code MASTER_ADDR:MASTER_PORT})
 */
public record LaunchEnv(int rank, int nranks, String launcher, String uniqueId, String root) {
    private static final String[][] LAUNCHERS = {
        {"NCCL4J_RANK", "NCCL4J_NRANKS", "nccl4j"},
        {"RANK", "WORLD_SIZE", "torchrun"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"},
        {"SLURM_PROCID", "SLURM_NTASKS", "Slurm"},
        {"PMI_RANK", "PMI_SIZE", "PMI"},
    };

    /**
     * Reads the first launcher whose variables are present, in the order nccl4j, torchrun,
     * Open MPI, Slurm, PMI.
     *
     * @param env    the environment
     * @param commId {@code NCCL_COMM_ID} with nccl4j's precedence, or {@code null}
     * @return the rank's description
     * @throws NcclException with {@link Result#INVALID_USAGE} if no launcher describes a rank, or
     *     no root is given; {@link Result#INVALID_ARGUMENT} if a value is malformed
     */
    public static LaunchEnv detect(Map<String, String> env, String commId) {
        for (String[] l : LAUNCHERS) {
            String r = env.get(l[0]);
            String n = env.get(l[1]);
            if (r == null || n == null) {
                continue;
            }
            String what = l[2] + " (" + l[0] + "=" + r + ", " + l[1] + "=" + n + ")";
            int rank = parse(l[0], r);
            int nranks = parse(l[1], n);
            String uid = env.get("NCCL4J_UNIQUE_ID");
            String root = uid != null ? null : commId;
            if (uid == null && root == null) {
                String addr = env.get("MASTER_ADDR");
                String port = env.get("MASTER_PORT");
                if (addr != null && port != null) {
                    root = (addr.contains(":") && !addr.startsWith("[") ? "[" + addr + "]" : addr) + ":" + port;
                }
            }
            if (uid == null && root == null) {
                throw NcclException.of(Result.INVALID_USAGE, "launcher " + what + " found but no bootstrap root",
                        "set NCCL_COMM_ID=<host>:<port> or MASTER_ADDR and MASTER_PORT to an address of rank 0's host");
            }
            return new LaunchEnv(rank, nranks, what, uid, root);
        }
        throw NcclException.of(Result.INVALID_USAGE, "no launcher variables found",
                "set NCCL4J_RANK/NCCL4J_NRANKS, RANK/WORLD_SIZE (torchrun), OMPI_COMM_WORLD_RANK/SIZE (mpirun), "
                        + "SLURM_PROCID/SLURM_NTASKS or PMI_RANK/PMI_SIZE, plus NCCL_COMM_ID or MASTER_ADDR/MASTER_PORT");
    }

    private static int parse(String name, String value) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw NcclException.of(Result.INVALID_ARGUMENT, name + "=" + value + " is not an integer", null);
        }
    }
}
