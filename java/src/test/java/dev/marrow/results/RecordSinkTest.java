// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The streaming output: checked first, written as points complete, named at the end, never half a line. */
class RecordSinkTest {
    static final JsonMapper M = JsonMapper.builder().build();
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();

    RecordSink open(Path p, OutputFormat f) {
        return RecordSink.open(Destination.check(p), f, RecordSink.header(Map.of("host", "h")), new PrintWriter(out),
                new PrintWriter(err));
    }

    static ResultRecord rec(int i) {
        return new ResultRecord("e", "softnic", false).param("i", i).metric("t_ns", 100 + i);
    }

    static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void destinationsAreCheckedWithTheirReason(@TempDir Path tmp) {
        assertEquals("--output: empty path (give a file name, or - for stdout)",
                assertThrows(IllegalArgumentException.class, () -> Destination.check(Path.of(""))).getMessage());
        assertEquals("cannot write " + tmp + ": is a directory",
                assertThrows(IllegalArgumentException.class, () -> Destination.check(tmp)).getMessage());
        Path orphan = tmp.resolve("no/such/dir/r.jsonl");
        assertEquals("cannot write " + orphan + ": directory " + orphan.getParent() + " does not exist (it is not created)",
                assertThrows(IllegalArgumentException.class, () -> Destination.check(orphan)).getMessage());
        assertEquals(Destination.Kind.STDOUT, Destination.check(Path.of("-")).kind());
        assertEquals(Destination.Kind.STDOUT, Destination.check(Path.of("/dev/stdout")).kind());
        assertEquals(Destination.Kind.STDOUT, Destination.check(null).kind());
        assertEquals(Destination.Kind.SPECIAL, Destination.check(Path.of("/dev/null")).kind());
        assertEquals(Destination.Kind.FILE, Destination.check(tmp.resolve("r.jsonl")).kind());
        assertFalse(Files.exists(orphan.getParent()), "a missing directory is never created");
    }

    @Test
    void aReadOnlyDirectoryIsRefusedBeforeTheRun(@TempDir Path tmp) throws Exception {
        Path ro = Files.createDirectory(tmp.resolve("ro"));
        assertTrue(ro.toFile().setWritable(false, false));
        try {
            org.junit.jupiter.api.Assumptions.assumeFalse(Files.isWritable(ro), "root writes anywhere");
            Path p = ro.resolve("r.jsonl");
            assertEquals("cannot write " + p + ": permission denied (directory " + ro + ")",
                    assertThrows(IllegalArgumentException.class, () -> Destination.check(p)).getMessage());
        } finally {
            ro.toFile().setWritable(true, false);
        }
    }

    @Test
    void specialFilesAreWrittenAsTheyAre() throws Exception {
        RecordSink s = open(Path.of("/dev/null"), OutputFormat.JSON);
        s.write(rec(1));
        assertNull(s.finish(RecordSink.Status.COMPLETE, null, Map.of()));
        assertFalse(Files.exists(Path.of("/dev/null.1")), "no /dev/null.1");
    }

    @Test
    void recordsStreamIntoAPartialFileNamedAtTheEnd(@TempDir Path tmp) throws Exception {
        Path p = tmp.resolve("r.jsonl");
        RecordSink s = open(p, OutputFormat.JSON);
        s.write(rec(1));
        String partial = ".r.jsonl.partial-" + ProcessHandle.current().pid();
        assertEquals(List.of(partial), names(tmp), "nothing under the final name before the end");
        List<String> lines = Files.readAllLines(tmp.resolve(partial));
        assertEquals(2, lines.size(), "the header and the first record are on disk at once");
        assertEquals("header", M.readTree(lines.get(0)).get("record").asString());
        assertEquals(101, M.readTree(lines.get(1)).get("t_ns").asInt());
        s.write(rec(2));
        assertEquals(p, s.finish(RecordSink.Status.COMPLETE, null, Map.of("truncated", false)));
        assertEquals(List.of("r.jsonl"), names(tmp));
        lines = Files.readAllLines(p);
        JsonNode footer = M.readTree(lines.getLast());
        assertEquals(4, lines.size());
        assertEquals("footer", footer.get("record").asString());
        assertEquals("complete", footer.get("status").asString());
        assertEquals(2, footer.get("records").asInt());
        assertTrue(footer.has("ended_at") && !footer.get("truncated").asBoolean(), footer.toString());
        assertEquals("marrow: wrote " + p, err.toString().strip());
    }

    @Test
    void anExistingFileIsNeverReplaced(@TempDir Path tmp) throws Exception {
        Path p = tmp.resolve("r.jsonl");
        Files.writeString(p, "mine");
        RecordSink s = open(p, OutputFormat.JSON);
        Files.writeString(tmp.resolve("r.1.jsonl"), "made during the run");
        assertEquals(tmp.resolve("r.2.jsonl"), s.finish(RecordSink.Status.COMPLETE, null, Map.of()));
        assertEquals("mine", Files.readString(p));
        assertEquals("made during the run", Files.readString(tmp.resolve("r.1.jsonl")));
        assertTrue(err.toString().contains(p + " exists; wrote " + tmp.resolve("r.2.jsonl") + " instead"), err.toString());
        assertEquals(tmp.resolve("run.1"), Destination.candidate(tmp.resolve("run"), 1));
    }

    /** A channel that takes `room` bytes, then fails like a full disk in the middle of a write. */
    static SeekableByteChannel filling(SeekableByteChannel ch, long room) {
        return new SeekableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws IOException {
                long left = room - ch.position();
                if (src.remaining() > left) {
                    ByteBuffer part = src.slice().limit((int) Math.max(0, left));
                    ch.write(part); // half a line reaches the file, as on a real ENOSPC
                    throw new IOException("No space left on device");
                }
                return ch.write(src);
            }

            @Override
            public int read(ByteBuffer dst) throws IOException {
                return ch.read(dst);
            }

            @Override
            public long position() throws IOException {
                return ch.position();
            }

            @Override
            public SeekableByteChannel position(long p) throws IOException {
                ch.position(p);
                return this;
            }

            @Override
            public long size() throws IOException {
                return ch.size();
            }

            @Override
            public SeekableByteChannel truncate(long size) throws IOException {
                ch.truncate(size);
                return this;
            }

            @Override
            public boolean isOpen() {
                return ch.isOpen();
            }

            @Override
            public void close() throws IOException {
                ch.close();
            }
        };
    }

    @Test
    void aFullDiskEndsTheRunAndKeepsOnlyCompleteLines(@TempDir Path tmp) throws Exception {
        Path p = tmp.resolve("r.jsonl");
        RecordSink s = RecordSink.open(Destination.check(p), OutputFormat.JSON, RecordSink.header(Map.of()),
                new PrintWriter(out), new PrintWriter(err), ch -> filling(ch, 300));
        s.write(rec(1));
        s.write(rec(2));
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> {
            for (int i = 3; i < 100; i++) {
                s.write(rec(i));
            }
        });
        List<String> lines = Files.readAllLines(p);
        assertEquals("cannot write " + p + ": No space left on device; the " + (lines.size() - 1)
                + " complete record(s) before it are in " + p, e.getMessage());
        assertTrue(lines.size() >= 2, lines.toString());
        for (String l : lines) {
            M.readTree(l); // every line whole
        }
        assertTrue(Files.readString(p).endsWith("\n"), "no half line at the end");
        assertEquals(List.of("r.jsonl"), names(tmp), "no temporary file left");
        s.write(rec(100)); // ignored: the sink is finished
        assertEquals(lines, Files.readAllLines(p));
    }

    @Test
    void aFailedRunKeepsItsRecordsAndSaysItFailed(@TempDir Path tmp) throws Exception {
        Path p = tmp.resolve("r.jsonl");
        RecordSink s = open(p, OutputFormat.JSON);
        s.write(rec(1));
        RecordSink.finishOpenedBy(Thread.currentThread(), RecordSink.Status.FAILED, "boom");
        JsonNode footer = M.readTree(Files.readAllLines(p).getLast());
        assertEquals("failed", footer.get("status").asString());
        assertEquals("boom", footer.get("error").asString());

        Path q = tmp.resolve("q.jsonl");
        open(q, OutputFormat.JSON);
        RecordSink.finishOpenedBy(Thread.currentThread(), RecordSink.Status.FAILED, "usage");
        assertFalse(Files.exists(q), "a run that failed before its first record leaves no file");
        assertEquals(List.of("r.jsonl"), names(tmp));
    }

    @Test
    void csvHasACommentedHeaderAndFlattensNestedFields() {
        Map<String, Object> env = new java.util.LinkedHashMap<>();
        env.put("host", "h");
        env.put("argv", List.of("marrow", "proxy", "rate"));
        env.put("peer", Map.of("host", "p"));
        RecordSink csv = RecordSink.open(Destination.STDOUT, OutputFormat.CSV, RecordSink.header(env),
                new PrintWriter(out), new PrintWriter(err));
        ResultRecord r = new ResultRecord("e", "softnic", false).param("engine_cpus", List.of(0, 1))
                .metric("per_worker", List.of(Map.of("cpu", 3), Map.of("cpu", 4)))
                .metric("wire", new java.util.TreeMap<>(Map.of("gbps", 100, "model", "x, y")));
        csv.write(r);
        csv.finish(RecordSink.Status.COMPLETE, null, Map.of());
        List<String> lines = out.toString().lines().toList();
        assertEquals(List.of("# record=header", "# schema=" + ResultWriter.SCHEMA, "# env.host=h",
                "# env.argv=marrow proxy rate", "# env.peer.host=p"), lines.subList(0, 5));
        assertEquals("record,experiment,backend,hardware,engine_cpus,per_worker.0.cpu,per_worker.1.cpu,wire.gbps,"
                + "wire.model", lines.get(5));
        assertEquals("result,e,softnic,false,0 1,3,4,100,\"x, y\"", lines.get(6));
        assertFalse(out.toString().contains("{"), "no toString of a map: " + out);
    }

    @Test
    void csvAndTableRowsStreamWithAHeaderPerColumnSet() {
        RecordSink csv = RecordSink.open(Destination.STDOUT, OutputFormat.CSV, RecordSink.header(Map.of()),
                new PrintWriter(out), new PrintWriter(err));
        csv.write(rec(1));
        assertEquals("# record=header\n# schema=" + ResultWriter.SCHEMA + "\n"
                + "record,experiment,backend,hardware,i,t_ns\nresult,e,softnic,false,1,101\n", out.toString(),
                "the row is out before the run ends");
        csv.write(rec(2).param("truncated", true));
        csv.finish(RecordSink.Status.COMPLETE, null, Map.of());
        assertTrue(out.toString().contains("record,experiment,backend,hardware,i,truncated,t_ns\n"
                + "result,e,softnic,false,2,true,102\n# record=footer\n"), out.toString());
        assertTrue(out.toString().endsWith("# status=complete\n# records=2\n"), out.toString());

        StringWriter t = new StringWriter();
        RecordSink table = RecordSink.open(Destination.STDOUT, OutputFormat.TABLE,
                RecordSink.header(Map.of("host", "h", "cpu_model", "c", "git_sha", "g")), new PrintWriter(t),
                new PrintWriter(err));
        table.write(rec(1));
        table.write(rec(2));
        table.finish(RecordSink.Status.COMPLETE, null, Map.of());
        assertEquals(ResultWriter.table(List.of(rec(1), rec(2)), Map.of("host", "h", "cpu_model", "c", "git_sha", "g")),
                t.toString(), "rows of one width read as the batch table did");
    }
}
