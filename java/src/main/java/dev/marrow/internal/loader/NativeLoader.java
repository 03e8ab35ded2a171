// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.loader;

import dev.marrow.api.MarrowException;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Finds and dlopens the libmarrow_*.so files. One place, one order:
 * <ol>
 *   <li>{@code -Dmarrow.native.dir=DIR}: a directory holding the .so files and
 *       native-manifest.properties (e.g. native/target/stage/lib);</li>
 *   <li>otherwise the set inside the jar, under META-INF/native/&lt;platform&gt;/,
 *       extracted into one fresh private directory under
 *       {@code -Dmarrow.native.workdir} (default java.io.tmpdir).</li>
 * </ol>
 * Libraries are opened with {@link SymbolLookup#libraryLookup(Path, Arena)}
 * (RTLD_LOCAL) in the global arena. Run with -Xlog:library to see the dlopen calls.
 */
public final class NativeLoader {
    public static final String PLATFORM = platform();
    private static final String RESOURCE_DIR = "META-INF/native/" + PLATFORM + "/";
    private static final String MANIFEST = "native-manifest.properties";

    private static Path directory;
    private static NativeManifest manifest;
    private static final Map<String, SymbolLookup> LOOKUPS = new HashMap<>();

    private NativeLoader() {
    }

    static String platform() {
        String arch = System.getProperty("os.arch");
        String a = switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> arch;
        };
        return System.getProperty("os.name").toLowerCase().startsWith("linux") ? "linux-" + a : "unsupported-" + a;
    }

    /** Directory the libraries are loaded from (extracting them on first use). */
    public static synchronized Path directory() {
        if (directory == null) {
            directory = resolve();
        }
        return directory;
    }

    public static synchronized NativeManifest manifest() {
        if (manifest == null) {
            Path m = directory().resolve(MANIFEST);
            try {
                manifest = NativeManifest.read(Files.newInputStream(m));
            } catch (IOException e) {
                throw new MarrowException("cannot read " + m + ": " + e.getMessage(), e);
            }
        }
        return manifest;
    }

    /** dlopens libmarrow_{component}.so once and returns its symbol lookup. */
    public static synchronized SymbolLookup lookup(String component) {
        SymbolLookup l = LOOKUPS.get(component);
        if (l != null) {
            return l;
        }
        NativeManifest m = manifest();
        if (!m.has(component)) {
            throw new MarrowException("libmarrow_" + component + ".so was not built on this machine ("
                    + m.buildNote(component) + "); rebuild with scripts/build-native.sh where the prerequisites exist");
        }
        Path lib = directory().resolve("libmarrow_" + component + ".so");
        try {
            l = SymbolLookup.libraryLookup(lib, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new MarrowException("cannot dlopen " + lib + ": " + e.getMessage()
                    + " (run with -Xlog:library for details; check `ldd " + lib + "`)", e);
        }
        LOOKUPS.put(component, l);
        return l;
    }

    private static Path resolve() {
        String dir = System.getProperty("marrow.native.dir");
        if (dir != null && !dir.isBlank()) {
            Path p = Path.of(dir).toAbsolutePath();
            if (!Files.isRegularFile(p.resolve(MANIFEST))) {
                throw new MarrowException("-Dmarrow.native.dir=" + dir + " holds no " + MANIFEST
                        + "; point it at native/target/stage/lib after scripts/build-native.sh");
            }
            return p;
        }
        return extract();
    }

    private static Path extract() {
        String work = System.getProperty("marrow.native.workdir", System.getProperty("java.io.tmpdir"));
        return extractFrom(NativeLoader.class.getClassLoader(), Path.of(work));
    }

    /** Extraction folders are named PREFIX + owner pid + "-" + random, and hold LOCK, locked while the owner lives. */
    static final String PREFIX = "marrow-native-";
    static final String LOCK = ".owner.lock";
    /** Held for the JVM's life: the lock on our folder's LOCK file (released by the kernel when we die). */
    private static java.nio.channels.FileChannel ownerLock;

    /**
     * Copies the manifest and every library it lists from the class loader's
     * META-INF/native/&lt;platform&gt;/ into a fresh 0700 directory under base
     * (one directory for the whole set, so $ORIGIN lookups between them work).
     * The folder is marked with our pid and a lock held until we exit; the
     * shutdown hook removes it, and a JVM killed with SIGKILL leaves it for
     * the next run's {@link #sweepStale} (docs/design/records.md, "Leftovers").
     */
    public static Path extractFrom(ClassLoader cl, Path base) {
        NativeManifest m;
        InputStream in = cl.getResourceAsStream(RESOURCE_DIR + MANIFEST);
        if (in == null) {
            throw new MarrowException("no native libraries for platform " + PLATFORM + " on the class path ("
                    + RESOURCE_DIR + MANIFEST + " missing). Fixes: build with scripts/build-native.sh and pass "
                    + "-Dmarrow.native.dir=native/target/stage/lib, or put marrow-native.jar on the class path");
        }
        m = NativeManifest.read(in);
        try {
            Files.createDirectories(base);
            sweepStale(base);
            Path dir = Files.createTempDirectory(base, PREFIX + ProcessHandle.current().pid() + "-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            lockOwner(dir);
            copy(cl, MANIFEST, dir);
            for (String c : m.components()) {
                copy(cl, "libmarrow_" + c + ".so", dir);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(dir), "marrow-native-cleanup"));
            return dir;
        } catch (IOException e) {
            throw new MarrowException("cannot extract native libraries: " + e.getMessage()
                    + " (set -Dmarrow.native.workdir to a writable, exec-mounted directory)", e);
        }
    }

    private static synchronized void lockOwner(Path dir) throws IOException {
        java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(dir.resolve(LOCK),
                java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE);
        ch.lock();
        // kept open (and referenced) for the JVM's life: closing it would release the lock
        ownerLock = ch;
    }

    /**
     * Removes the extraction folders under base that our user owns and whose
     * owner is gone: the pid in the name is not running, or (the pid reused
     * by another process) nobody holds the folder's lock. Folders of live
     * owners, of other users and without a pid in the name are left alone.
     * Best effort: returns the folders removed.
     */
    static java.util.List<Path> sweepStale(Path base) {
        java.util.List<Path> removed = new java.util.ArrayList<>();
        java.nio.file.attribute.UserPrincipal me;
        try {
            me = base.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByName(System.getProperty("user.name"));
        } catch (IOException | UnsupportedOperationException e) {
            return removed;
        }
        long self = ProcessHandle.current().pid();
        try (java.nio.file.DirectoryStream<Path> ds = Files.newDirectoryStream(base, PREFIX + "*")) {
            for (Path d : ds) {
                long pid = ownerPid(d.getFileName().toString());
                if (pid < 0 || pid == self || !Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        || !me.equals(Files.getOwner(d, java.nio.file.LinkOption.NOFOLLOW_LINKS))) {
                    continue;
                }
                if (ProcessHandle.of(pid).isEmpty() || lockFree(d)) {
                    deleteQuietly(d);
                    if (!Files.exists(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        removed.add(d);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // best effort: a leftover folder is only disk space
        }
        return removed;
    }

    /** The owner pid in "marrow-native-PID-RANDOM", or -1 (folders of older versions carry none). */
    static long ownerPid(String name) {
        String rest = name.substring(PREFIX.length());
        int dash = rest.indexOf('-');
        if (dash <= 0) {
            return -1;
        }
        try {
            return Long.parseLong(rest.substring(0, dash));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** True when the folder's lock can be taken (its pid now belongs to some other process). */
    private static boolean lockFree(Path d) {
        Path lock = d.resolve(LOCK);
        if (!Files.isRegularFile(lock, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return false; // being created right now, or not ours to judge
        }
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(lock,
                java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.channels.FileLock l = ch.tryLock();
            if (l == null) {
                return false;
            }
            l.release();
            return true;
        } catch (IOException | java.nio.channels.OverlappingFileLockException e) {
            return false;
        }
    }

    private static void copy(ClassLoader cl, String name, Path dir) throws IOException {
        try (InputStream in = cl.getResourceAsStream(RESOURCE_DIR + name)) {
            if (in == null) {
                throw new IOException(RESOURCE_DIR + name + " listed in the manifest but missing from the jar");
            }
            Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort at exit
        }
    }
}
