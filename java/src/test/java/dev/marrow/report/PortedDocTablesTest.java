// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.marrow.report.ReportTest.RESULTS;
import static dev.marrow.report.ReportTest.files;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tables that Python scripts printed before (goodput, loaded, kernel cost,
 * method checks, GPU-resident queues, the device-engine rate): the committed
 * docs equal what the raw files give, digit for digit.
 */
class PortedDocTablesTest {
    static List<Path> inputs(String... dirs) throws Exception {
        List<Path> l = new ArrayList<>();
        for (String d : dirs) {
            l.addAll(files(d, "*.jsonl"));
        }
        return l;
    }

    static void assertCurrent(String doc, List<Path> in) {
        assertTrue(DocTables.rewrite(Path.of("..", doc), in, true), doc + ": tables differ from its raw files");
    }

    /** What CI's `report --markdown --check` does for every page: its tables equal what its archive gives. */
    @Test
    void committedDocsEqualTheirRawArchives() throws Exception {
        List<Path> archives = ReportTest.archives();
        assertTrue(archives.size() >= 13, "expected a raw archive per results page, found " + archives);
        for (Path a : archives) {
            String page = a.getFileName().toString().replace(".tar.gz", ".md");
            List<Path> in = RawArchive.expand(a, Files.createTempDirectory("page-"));
            assertCurrent("docs/results/" + page, in);
        }
    }

    @Test
    void aChangedNumberIsRewrittenFromTheRawFiles(@TempDir Path tmp) throws Exception {
        String committed = Files.readString(Path.of("..", "docs/results/h200-kernel-cost.md"));
        String row = "| kernel-cost-dormant | gda | stream | 224 | 528 | 1→1 | 255→255 | 3.0648 | 2.5649 | 19.5 % | 16.3 % |";
        assertTrue(committed.contains(row), "test fixture: the row to tamper with is gone");
        Path doc = tmp.resolve("tampered-kcost.txt");
        Files.writeString(doc, committed.replace(row, row.replace("19.5 %", "9.5 %")));
        assertFalse(DocTables.rewrite(doc, inputs("h200-kernel-cost"), false));
        assertEquals(committed, Files.readString(doc));
    }

    /**
     * A page that keeps fewer tables needs fewer raw files (report --used --markdown): here one table of
     * the goodput page, whose archive holds the files of five. The files left are exactly enough: the
     * one-table page checks as current from them alone.
     */
    @Test
    void aPageNeedsOnlyTheFilesOfItsOwnTables(@TempDir Path tmp) throws Exception {
        List<Path> all = RawArchive.expand(Path.of("..", "docs/results/h200-goodput.tar.gz"), tmp.resolve("raw"));
        Path doc = tmp.resolve("one-table.txt");
        Files.writeString(doc, "<!-- marrow report: goodput.scaling -->\n<!-- /marrow report -->\n");
        DocTables.rewrite(doc, all, false);
        List<Path> need = DocTables.usedBy(doc, all);
        assertTrue(need.size() < DocTables.used(all).size(), "expected fewer files than all tables read: " + need);
        assertFalse(need.isEmpty());
        assertTrue(DocTables.rewrite(doc, need, true), "the page's table needs a file usedBy left out");
    }

    @Test
    void headerlessBenchLinesAreRecords() throws Exception {
        // the C bench writes bare records: the device engine's rate table is built from them
        ResultFile f = ResultFile.read(RESULTS.resolve("h200-gpu-resident/lane10-c/rate.jsonl"));
        assertEquals(3, f.records().size());
        assertEquals("softnic.device_rate", f.experiment());
    }

    @Test
    void valuesPrintAsPythonPrintedThem() {
        assertEquals("13.08", Fmt.py(13.08));
        assertEquals("1000.0", Fmt.py(1000.0));
        assertEquals("0.0001", Fmt.py(1e-4));
        assertEquals("1e-05", Fmt.py(1e-5));
        assertEquals("1.5e+16", Fmt.py(1.5e16));
        assertEquals("30000000", Fmt.py(30000000));
        assertEquals("None", Fmt.py(null));
        assertEquals("True", Fmt.py(true));
        assertEquals("-0.0", Fmt.fixed(-0.04, 1));
        assertEquals("0.2", Fmt.fixed(0.15000000000000002, 1));
        assertEquals("8 B", Fmt.size(8));
        assertEquals("7 KiB", Fmt.size(7168));
        assertEquals("4 MiB", Fmt.size(4 << 20));
    }
}
