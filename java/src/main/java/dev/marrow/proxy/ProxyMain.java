// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.cli.Main;
import dev.marrow.cli.ProxyCommand;
import picocli.CommandLine;

/**
 * Runs "marrow proxy ..." before ProxyCommand is registered in Main: the same
 * CommandLine (exit codes, error handling) with the proxy command added.
 * Usage: java -cp marrow-cli.jar dev.marrow.proxy.ProxyMain proxy latency ...
 */
public final class ProxyMain {
    private ProxyMain() {
    }

    public static void main(String[] args) {
        CommandLine cl = Main.commandLine();
        if (!cl.getSubcommands().containsKey("proxy")) {
            cl.addSubcommand("proxy", new ProxyCommand());
            // picocli applies handlers to the subcommands present when they
            // are set: set Main's again so "proxy" gets its exit codes (77, ...).
            cl.setExitCodeExceptionMapper(cl.getExitCodeExceptionMapper());
            cl.setExecutionExceptionHandler(cl.getExecutionExceptionHandler());
        }
        System.exit(cl.execute(args));
    }
}
