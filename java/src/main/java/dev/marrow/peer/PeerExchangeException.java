// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import dev.marrow.api.MarrowException;

/** The TCP exchange with the peer failed: malformed message, timeout, or the peer went away. */
public class PeerExchangeException extends MarrowException {
    public PeerExchangeException(String message) {
        super(message);
    }

    public PeerExchangeException(String message, Throwable cause) {
        super(message, cause);
    }
}
