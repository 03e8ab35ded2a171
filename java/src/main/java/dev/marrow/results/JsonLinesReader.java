// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The one reader of result files (JSON lines, docs/design/records.md) outside
 * the report package: one line at a time, so memory is bounded by the longest
 * line, never by the file. Refused at once, with one line naming the file:
 * anything that is not a regular file (a FIFO would block, /dev/zero would
 * never end), a line longer than {@link #MAX_LINE_BYTES} (with its line
 * number), a line that is not a JSON object, text that is not UTF-8. "-"
 * reads stdin (the caller decides whether to allow it).
 */
public final class JsonLinesReader implements Closeable, Iterator<Map<String, Object>> {
    /** The longest line accepted: a result record is a few KiB, a header with many GPUs tens of KiB. */
    public static final int MAX_LINE_BYTES = 1 << 20;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String name;
    private final InputStream in;
    private final int maxLine;
    private final ByteArrayOutputStream buf = new ByteArrayOutputStream(256);
    private final java.nio.charset.CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private final byte[] chunk = new byte[64 * 1024];
    private int pos;
    private int lim;
    private long lineNo;
    private Map<String, Object> next;
    private boolean eof;

    JsonLinesReader(String name, InputStream in, int maxLine) {
        this.name = name;
        this.in = in;
        this.maxLine = maxLine;
    }

    /** Opens path ("-": stdin, only when allowStdin); IllegalArgumentException (usage) for what cannot be read. */
    public static JsonLinesReader open(Path path, boolean allowStdin) {
        if (path.toString().equals("-")) {
            if (!allowStdin) {
                throw new IllegalArgumentException("- (stdin) is not accepted here; give a file");
            }
            return new JsonLinesReader("stdin", System.in, MAX_LINE_BYTES);
        }
        // Checked before opening: opening a FIFO blocks until a writer comes.
        if (Files.isDirectory(path)) {
            throw new IllegalArgumentException("cannot read " + path + ": is a directory");
        }
        if (!Files.exists(path)) {
            throw new IllegalArgumentException("cannot read " + path + ": no such file");
        }
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException("cannot read " + path
                    + ": not a regular file (a FIFO, device or socket); give a result file");
        }
        try {
            return new JsonLinesReader(path.toString(), Files.newInputStream(path), MAX_LINE_BYTES);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + OsReason.of(e), e);
        }
    }

    /** The file as named in messages. */
    public String name() {
        return name;
    }

    /** Line number of the record last returned by {@link #next()} (1-based). */
    public long lineNumber() {
        return lineNo;
    }

    @Override
    public boolean hasNext() {
        if (next == null && !eof) {
            next = readRecord();
        }
        return next != null;
    }

    @Override
    public Map<String, Object> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Map<String, Object> m = next;
        next = null;
        return m;
    }

    /** The next non-blank line as a JSON object, or null at the end. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> readRecord() {
        String line;
        while ((line = readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Object v;
            try {
                v = JSON.readValue(line, Object.class);
            } catch (JacksonException e) {
                throw new IllegalArgumentException(name + ":" + lineNo + ": not a JSON line ("
                        + e.getOriginalMessage() + ")", e);
            }
            if (!(v instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException(name + ":" + lineNo + ": not a JSON object");
            }
            return m instanceof LinkedHashMap ? (Map<String, Object>) m : new LinkedHashMap<>((Map<String, Object>) m);
        }
        return null;
    }

    /** One line without its terminator, or null at the end; bounded by maxLine bytes. */
    private String readLine() {
        buf.reset();
        boolean any = false;
        try {
            while (true) {
                if (pos == lim) {
                    lim = in.read(chunk, 0, chunk.length);
                    pos = 0;
                    if (lim <= 0) {
                        lim = 0;
                        if (!any) {
                            eof = true;
                            return null;
                        }
                        break;
                    }
                }
                if (!any) {
                    any = true;
                    lineNo++;
                }
                int start = pos;
                while (pos < lim && chunk[pos] != '\n') {
                    pos++;
                }
                if (buf.size() + (pos - start) > maxLine) {
                    throw new IllegalArgumentException(name + ":" + lineNo + ": line longer than " + maxLine
                            + " bytes: not a marrow result file");
                }
                buf.write(chunk, start, pos - start);
                if (pos < lim) {
                    pos++; // the newline
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name + ": " + OsReason.of(e), e);
        }
        try {
            return utf8.decode(ByteBuffer.wrap(buf.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(name + ":" + lineNo + ": not UTF-8 text: not a marrow result file", e);
        }
    }

    @Override
    public void close() {
        try {
            if (in != System.in) {
                in.close();
            }
        } catch (IOException ignored) {
            // read-only: nothing is lost
        }
    }
}
