// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the HTML report from result files of any mix of experiments: one
 * section per experiment and file, each with its table and figure, our
 * numbers beside the paper's ("GPU-Initiated Communication: Dissecting Down
 * to the Bone"). Writes {@code index.html} and the PNGs into dir.
 */
public final class Report {
    private Report() {
    }

    public static final String INDEX = "index.html";

    /** Reads the inputs, writes the report; returns the path of index.html. */
    public static Path write(List<Path> inputs, Path dir, String title) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("no --input files");
        }
        inputs = RawArchive.expandAll(inputs);
        DocTables.Inputs in = new DocTables.Inputs(inputs);
        Map<String, String> tables = DocTables.pageTables(in);
        Set<Path> used = new HashSet<>(in.used());
        List<ResultFile> files = new ArrayList<>();
        for (Path p : inputs) {
            if (!Files.isRegularFile(p)) {
                throw new IllegalArgumentException("--input " + p + " is not a file");
            }
            files.add(in.read(p));
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        files.sort(Comparator.comparing(ResultFile::experiment).thenComparing(f -> f.path().toString()));
        List<Section> sections = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        ids.addAll(ReportSpec.get().sections().stream().map(ReportSpec.Entry::id).toList());
        List<ResultFile> other = files.stream().filter(f -> !used.contains(f.path())).toList();
        sections.addAll(RateSections.build(other.stream().filter(f -> RateSections.handles(f.experiment())).toList(), dir));
        for (ResultFile f : other) {
            String id = uniqueId(f, ids);
            String exp = f.experiment();
            if (RateSections.handles(exp)) {
                continue; // all their files together, above
            }
            if (exp.equals("gda.latency")) {
                sections.add(GdaLatencySections.build(f, dir, id));
            } else if (exp.equals("proxy.latency")) {
                sections.add(ProxySections.latency(f, dir, id));
            } else if (exp.equals("proxy.rate")) {
                sections.add(ProxySections.rate(f, dir, id));
            } else if (f.records().stream().allMatch(r -> String.valueOf(r.get("experiment")).startsWith("dsm."))) {
                sections.addAll(DsmSections.build(f, dir, id));
            } else {
                sections.add(GenericSection.build(f, dir, id));
            }
        }
        Path index = dir.resolve(INDEX);
        try {
            String curated = tables.isEmpty() ? "" : CuratedReport.body(tables, files, dir).html();
            Files.writeString(index, HtmlReport.render(title, files, curated, sections));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + index, e);
        }
        return index;
    }

    /** A readable, unique id per file: its parent folder and name, e.g. "run1-dbrec-triggered-cuda-rtt". */
    private static String uniqueId(ResultFile f, Set<String> taken) {
        Path parent = f.path().toAbsolutePath().getParent();
        String base = (parent != null ? parent.getFileName() + "-" : "") + f.name().replaceFirst("\\.jsonl?$", "");
        base = base.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "").toLowerCase(java.util.Locale.ROOT);
        String id = base;
        for (int i = 2; !taken.add(id); i++) {
            id = base + "-" + i;
        }
        return id;
    }
}
