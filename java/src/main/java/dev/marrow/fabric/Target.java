// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

/** Who plays the posting thread: a CPU thread (runs anywhere) or a GPU thread. */
public enum Target {
    CPU("cpu"), CUDA("cuda");

    private final String label;

    Target(String label) {
        this.label = label;
    }

    /** The name results and messages use (the CLI accepts the same word). */
    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return label;
    }
}
