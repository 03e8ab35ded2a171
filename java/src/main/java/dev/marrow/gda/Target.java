// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

/** Who plays the posting thread: a CPU thread (runs anywhere) or a GPU thread. */
public enum Target {
    CPU("cpu"), CUDA("cuda");

    private final String cliName;

    Target(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    public static Target parse(String s) {
        for (Target t : values()) {
            if (t.cliName.equals(s)) {
                return t;
            }
        }
        throw new IllegalArgumentException("--target must be cpu or cuda, not '" + s + "'");
    }

    @Override
    public String toString() {
        return cliName;
    }
}
