// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * The README's first command: what this machine can run, then the software
 * NIC's message rate and put+completion latency with a CPU producer.
 */
@Command(name = "quickstart", mixinStandardHelpOptions = true,
        description = "Doctor, then a short software-NIC run: message rate at 1/16/32 WQEs per doorbell and "
                + "put+completion latency of an 8-byte write (EMULATED NIC).")
public final class QuickstartCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine root = spec.root().commandLine();
        int rc = root.execute("doctor");
        if (rc != 0) {
            return rc;
        }
        spec.commandLine().getOut().println();
        rc = root.execute("softnic", "rate", "--size", "8", "--batch", "1,16,32", "--messages", "2000000",
                "--repeats", "3");
        if (rc != 0) {
            return rc;
        }
        spec.commandLine().getOut().println();
        return root.execute("softnic", "latency", "--size", "8", "--iters", "50000");
    }
}
