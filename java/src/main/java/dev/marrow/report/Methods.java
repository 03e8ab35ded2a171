// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The method note of each benchmark: one Markdown resource per experiment key, in the methods/ folder beside this class. */
final class Methods {
    private Methods() {
    }

    static String text(String key) {
        try (InputStream in = Methods.class.getResourceAsStream("methods/" + key + ".md")) {
            if (in == null) {
                return "No method note for " + key + ".";
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
