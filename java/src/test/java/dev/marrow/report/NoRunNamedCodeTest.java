// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The report code is named after what it shows, not after a device run: runs are data (the folders of a
 * page's archive, report-sections.json), so a new run needs no new class and no new name in code.
 */
class NoRunNamedCodeTest {
    private static final Pattern RUN_CLASS = Pattern.compile("(?i).*(run\\d|call\\d|lane\\d|v\\d|touchab|goodput2k).*");
    private static final Pattern RUN_LITERAL = Pattern.compile("\"[^\"\\n]*(lane\\d+-|devlat\\d|copyfix|goodput2kb?-call\\d)");

    @Test
    void noReportClassOrLiteralNamesARun() throws Exception {
        Path dir = Path.of("src/main/java/dev/marrow/report");
        List<String> bad = new ArrayList<>();
        int n = 0;
        try (var s = Files.newDirectoryStream(dir, "*.java")) {
            for (Path p : s) {
                n++;
                String name = p.getFileName().toString();
                if (RUN_CLASS.matcher(name).matches()) {
                    bad.add(name);
                }
                if (RUN_LITERAL.matcher(Files.readString(p)).find()) {
                    bad.add(name + " (a run's name in a literal)");
                }
            }
        }
        assertTrue(n > 20, "report sources not found in " + dir.toAbsolutePath());
        assertEquals(List.of(), bad);
        assertTrue(RUN_CLASS.matcher("DsmRun2DocTables.java").matches(), "the pattern catches the old names");
        assertTrue(RUN_LITERAL.matcher("List.of(\"lane9-v5b\")").find());
    }
}
