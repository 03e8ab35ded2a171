// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.BackendUnavailableException;
import dev.marrow.results.Environment;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of scripts/marrow. Only main() calls System.exit. */
@Command(name = "marrow", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Dissects GPU-initiated communication: mini-gda, mini-proxy, the software NIC and DSM.",
        subcommands = {DoctorCommand.class, QuickstartCommand.class, SoftnicCommand.class, DsmCommand.class, GdaCommand.class, ProxyCommand.class, ReportCommand.class,
                CommandLine.HelpCommand.class})
public final class Main {
    /** Exit code for "backend unavailable" (automake/ctest "skipped" convention). */
    public static final int EXIT_UNAVAILABLE = 77;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExitCodeExceptionMapper(t -> t instanceof BackendUnavailableException ? EXIT_UNAVAILABLE
                : t instanceof CommandLine.ParameterException ? CommandLine.ExitCode.USAGE
                : t instanceof IllegalArgumentException ? CommandLine.ExitCode.USAGE
                : CommandLine.ExitCode.SOFTWARE);
        cl.setExecutionExceptionHandler((ex, cmd, parse) -> {
            cmd.getErr().println("marrow: " + ex.getMessage());
            if (Boolean.getBoolean("marrow.debug")) {
                ex.printStackTrace(cmd.getErr());
            }
            return cmd.getExitCodeExceptionMapper().getExitCode(ex);
        });
        return cl;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"marrow " + Environment.version()};
        }
    }
}
