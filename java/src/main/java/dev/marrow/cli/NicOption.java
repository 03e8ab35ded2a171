// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.fabric.Nic;
import picocli.CommandLine.Option;

/**
 * --nic of the experiments whose queues come from the fabric (dev.marrow.fabric.Fabric): the
 * words are the fabric's NICs, so every such command lists the same ones. Whether this machine
 * has the NIC is the fabric's check (exit 77 with the reason), made before the first point.
 */
final class NicOption {
    @Option(names = "--nic", defaultValue = "softnic", converter = CliNames.GdaNics.class,
            completionCandidates = CliNames.GdaNics.class,
            description = "${COMPLETION-CANDIDATES}: the NIC behind the queues (softnic: the software NIC, EMULATED; "
                    + "mlx5: a ConnectX through verbs/mlx5dv, GPU posters only, exit 77 without one). "
                    + "Default: ${DEFAULT-VALUE}")
    Nic nic = Nic.SOFTNIC;
}
