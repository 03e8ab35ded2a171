// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.cli.GdaCommand;
import dev.marrow.cli.Main;
import picocli.CommandLine;

/**
 * Runs the marrow CLI with the gda command added, for use before GdaCommand
 * is registered in Main: {@code java -cp marrow-cli.jar dev.marrow.gda.GdaMain gda latency ...}.
 * Same exit codes as Main (77 = backend unavailable).
 */
public final class GdaMain {
    private GdaMain() {
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        CommandLine cl = Main.commandLine();
        if (!cl.getSubcommands().containsKey("gda")) {
            cl.addSubcommand("gda", new GdaCommand());
            // picocli hands settings to subcommands only when they are set: re-set Main's
            // exit-code mapping and error handler so they reach the added command too.
            cl.setExitCodeExceptionMapper(cl.getExitCodeExceptionMapper());
            cl.setExecutionExceptionHandler(cl.getExecutionExceptionHandler());
        }
        return cl;
    }
}
