// SPDX-License-Identifier: Apache-2.0
// "The study" below: "How does Hopper distributed shared memory actually move data?"
package dev.marrow.cli;

import dev.marrow.dsm.ModelInputs;
import dev.marrow.dsm.ModelPredictions;
import dev.marrow.dsm.ModelTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** `dsm model`: the study's lane/flit model on the E2/E5 load fits of an earlier `dsm run` (no GPU needed). */
@Command(name = "model", mixinStandardHelpOptions = true,
        description = {"Evaluate the study's bandwidth model (4 x 32-B lanes per 6 SMs, 128-B read quantum plus one "
                + "32-B command flit) on the one-way (E2) and duplex (E5) load of a `dsm run --format json` file,",
                "beside the same model on the study's inputs and the study's published values. Needs no GPU."})
public final class DsmModelCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"--input", "-i"}, required = true,
            description = "JSON-lines file written by `dsm run --format json` holding E2 and E5")
    Path input;

    @Override
    public Integer call() {
        return CliErrors.guard(spec.commandLine(), this::model); // also when embedded without Main's handler
    }

    private Integer model() {
        if (!Files.isRegularFile(input)) { // bad input is a usage error (exit 2), reported by CliErrors
            throw new IllegalArgumentException("dsm model: --input " + input + " is not a file");
        }
        ModelPredictions m;
        try {
            m = ModelInputs.fromJsonl(input);
        } catch (IllegalArgumentException e) { // e.g. no E2/E5 fits in the file: name the command and the file
            throw new IllegalArgumentException("dsm model: " + input + ": " + e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(ModelTable.render(m, input.getFileName().toString()));
        out.flush();
        return 0;
    }
}
