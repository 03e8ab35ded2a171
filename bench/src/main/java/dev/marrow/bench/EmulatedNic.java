// SPDX-License-Identifier: Apache-2.0
package dev.marrow.bench;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a benchmark class whose timed code drives the software NIC: {@link BenchMain} labels its results
 * EMULATED. A class without it times host code alone (no NIC in the loop) and is labelled HOST.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface EmulatedNic {
}
