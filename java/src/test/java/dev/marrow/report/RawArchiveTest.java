// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A page's raw archive reads as the files it holds, under their paths; bad archives are refused. */
class RawArchiveTest {
    /** One ustar member (header, data padded to 512). */
    static byte[] member(String name, String text) {
        byte[] h = new byte[512];
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(name.getBytes(StandardCharsets.UTF_8), 0, h, 0, name.length());
        byte[] size = String.format("%011o", data.length).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(size, 0, h, 124, size.length);
        h[156] = '0';
        System.arraycopy("ustar".getBytes(StandardCharsets.US_ASCII), 0, h, 257, 5);
        byte[] out = new byte[512 + (data.length + 511) / 512 * 512];
        System.arraycopy(h, 0, out, 0, 512);
        System.arraycopy(data, 0, out, 512, data.length);
        return out;
    }

    static Path archive(Path dir, byte[]... members) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(b)) {
            for (byte[] m : members) {
                z.write(m);
            }
            z.write(new byte[1024]);
        }
        Path a = dir.resolve("page.tar.gz");
        Files.write(a, b.toByteArray());
        return a;
    }

    @Test
    void membersKeepTheirPathsAndManifestNames(@TempDir Path tmp) throws Exception {
        String rec = "{\"record\":\"header\",\"env\":{\"git_sha\":\"abc\",\"git_dirty\":true}}\n"
                + "{\"record\":\"result\",\"experiment\":\"x\",\"v\":1}\n";
        Path a = archive(tmp, member("h200-x/run/a.jsonl", rec), member("h200-x/b.jsonl", rec));
        List<Path> files = RawArchive.expand(a, tmp.resolve("out"));
        assertEquals(2, files.size());
        assertTrue(files.get(0).endsWith(Path.of("h200-x", "run", "a.jsonl")));
        assertEquals(rec, Files.readString(files.get(0)));
        assertEquals("h200-x/run/a.jsonl", RawArchive.member(files.get(0)));
        String manifest = DocTables.manifest(files);
        assertTrue(manifest.contains("| `h200-x/b.jsonl` | ") && manifest.contains("| abc+dirty |"), manifest);
    }

    @Test
    void aMemberLeavingTheArchiveOrAnEmptyOrBadArchiveIsRefused(@TempDir Path tmp) throws Exception {
        Path bad = archive(tmp, member("../evil.jsonl", "x"));
        assertThrows(IllegalArgumentException.class, () -> RawArchive.expand(bad, tmp.resolve("o1")));
        Path empty = archive(tmp);
        assertThrows(IllegalArgumentException.class, () -> RawArchive.expand(empty, tmp.resolve("o2")));
        Path notGz = tmp.resolve("n.tar.gz");
        Files.writeString(notGz, "not gzip");
        assertThrows(IllegalArgumentException.class, () -> RawArchive.expand(notGz, tmp.resolve("o3")));
    }
}
