// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import dev.marrow.api.BackendUnavailableException;

/**
 * The SM clock cannot be locked (or restored) here: not root, no
 * nvidia-smi, or the command failed. A "cannot run here" condition, so the
 * CLI exits 77 with this message.
 */
public final class ClockControlException extends BackendUnavailableException {
    public ClockControlException(String message) {
        super(message, null);
    }

    public ClockControlException(String message, Throwable cause) {
        super(message, cause);
    }
}
