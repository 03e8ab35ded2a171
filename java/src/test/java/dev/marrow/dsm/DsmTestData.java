// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/** Shared synthetic inputs. */
final class DsmTestData {
    private DsmTestData() {
    }

    /** 16..96 KiB in 8 KiB steps, as doubles. */
    static double[] bytes() {
        int[] s = DsmContext.DEFAULT_SIZES;
        double[] b = new double[s.length];
        for (int i = 0; i < s.length; i++) {
            b[i] = s[i];
        }
        return b;
    }
}
