// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Java twin of gda_pattern_word (gda_post.h): the responder of a two-host
 * run checks its inbox with it ({@link GdaPeerProtocol}); tests check
 * delivered bytes independently of the runners.
 */
final class GdaPattern {
    private GdaPattern() {
    }

    static int word(long it, int k) {
        int x = (int) (it * 0x9e3779b9L) ^ (k * 0x85ebca6b) ^ 0x6d617272;
        x ^= x >>> 15;
        x *= 0x2c1b3c6d;
        x ^= x >>> 12;
        return x | 1;
    }

    /** True when dst[0..len) holds iteration it's bytes. */
    static boolean holds(MemorySegment dst, int len, long it) {
        for (int j = 0; j < len; j++) {
            byte want = (byte) (word(it, j / 4) >>> (8 * (j % 4)));
            if (dst.get(JAVA_BYTE, j) != want) {
                return false;
            }
        }
        return true;
    }
}
