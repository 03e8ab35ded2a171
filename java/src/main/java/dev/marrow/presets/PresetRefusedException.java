// SPDX-License-Identifier: Apache-2.0
package dev.marrow.presets;

/**
 * A preset sets a knob the command lacks, or a value it cannot run: a usage
 * error (exit 2) naming the knob, its value and where the choice comes from.
 */
public final class PresetRefusedException extends IllegalArgumentException {
    private final Knob knob;

    PresetRefusedException(Preset p, Choice c, String why) {
        super("preset " + p.name() + " sets " + c.knob().key() + " = " + c.valueText() + " (" + c.source()
                + "), which cannot run here: " + why + ". A preset is never approximated: run without --preset, "
                + "or use a preset whose choices this command has (marrow presets list)");
        this.knob = c.knob();
    }

    /** The knob that was refused. */
    public Knob knob() {
        return knob;
    }
}
