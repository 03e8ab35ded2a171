// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.gda.Experiment;
import dev.marrow.gda.Ordering;
import dev.marrow.fabric.PeerRole;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.TypeConversionException;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CliNamesTest {

    @Test
    void everyOrderingReadsBackFromItsLabel() {
        CliNames.Orderings words = new CliNames.Orderings();
        for (Ordering o : Ordering.values()) {
            assertEquals(o, words.convert(o.label()));
        }
        List<String> listed = new ArrayList<>();
        words.forEach(listed::add);
        assertEquals(Ordering.values().length, listed.size(), "--help lists every ordering once");
    }

    @Test
    void experimentsAnswerToTheirLabelAndMetricPrefix() {
        CliNames.Experiments words = new CliNames.Experiments();
        assertEquals(Experiment.PUT_COMPLETION, words.convert("putc"));
        assertEquals(Experiment.PUT_COMPLETION, words.convert("put+completion"));
        assertEquals(Experiment.ROUND_TRIP, words.convert(" rtt"));
        List<String> listed = new ArrayList<>();
        words.forEach(listed::add);
        assertEquals(List.of("issue", "putc", "rtt", "db2cqe"), listed, "aliases are accepted, not listed");
    }

    @Test
    void unknownWordsNameTheFlagAndTheChoices() {
        TypeConversionException e = assertThrows(TypeConversionException.class,
                () -> new CliNames.PeerRoles().convert("both"));
        assertEquals("--peer-role must be initiator or responder, not 'both'", e.getMessage());
        e = assertThrows(TypeConversionException.class, () -> new CliNames.Handoffs().convert("fast"));
        assertEquals("--handoff must be baseline, tuned or both, not 'fast'", e.getMessage());
        assertEquals(PeerRole.RESPONDER, new CliNames.PeerRoles().convert("responder"));
    }

    @ParameterizedTest
    @CsvSource({"gda latency,--ordering,sometimes", "gda latency,--payload,inplace", "gda latency,--target,fpga",
            "gda latency,--sweep,everything", "gda latency,--experiments,'issue,ping'", "proxy latency,--handoff,fast",
            "proxy rate,--nic,ethernet", "proxy rate,--poll,warm", "softnic rate,--format,xml"})
    void badWordsAreUsageErrorsBeforeAnyWork(String command, String flag, String value) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add(flag);
        args.add(value);
        CliTest.Run r = CliTest.run(args.toArray(String[]::new));
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        assertTrue(r.err().contains(flag), r.err());
        assertTrue(r.out().isEmpty(), "no record for a refused command line: " + r.out());
    }

    @Test
    void helpListsTheAcceptedWords() {
        CliTest.Run r = CliTest.run("gda", "latency", "--help");
        assertEquals(0, r.code(), r.err());
        String help = r.out().replaceAll("\\s+", " ");
        assertTrue(help.contains("none, gpu-fence, gpu-fence-dbrec, release-gpu, threadfence, release-sys, fence-sys"),
                r.out());
        assertTrue(help.contains("issue, putc, rtt"), r.out());
    }
}
