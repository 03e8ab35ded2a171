// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

/** Escaping, plus the two bits of markdown that table cells and method notes use: **bold** and `code`. */
final class Html {
    private Html() {
    }

    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    static String inline(String s) {
        String e = escape(s.replace("\\|", "|"));
        e = e.replaceAll("\\*\\*(.+?)\\*\\*", "<strong>$1</strong>");
        return e.replaceAll("`(.+?)`", "<code>$1</code>");
    }
}
