// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * A results page's raw inputs as one {@code .tar.gz} (docs/results/README.md, "Raw data"): member names
 * are paths relative to docs/results ("h200-dsm/run2/load-1.jsonl"), so the tables that find their
 * files by path ending read an expanded archive exactly as they read the tree. Only plain files
 * (ustar type '0' or NUL) are taken; names with ".." or a leading "/" are refused.
 */
public final class RawArchive {
    private RawArchive() {
    }

    /** Expanded file -> its member name, for manifests ("h200-dsm/run2/load-1.jsonl"). */
    private static final Map<Path, String> MEMBERS = Collections.synchronizedMap(new HashMap<>());

    public static boolean isArchive(Path p) {
        String n = p.getFileName().toString();
        return n.endsWith(".tar.gz") || n.endsWith(".tgz");
    }

    /** The member name an expanded file came from, or null for a file that was not in an archive. */
    public static String member(Path expanded) {
        return MEMBERS.get(expanded.toAbsolutePath().normalize());
    }

    /** Writes every plain file of the archive under dir, keeping its path; returns them in archive order. */
    public static List<Path> expand(Path archive, Path dir) {
        List<Path> out = new ArrayList<>();
        Path root = dir.toAbsolutePath().normalize();
        try (InputStream in = new GZIPInputStream(new BufferedInputStream(Files.newInputStream(archive)))) {
            byte[] h = new byte[512];
            String longName = null;
            while (readFully(in, h)) {
                if (isZero(h)) {
                    break;
                }
                String name = longName != null ? longName : field(h, 0, 100);
                longName = null;
                String prefix = field(h, 345, 155);
                if (!prefix.isEmpty() && h[257] == 'u') { // ustar: prefix/name
                    name = prefix + "/" + name;
                }
                long size = Long.parseLong(field(h, 124, 12).trim().isEmpty() ? "0" : field(h, 124, 12).trim(), 8);
                byte type = h[156];
                byte[] data = in.readNBytes((int) size);
                if (data.length != size) {
                    throw new IllegalArgumentException(archive + ": truncated at " + name);
                }
                in.skipNBytes((512 - size % 512) % 512);
                if (type == 'L') { // GNU long name: the next header's name
                    longName = new String(data, StandardCharsets.UTF_8).replace("\0", "");
                    continue;
                }
                if (type != '0' && type != 0) {
                    continue; // directories, links, pax headers: nothing a table reads
                }
                if (name.startsWith("/") || name.contains("..")) {
                    throw new IllegalArgumentException(archive + ": member name " + name + " leaves the archive");
                }
                String clean = name.startsWith("./") ? name.substring(2) : name;
                Path f = root.resolve(clean).normalize();
                Files.createDirectories(f.getParent());
                Files.write(f, data);
                MEMBERS.put(f, clean);
                out.add(f);
            }
        } catch (java.util.zip.ZipException | NumberFormatException e) {
            throw new IllegalArgumentException(archive + ": not a .tar.gz of raw results (" + e.getMessage() + ")", e);
        } catch (java.io.EOFException e) {
            throw new IllegalArgumentException(archive + ": truncated archive", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + archive + ": " + e.getMessage(), e);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(archive + ": archive holds no files");
        }
        return out;
    }

    /**
     * The inputs with every archive replaced by its files, expanded under a fresh temporary directory
     * that is removed when the JVM exits.
     */
    public static List<Path> expandAll(List<Path> inputs) {
        List<Path> out = new ArrayList<>();
        Path tmp = null;
        for (Path p : inputs) {
            if (!isArchive(p)) {
                out.add(p);
                continue;
            }
            try {
                if (tmp == null) {
                    tmp = Files.createTempDirectory("marrow-report-");
                    deleteOnExit(tmp);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a temporary directory", e);
            }
            out.addAll(expand(p, tmp));
        }
        return out;
    }

    private static void deleteOnExit(Path dir) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (var s = Files.walk(dir)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory left behind is harmless
            }
        }));
    }

    private static boolean readFully(InputStream in, byte[] b) throws IOException {
        int n = in.readNBytes(b, 0, b.length);
        if (n == 0) {
            return false;
        }
        if (n != b.length) {
            throw new java.io.EOFException();
        }
        return true;
    }

    private static boolean isZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    private static String field(byte[] h, int off, int len) {
        int end = off;
        while (end < off + len && h[end] != 0) {
            end++;
        }
        return new String(h, off, end - off, StandardCharsets.UTF_8);
    }
}
