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
        return new Applied(p.name(), applied, List.copyOf(overridden));
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
    public record Applied(String preset, Map<String, String> applied, List<String> overridden) {
        /** No preset: records still say so. */
        public static final Applied NONE = new Applied("none", Map.of(), List.of());

        public ResultRecord tag(ResultRecord r) {
            r.param("preset", preset);
            if (!applied.isEmpty()) {
                r.param("preset_knobs", String.join(",", applied.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue()).toList()));
            }
            if (!overridden.isEmpty()) {
                r.param("preset_overridden", String.join(",", overridden));
            }
            return r;
        }
    }
}
