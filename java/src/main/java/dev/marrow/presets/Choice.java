// SPDX-License-Identifier: Apache-2.0
package dev.marrow.presets;

/**
 * One choice of a preset: a knob, its typed value, and where in "GPU-Initiated
 * Communication: Dissecting Down to the Bone" the choice is stated (a table or
 * section and what it says).
 */
public record Choice(Knob knob, Object value, String source) {
    public Choice {
        if (source == null || source.isBlank()) {
            throw new IllegalArgumentException("the choice " + knob.key() + " cites no table or section");
        }
    }

    public String valueText() {
        return Knob.format(value);
    }
}
