// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The one result reader: bounded lines, regular files only, one line at a time. */
class JsonLinesReaderTest {
    static final Duration AT_ONCE = Duration.ofSeconds(5);

    @Test
    void devZeroIsRefusedAtOnce() {
        assumeTrue(Files.exists(Path.of("/dev/zero")));
        IllegalArgumentException e = assertTimeoutPreemptively(AT_ONCE,
                () -> assertThrows(IllegalArgumentException.class, () -> JsonLinesReader.open(Path.of("/dev/zero"), true)));
        assertEquals("cannot read /dev/zero: not a regular file (a FIFO, device or socket); give a result file",
                e.getMessage());
    }

    @Test
    void aFifoIsRefusedWithoutWaitingForAWriter(@TempDir Path tmp) throws Exception {
        Path fifo = tmp.resolve("runs.fifo");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "mkfifo");
        IllegalArgumentException e = assertTimeoutPreemptively(AT_ONCE,
                () -> assertThrows(IllegalArgumentException.class, () -> JsonLinesReader.open(fifo, true)));
        assertTrue(e.getMessage().startsWith("cannot read " + fifo + ": not a regular file"), e.getMessage());
    }

    @Test
    void aDirectoryAndAMissingFileAreRefused(@TempDir Path tmp) {
        assertEquals("cannot read " + tmp + ": is a directory",
                assertThrows(IllegalArgumentException.class, () -> JsonLinesReader.open(tmp, true)).getMessage());
        Path none = tmp.resolve("none.jsonl");
        assertEquals("cannot read " + none + ": no such file",
                assertThrows(IllegalArgumentException.class, () -> JsonLinesReader.open(none, true)).getMessage());
    }

    @Test
    void stdinOnlyWhenAllowed() {
        assertThrows(IllegalArgumentException.class, () -> JsonLinesReader.open(Path.of("-"), false));
        try (JsonLinesReader r = JsonLinesReader.open(Path.of("-"), true)) {
            assertEquals("stdin", r.name());
        }
    }

    @Test
    void anOverLongLineIsRefusedWithItsLineNumber(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("long.jsonl");
        Files.writeString(f, "{\"record\":\"header\"}\n\n{\"a\":\"" + "x".repeat(JsonLinesReader.MAX_LINE_BYTES) + "\"}\n");
        try (JsonLinesReader r = JsonLinesReader.open(f, false)) {
            assertEquals("header", r.next().get("record"));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::next);
            assertEquals(f + ":3: line longer than 1048576 bytes: not a marrow result file", e.getMessage());
        }
    }

    @Test
    void aLineWithoutNewlineOfZerosIsBoundedToo() throws Exception {
        // stdin that never ends a line (e.g. `merge-runs - < /dev/zero`): refused after 1 MiB, not read to OOM
        JsonLinesReader r = new JsonLinesReader("stdin", new java.io.InputStream() {
            long n;

            @Override
            public int read() {
                n++;
                return 0;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                n += len;
                java.util.Arrays.fill(b, off, off + len, (byte) 0);
                return len;
            }
        }, JsonLinesReader.MAX_LINE_BYTES);
        IllegalArgumentException e = assertTimeoutPreemptively(AT_ONCE,
                () -> assertThrows(IllegalArgumentException.class, r::hasNext));
        assertTrue(e.getMessage().startsWith("stdin:1: line longer than"), e.getMessage());
    }

    @Test
    void badLinesNameTheirFileAndLine(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("bad.jsonl");
        Files.writeString(f, "{\"record\":\"header\"}\n[1,2]\n");
        try (JsonLinesReader r = JsonLinesReader.open(f, false)) {
            r.next();
            assertEquals(f + ":2: not a JSON object",
                    assertThrows(IllegalArgumentException.class, r::next).getMessage());
        }
        Files.write(f, new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xff, '"', '}', '\n'});
        try (JsonLinesReader r = JsonLinesReader.open(f, false)) {
            assertTrue(assertThrows(IllegalArgumentException.class, r::next).getMessage()
                    .startsWith(f + ":1: not UTF-8"));
        }
    }

    @Test
    void readsOneLineAtATime(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("ok.jsonl");
        Files.writeString(f, "{\"record\":\"header\"}\n\n{\"record\":\"result\",\"a\":1}\n{\"record\":\"footer\"}");
        try (JsonLinesReader r = JsonLinesReader.open(f, false)) {
            assertEquals("header", r.next().get("record"));
            assertEquals(1, r.lineNumber());
            Map<String, Object> m = r.next();
            assertEquals(1, m.get("a"));
            assertEquals(3, r.lineNumber(), "the blank line is counted and skipped");
            assertEquals("footer", r.next().get("record"));
            assertFalse(r.hasNext());
        }
    }
}
