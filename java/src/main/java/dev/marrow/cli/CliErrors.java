// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.RecordSink;
import picocli.CommandLine;

import java.util.concurrent.Callable;

/**
 * The one way a command's failure reaches the user: "marrow: " and the
 * exception's message on stderr (the stack too with -Dmarrow.debug=true), and
 * the exit code of {@link ExitCodes#of}. {@link Main} installs it as picocli's
 * execution-exception handler for every command.
 */
public final class CliErrors {
    private CliErrors() {
    }

    /** picocli's IExecutionExceptionHandler. */
    public static int report(Exception ex, CommandLine cmd, CommandLine.ParseResult parse) {
        cmd.getErr().println("marrow: " + ex.getMessage());
        if (Boolean.getBoolean("marrow.debug")) {
            ex.printStackTrace(cmd.getErr());
        }
        cmd.getErr().flush();
        return ExitCodes.of(ex);
    }

    /**
     * Installs the handler and the exit-code mapping on a command line, and
     * ends any output a command left open: a failed run's records are kept
     * under the file's name with a "failed" footer (docs/design/records.md).
     */
    public static CommandLine install(CommandLine cl) {
        cl.setExitCodeExceptionMapper(ExitCodes::of);
        cl.setExecutionExceptionHandler(CliErrors::report);
        CommandLine.IExecutionStrategy run = new CommandLine.RunLast();
        cl.setExecutionStrategy(parse -> {
            try {
                int code = run.execute(parse);
                RecordSink.finishOpenedBy(Thread.currentThread(), RecordSink.Status.COMPLETE, null);
                return code;
            } catch (RuntimeException e) {
                Throwable cause = e instanceof CommandLine.ExecutionException && e.getCause() != null ? e.getCause() : e;
                RecordSink.finishOpenedBy(Thread.currentThread(), RecordSink.Status.FAILED, cause.getMessage());
                throw e;
            }
        });
        return cl;
    }

    /**
     * For a command that is also run outside {@link Main} (the dsm suite is
     * embedded and tested on its own): runs body and reports a failure
     * through {@link #report}, exactly as Main's handler would.
     */
    static int guard(CommandLine cmd, Callable<Integer> body) {
        try {
            return body.call();
        } catch (Exception e) {
            return report(e, cmd, null);
        }
    }
}
