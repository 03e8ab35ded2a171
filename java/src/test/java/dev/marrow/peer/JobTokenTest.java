// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Where the job token comes from, and the token files it refuses (docs/design/two-process.md section 12). */
class JobTokenTest {
    static long soon() {
        return System.nanoTime() + 300_000_000L;
    }

    @Test
    void theListenerCreatesAPrivateFileAndTheConnectorReadsTheSameToken(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("HOME", home.toString(), "SLURM_JOB_ID", "4242");
        JobToken listener = JobToken.resolve(env, true, System.nanoTime());
        JobToken connector = JobToken.resolve(env, false, soon());
        assertArrayEquals(listener.key(), connector.key());
        assertEquals(32, listener.key().length);
        Path file = home.resolve(".marrow/job-slurm-4242.token");
        assertEquals(file.toString(), listener.source());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        // another job gets another token
        JobToken other = JobToken.resolve(Map.of("HOME", home.toString(), "SLURM_JOB_ID", "4243"), true,
                System.nanoTime());
        assertTrue(!Arrays.equals(listener.key(), other.key()));
    }

    @Test
    void twoRanksCreatingAtOnceAgree(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("HOME", home.toString());
        for (int round = 0; round < 20; round++) {
            Map<String, String> e = Map.of("HOME", home.toString(), "TORCHELASTIC_RUN_ID", "r" + round);
            CompletableFuture<JobToken> a = CompletableFuture.supplyAsync(() -> JobToken.resolve(e, true, soon()));
            CompletableFuture<JobToken> b = CompletableFuture.supplyAsync(() -> JobToken.resolve(e, true, soon()));
            assertArrayEquals(a.get(10, TimeUnit.SECONDS).key(), b.get(10, TimeUnit.SECONDS).key(), "round " + round);
        }
        try (var files = Files.list(home.resolve(".marrow"))) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().endsWith(".tmp")), "temporary files left");
        }
        assertEquals("default", JobToken.jobName(env));
    }

    @Test
    void aTokenFileOthersCanReadIsRefused(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("HOME", home.toString());
        JobToken.resolve(env, true, System.nanoTime());
        Path file = home.resolve(".marrow/job-default.token");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        for (boolean create : new boolean[] {true, false}) {
            PeerExchangeException e = assertThrows(PeerExchangeException.class,
                    () -> JobToken.resolve(env, create, soon()));
            assertTrue(e.getMessage().contains("mode 0644") && e.getMessage().contains("chmod 600 " + file),
                    e.getMessage());
        }
    }

    @Test
    void aTokenFileOfAnotherUserIsRefused(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("HOME", home.toString());
        JobToken.resolve(env, true, System.nanoTime());
        Path file = home.resolve(".marrow/job-default.token");
        UserPrincipal nobody;
        try {
            nobody = file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
            Files.setOwner(file, nobody); // only root may give a file away
        } catch (Exception e) {
            assumeTrue(false, "cannot give a file to another user here: " + e);
            return;
        }
        PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> JobToken.resolve(env, false,
                soon()));
        assertTrue(e.getMessage().contains("belongs to nobody"), e.getMessage());
    }

    @Test
    void theConnectorWaitsABoundedTimeForTheFile(@TempDir Path home) {
        Map<String, String> env = Map.of("HOME", home.toString());
        long t0 = System.nanoTime();
        PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> JobToken.resolve(env, false,
                soon()));
        assertTrue((System.nanoTime() - t0) < 5_000_000_000L);
        assertTrue(e.getMessage().contains("did not appear") && e.getMessage().contains(JobToken.ENV),
                e.getMessage());
    }

    @Test
    void theEnvironmentWinsAndMustNotBeShort(@TempDir Path home) {
        JobToken t = JobToken.resolve(Map.of("HOME", home.toString(), JobToken.ENV, "0123456789abcdef0123"), false,
                soon());
        assertEquals(JobToken.ENV, t.source());
        assertTrue(!Files.exists(home.resolve(".marrow")), "no file when the variable is set");
        PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> JobToken.resolve(
                Map.of(JobToken.ENV, "12345"), true, soon()));
        assertTrue(e.getMessage().contains("at least 16"), e.getMessage());
        assertTrue(!e.getMessage().contains("12345"), "the message repeats the secret: " + e.getMessage());
    }

    @Test
    void theFileLivesInTheHomeAndIsNamedAfterTheLaunchersJob(@TempDir Path dir) {
        // not $XDG_RUNTIME_DIR: node-local, and a launcher may carry another node's value
        assertEquals(dir.resolve(".marrow"), JobToken.directory(Map.of("XDG_RUNTIME_DIR", dir.toString(),
                "HOME", dir.toString())));
        assertEquals("slurm-7", JobToken.jobName(Map.of("SLURM_JOB_ID", "7")));
        assertEquals("pmix-prterun-h-1_1", JobToken.jobName(Map.of("PMIX_NAMESPACE", "prterun-h-1@1")));
        assertEquals("default", JobToken.jobName(Map.of("TORCHELASTIC_RUN_ID", "none")));
    }
}
