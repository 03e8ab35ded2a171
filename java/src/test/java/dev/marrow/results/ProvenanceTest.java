// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import dev.marrow.internal.loader.NativeLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * git_sha and git_dirty in a result header come from the build
 * (native-manifest.properties), not from the repository of the directory the
 * CLI happens to run in.
 */
class ProvenanceTest {

    /** Prints the header's git_sha and git_dirty; run in another directory by the test below. */
    public static final class Probe {
        public static void main(String[] args) {
            Map<String, Object> env = Environment.capture();
            System.out.println(env.get("git_sha") + " " + env.get("git_dirty"));
        }
    }

    @Test
    void theHeaderCarriesTheBuildsShaAndDirtyFlag() throws Exception {
        Map<String, Object> env = Environment.capture();
        String built = NativeLoader.manifest().gitSha();
        assertEquals(built, env.get("git_sha"));
        assertInstanceOf(Boolean.class, env.get("git_dirty"), "git_dirty: " + env.get("git_dirty"));
        // the build ran in this checkout: its SHA is this checkout's HEAD
        Path checkout = Path.of("").toAbsolutePath().getParent();
        String head = git(checkout, "rev-parse", "--short=12", "HEAD");
        assumeTrue(head != null, "git is not usable here");
        assertEquals(head, built);
    }

    @Test
    void runningInsideAnotherRepositoryDoesNotRecordItsSha(@TempDir Path other) throws Exception {
        assumeTrue(git(other, "init", "-q") != null, "git is not usable here");
        Files.writeString(other.resolve("f"), "other repository\n");
        git(other, "add", "f");
        git(other, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "other");
        String otherSha = git(other, "rev-parse", "--short=12", "HEAD");
        assertTrue(otherSha != null && otherSha.matches("[0-9a-f]{12}"), "other repo HEAD: " + otherSha);

        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        for (String p : List.of("marrow.native.dir", "marrow.native.workdir")) {
            if (System.getProperty(p) != null) {
                cmd.add("-D" + p + "=" + System.getProperty(p));
            }
        }
        cmd.add(Probe.class.getName());
        Process p = new ProcessBuilder(cmd).directory(other.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe did not finish");
        assertEquals(0, p.exitValue(), out);
        String[] fields = out.lines().reduce((a, b) -> b).orElse("").split(" ");
        assertEquals(NativeLoader.manifest().gitSha(), fields[0], out);
        assertNotEquals(otherSha, fields[0]);
        assertTrue(fields[1].equals("true") || fields[1].equals("false"), out);
    }

    /** git's trimmed output, or null when git is missing or fails. */
    private static String git(Path dir, String... args) throws InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            return p.waitFor() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        }
    }
}
