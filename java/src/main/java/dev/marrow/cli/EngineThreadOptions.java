// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import picocli.CommandLine.Option;

/**
 * The software NIC's engine threads as the gda commands take them
 * (gda rate, gda goodput, gda loaded): how many, and where each is pinned.
 * QPs are sharded over the threads by QPN unless a command places them
 * (gda loaded: --probe-engine; docs/design/software-nic.md).
 */
final class EngineThreadOptions {
    @Option(names = "--engine-threads", defaultValue = "1", description = "Software NIC engine threads, 1..64 (QPs are sharded over them). Default: ${DEFAULT-VALUE}")
    int engineThreads;

    @Option(names = "--engine-cpus", split = ",", description = "Pin engine thread i to the i-th CPU (one per engine thread; -1: not pinned). Default: not pinned")
    int[] engineCpus;
}
