// SPDX-License-Identifier: Apache-2.0
package dev.marrow.testing;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the test only where the backend is available; elsewhere it is skipped
 * and the backend's unavailability cause is printed (pyverbs-decorator style).
 * Combine with {@code @Tag("gpu")} / {@code @Tag("rdma")} for selection.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(BackendCondition.class)
public @interface RequiresBackend {
    Backend value();
}
