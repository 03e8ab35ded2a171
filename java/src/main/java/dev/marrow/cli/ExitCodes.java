// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.BackendUnavailableException;
import picocli.CommandLine;

/** The exit codes of scripts/marrow, defined once. */
public final class ExitCodes {
    private ExitCodes() {
    }

    /** Ran, and every result is valid. */
    public static final int OK = CommandLine.ExitCode.OK;
    /** Ran, but a result is invalid (FAILED rows), or an unexpected error. */
    public static final int FAILED = CommandLine.ExitCode.SOFTWARE;
    /** Bad command line: unknown option, bad value, impossible combination. */
    public static final int USAGE = CommandLine.ExitCode.USAGE;
    /** The backend asked for cannot run on this machine (automake/ctest "skipped" convention). */
    public static final int UNAVAILABLE = 77;

    /** The exit code for an exception that ended a command. */
    public static int of(Throwable t) {
        return t instanceof BackendUnavailableException ? UNAVAILABLE
                : t instanceof CommandLine.ParameterException ? USAGE
                : t instanceof IllegalArgumentException ? USAGE
                : FAILED;
    }
}
