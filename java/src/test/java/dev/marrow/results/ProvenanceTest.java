// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The header's provenance (docs/design/records.md, "Schema"): the NVIDIA driver version and the schema. */
class ProvenanceTest {
    @Test
    void driverVersionFromTheModuleOrTheBannerElseNull(@TempDir Path root) throws Exception {
        assertNull(Environment.nvidiaDriverVersion(root), "no NVIDIA driver: null, not a guess");

        Path banner = root.resolve("proc/driver/nvidia/version");
        Files.createDirectories(banner.getParent());
        Files.writeString(banner, "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  "
                + "(dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:15:33 UTC 2024\nGCC version:  gcc version 12.3.0\n");
        assertEquals("550.54.15", Environment.nvidiaDriverVersion(root));
        Files.writeString(banner, "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC "
                + "2023\n");
        assertEquals("535.129.03", Environment.nvidiaDriverVersion(root));

        Path module = root.resolve("sys/module/nvidia/version");
        Files.createDirectories(module.getParent());
        Files.writeString(module, "560.35.03\n");
        assertEquals("560.35.03", Environment.nvidiaDriverVersion(root), "the loaded module first");
    }

    @Test
    void theHeaderNamesTheDriverEvenWhenThereIsNone() {
        Map<String, Object> env = Environment.capture(List.of("marrow", "x"));
        assertTrue(env.containsKey("nvidia_driver_version"), env.keySet().toString());
        assertEquals(Environment.nvidiaDriverVersion(Path.of("/")), env.get("nvidia_driver_version"));
        assertEquals("marrow.result/2", RecordSink.header(env).get("schema"));
    }
}
