// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.Environment;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of scripts/marrow. Only main() calls System.exit. Every exit
 * code and error line follows one contract, docs/design/cli-errors.md:
 * usage errors exit 2 with one line and "see 'marrow CMD --help'", an
 * unavailable backend 77, any other failure 1 with its cause, a run with no
 * record 1; no stack trace (Errors included) without -Dmarrow.debug=true.
 * {@link CliErrors} implements it.
 */
@Command(name = "marrow", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Dissects GPU-initiated communication: mini-gda, mini-proxy, the software NIC and DSM.",
        subcommands = {DoctorCommand.class, QuickstartCommand.class, SoftnicCommand.class, DsmCommand.class, GdaCommand.class,
                ProxyCommand.class, PresetsCommand.class, KernelCostCommand.class, MergeRunsCommand.class, ReportCommand.class,
                PreflightCommand.class, CompareCommand.class, PaperCommand.class,
                CommandLine.HelpCommand.class})
public final class Main {
    /** Exit code for "backend unavailable" ({@link ExitCodes#UNAVAILABLE}). */
    public static final int EXIT_UNAVAILABLE = ExitCodes.UNAVAILABLE;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        return CliErrors.install(new CommandLine(new Main()));
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"marrow " + Environment.version()};
        }
    }
}
