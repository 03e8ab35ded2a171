// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.List;

/** One of the reference's experiments E0..E10. */
public interface Experiment {
    /** "E0".."E10". */
    String id();

    /** Short name accepted by --experiment, e.g. "one-way-load". */
    String name();

    /** One line saying what is measured. */
    String title();

    List<ResultRecord> run(DsmContext ctx);
}
