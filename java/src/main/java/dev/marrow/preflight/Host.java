// SPDX-License-Identifier: Apache-2.0
package dev.marrow.preflight;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where the checks read from: a root directory that stands for "/" (a fixture
 * tree in tests), the read-only commands they may run (nvidia-smi), and the
 * native probes (DevX, the CUDA device order) that only mean something for
 * the real root. Reading never throws: a file that cannot be read is absent.
 *
 * @param commands  runs a read-only command; its stdout, or empty when the command is missing or fails
 * @param devxProbe opens an mlx5 device through libmarrow_verbs.so: empty when the library is not built,
 *                  else null for "DevX works" or the reason it does not (a function of the device name)
 * @param cudaGpu0  the PCI bus id of CUDA device 0 (the device the commands use by default), when CUDA says
 */
public record Host(Path root, Function<List<String>, Optional<String>> commands,
                   Optional<Function<String, String>> devxProbe, Supplier<Optional<String>> cudaGpu0) {

    /** A tree on disk with no commands and no native probes (tests, --root). */
    public static Host tree(Path root) {
        return new Host(root, cmd -> Optional.empty(), Optional.empty(), Optional::empty);
    }

    /** An absolute path such as "/proc/self/limits" under the root. */
    public Path path(String absolute) {
        return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
    }

    /** The file's text without surrounding blanks, or empty. */
    public Optional<String> read(String absolute) {
        return read(path(absolute));
    }

    public static Optional<String> read(Path p) {
        try {
            return Optional.of(Files.readString(p, StandardCharsets.ISO_8859_1).strip());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    public boolean exists(String absolute) {
        return Files.exists(path(absolute));
    }

    /** The entries of a directory matching glob, sorted by name; empty when it cannot be listed. */
    public List<Path> list(String absolute, String glob) {
        return list(path(absolute), glob);
    }

    public static List<Path> list(Path dir, String glob) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, glob)) {
            s.forEach(out::add);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    public Optional<String> run(String... command) {
        return commands.apply(List.of(command));
    }
}
