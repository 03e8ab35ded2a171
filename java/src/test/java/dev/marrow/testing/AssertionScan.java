// SPDX-License-Identifier: Apache-2.0
package dev.marrow.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A source scan for JUnit test methods that assert nothing, so cannot fail.
 * A test method (annotated {@code @Test}, {@code @ParameterizedTest},
 * {@code @RepeatedTest}, {@code @TestFactory} or {@code @TestTemplate})
 * passes when its body calls {@code assert*}, {@code assume*},
 * {@code fail}, {@code verify*}, or a helper whose name starts with
 * assert, check or expect, or any method of a class whose name ends in
 * "Assert" (e.g. SoftnicAssert). Comments and string literals are blanked
 * first, so an assertion named only in a comment does not count.
 */
final class AssertionScan {
    private static final Pattern TEST_ANNOTATION =
            Pattern.compile("@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\\b");
    private static final Pattern ASSERTION = Pattern.compile(
            "\\b(assert\\w*|assume\\w*|fail|verify\\w*|check\\w*|expect\\w*)\\s*\\(|\\b\\w*Assert\\.\\w+\\s*\\(");
    private static final Pattern METHOD_NAME = Pattern.compile("(\\w+)\\s*\\($");

    private AssertionScan() {
    }

    /** "File.java:line method()" for every test method without an assertion under root. */
    static List<String> violations(Path root) {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                out.addAll(violations(root.relativize(f).toString(), Files.readString(f)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static List<String> violations(String name, String source) {
        String s = blankCommentsAndLiterals(source);
        List<String> out = new ArrayList<>();
        Matcher a = TEST_ANNOTATION.matcher(s);
        while (a.find()) {
            int open = bodyStart(s, a.end());
            if (open < 0) {
                continue;
            }
            int close = matchingBrace(s, open);
            String body = s.substring(open, close);
            if (!ASSERTION.matcher(body).find()) {
                Matcher m = METHOD_NAME.matcher(s.substring(a.end(), s.lastIndexOf('(', open) + 1));
                String method = m.find() ? m.group(1) : "?";
                int line = (int) s.substring(0, a.start()).chars().filter(c -> c == '\n').count() + 1;
                out.add(name + ":" + line + " " + method + "()");
            }
        }
        return out;
    }

    /** The method body's '{' after an annotation: the first brace outside parentheses; -1 if none. */
    private static int bodyStart(String s, int from) {
        int depth = 0;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && c == '{') {
                return i;
            } else if (depth == 0 && c == ';') {
                return -1; // an abstract or interface method: no body
            }
        }
        return -1;
    }

    private static int matchingBrace(String s, int open) {
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i + 1;
            }
        }
        return s.length();
    }

    /** Comments, string, text-block and char literals become spaces; newlines stay (line numbers). */
    static String blankCommentsAndLiterals(String src) {
        StringBuilder b = new StringBuilder(src.length());
        int i = 0;
        int n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            String end;
            if (src.startsWith("//", i)) {
                end = "\n";
            } else if (src.startsWith("/*", i)) {
                end = "*/";
            } else if (src.startsWith("\"\"\"", i)) {
                end = "\"\"\"";
            } else if (c == '"' || c == '\'') {
                end = String.valueOf(c);
            } else {
                b.append(c);
                i++;
                continue;
            }
            int j = i + (end.equals("\"\"\"") ? 3 : end.equals("\n") || end.equals("*/") ? 2 : 1);
            while (j < n && !src.startsWith(end, j)) {
                if (src.charAt(j) == '\\' && end.length() == 1 && !end.equals("\n")) {
                    j++; // escaped quote inside a literal
                }
                j++;
            }
            j = Math.min(n, j + (end.equals("\n") ? 0 : end.length()));
            for (int k = i; k < j; k++) {
                b.append(src.charAt(k) == '\n' ? '\n' : ' ');
            }
            i = j;
        }
        return b.toString();
    }
}
