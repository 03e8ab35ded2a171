// SPDX-License-Identifier: Apache-2.0
package dev.marrow.testing;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The structure rules of docs/design/architecture.md, read from the main sources (ArchUnit is
 * not available offline, so the dependencies are the packages that each file imports or names
 * fully qualified, comments left out):
 * <ul>
 *   <li>no Java file over {@value #MAX_LINES} lines;</li>
 *   <li>no cycle between packages; a package's {@code internal} sub-package (its FFI handles and
 *       layouts) counts as the package itself, except the top-level {@code dev.marrow.internal},
 *       which is a layer of its own below the api;</li>
 *   <li>the peer exchange ({@code dev.marrow.peer}) knows no experiment: nothing in it names gda or
 *       the proxy;</li>
 *   <li>the NIC labels are written once ({@code dev.marrow.fabric.Nic}).</li>
 * </ul>
 */
class StructureRulesTest {
    static final int MAX_LINES = 700;
    static final Path MAIN = Path.of("src/main/java");
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
    /** dev.marrow.a.b.Type: the lower-case segments up to the first upper-case one are the package. */
    private static final Pattern REFERENCE = Pattern.compile("\\b(dev\\.marrow(?:\\.[a-z][a-z0-9_]*)+)\\.[A-Z]");

    static List<Path> sources() {
        try (Stream<Path> s = Files.walk(MAIN)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The source without comments (string literals stay: none names a package). */
    static String code(String s) {
        return s.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
    }

    /** x.internal and x.y.internal fold into their parent; dev.marrow.internal stays a package. */
    static String unit(String pkg) {
        int i = pkg.indexOf(".internal");
        if (i < 0 || pkg.startsWith("dev.marrow.internal")) {
            return pkg;
        }
        return pkg.substring(0, i);
    }

    /** package -> the packages its files depend on. */
    static Map<String, Set<String>> dependencies() {
        Map<String, Set<String>> g = new TreeMap<>();
        for (Path p : sources()) {
            String src = read(p);
            Matcher pm = PACKAGE.matcher(src);
            assertTrue(pm.find(), p + " declares a package");
            String from = unit(pm.group(1));
            Set<String> to = g.computeIfAbsent(from, k -> new TreeSet<>());
            Matcher m = REFERENCE.matcher(code(src));
            while (m.find()) {
                String dep = unit(m.group(1));
                if (!dep.equals(from)) {
                    to.add(dep);
                }
            }
        }
        return g;
    }

    /** Every cycle's packages (strongly connected components of more than one package). */
    static List<Set<String>> cycles(Map<String, Set<String>> g) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new java.util.HashSet<>();
        List<Set<String>> out = new ArrayList<>();
        int[] next = {0};
        for (String v : g.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, g, index, low, stack, onStack, out, next);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Set<String>> g, Map<String, Integer> index,
                                Map<String, Integer> low, Deque<String> stack, Set<String> onStack,
                                List<Set<String>> out, int[] next) {
        index.put(v, next[0]);
        low.put(v, next[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : g.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, g, index, low, stack, onStack, out, next);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> comp = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                comp.add(w);
            } while (!w.equals(v));
            if (comp.size() > 1) {
                out.add(comp);
            }
        }
    }

    @Test
    void noJavaFileIsOverTheLimit() {
        List<String> over = new ArrayList<>();
        for (Path p : sources()) {
            long lines = read(p).lines().count();
            if (lines > MAX_LINES) {
                over.add(MAIN.relativize(p) + " (" + lines + " lines)");
            }
        }
        assertEquals(List.of(), over, "files over " + MAX_LINES + " lines: split them");
    }

    @Test
    void noCycleBetweenPackages() {
        assertEquals(List.of(), cycles(dependencies()), "packages that depend on each other");
    }

    @Test
    void theCycleFinderFindsACycle() {
        Map<String, Set<String>> g = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
        assertEquals(List.of(Set.of("a", "b", "c")), cycles(new TreeMap<>(g)));
        assertEquals("dev.marrow.gda", unit("dev.marrow.gda.internal"));
        assertEquals("dev.marrow.internal.ffi", unit("dev.marrow.internal.ffi"));
    }

    @Test
    void theApiDependsOnNoInternalPackage() {
        Set<String> api = dependencies().get("dev.marrow.api");
        assertTrue(api.stream().noneMatch(p -> p.startsWith("dev.marrow.internal")), "dev.marrow.api -> " + api);
    }

    @Test
    void thePeerExchangeKnowsNoExperiment() {
        List<String> named = new ArrayList<>();
        for (Path p : sources()) {
            if (!p.startsWith(MAIN.resolve("dev/marrow/peer"))) {
                continue;
            }
            String src = read(p);
            Matcher m = Pattern.compile("(?i)\\b(mini-?gda|gda|proxy)\\b").matcher(src);
            while (m.find()) {
                named.add(MAIN.relativize(p) + ": " + m.group());
            }
        }
        assertEquals(List.of(), named, "the generic peer exchange names an experiment");
        Set<String> deps = dependencies().getOrDefault("dev.marrow.peer", Set.of());
        assertTrue(deps.stream().noneMatch(d -> d.startsWith("dev.marrow.gda") || d.startsWith("dev.marrow.proxy")
                || d.startsWith("dev.marrow.mlx5")), "dev.marrow.peer -> " + deps);
    }

    @Test
    void theDeviceEngineLabelIsWrittenOnce() {
        List<String> where = new ArrayList<>();
        for (Path p : sources()) {
            if (code(read(p)).contains("\"softnic-device\"")) {
                where.add(MAIN.relativize(p).toString());
            }
        }
        assertEquals(List.of("dev/marrow/fabric/Nic.java"), where);
    }
}
