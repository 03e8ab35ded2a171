// SPDX-License-Identifier: Apache-2.0
package dev.marrow.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rank, size and rendezvous address from each launcher's environment. */
class LaunchEnvTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "node01|node01",
            "node[01-02]|node01",
            "node[07,09-12]|node07",
            "gpu[3-4]-ib|gpu3-ib",
            "a1,b[1-2]|a1",
            "rack[1-2]n[1-4],x|rack1n[1-4]"})
    void firstHostOfASlurmNodeList(String list, String first) {
        if (first.contains("[")) { // two ranges in one name: not a simple list
            assertThrows(IllegalArgumentException.class, () -> LaunchEnv.firstHost(list));
        } else {
            assertEquals(first, LaunchEnv.firstHost(list));
        }
    }

    @Test
    void malformedNodeListsAreRefusedWithTheList() {
        for (String bad : new String[] {"node[01-02", "node[x-y]", "[1-2]x[", ","}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LaunchEnv.firstHost(bad));
            assertTrue(e.getMessage().contains("Slurm node list"), e.getMessage());
        }
    }

    @Test
    void slurmTakesTheFirstHostOfTheStepAndTheDefaultPort() {
        LaunchEnv l = LaunchEnv.detect(Map.of("SLURM_PROCID", "1", "SLURM_NTASKS", "2",
                "SLURM_STEP_NODELIST", "gpu[12-13]", "SLURM_JOB_NODELIST", "other[1-9]")).orElseThrow();
        assertEquals(new LaunchEnv("slurm", 1, 2, "gpu12", LaunchEnv.DEFAULT_PORT), l);
        assertEquals("gpu12:" + LaunchEnv.DEFAULT_PORT, l.peerAddress().toString());
        assertTrue(!l.initiator());
    }

    @Test
    void rankZeroListensAndInitiates() {
        LaunchEnv l = LaunchEnv.detect(Map.of("RANK", "0", "WORLD_SIZE", "2", "MASTER_ADDR", "10.0.0.1",
                "MASTER_PORT", "29999")).orElseThrow();
        assertEquals("torchrun", l.source());
        assertTrue(l.initiator());
        assertTrue(l.peerAddress().listens());
        assertEquals(29999, l.peerAddress().port());
        // on the master address, not on every interface (docs/design/two-process.md section 12)
        assertEquals(dev.marrow.peer.PeerAddress.listen("10.0.0.1", 29999), l.peerAddress());
        assertEquals("listening on 10.0.0.1:29999", l.peerAddress().toString());
    }

    @Test
    void theLauncherThatStartedTheProcessWinsOverSlurm() {
        Map<String, String> mpirunUnderSlurm = Map.of("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
                "SLURM_PROCID", "0", "SLURM_NTASKS", "1", "SLURM_STEP_NODELIST", "n[5-6]");
        LaunchEnv l = LaunchEnv.detect(mpirunUnderSlurm).orElseThrow();
        assertEquals(new LaunchEnv("openmpi", 1, 2, "n5", LaunchEnv.DEFAULT_PORT), l);
        LaunchEnv p = LaunchEnv.detect(Map.of("PMI_RANK", "0", "PMI_SIZE", "2", "MASTER_ADDR", "h")).orElseThrow();
        assertEquals("pmi", p.source());
        LaunchEnv x = LaunchEnv.detect(Map.of("PMIX_RANK", "1", "SLURM_NTASKS", "2", "MASTER_ADDR", "h"))
                .orElseThrow();
        assertEquals(new LaunchEnv("pmix", 1, 2, "h", LaunchEnv.DEFAULT_PORT), x);
    }

    @Test
    void underTorchrunTheRendezvousPortIsTheOneAfterTorchrunsStore() {
        Map<String, String> env = new java.util.HashMap<>(Map.of("RANK", "1", "WORLD_SIZE", "2",
                "MASTER_ADDR", "h", "MASTER_PORT", "29500", "TORCHELASTIC_RUN_ID", "none"));
        assertEquals(29501, LaunchEnv.detect(env).orElseThrow().port());
        env.put("MARROW_PORT", "40000");
        assertEquals(40000, LaunchEnv.detect(env).orElseThrow().port());
    }

    @Test
    void noLauncherOrOneTaskIsEmpty() {
        assertTrue(LaunchEnv.detect(Map.of("PATH", "/bin", "MASTER_ADDR", "h")).isEmpty());
        assertTrue(LaunchEnv.detect(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "1")).isEmpty(),
                "srun -n 1 (e.g. the build itself) is one process, not a pair");
    }

    @Test
    void badValuesAreRefusedNamingTheVariable() {
        assertMsg(Map.of("RANK", "zero", "WORLD_SIZE", "2", "MASTER_ADDR", "h"), "RANK='zero'");
        assertMsg(Map.of("RANK", "0", "WORLD_SIZE", "4", "MASTER_ADDR", "h"), "exactly 2 ranks");
        assertMsg(Map.of("RANK", "0", "WORLD_SIZE", "0", "MASTER_ADDR", "h"), "exactly 2 ranks");
        assertMsg(Map.of("RANK", "2", "WORLD_SIZE", "2", "MASTER_ADDR", "h"), "rank 2 outside 0..1");
        assertMsg(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2"), "set MASTER_ADDR");
        assertMsg(Map.of("RANK", "0", "WORLD_SIZE", "2", "MASTER_ADDR", "h", "MASTER_PORT", "70000"),
                "port 70000");
        assertMsg(Map.of("PMI_RANK", "0", "MASTER_ADDR", "h"), "PMI_SIZE is not set");
    }

    private static void assertMsg(Map<String, String> env, String part) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LaunchEnv.detect(env));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
