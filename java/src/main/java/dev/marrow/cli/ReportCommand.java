// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.report.DocTables;
import dev.marrow.report.Report;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * `marrow report`: one HTML report from result files, beside the paper
 * "GPU-Initiated Communication: Dissecting Down to the Bone", or the tables of a results doc regenerated in place.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Set every result beside the paper's: reads result files (`--format json` output of any "
                + "experiment) and writes one self-contained HTML report (index.html) with its PNG figures into "
                + "--output. Paper values are labelled references; emulated results are marked.",
                "With --markdown DOC it instead regenerates the tables of a docs/results page from its raw files: "
                + "every block between <!-- marrow report: NAME --> and <!-- /marrow report --> is replaced."})
public final class ReportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"--input", "-i"}, required = true, arity = "1..*", paramLabel = "FILE",
            description = "Result files (JSON lines: header, then records), or a page's raw archive (.tar.gz of "
                    + "them, paths relative to docs/results)")
    List<Path> inputs;

    @Option(names = {"--output", "-o"}, paramLabel = "DIR", description = "Directory for index.html and the PNGs")
    Path output;

    @Option(names = "--title", defaultValue = "Marrow results beside the paper",
            description = "Page title. Default: ${DEFAULT-VALUE}")
    String title;

    @Option(names = "--markdown", paramLabel = "DOC",
            description = "Regenerate the marked tables of this results doc from the --input files, in place")
    Path markdown;

    @Option(names = "--check", description = "With --markdown: change nothing, exit 1 if the doc's tables differ")
    boolean check;

    @Option(names = "--tables", description = "Print every markdown table the --input files make, named, and exit")
    boolean tables;

    @Option(names = "--used", description = "Print the --input files some table reads, one a line (an archive's "
            + "files by member name), and exit: what a page's raw archive must hold (docs/results/README.md). With "
            + "--markdown DOC: only the files that DOC's marked tables need")
    boolean used;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        for (Path in : inputs) { // bad input is a usage error (exit 2) before anything is read or written
            if (!Files.isRegularFile(in)) {
                throw new IllegalArgumentException("report: --input " + in + " is not a file");
            }
        }
        inputs = dev.marrow.report.RawArchive.expandAll(inputs); // a page's raw .tar.gz reads as its files
        if (markdown != null && !Files.isRegularFile(markdown)) {
            throw new IllegalArgumentException("report: --markdown " + markdown + " is not a file (it names a "
                    + "results doc to regenerate in place)");
        }
        if (used) {
            List<Path> u = markdown != null ? DocTables.usedBy(markdown, inputs) : DocTables.used(inputs);
            u.forEach(p -> {
                String m = dev.marrow.report.RawArchive.member(p);
                out.println(m != null ? m : p.toString());
            });
            out.flush();
            return 0;
        }
        if (tables) {
            DocTables.all(inputs).forEach((name, text) -> out.println("<!-- marrow report: " + name + " -->\n" + text));
            out.flush();
            return 0;
        }
        if (markdown != null) {
            boolean same = DocTables.rewrite(markdown, inputs, check);
            err.println("marrow report: " + markdown + (same ? " tables are up to date"
                    : check ? " tables differ from the raw files" : " tables regenerated"));
            err.flush();
            return check && !same ? ExitCodes.FAILED : ExitCodes.OK;
        }
        if (check) {
            throw new IllegalArgumentException("--check needs --markdown");
        }
        if (output == null) {
            throw new IllegalArgumentException("--output DIR is required for the HTML report");
        }
        Path index = Report.write(inputs, output, title);
        out.println(index);
        out.flush();
        return 0;
    }
}
