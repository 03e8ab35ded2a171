// SPDX-License-Identifier: Apache-2.0
package dev.marrow.testing;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A test that asserts nothing cannot fail: every test method here must assert (see AssertionScan). */
class EveryTestAssertsTest {

    @Test
    void everyTestMethodInThisModuleAsserts() {
        Path root = Path.of("src/test/java");
        assertTrue(Files.isDirectory(root), "run from the java module: " + root.toAbsolutePath());
        assertEquals(List.of(), AssertionScan.violations(root),
                "test methods without an assertion, assumption or assert/check/expect helper call");
    }

    @Test
    void aPlantedTestWithoutAssertionIsCaught() {
        String src = """
                class Planted {
                    @Test
                    void runsButChecksNothing() {
                        // assertEquals(1, 2) in a comment does not count
                        String s = "assertTrue(x)";
                        new Object().hashCode();
                    }

                    @ParameterizedTest
                    @ValueSource(ints = {1, 2})
                    void asserts(int i) {
                        assertEquals(i, i);
                    }

                    @Test
                    void usesAHelper() {
                        checkRoundTrip(3);
                        SoftnicAssert.samePrefix(null, 1);
                    }

                    @Test
                    void onlyAssumes() {
                        assumeTrue(false, "never here");
                    }

                    @Test void emptyOneLiner() { }
                }
                """;
        assertEquals(List.of("Planted.java:2 runsButChecksNothing()", "Planted.java:26 emptyOneLiner()"),
                AssertionScan.violations("Planted.java", src));
    }

    @Test
    void literalsAndCommentsAreBlankedButLinesKept() {
        String s = AssertionScan.blankCommentsAndLiterals("a(\"x\\\"y\");\n/* c\n */ b('\\''); // d\ne");
        assertEquals(3, s.chars().filter(c -> c == '\n').count());
        assertTrue(s.startsWith("a(") && !s.contains("x") && !s.contains("d") && s.endsWith("e"), s);
    }
}
