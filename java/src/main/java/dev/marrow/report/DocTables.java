// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The markdown tables of the results docs under docs/results/, computed from
 * their raw files. A doc marks each generated table with
 * {@code <!-- marrow report: NAME -->} ... {@code <!-- /marrow report -->};
 * {@link #rewrite} replaces what is between the markers, nothing else.
 */
public final class DocTables {
    private DocTables() {
    }

    private static final Pattern BLOCK = Pattern.compile(
            "(<!-- marrow report: ([A-Za-z0-9_.-]+) -->\\n)(.*?)(<!-- /marrow report -->)", Pattern.DOTALL);

    /** The raw files of one doc, found among the inputs by their path ending ("folder/name.jsonl"). */
    public static final class Inputs {
        private final List<Path> paths;
        /** Each file is read once, however many tables use it: the tables stay linear in the input size. */
        private final Map<Path, ResultFile> read = new LinkedHashMap<>();

        /** Files already read elsewhere (by path), so repeated table runs over subsets parse each file once. */
        private final Map<Path, ResultFile> cache;

        public Inputs(List<Path> paths) {
            this(paths, new java.util.HashMap<>());
        }

        Inputs(List<Path> paths, Map<Path, ResultFile> cache) {
            this.paths = paths;
            this.cache = cache;
        }

        private ResultFile load(Path p) {
            return read.computeIfAbsent(p, q -> cache.computeIfAbsent(q, ResultFile::read));
        }

        /** One input, read once (shared with the tables). */
        ResultFile read(Path p) {
            return load(p);
        }

        /** The files some table read, in first-read order: a page's manifest. */
        List<Path> used() {
            return List.copyOf(read.keySet());
        }

        boolean has(String suffix) {
            return find(suffix) != null;
        }

        private Path find(String suffix) {
            for (Path p : paths) {
                String s = p.toAbsolutePath().normalize().toString().replace('\\', '/');
                if (s.endsWith("/" + suffix)) {
                    return p;
                }
            }
            return null;
        }

        ResultFile file(String suffix) {
            Path p = find(suffix);
            if (p == null) {
                throw new IllegalArgumentException("this table needs the raw file */" + suffix + " among --input");
            }
            return load(p);
        }

        List<Map<String, Object>> records(String suffix) {
            return file(suffix).records();
        }

        /** The first record of a file, as the tables that show one row per file need it. */
        Map<String, Object> first(String suffix) {
            return records(suffix).getFirst();
        }

        /** "page/folder" of every input directly in a folder of that name (e.g. "h200-loaded/medians"), sorted. */
        List<String> folders(String folder) {
            List<String> dirs = new ArrayList<>();
            for (Path p : paths) {
                Path parent = p.toAbsolutePath().normalize().getParent();
                if (parent == null || parent.getParent() == null || !parent.getFileName().toString().equals(folder)) {
                    continue;
                }
                String d = parent.getParent().getFileName() + "/" + folder;
                if (!dirs.contains(d)) {
                    dirs.add(d);
                }
            }
            dirs.sort(null);
            return dirs;
        }

        /**
         * The folders directly under dir (a path ending, "h200-gpu-resident") that hold inputs, sorted: a
         * page's runs are found in its data, never listed by name in code.
         */
        List<String> subfolders(String dir) {
            java.util.TreeSet<String> names = new java.util.TreeSet<>();
            for (Path p : paths) {
                Path parent = p.toAbsolutePath().normalize().getParent();
                if (parent == null || parent.getParent() == null) {
                    continue;
                }
                String up = parent.getParent().toString().replace('\\', '/');
                if (up.endsWith("/" + dir)) {
                    names.add(parent.getFileName().toString());
                }
            }
            return List.copyOf(names);
        }

        /** The folders directly under dir (a path ending) that hold inputs at any depth below them, sorted. */
        List<String> branches(String dir) {
            java.util.TreeSet<String> names = new java.util.TreeSet<>();
            for (Path p : paths) {
                for (Path f = p.toAbsolutePath().normalize().getParent(); f != null && f.getParent() != null;
                        f = f.getParent()) {
                    if (f.getParent().toString().replace('\\', '/').endsWith("/" + dir)) {
                        names.add(f.getFileName().toString());
                        break;
                    }
                }
            }
            return List.copyOf(names);
        }

        /** The *.jsonl inputs directly in folder (a path ending, "h200-gda-rate/devnic"), sorted by name. */
        List<String> under(String folder) {
            List<String> names = new ArrayList<>();
            for (Path p : paths) {
                Path parent = p.toAbsolutePath().normalize().getParent();
                String s = parent == null ? "" : parent.toString().replace('\\', '/');
                String name = p.getFileName().toString();
                if (s.endsWith("/" + folder) && name.endsWith(".jsonl") && !names.contains(name)) {
                    names.add(name);
                }
            }
            names.sort(null);
            return names;
        }
    }

    /** Every table whose raw files are all among the inputs, by name. */
    public static Map<String, String> all(List<Path> inputs) {
        return all(new Inputs(inputs));
    }

    /** The files the tables of these inputs read (the rest are not raw data of any table). */
    public static List<Path> used(List<Path> inputs) {
        Inputs in = new Inputs(inputs);
        all(in);
        return in.used();
    }

    /**
     * The fewest inputs that still give every marked table of doc exactly as all the inputs do: what the
     * page's archive must hold once superseded tables have left the page (docs/results/README.md). Files no
     * table reads go first; then, greedily, whole folders and single files whose removal changes no marked
     * table of the page (a removal that makes a table fail or change is kept). The manifest block is left
     * out of the comparison: it lists the inputs and so always changes.
     */
    public static List<Path> usedBy(Path doc, List<Path> inputs) {
        String text;
        try {
            text = Files.readString(doc);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + doc, e);
        }
        Map<Path, ResultFile> cache = new java.util.HashMap<>();
        Inputs first = new Inputs(inputs, cache);
        String want = renderWithoutManifest(text, all(first), doc.toString());
        List<Path> keep = new ArrayList<>(first.used());
        Map<Path, List<Path>> byFolder = new java.util.TreeMap<>();
        for (Path p : keep) {
            byFolder.computeIfAbsent(p.toAbsolutePath().normalize().getParent(), k -> new ArrayList<>()).add(p);
        }
        for (List<Path> folder : byFolder.values()) {
            tryDrop(keep, folder, text, want, cache, doc);
        }
        for (Path p : List.copyOf(keep)) {
            tryDrop(keep, List.of(p), text, want, cache, doc);
        }
        Inputs last = new Inputs(keep, cache);
        all(last);
        return last.used();
    }

    private static void tryDrop(List<Path> keep, List<Path> drop, String text, String want, Map<Path, ResultFile> cache,
            Path doc) {
        if (!keep.containsAll(drop) || keep.size() == drop.size()) {
            return;
        }
        List<Path> rest = new ArrayList<>(keep);
        rest.removeAll(drop);
        try {
            if (want.equals(renderWithoutManifest(text, all(new Inputs(rest, cache)), doc.toString()))) {
                keep.removeAll(drop);
            }
        } catch (RuntimeException e) { // a table that needs a dropped file: the file stays
        }
    }

    private static String renderWithoutManifest(String text, Map<String, String> tables, String where) {
        Map<String, String> t = new LinkedHashMap<>(tables);
        t.put("manifest", "");
        return render(text, t, where);
    }

    /**
     * The page's manifest (block {@code manifest}): every raw file its tables read, with its sha256 and
     * the build that wrote it (the header's git_sha, "+dirty" when git_dirty was true).
     */
    public static String manifest(List<Path> used) {
        Table.Builder t = new Table.Builder("raw inputs").col("file", "sha256", "build").align("| --- | --- | --- |");
        List<String[]> rows = new ArrayList<>();
        for (Path p : used) {
            String name = RawArchive.member(p);
            if (name == null) {
                name = p.toString().replace('\\', '/');
                int i = name.indexOf("docs/results/");
                name = i >= 0 ? name.substring(i + "docs/results/".length()) : name;
            }
            ResultFile f = ResultFile.read(p);
            Object sha = f.env().get("git_sha");
            String build = sha == null ? "— (no header)" : sha + (Boolean.TRUE.equals(f.env().get("git_dirty")) ? "+dirty" : "");
            rows.add(new String[] {"`" + name + "`", sha256(p), build});
        }
        rows.sort(java.util.Comparator.comparing(r -> r[0]));
        rows.forEach(r -> t.row(r));
        return t.build().markdown();
    }

    private static String sha256(Path p) {
        try {
            return java.util.HexFormat.of().formatHex(
                    java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + p, e);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static Map<String, String> all(Inputs in) {
        Map<String, String> m = pageTables(in);
        if (m.isEmpty()) {
            throw new IllegalArgumentException("the --input files are not the raw files of any results doc "
                    + "(expected e.g. docs/results/h200-softnic-proxy.tar.gz, a page's raw archive)");
        }
        m.putAll(paperTables());
        return m;
    }

    /** The pages' tables these inputs give (none for files no page reads). */
    static Map<String, String> pageTables(Inputs in) {
        Map<String, String> m = new LinkedHashMap<>();
        if (GdaLatencyDocTables.FILES.stream().allMatch(in::has)) {
            m.putAll(GdaLatencyDocTables.tables(in));
        }
        if (ProxyDocTables.FILES.stream().allMatch(in::has)) {
            m.putAll(ProxyDocTables.tables(in));
        }
        if (DsmDocTables.FILES.stream().allMatch(in::has)) {
            m.putAll(DsmDocTables.tables(in));
        }
        if (DsmWidthSweepDocTables.FILES.stream().allMatch(in::has)) {
            m.putAll(DsmWidthSweepDocTables.tables(in));
        }
        if (RateSections.FILES.stream().allMatch(in::has)) {
            m.putAll(RateSections.docTables(in));
        }
        m.putAll(MethodDocTables.tables(in));
        m.putAll(GoodputDocTables.tables(in));
        m.putAll(KernelCostDocTables.tables(in));
        m.putAll(GpuResidentDocTables.tables(in));
        m.putAll(MediansDocTables.tables(in));
        m.putAll(PresetRunsDocTables.tables(in));
        m.putAll(DsmTouchWordDocTables.tables(in));
        m.putAll(SoakDocTables.tables(in));
        m.putAll(PresetLibraryDocTables.tables(in));
        m.putAll(SoftnicScalingDocTables.tables(in));
        m.putAll(Table5DocTables.tables(in));
        return m;
    }

    /**
     * One table per source of the reference data of "GPU-Initiated Communication: Dissecting Down to the
     * Bone" (and of the DSM study) ({@code paper.table-3}, ...), so a page shows the
     * paper's numbers from the one data file and never types them by hand.
     */
    public static Map<String, String> paperTables() {
        Map<String, String> m = new LinkedHashMap<>();
        PaperReferences p = PaperReferences.get();
        for (String source : p.sources()) {
            m.put("paper." + PaperReferences.slug(source), p.markdown(source));
        }
        return m;
    }

    /** Replaces the marked tables of doc; with check only, writes nothing. Returns whether the doc was already current. */
    public static boolean rewrite(Path doc, List<Path> inputs, boolean checkOnly) {
        String text;
        try {
            text = Files.readString(doc);
        } catch (CharacterCodingException e) { // bad input, not an I/O failure
            throw new IllegalArgumentException(doc + " is not a results doc (not UTF-8 text)", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + doc, e);
        }
        Inputs in = new Inputs(inputs);
        Map<String, String> tables = new LinkedHashMap<>(all(in));
        tables.put("manifest", manifest(in.used()));
        String updated = render(text, tables, doc.toString());
        if (updated.equals(text)) {
            return true;
        }
        if (!checkOnly) {
            try {
                Files.writeString(doc, updated);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + doc, e);
            }
        }
        return false;
    }

    static String render(String text, Map<String, String> tables, String where) {
        Matcher m = BLOCK.matcher(text);
        StringBuilder sb = new StringBuilder();
        List<String> missing = new ArrayList<>();
        int n = 0;
        while (m.find()) {
            n++;
            String t = tables.get(m.group(2));
            if (t == null) {
                missing.add(m.group(2));
                m.appendReplacement(sb, Matcher.quoteReplacement(m.group(0)));
            } else {
                m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + t + m.group(4)));
            }
        }
        m.appendTail(sb);
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(where + ": no table named " + String.join(", ", missing)
                    + " from these inputs (known: " + String.join(", ", tables.keySet()) + ")");
        }
        if (n == 0) {
            throw new IllegalArgumentException(where + " has no <!-- marrow report: NAME --> blocks");
        }
        return sb.toString();
    }
}
