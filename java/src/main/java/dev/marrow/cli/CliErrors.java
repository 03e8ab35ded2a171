// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.RecordSink;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The one way a command's failure reaches the user, the contract of
 * docs/design/cli-errors.md: a usage error is one line and a pointer to
 * --help (exit 2), an unavailable backend exit 77, any other failure one line
 * with its cause (exit 1), Errors (OutOfMemoryError...) included; the stack
 * only with -Dmarrow.debug=true. {@link Main} installs it on every command.
 */
public final class CliErrors {
    private CliErrors() {
    }

    /** picocli's IExecutionExceptionHandler. */
    public static int report(Exception ex, CommandLine cmd, CommandLine.ParseResult parse) {
        return reportThrowable(ex, cmd);
    }

    /** Reports any Throwable that ended a command (an Error too) and returns its exit code. */
    static int reportThrowable(Throwable t, CommandLine cmd) {
        PrintWriter err = cmd.getErr();
        int code = ExitCodes.of(t);
        err.println("marrow: " + cause(t));
        if (code == ExitCodes.USAGE) { // a value the command refused: the same pointer as picocli's usage errors
            err.println("see '" + cmd.getCommandSpec().qualifiedName() + " --help'");
        }
        if (Boolean.getBoolean("marrow.debug")) {
            t.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    /** One line: the message; an Error or a message-less exception is named by its kind. */
    static String cause(Throwable t) {
        String msg = t.getMessage() == null || t.getMessage().isBlank() ? null : oneLine(t.getMessage());
        if (t instanceof OutOfMemoryError) {
            return "out of memory" + (msg == null ? "" : " (" + msg + ")")
                    + ": a size, count or depth asks for more memory than this JVM can allocate; lower it";
        }
        if (t instanceof StackOverflowError) {
            return "stack overflow (an internal error; -Dmarrow.debug=true prints where)";
        }
        if (t instanceof Error || msg == null) {
            return t.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
        }
        return msg;
    }

    private static String oneLine(String s) {
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }

    /**
     * picocli's IParameterExceptionHandler: one line saying what is wrong and
     * a pointer to the command's --help, not the whole help (which can run to
     * a hundred lines and bury the error).
     */
    static int usage(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        String msg = oneLine(String.valueOf(ex.getMessage()));
        if (ex instanceof CommandLine.UnmatchedArgumentException u) {
            msg = unmatched(u, cmd);
        } else if (msg.startsWith("Missing required subcommand")) {
            msg = "'" + cmd.getCommandSpec().qualifiedName() + "' needs a command: "
                    + String.join(", ", cmd.getSubcommands().keySet());
        }
        err.println("marrow: " + msg);
        err.println("see '" + cmd.getCommandSpec().qualifiedName() + " --help'");
        if (Boolean.getBoolean("marrow.debug")) {
            ex.printStackTrace(err);
        }
        err.flush();
        return ExitCodes.USAGE;
    }

    private static String unmatched(CommandLine.UnmatchedArgumentException u, CommandLine cmd) {
        List<String> what = u.getUnmatched();
        String first = what.isEmpty() ? "?" : what.getFirst();
        List<String> suggest = u.getSuggestions();
        String hint = suggest.isEmpty() ? "" : " (did you mean " + String.join(" or ", suggest) + "?)";
        if (!first.startsWith("-") && !cmd.getSubcommands().isEmpty()) { // every name beats a spelling guess
            return "unknown command '" + first + "'; commands: "
                    + String.join(", ", cmd.getSubcommands().keySet());
        }
        return (first.startsWith("-") ? "unknown option '" : "unexpected argument '") + first + "'" + hint;
    }

    /**
     * picocli's execution strategy, wrapped: an unknown command is a usage
     * error even beside --help (picocli would print the parent's help and
     * exit 0), and an Error thrown by a command (picocli passes Errors
     * through) is reported like any failure instead of a JVM stack trace.
     */
    static int execute(CommandLine.ParseResult parse) {
        for (CommandLine.ParseResult p = parse; p != null; p = p.subcommand()) {
            if (!p.unmatched().isEmpty()) {
                throw new CommandLine.UnmatchedArgumentException(p.commandSpec().commandLine(), p.unmatched());
            }
        }
        // Output a command left open ends here: a failed run's records are kept under the
        // file's name with a "failed" footer (docs/design/records.md).
        try {
            int code = new CommandLine.RunLast().execute(parse);
            RecordSink.finishOpenedBy(Thread.currentThread(), RecordSink.Status.COMPLETE, null);
            return code;
        } catch (CommandLine.ParameterException | CommandLine.ExecutionException e) {
            Throwable cause = e instanceof CommandLine.ExecutionException && e.getCause() != null ? e.getCause() : e;
            RecordSink.finishOpenedBy(Thread.currentThread(), RecordSink.Status.FAILED, cause.getMessage());
            throw e;
        } catch (RuntimeException e) {
            RecordSink.finishOpenedBy(Thread.currentThread(), RecordSink.Status.FAILED, e.getMessage());
            throw e;
        } catch (Error e) {
            RecordSink.finishOpenedBy(Thread.currentThread(), RecordSink.Status.FAILED, cause(e));
            CommandLine.ParseResult last = parse;
            while (last.subcommand() != null) {
                last = last.subcommand();
            }
            return reportThrowable(e, last.commandSpec().commandLine());
        }
    }

    /** A number option's value: finite (1e999999 is not Infinity, NaN is not a number). */
    static Double finite(String s) {
        double v;
        try {
            v = Double.parseDouble(s.strip());
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + s + "' is not a number");
        }
        if (!Double.isFinite(v)) {
            throw new CommandLine.TypeConversionException("'" + s + "' is not a finite number");
        }
        return v;
    }

    /** Installs the handlers, the exit-code mapping and the finite-number converter on a command line. */
    public static CommandLine install(CommandLine cl) {
        cl.setExitCodeExceptionMapper(ExitCodes::of);
        cl.setExecutionExceptionHandler(CliErrors::report);
        cl.setParameterExceptionHandler(CliErrors::usage);
        cl.setExecutionStrategy(CliErrors::execute);
        cl.registerConverter(Double.class, CliErrors::finite);
        cl.registerConverter(double.class, CliErrors::finite);
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
        } catch (Exception | Error e) {
            return reportThrowable(e, cmd);
        }
    }

    /**
     * A run that wrote no record fails (exit 1) naming why, instead of an
     * empty table and exit 0. what: the points asked for, in words; bound: what
     * bounds the run ({@link RunBounds#applyDefault}).
     */
    static void requireRecords(List<?> records, RunProgress progress, String what, String bound) {
        if (!records.isEmpty()) {
            return;
        }
        if (progress != null && progress.truncated()) {
            throw new IllegalStateException("no record: " + bound + " ended the run before the first of " + what
                    + " completed (every point was cut); raise --max-seconds or make the points smaller");
        }
        throw new IllegalStateException("no record: none of " + what + " produced a result");
    }
}
