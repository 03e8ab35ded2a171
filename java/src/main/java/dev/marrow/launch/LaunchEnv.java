// SPDX-License-Identifier: Apache-2.0
package dev.marrow.launch;

import dev.marrow.peer.PeerAddress;

import java.util.Map;
import java.util.Optional;

/**
 * Rank, world size and rendezvous address of a process started by a
 * launcher, read from its environment (docs/design/two-process.md §4).
 * Every rank runs the same command; rank 0 is the initiator: it listens at
 * the rendezvous port and writes the result; rank 1 is the responder and
 * connects to the master address. No MPI library is used: the launchers
 * only tell each process who it is.
 *
 * <p>Sources, first match wins (mpirun under Slurm sets both, and the
 * launcher that started the process is the more specific one):
 * <ol>
 *   <li>torchrun: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT;</li>
 *   <li>Open MPI: OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE;</li>
 *   <li>MPICH / PMI: PMI_RANK, PMI_SIZE; PMIx: PMIX_RANK (size from PMI_SIZE or
 *       the other sources);</li>
 *   <li>Slurm: SLURM_PROCID, SLURM_NTASKS, master = the first host of
 *       SLURM_STEP_NODELIST (else SLURM_JOB_NODELIST).</li>
 * </ol>
 * MASTER_ADDR and MASTER_PORT override the address and port of every source;
 * the port defaults to {@link #DEFAULT_PORT}. Under torchrun itself
 * (TORCHELASTIC_RUN_ID set) MASTER_PORT is taken by torchrun's own store on
 * rank 0's host, so the rendezvous uses MASTER_PORT + 1. MARROW_PORT, when
 * set, is the port in every case.
 *
 * @param source     which launcher's variables were read ("torchrun", "openmpi", "pmi", "pmix", "slurm")
 * @param rank       0 or 1
 * @param size       2
 * @param masterHost the host rank 0 runs on
 * @param port       the rendezvous TCP port on it
 */
public record LaunchEnv(String source, int rank, int size, String masterHost, int port) {
    public static final int DEFAULT_PORT = 29517;

    public LaunchEnv {
        if (size != 2 && size != 1) {
            throw new IllegalArgumentException(source + ": world size " + size + "; a Marrow pair runs as exactly "
                    + "2 ranks (start 2 tasks: srun -n 2, mpirun -np 2, torchrun --nproc-per-node 2)");
        }
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException(source + ": rank " + rank + " outside 0.." + (size - 1));
        }
        if (size == 2 && (masterHost == null || masterHost.isBlank())) {
            throw new IllegalArgumentException(source + ": no master address (set MASTER_ADDR to rank 0's host)");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(source + ": rendezvous port " + port + " outside 1..65535");
        }
    }

    public boolean initiator() {
        return rank == 0;
    }

    /**
     * Rank 0 listens on the master host's address (it runs there: loopback
     * when that is 127.0.0.1, the node's interface on two nodes; never every
     * interface unless the name is not one of this host's addresses,
     * docs/design/two-process.md section 12); rank 1 connects to it.
     */
    public PeerAddress peerAddress() {
        return rank == 0 ? PeerAddress.listen(masterHost, port) : new PeerAddress(masterHost, port);
    }

    /** What the result records about how the pair was started. */
    public Map<String, Object> describe() {
        return Map.of("launcher", source, "rank", rank, "world_size", size, "master", masterHost + ":" + port);
    }

    /**
     * The launcher this process was started by, or empty when none of the
     * variables is set or the launcher started one task (a single process:
     * e.g. the build itself running under srun -n 1).
     */
    public static Optional<LaunchEnv> detect(Map<String, String> env) {
        return read(env).filter(l -> l.size() != 1);
    }

    private static Optional<LaunchEnv> read(Map<String, String> env) {
        String addr = env.get("MASTER_ADDR");
        int port = env.containsKey("MARROW_PORT") ? num(env, "MARROW_PORT")
                : !env.containsKey("MASTER_PORT") ? DEFAULT_PORT
                : num(env, "MASTER_PORT") + (env.containsKey("TORCHELASTIC_RUN_ID") ? 1 : 0);
        if (env.containsKey("RANK") && env.containsKey("WORLD_SIZE")) {
            return Optional.of(new LaunchEnv("torchrun", num(env, "RANK"), num(env, "WORLD_SIZE"), addr, port));
        }
        String slurmMaster = slurmMaster(env);
        String master = addr != null ? addr : slurmMaster;
        if (env.containsKey("OMPI_COMM_WORLD_RANK")) {
            return Optional.of(new LaunchEnv("openmpi", num(env, "OMPI_COMM_WORLD_RANK"),
                    num(env, "OMPI_COMM_WORLD_SIZE"), master, port));
        }
        if (env.containsKey("PMI_RANK")) {
            return Optional.of(new LaunchEnv("pmi", num(env, "PMI_RANK"), num(env, "PMI_SIZE"), master, port));
        }
        if (env.containsKey("PMIX_RANK")) {
            String size = env.containsKey("PMI_SIZE") ? "PMI_SIZE" : env.containsKey("SLURM_NTASKS") ? "SLURM_NTASKS"
                    : "PMIX_SIZE";
            return Optional.of(new LaunchEnv("pmix", num(env, "PMIX_RANK"), num(env, size), master, port));
        }
        if (env.containsKey("SLURM_PROCID") && env.containsKey("SLURM_NTASKS")) {
            return Optional.of(new LaunchEnv("slurm", num(env, "SLURM_PROCID"), num(env, "SLURM_NTASKS"), master,
                    port));
        }
        return Optional.empty();
    }

    private static String slurmMaster(Map<String, String> env) {
        String list = env.getOrDefault("SLURM_STEP_NODELIST", env.get("SLURM_JOB_NODELIST"));
        return list == null || list.isBlank() ? null : firstHost(list);
    }

    /**
     * The first host of a Slurm node list: "node[01-02,05]" gives "node01",
     * "a1,b2" gives "a1", "gpu[3-4]-ib" gives "gpu3-ib". Zero padding of the
     * range's first number is kept.
     */
    public static String firstHost(String nodelist) {
        String s = nodelist.strip();
        int depth = 0;
        int end = s.length();
        for (int i = 0; i < s.length(); i++) { // the first top-level comma ends the first entry
            char c = s.charAt(i);
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            } else if (c == ',' && depth == 0) {
                end = i;
                break;
            }
        }
        String first = s.substring(0, end);
        int open = first.indexOf('[');
        if (open < 0) {
            return requireHost(first, nodelist);
        }
        int close = first.indexOf(']', open);
        if (close < 0) {
            throw new IllegalArgumentException("Slurm node list '" + nodelist + "': '[' without ']'");
        }
        String range = first.substring(open + 1, close);
        String lo = range.split("[,-]", 2)[0].strip();
        if (lo.isEmpty() || !lo.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("Slurm node list '" + nodelist + "': range '" + range
                    + "' does not start with a number");
        }
        return requireHost(first.substring(0, open) + lo + first.substring(close + 1), nodelist);
    }

    private static String requireHost(String h, String list) {
        if (h.isBlank() || h.contains("[") || h.contains("]")) {
            throw new IllegalArgumentException("Slurm node list '" + list + "': cannot read a host name from it");
        }
        return h;
    }

    private static int num(Map<String, String> env, String key) {
        String v = env.get(key);
        if (v == null) {
            throw new IllegalArgumentException(key + " is not set (needed with the other launcher variables)");
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "='" + v + "' is not a number", e);
        }
    }
}
