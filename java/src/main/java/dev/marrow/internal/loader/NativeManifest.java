// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.loader;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * native-manifest.properties written by scripts/build-native.sh: which
 * libraries were built and, for the others, why not.
 */
public record NativeManifest(List<String> components, String summary, String arch,
                             int abiVersion, String gitSha, String rdmaCore, String nvcc, String gitDirty) {

    static NativeManifest read(InputStream in) {
        Properties p = new Properties();
        try (in) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read native-manifest.properties", e);
        }
        List<String> comps = Arrays.stream(p.getProperty("components", "").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).toList();
        return new NativeManifest(comps, p.getProperty("summary", ""), p.getProperty("arch", "?"),
                Integer.parseInt(p.getProperty("abi_version", "-1").trim()),
                p.getProperty("git_sha", "unknown"), p.getProperty("rdma_core", "none"),
                p.getProperty("nvcc", ""), p.getProperty("git_dirty", "unknown").trim());
    }

    public boolean has(String component) {
        return components.contains(component);
    }

    /** The build summary's clause for one component, e.g. "cuda: no (nvcc not found ...)". */
    public String buildNote(String component) {
        for (String part : summary.split(";")) {
            String t = part.trim();
            if (t.startsWith(component + ":")) {
                return t;
            }
        }
        return component + ": not mentioned in the build summary";
    }
}
