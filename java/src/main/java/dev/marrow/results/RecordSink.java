// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * The streaming output of one run (docs/design/records.md): opened before the
 * first point, it writes the header at once and each record as its point
 * completes, whole lines only, then a footer. A regular file is written as a
 * temporary ".NAME.partial-PID" beside it and given its final name (never
 * replacing a file: {@link Destination#candidate}) when the run ends, fails
 * or is interrupted (SIGINT/SIGTERM: a shutdown hook finishes every open
 * sink), so what was measured is kept. A write error (a full disk) cuts the
 * file back to its last complete line, names it, and ends the run.
 */
public final class RecordSink {
    public enum Status {
        COMPLETE, FAILED, INTERRUPTED;

        String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Set<RecordSink> OPEN = ConcurrentHashMap.newKeySet();
    private static volatile boolean hookInstalled;

    private final Destination dest;
    private final OutputFormat format;
    private final PrintWriter stdout;
    private final PrintWriter err;
    private final Path temp;
    private final SeekableByteChannel channel;
    private final Thread owner = Thread.currentThread();
    private final Map<String, Object> env;
    private long committed;
    private long count;
    private boolean finished;
    private Path written;
    // CSV / table: the columns of the current header row (a record with new columns starts a new one)
    private List<String> columns;
    private int[] widths;
    private TableColumns tableColumns = TableColumns.ALL;
    private Object tableExperiment;

    private RecordSink(Destination dest, OutputFormat format, PrintWriter stdout, PrintWriter err, Path temp,
                       SeekableByteChannel channel, Map<String, Object> env) {
        this.dest = dest;
        this.format = format;
        this.stdout = stdout;
        this.err = err;
        this.temp = temp;
        this.channel = channel;
        this.env = env;
    }

    /**
     * Opens the destination and writes the header (JSON: the header record
     * holding env, none when header is null; a table: comment lines with the
     * first record; CSV: nothing until the first record; format null: raw
     * text through {@link #writeText}, no header or footer). A file that
     * cannot be created is refused with its reason.
     */
    public static RecordSink open(Destination dest, OutputFormat format, Map<String, Object> header,
                                  PrintWriter stdout, PrintWriter err) {
        return open(dest, format, header, stdout, err, UnaryOperator.identity());
    }

    /** As {@link #open}, with the file channel wrapped (tests: a channel that fails like a full disk). */
    static RecordSink open(Destination dest, OutputFormat format, Map<String, Object> header, PrintWriter stdout,
                           PrintWriter err, UnaryOperator<SeekableByteChannel> wrap) {
        Path temp = null;
        SeekableByteChannel ch = null;
        try {
            switch (dest.kind()) {
                case FILE -> {
                    temp = tempFor(dest.path());
                    ch = wrap.apply(Files.newByteChannel(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
                }
                // APPEND: /dev/stderr redirected with 2>> must not be written from offset 0
                case SPECIAL -> ch = wrap.apply(Files.newByteChannel(dest.path(), StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND));
                case STDOUT -> {
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write " + dest.display() + ": " + OsReason.of(e), e);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> env = header != null && header.get("env") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        RecordSink s = new RecordSink(dest, format, stdout, err, temp, ch, env);
        installHook();
        OPEN.add(s);
        if (format == OutputFormat.JSON && header != null) {
            s.line(JSON.writeValueAsString(header));
        } else if (format == OutputFormat.CSV && header != null) {
            s.comments(header);
        }
        return s;
    }

    /** The header record of a run: {"record":"header","schema":...,"env":{...}}. */
    public static Map<String, Object> header(Map<String, Object> env) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("record", "header");
        h.put("schema", ResultWriter.SCHEMA);
        h.put("env", env);
        return h;
    }

    private static Path tempFor(Path path) {
        String base = "." + path.getFileName() + ".partial-" + ProcessHandle.current().pid();
        Path t = path.resolveSibling(base);
        for (int i = 1; Files.exists(t, java.nio.file.LinkOption.NOFOLLOW_LINKS); i++) {
            t = path.resolveSibling(base + "-" + i);
        }
        return t;
    }

    private static synchronized void installHook() {
        if (!hookInstalled) {
            hookInstalled = true;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                for (RecordSink s : OPEN) {
                    s.finishQuietly(Status.INTERRUPTED, "interrupted (SIGINT/SIGTERM)", Map.of());
                }
            }, "marrow-output-finish"));
        }
    }

    /** Records written so far. */
    public synchronized long count() {
        return count;
    }

    /** Writes one result record as a whole line, at once. Ignored after the sink finished (a signal ended it). */
    public void write(ResultRecord r) {
        write(r.flat());
    }

    /** Writes one record given as its flat map (merge-runs), as {@link #write(ResultRecord)}. */
    public synchronized void write(Map<String, Object> flat) {
        if (finished) {
            return;
        }
        switch (format) {
            case JSON -> line(JSON.writeValueAsString(flat));
            case CSV -> csvRow(flat);
            case TABLE -> tableRow(flat);
        }
        count++;
    }

    /** Writes raw text (already whole lines); for output rendered elsewhere. */
    public synchronized void writeText(String text) {
        if (!finished && !text.isEmpty()) {
            bytes(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * CSV: a header or footer record as comment lines ("# key=value", nested
     * fields flattened as the rows are), so a CSV reader told that "#" starts
     * a comment (pandas comment='#', R comment.char) reads the rows alone.
     */
    private void comments(Map<String, Object> rec) {
        StringBuilder sb = new StringBuilder();
        flatten("", rec, new LinkedHashMap<>()).forEach((k, v) ->
                sb.append("# ").append(k).append('=').append(String.valueOf(v).replace('\n', ' ')).append('\n'));
        bytes(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A record's fields with nested values flattened (CSV): a map's fields as
     * "a.b", a list of scalars as one cell of space-separated items, a list
     * holding maps or lists by index ("per_worker.0.cpu").
     */
    static Map<String, Object> flatten(String prefix, Map<String, Object> m, Map<String, Object> into) {
        for (Map.Entry<String, Object> e : m.entrySet()) {
            flattenValue(prefix + e.getKey(), e.getValue(), into);
        }
        return into;
    }

    @SuppressWarnings("unchecked")
    private static void flattenValue(String key, Object v, Map<String, Object> into) {
        if (v instanceof Map<?, ?> mm) {
            flatten(key + ".", (Map<String, Object>) mm, into);
        } else if (v instanceof List<?> l && l.stream().anyMatch(x -> x instanceof Map || x instanceof List)) {
            for (int i = 0; i < l.size(); i++) {
                flattenValue(key + "." + i, l.get(i), into);
            }
        } else if (v instanceof List<?> l) {
            List<String> items = new ArrayList<>();
            l.forEach(x -> items.add(String.valueOf(x)));
            into.put(key, String.join(" ", items));
        } else {
            into.put(key, v);
        }
    }

    private void csvRow(Map<String, Object> nested) {
        Map<String, Object> flat = flatten("", nested, new LinkedHashMap<>());
        if (columns == null || !columns.containsAll(flat.keySet())) {
            columns = new ArrayList<>(flat.keySet());
            line(String.join(",", columns));
        }
        List<String> cells = new ArrayList<>();
        for (String c : columns) {
            cells.add(ResultWriter.csvCell(flat.get(c)));
        }
        line(String.join(",", cells));
    }

    /** The table's columns (--columns); every field unless set. Before the first record. */
    public RecordSink columns(TableColumns c) {
        tableColumns = c;
        return this;
    }

    private void tableRow(Map<String, Object> flat) {
        List<String> cols = new ArrayList<>(flat.keySet());
        cols.removeAll(List.of("record", "experiment"));
        Object exp = flat.get("experiment");
        if (columns == null) {
            StringBuilder sb = new StringBuilder("# ").append(flat.get("experiment"))
                    .append(Boolean.FALSE.equals(flat.get("hardware"))
                            ? "  [EMULATED NIC: software emulator, not hardware]" : "  [hardware]").append('\n');
            sb.append(ResultWriter.hostLine(env));
            bytes(sb.toString().getBytes(StandardCharsets.UTF_8));
        }
        boolean newSet = columns == null
                || (tableColumns.everyField() && !columns.containsAll(cols))
                || (tableColumns.perExperiment() && !java.util.Objects.equals(exp, tableExperiment));
        if (newSet) {
            // widths from the header and this first row; a later, wider cell pushes its row only
            if (columns != null && tableColumns.perExperiment()) {
                line("# " + exp);
            }
            columns = tableColumns.choose(flat);
            tableExperiment = exp;
            widths = new int[columns.size()];
            for (int i = 0; i < columns.size(); i++) {
                widths[i] = Math.max(columns.get(i).length(), cell(flat.get(columns.get(i))).length());
            }
            line(ResultWriter.row(columns, widths));
        }
        List<String> row = new ArrayList<>();
        for (String c : columns) {
            row.add(cell(flat.get(c)));
        }
        line(ResultWriter.row(row, widths));
    }

    private static String cell(Object v) {
        return TableColumns.cell(v);
    }

    private void line(String s) {
        bytes((s + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** Writes whole lines; on a write error cuts the file back to its last complete line and ends the run. */
    private void bytes(byte[] b) {
        if (channel == null) {
            stdout.print(new String(b, StandardCharsets.UTF_8));
            stdout.flush();
            if (stdout.checkError()) {
                finished = true;
                OPEN.remove(this);
                throw new UncheckedIOException("cannot write stdout (closed pipe?)", new IOException("stdout"));
            }
            return;
        }
        try {
            ByteBuffer buf = ByteBuffer.wrap(b);
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
            committed += b.length;
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    private UncheckedIOException writeFailed(IOException e) {
        String reason = OsReason.of(e);
        String kept = "";
        if (temp != null) {
            try {
                channel.truncate(committed);
            } catch (IOException ignored) {
                // the file system refused even that: the partial line stays, and the message says so below
            }
            finished = true;
            Path p = settle(true);
            kept = p == null ? "; nothing was kept" : "; the " + count + " complete record(s) before it are in " + p;
        } else {
            finished = true;
            closeChannel();
        }
        OPEN.remove(this);
        return new UncheckedIOException("cannot write " + dest.display() + ": " + reason + kept, e);
    }

    /**
     * Ends the output: the footer (JSON: {"record":"footer", "ended_at",
     * "status", "records", ...extra}), then the file's final name. Returns the
     * file written (null for stdout, or when a failed run wrote no record and
     * no file is left). Idempotent.
     */
    public synchronized Path finish(Status status, String error, Map<String, Object> extra) {
        if (finished) {
            return written;
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("record", "footer");
        f.put("schema", ResultWriter.SCHEMA);
        f.put("ended_at", Instant.now().toString());
        f.put("status", status.word());
        f.put("records", count);
        f.putAll(extra);
        if (error != null) {
            f.put("error", error);
        }
        if (format == OutputFormat.JSON) {
            line(JSON.writeValueAsString(f));
        } else if (format == OutputFormat.CSV) {
            comments(f);
        } else if (format == OutputFormat.TABLE && (status != Status.COMPLETE || count == 0)) {
            line("# " + status.word() + (error != null ? ": " + error : "") + ", " + count + " record(s)");
        }
        finished = true;
        OPEN.remove(this);
        if (temp == null) {
            closeChannel();
            return null;
        }
        written = settle(status == Status.COMPLETE);
        if (written == null) {
            err.println("marrow: " + status.word() + " before the first record: no file written ("
                    + dest.display() + ")");
            err.flush();
            return null;
        }
        Path asked = dest.path();
        if (status == Status.INTERRUPTED) {
            err.println("marrow: interrupted; the " + count + " record(s) written are in " + written);
        } else if (!written.equals(asked)) {
            err.println("marrow: " + asked + " exists; wrote " + written + " instead (never overwrites)");
        } else {
            err.println("marrow: wrote " + written);
        }
        err.flush();
        return written;
    }

    /** finish(), reporting a failure on err instead of throwing (shutdown hook, error path). */
    void finishQuietly(Status status, String error, Map<String, Object> extra) {
        try {
            finish(status, error, extra);
        } catch (RuntimeException e) {
            err.println("marrow: " + e.getMessage());
            err.flush();
        }
    }

    /**
     * Finishes the sinks the given thread opened and left open: its command
     * failed (status FAILED with the error) or returned without ending them.
     */
    public static void finishOpenedBy(Thread t, Status status, String error) {
        for (RecordSink s : OPEN) {
            if (s.owner == t) {
                s.finishQuietly(status, error, Map.of());
            }
        }
    }

    /**
     * Closes the temporary file and gives it its final name; a run that
     * wrote no record and did not complete leaves no file.
     */
    private Path settle(boolean complete) {
        closeChannel();
        // raw text (format null: the DSM table) has no records: what was written is what is kept
        if (!complete && (format != null ? count == 0 : committed == 0)) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // a stray temporary file, named after our pid
            }
            return null;
        }
        Path asked = dest.path();
        for (int n = 0; ; n++) {
            Path target = Destination.candidate(asked, n);
            try {
                // link(2) fails when the name exists: never replaces a file, even one made since the check
                Files.createLink(target, temp);
                Files.delete(temp);
                return target;
            } catch (FileAlreadyExistsException e) {
                continue;
            } catch (IOException | UnsupportedOperationException e) {
                // no hard links here (some file systems): a move that refuses an existing target
                if (Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                try {
                    Files.move(temp, target);
                    return target;
                } catch (FileAlreadyExistsException e2) {
                    continue;
                } catch (IOException e2) {
                    throw new UncheckedIOException("cannot name " + temp + " " + target + ": " + OsReason.of(e2)
                            + " (the records are in " + temp + ")", e2);
                }
            }
        }
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // every line was written (and counted) before
            }
        }
    }
}
