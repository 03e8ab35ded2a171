// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

/** How results are printed: a human table, JSON lines, or CSV. */
public enum OutputFormat {
    TABLE, JSON, CSV
}
