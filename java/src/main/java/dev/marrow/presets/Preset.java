// SPDX-License-Identifier: Apache-2.0
package dev.marrow.presets;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The queue, posting and completion choices of one library, as data
 * (resources dev/marrow/presets/NAME.json; docs/design/presets.md).
 *
 * @param name    what --preset takes
 * @param library the library and path it describes
 * @param suite   "gda" (GPU-submitted) or "proxy" (proxy-submitted): the commands it applies to
 * @param summary one line on what the preset is
 * @param choices knob to choice, in file order
 */
public record Preset(String name, String library, String suite, String summary, Map<Knob, Choice> choices) {
    public Preset {
        if (!"gda".equals(suite) && !"proxy".equals(suite)) {
            throw new IllegalArgumentException("preset " + name + ": suite must be gda or proxy, not '" + suite + "'");
        }
        choices = Collections.unmodifiableMap(new LinkedHashMap<>(choices));
    }

    public Optional<Object> value(Knob k) {
        Choice c = choices.get(k);
        return c == null ? Optional.empty() : Optional.of(c.value());
    }
}
