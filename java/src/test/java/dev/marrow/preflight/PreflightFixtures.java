// SPDX-License-Identifier: Apache-2.0
package dev.marrow.preflight;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * The sysfs/procfs trees under src/test/resources/preflight, copied into a
 * temporary directory with the symbolic links their links.txt lists (test
 * resources cannot carry links; sysfs is made of them).
 */
public final class PreflightFixtures {
    private PreflightFixtures() {
    }

    public static Path tree(String name, Path into) {
        try {
            Path src = Path.of(PreflightFixtures.class.getResource("/preflight/" + name).toURI());
            Path dst = into.resolve(name);
            try (Stream<Path> all = Files.walk(src)) {
                for (Path p : all.toList()) {
                    Path t = dst.resolve(src.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(t);
                    } else {
                        Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
            for (String line : Files.readAllLines(dst.resolve("links.txt"), StandardCharsets.UTF_8)) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] lt = line.split(" -> ");
                link(dst, lt[0].strip(), lt[1].strip());
            }
            return dst;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Makes (or replaces) the link rel -> target under root. */
    public static void link(Path root, String rel, String target) throws IOException {
        Path l = root.resolve(rel);
        Files.createDirectories(l.getParent());
        Files.deleteIfExists(l);
        Files.createSymbolicLink(l, Path.of(target));
    }

    public static void write(Path root, String rel, String text) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    public static void delete(Path root, String rel) throws IOException {
        Path p = root.resolve(rel);
        if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> all = Files.walk(p)) {
                for (Path q : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(q);
                }
            }
        } else {
            Files.deleteIfExists(p);
        }
    }

    static List<String> lines(Path p) throws IOException {
        return Files.readAllLines(p);
    }
}
