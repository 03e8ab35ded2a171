// SPDX-License-Identifier: Apache-2.0
package dev.marrow.presets;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What one command can do with a preset's knobs: for each knob it supports,
 * the flag that sets it (an explicit flag wins over the preset), a check of
 * the value (null: supported; else why not) and how to apply it. A preset
 * choice whose knob is not listed, or whose value fails the check, refuses
 * the whole run with the knob named: a preset is never approximated.
 */
public final class PresetRules {
    private record Rule(String flag, BiFunction<Object, Preset, String> refusal, Consumer<Object> apply) {
    }

    private final String command;
    private final String suite;
    private final Map<Knob, Rule> rules = new EnumMap<>(Knob.class);
    /** Defaults a preset's choices may conflict with: flag to how to bring it in line (docs/design/presets.md). */
    private final Map<String, java.util.function.Supplier<String>> follows = new LinkedHashMap<>();

    /** command: as users type it ("gda latency"); suite: the presets it takes ("gda" or "proxy"). */
    public PresetRules(String command, String suite) {
        this.command = command;
        this.suite = suite;
    }

    /**
     * A knob this command supports. flag: the option that sets the same thing (null: none);
     * refusal: null for a value it can run, else the reason it cannot; apply: sets the value.
     */
    public PresetRules knob(Knob k, String flag, BiFunction<Object, Preset, String> refusal, Consumer<Object> apply) {
        rules.put(k, new Rule(flag, refusal, apply));
        return this;
    }

    /**
     * A default that follows the preset's choices (a warm-up count that must
     * be a multiple of the preset's doorbell batch): after the choices are
     * applied, and only when flag was not given, adjust runs and returns the
     * change in words ("2000 -> 2016"), or null when the default already fits.
     * An explicit flag wins: it is checked as given, and a refusal names the preset.
     */
    public PresetRules follows(String flag, java.util.function.Supplier<String> adjust) {
        follows.put(flag, adjust);
        return this;
    }

    /** A knob this command supports with exactly one value (what it always does), and no flag. */
    public PresetRules fixed(Knob k, Object value, String what) {
        return knob(k, null, (v, p) -> v.equals(value) ? null
                : command + " " + what + " (" + k.key() + " = " + Knob.format(value) + " only)", v -> {
                });
    }

    /** Null when this command can run the preset as it is (no flags given), else the refusal's message. */
    public String whyNot(Preset p) {
        try {
            check(p, f -> false);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    public String command() {
        return command;
    }

    /** "gda" or "proxy": the presets this command takes. */
    public String suite() {
        return suite;
    }

    /**
     * Checks every choice of the preset first, then applies those whose flag
     * was not given explicitly. explicit: whether an option was on the command line.
     *
     * @throws PresetRefusedException naming the first knob this command cannot honour
     */
    public Applied apply(Preset p, Predicate<String> explicit) {
        check(p, explicit);
        List<String> overridden = new ArrayList<>();
        Map<String, String> applied = new LinkedHashMap<>();
        for (Choice c : p.choices().values()) {
            Rule r = rules.get(c.knob());
            if (r.flag() != null && explicit.test(r.flag())) {
                overridden.add(r.flag());
            } else {
                r.apply().accept(c.value());
                applied.put(c.knob().key(), c.valueText());
            }
        }
        Map<String, String> adjusted = new LinkedHashMap<>();
        follows.forEach((flag, adjust) -> {
            if (!explicit.test(flag)) {
                String change = adjust.get();
                if (change != null) {
                    adjusted.put(flag, change);
                }
            }
        });
        return new Applied(p.name(), applied, List.copyOf(overridden), Map.copyOf(adjusted));
    }

    private void check(Preset p, Predicate<String> explicit) {
        if (!p.suite().equals(suite)) {
            throw new IllegalArgumentException("preset " + p.name() + " describes a " + (p.suite().equals("gda")
                    ? "GPU-submitted library (use it with marrow gda)" : "proxy library (use it with marrow proxy)")
                    + ", not " + command);
        }
        for (Choice c : p.choices().values()) {
            Rule r = rules.get(c.knob());
            if (r == null) {
                throw new PresetRefusedException(p, c, command + " has no " + c.knob().key() + " knob ("
                        + c.knob().meaning() + ")");
            }
            String why = r.flag() != null && explicit.test(r.flag()) ? null : r.refusal().apply(c.value(), p);
            if (why != null) {
                throw new PresetRefusedException(p, c, why);
            }
        }
    }

    /**
     * What a preset did to one run: the records carry it.
     *
     * @param applied    knob to value, for the choices the preset set
     * @param overridden the flags given explicitly over the preset's choice
     */
    public record Applied(String preset, Map<String, String> applied, List<String> overridden,
                          Map<String, String> adjusted) {
        /** No preset: records still say so. */
        public static final Applied NONE = new Applied("none", Map.of(), List.of(), Map.of());

        public Applied(String preset, Map<String, String> applied, List<String> overridden) {
            this(preset, applied, overridden, Map.of());
        }

        /**
         * A usage error of the run with the preset's part in it named: the
         * preset and the knobs it set, so that "--warmup must be a multiple of
         * 32" says where the 32 came from. The error as it is without a preset.
         */
        public IllegalArgumentException explain(IllegalArgumentException e) {
            if (preset.equals("none") || applied.isEmpty()) {
                return e;
            }
            return new IllegalArgumentException(e.getMessage() + " (preset " + preset + " sets " + String.join(", ",
                    applied.entrySet().stream().map(x -> x.getKey() + " = " + x.getValue()).toList()) + ")", e);
        }

        public ResultRecord tag(ResultRecord r) {
            r.param("preset", preset);
            if (!applied.isEmpty()) {
                r.param("preset_knobs", String.join(",", applied.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue()).toList()));
            }
            if (!overridden.isEmpty()) {
                r.param("preset_overridden", String.join(",", overridden));
            }
            if (!adjusted.isEmpty()) {
                r.param("preset_adjusted", String.join(",", new java.util.TreeMap<>(adjusted).entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue()).toList()));
            }
            return r;
        }
    }
}
