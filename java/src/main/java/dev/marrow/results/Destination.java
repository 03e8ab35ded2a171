// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a run's records go, checked before anything is measured
 * (docs/design/records.md, "Where records go"): stdout (no --output, or
 * "-", or /dev/stdout), a special file written as it is (/dev/null, a FIFO,
 * a terminal), or a regular file, written through a temporary file in the
 * same directory and named at the end without ever replacing one.
 */
public record Destination(Kind kind, Path path) {
    public enum Kind {
        STDOUT, SPECIAL, FILE
    }

    public static final Destination STDOUT = new Destination(Kind.STDOUT, null);

    /**
     * The destination of --output path (null: stdout). A path that cannot be
     * written is refused with one line naming it and the reason
     * (IllegalArgumentException: a usage error, nothing has run yet).
     */
    public static Destination check(Path path) {
        if (path == null) {
            return STDOUT;
        }
        String s = path.toString();
        if (s.isBlank()) {
            throw new IllegalArgumentException("--output: empty path (give a file name, or - for stdout)");
        }
        if (s.equals("-") || s.equals("/dev/stdout") || s.equals("/dev/fd/1") || s.equals("/proc/self/fd/1")) {
            // our own stdout: opening /dev/stdout again would start at offset 0 of a redirected file
            return STDOUT;
        }
        if (Files.isDirectory(path)) {
            throw new IllegalArgumentException("cannot write " + path + ": is a directory");
        }
        if (Files.exists(path) && !Files.isRegularFile(path)) {
            if (!Files.isWritable(path)) {
                throw new IllegalArgumentException("cannot write " + path + ": permission denied");
            }
            return new Destination(Kind.SPECIAL, path);
        }
        if (s.startsWith("/dev/") || s.startsWith("/proc/")) {
            // /dev/stderr and the like resolve to a regular file when redirected: write it as it is
            if (Files.exists(path)) {
                return new Destination(Kind.SPECIAL, path);
            }
            throw new IllegalArgumentException("cannot write " + path + ": no such device");
        }
        Path parent = path.toAbsolutePath().getParent();
        if (parent == null || !Files.exists(parent)) {
            throw new IllegalArgumentException("cannot write " + path + ": directory " + parent
                    + " does not exist (it is not created)");
        }
        if (!Files.isDirectory(parent)) {
            throw new IllegalArgumentException("cannot write " + path + ": " + parent + " is not a directory");
        }
        if (!Files.isWritable(parent)) {
            throw new IllegalArgumentException("cannot write " + path + ": permission denied (directory "
                    + parent + ")");
        }
        return new Destination(Kind.FILE, path);
    }

    /** The name used in messages. */
    public String display() {
        return path == null ? "stdout" : path.toString();
    }

    /**
     * The n-th name tried for a regular file: the path itself, then
     * "name.N.ext" (the number before the last extension: run.jsonl,
     * run.1.jsonl, run.2.jsonl; a name without an extension gets ".N").
     */
    public static Path candidate(Path path, int n) {
        if (n == 0) {
            return path;
        }
        String name = path.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String stem = dot > 0 ? name.substring(0, dot) : name;
        String ext = dot > 0 ? name.substring(dot) : "";
        return path.resolveSibling(stem + "." + n + ext);
    }
}
