// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.loader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM killed with SIGKILL leaves its extraction folder behind; the next
 * extraction sweeps the folders of owners that are gone and keeps the rest.
 */
class NativeLoaderSweepTest {
    /** The pid of a process that has exited (a pid nobody runs now, until the kernel reuses it). */
    static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        long pid = p.pid();
        assertFalse(ProcessHandle.of(pid).isPresent(), "the child still runs");
        return pid;
    }

    static Path folder(Path base, long pid, String suffix) throws Exception {
        Path d = Files.createDirectory(base.resolve(NativeLoader.PREFIX + pid + "-" + suffix));
        Files.writeString(d.resolve("libmarrow_emu.so"), "x".repeat(1000));
        Files.createFile(d.resolve(NativeLoader.LOCK));
        return d;
    }

    @Test
    void foldersOfDeadOwnersGoAndLiveOnesStay(@TempDir Path base) throws Exception {
        Path dead = folder(base, deadPid(), "123");
        Path mine = folder(base, ProcessHandle.current().pid(), "123");
        Path old = Files.createDirectory(base.resolve(NativeLoader.PREFIX + "8759291383957963196")); // no pid: kept
        Path other = Files.createDirectory(base.resolve("not-marrow-" + deadPid() + "-1"));

        List<Path> removed = NativeLoader.sweepStale(base);

        assertEquals(List.of(dead), removed);
        assertFalse(Files.exists(dead), "the dead JVM's folder is swept");
        assertTrue(Files.exists(mine.resolve("libmarrow_emu.so")), "a live owner's folder is kept");
        assertTrue(Files.exists(old) && Files.exists(other), "folders without our pid marker are not ours to judge");
    }

    @Test
    void aReusedPidIsJudgedByTheLock(@TempDir Path base) throws Exception {
        // pid 1 runs, but it is no marrow JVM: nobody holds the first folder's lock, so it is stale;
        // the second one's lock is held (here by this JVM, standing in for a live owner), so it stays
        Path free = folder(base, 1, "123");
        Path held = folder(base, 1, "456");
        try (FileChannel ch = FileChannel.open(held.resolve(NativeLoader.LOCK), StandardOpenOption.WRITE);
             FileLock l = ch.lock()) {
            List<Path> removed = NativeLoader.sweepStale(base);
            assertEquals(List.of(free), removed);
            assertTrue(l.isValid() && Files.exists(held.resolve("libmarrow_emu.so")), "a held lock keeps the folder");
        }
    }

    @Test
    void theOwnerPidIsReadFromTheName() {
        assertEquals(42, NativeLoader.ownerPid(NativeLoader.PREFIX + "42-999"));
        assertEquals(-1, NativeLoader.ownerPid(NativeLoader.PREFIX + "8759291383957963196"));
    }
}
