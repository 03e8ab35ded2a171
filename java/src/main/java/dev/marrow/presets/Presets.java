// SPDX-License-Identifier: Apache-2.0
package dev.marrow.presets;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The library presets: every {@code dev/marrow/presets/*.json} resource, one
 * file per library (docs/design/presets.md). A file whose name does not match
 * its "name", a knob without a citation or a value its knob does not accept
 * fails the load with the file named.
 */
public final class Presets {
    static final String DIR = "/dev/marrow/presets/";

    private static volatile Map<String, Preset> all;

    private Presets() {
    }

    /** Every preset by name, sorted. */
    public static Map<String, Preset> all() {
        Map<String, Preset> m = all;
        if (m == null) {
            m = Collections.unmodifiableMap(load());
            all = m;
        }
        return m;
    }

    /** The preset called name; an unknown name is a usage error that lists the known ones. */
    public static Preset get(String name) {
        Preset p = all().get(name);
        if (p == null) {
            throw new IllegalArgumentException("unknown preset '" + name + "'; one of " + String.join(", ", all().keySet())
                    + " (marrow presets list)");
        }
        return p;
    }

    private static Map<String, Preset> load() {
        Map<String, Preset> out = new TreeMap<>();
        for (String file : files()) {
            try (InputStream in = Presets.class.getResourceAsStream(DIR + file)) {
                Preset p = parse(file, new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
                out.put(p.name(), p);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read preset " + file, e);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no presets under " + DIR);
        }
        return out;
    }

    /**
     * The file names under DIR in every class-path entry that has the
     * directory (a directory or a jar; the test classes also have a
     * dev/marrow/presets directory, without files).
     */
    private static List<String> files() {
        List<String> names = new ArrayList<>();
        try {
            Enumeration<URL> urls = Presets.class.getClassLoader().getResources(DIR.substring(1));
            while (urls.hasMoreElements()) {
                URL url = urls.nextElement();
                if ("jar".equals(url.getProtocol())) {
                    // java.base's JarFile, not the zip file system (jdk.zipfs is absent from slim runtimes).
                    java.net.JarURLConnection c = (java.net.JarURLConnection) url.openConnection();
                    c.setUseCaches(false);
                    String prefix = DIR.substring(1).endsWith("/") ? DIR.substring(1) : DIR.substring(1) + "/";
                    try (java.util.jar.JarFile jar = c.getJarFile()) {
                        jar.stream().map(java.util.jar.JarEntry::getName)
                                .filter(n -> n.startsWith(prefix) && n.endsWith(".json") && n.indexOf('/', prefix.length()) < 0)
                                .map(n -> n.substring(prefix.length())).forEach(names::add);
                    }
                } else {
                    names.addAll(list(Path.of(url.toURI())));
                }
            }
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot list " + DIR + ": " + e, e);
        }
        return names.stream().distinct().sorted().toList();
    }

    private static List<String> list(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")).sorted().forEach(names::add);
        }
        return names;
    }

    /** One preset file; file is its name, for messages and the name check. */
    static Preset parse(String file, String json) {
        try {
            JsonNode n = JsonMapper.builder().build().readTree(json);
            String name = text(n, "name", file);
            if (!file.equals(name + ".json")) {
                throw new IllegalArgumentException("holds preset '" + name + "': the file must be " + name + ".json");
            }
            Map<Knob, Choice> choices = new LinkedHashMap<>();
            JsonNode cs = n.get("choices");
            if (cs == null || !cs.isObject() || cs.isEmpty()) {
                throw new IllegalArgumentException("has no \"choices\"");
            }
            for (Map.Entry<String, JsonNode> e : cs.properties()) {
                Knob k = Knob.byKey(e.getKey());
                JsonNode c = e.getValue();
                JsonNode v = c.get("value");
                if (v == null || v.isNull()) {
                    throw new IllegalArgumentException(k.key() + " has no value");
                }
                choices.put(k, new Choice(k, k.parse(v.asString()), c.path("source").asString("")));
            }
            return new Preset(name, text(n, "library", file), text(n, "suite", file), text(n, "summary", file), choices);
        } catch (RuntimeException e) {
            throw new IllegalStateException("preset file " + file + ": " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode n, String field, String file) {
        JsonNode v = n.get(field);
        if (v == null || !v.isString() || v.asString().isBlank()) {
            throw new IllegalArgumentException("has no \"" + field + "\"");
        }
        return v.asString();
    }
}
