// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResultsTest {
    @Test
    void nearestRankPercentilesAreRealSamples() {
        long[] s = new long[100];
        for (int i = 0; i < 100; i++) {
            s[i] = 100 - i; // 1..100, reversed
        }
        Stats st = Stats.of(s);
        assertEquals(1, st.min());
        assertEquals(50, st.p50());
        assertEquals(90, st.p90());
        assertEquals(99, st.p99());
        assertEquals(100, st.p999());
        assertEquals(100, st.max());
        assertEquals(50.5, st.mean(), 1e-9);
        assertEquals(7, Stats.of(new long[] {7}).p99());
        assertEquals(2.5, Stats.median(new double[] {4, 1, 3, 2}), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> Stats.of(new long[0]));
    }

    @Test
    void csvFlattensWithStableColumnsAndQuotes() {
        ResultRecord a = new ResultRecord("x", "softnic", false).param("size_bytes", 8).metric("rate_mmsg_s", 1.5);
        ResultRecord b = new ResultRecord("x", "softnic", false).param("size_bytes", 16).param("note", "a,b")
                .metric("rate_mmsg_s", 2.0);
        String csv = ResultWriter.csv(List.of(a, b));
        String[] lines = csv.split("\n");
        assertEquals("record,experiment,backend,hardware,size_bytes,rate_mmsg_s,note", lines[0]);
        assertEquals("result,x,softnic,false,8,1.5,", lines[1]);
        assertEquals("result,x,softnic,false,16,2.0,\"a,b\"", lines[2]);
    }

    @Test
    void jsonHasAHeaderThenOneLinePerRecord() {
        String json = ResultWriter.json(List.of(new ResultRecord("e", "cuda", true).metric("t_ns", 3)),
                Map.of("host", "h"));
        String[] lines = json.split("\n");
        assertEquals(2, lines.length);
        assertTrue(lines[0].contains("\"schema\":\"" + ResultWriter.SCHEMA + "\""), lines[0]);
        assertTrue(lines[1].contains("\"hardware\":true") && lines[1].contains("\"t_ns\":3"), lines[1]);
    }

    @Test
    void tablesOfEmulatedResultsSaySo() {
        String t = ResultWriter.table(List.of(new ResultRecord("e", "softnic", false).metric("a_ns", 1)), null);
        assertTrue(t.contains("EMULATED"), t);
        String hw = ResultWriter.table(List.of(new ResultRecord("e", "cuda", true).metric("a_ns", 1)), null);
        assertTrue(!hw.contains("EMULATED") && hw.contains("hardware"), hw);
    }

    @Test
    void emitNeverReplacesAFile(@TempDir Path tmp) throws Exception {
        Path p = tmp.resolve("r.jsonl");
        java.io.PrintWriter w = new java.io.PrintWriter(java.io.Writer.nullWriter());
        assertEquals(p, ResultWriter.emit("one", p, w, w));
        assertEquals(tmp.resolve("r.1.jsonl"), ResultWriter.emit("two", p, w, w));
        assertEquals(tmp.resolve("r.2.jsonl"), ResultWriter.emit("three", p, w, w));
        assertEquals("one", Files.readString(p));
        assertEquals("three", Files.readString(tmp.resolve("r.2.jsonl")));
    }
}
