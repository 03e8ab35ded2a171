// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * The per-job secret both sides of the rendezvous prove they know
 * (docs/design/two-process.md section 12). It never travels: the handshake
 * sends HMACs keyed with it. Sources, first match wins:
 * <ol>
 *   <li>{@value #ENV}: the same value exported to both sides (two nodes without a shared home);</li>
 *   <li>a file of 64 hex digits, mode 0600 and owned by this user, named per job
 *       ({@link #jobName}) in ~/.marrow ({@link #directory}). The listening side creates
 *       it with a random 256-bit value when absent; the connecting side waits for it to appear.</li>
 * </ol>
 */
public final class JobToken {
    public static final String ENV = "MARROW_JOB_TOKEN";
    /** Shorter secrets are refused: a guessable token authenticates nobody. */
    static final int MIN_ENV_CHARS = 16;
    static final int KEY_BYTES = 32;

    private final byte[] key;
    private final String source;

    /** The connecting side waited its whole bound and no token file appeared (no listener ran yet?). */
    public static final class Missing extends PeerExchangeException {
        Missing(String message) {
            super(message);
        }
    }

    private JobToken(byte[] key, String source) {
        this.key = key.clone();
        this.source = source;
    }

    /** A token from bytes in hand (tests; a caller with its own secret). */
    public static JobToken of(byte[] key, String source) {
        if (key.length < MIN_ENV_CHARS) {
            throw new IllegalArgumentException("a job token needs at least " + MIN_ENV_CHARS + " bytes");
        }
        return new JobToken(key, source);
    }

    /** A fresh random token (tests). */
    public static JobToken random(String source) {
        byte[] k = new byte[KEY_BYTES];
        new SecureRandom().nextBytes(k);
        return new JobToken(k, source);
    }

    byte[] key() {
        return key.clone();
    }

    /** Where it came from ({@value #ENV} or the file's path), for messages; never the value. */
    public String source() {
        return source;
    }

    /**
     * The job's token as env says. create: this side listens and makes the
     * file when absent; else it waits for the file until deadlineNanos
     * (System.nanoTime) and then fails naming both ways to provide one.
     */
    public static JobToken resolve(Map<String, String> env, boolean create, long deadlineNanos) {
        String v = env.get(ENV);
        if (v != null && !v.isBlank()) {
            String t = v.strip();
            if (t.length() < MIN_ENV_CHARS) {
                throw new PeerExchangeException(ENV + " has " + t.length() + " characters; use at least "
                        + MIN_ENV_CHARS + " random ones (e.g. openssl rand -hex 32), the same on both sides");
            }
            return new JobToken(t.getBytes(StandardCharsets.UTF_8), ENV);
        }
        Path dir = directory(env);
        Path file = dir.resolve("job-" + jobName(env) + ".token");
        try {
            if (create) {
                ensureDirectory(dir);
                createIfAbsent(file);
            }
            for (;;) {
                JobToken t = readFile(file);
                if (t != null) {
                    return t;
                }
                if (System.nanoTime() >= deadlineNanos) {
                    throw new Missing("no job token: " + ENV + " is not set and " + file
                            + " did not appear (the listening side creates it); on two nodes without a shared "
                            + "home export " + ENV + " with the same value to both sides");
                }
                Thread.sleep(50);
            }
        } catch (IOException e) {
            throw new PeerExchangeException("job token file " + file + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PeerExchangeException("interrupted while waiting for the job token file " + file, e);
        }
    }

    /**
     * The per-user directory of token files: ~/.marrow. Not $XDG_RUNTIME_DIR:
     * it is node-local, and launchers carry the submitting shell's value to
     * nodes where it names another or no directory; two nodes of one job see
     * one file only through a shared home.
     */
    static Path directory(Map<String, String> env) {
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        return Path.of(home, ".marrow");
    }

    /** The job's name from the launcher: Slurm job, torchrun run, Open MPI job, PMIx namespace; else "default". */
    static String jobName(Map<String, String> env) {
        String[][] ids = {{"SLURM_JOB_ID", "slurm"}, {"TORCHELASTIC_RUN_ID", "torchrun"},
                {"OMPI_MCA_ess_base_jobid", "ompi"}, {"PMIX_NAMESPACE", "pmix"}};
        for (String[] id : ids) {
            String v = env.get(id[0]);
            if (v != null && !v.isBlank() && !v.equals("none")) { // torchrun's run id is "none" unless given
                return id[1] + "-" + v.strip().replaceAll("[^A-Za-z0-9._-]", "_");
            }
        }
        return "default";
    }

    private static void ensureDirectory(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException raced) {
                // another rank made it: checked below
            }
        }
        Set<PosixFilePermission> p = Files.getPosixFilePermissions(dir);
        if (p.contains(PosixFilePermission.GROUP_WRITE) || p.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new PeerExchangeException("the job token directory " + dir + " is writable by others (mode "
                    + mode(p) + "): chmod 700 " + dir + ", or set " + ENV);
        }
    }

    /** Creates the file with a random value unless it exists; atomic (a hard link), so two ranks agree. */
    private static void createIfAbsent(Path file) throws IOException {
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        byte[] k = new byte[KEY_BYTES];
        new SecureRandom().nextBytes(k);
        Path tmp = Files.createTempFile(file.getParent(), ".token-", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, HexFormat.of().formatHex(k) + "\n");
            try {
                Files.createLink(file, tmp); // fails if another rank created it first: theirs is used
            } catch (FileAlreadyExistsException raced) {
                // read below
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The token in file, null while it does not exist; refuses a file others can read or another user owns. */
    static JobToken readFile(Path file) throws IOException {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        if (Files.isSymbolicLink(file) || !Files.isRegularFile(file)) {
            throw new PeerExchangeException("job token file " + file + " is not a regular file: remove it");
        }
        UserPrincipal owner = Files.getOwner(file);
        UserPrincipal me = file.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName(System.getProperty("user.name"));
        if (!owner.equals(me)) {
            throw new PeerExchangeException("job token file " + file + " belongs to " + owner.getName() + ", not "
                    + me.getName() + ": refusing it (remove it, or set " + ENV + ")");
        }
        Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
        if (p.stream().anyMatch(x -> x.name().startsWith("GROUP") || x.name().startsWith("OTHERS"))) {
            throw new PeerExchangeException("job token file " + file + " has mode " + mode(p) + ": others may read "
                    + "it, so it proves nothing; chmod 600 " + file + " (or remove it: the listening side makes a "
                    + "new one)");
        }
        String s;
        try {
            s = Files.readString(file).strip();
        } catch (NoSuchFileException e) {
            return null;
        }
        if (s.length() != 2 * KEY_BYTES || !s.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new PeerExchangeException("job token file " + file + " does not hold " + (2 * KEY_BYTES)
                    + " hex digits: remove it (the listening side makes a new one)");
        }
        return new JobToken(HexFormat.of().parseHex(s), file.toString());
    }

    private static String mode(Set<PosixFilePermission> p) {
        int m = 0;
        for (PosixFilePermission x : p) {
            m |= 1 << (8 - x.ordinal()); // OWNER_READ is ordinal 0 = 0400
        }
        return String.format("%04o", m);
    }
}
