// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report page: self-contained HTML (inline CSS, no scripts or fonts from
 * elsewhere) with the PNGs beside it. A small inline script records image
 * load failures and script errors into the page, so a headless browser can
 * check the rendered page from its DOM alone. References: the paper
 * "GPU-Initiated Communication: Dissecting Down to the Bone" and, for DSM, the study
 * "How does Hopper distributed shared memory actually move data?".
 */
final class HtmlReport {
    private HtmlReport() {
    }

    private static final String CSS = """
            body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;line-height:1.45}
            h1{font-size:1.6em}h2{margin-top:2.2em;border-bottom:2px solid #ccc;padding-bottom:.2em}
            table{border-collapse:collapse;margin:.8em 0;font-size:.85em;display:block;overflow-x:auto}
            caption{caption-side:top;text-align:left;color:#555;padding:.3em 0}
            th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right;white-space:nowrap}
            th{background:#f3f3f3}
            th.ref,td.ref{background:#fff6d6;font-style:italic}
            .reftag{font-size:.75em;font-weight:normal;color:#8a6d00;text-transform:uppercase}
            .badge{display:inline-block;padding:.15em .6em;border-radius:.3em;font-weight:bold;font-size:.8em;vertical-align:middle}
            .badge.emulated{background:#c62828;color:#fff}.badge.hardware{background:#2e7d32;color:#fff}
            .badge.mixed{background:#ef6c00;color:#fff}
            section.emulated{border-left:6px solid #c62828;padding-left:1em}
            section.hardware{border-left:6px solid #2e7d32;padding-left:1em}
            section.mixed{border-left:6px solid #ef6c00;padding-left:1em}
            figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
            figcaption{color:#555;font-size:.9em}.method{background:#f7f9fc;border:1px solid #dde3ee;padding:.6em 1em}
            .note{color:#555}code{background:#f0f0f0;padding:0 .2em}
            """;

    /**
     * Fills #report-check with what loaded and what failed, the sections with no table cell (empty) and the
     * curated sections with no paper cell; the headless check (scripts/check-report.sh, ReportBrowserTest)
     * reads it from the DOM.
     */
    private static final String CHECK_SCRIPT = """
            (function(){var errs=[];
            window.addEventListener('error',function(e){errs.push(String(e.message||(e.target&&e.target.src)||e));},true);
            var ce=console.error;console.error=function(){errs.push(Array.prototype.join.call(arguments,' '));ce.apply(console,arguments);};
            window.addEventListener('load',function(){var imgs=document.images,broken=[];
            for(var i=0;i<imgs.length;i++){if(!imgs[i].complete||imgs[i].naturalWidth===0){broken.push(imgs[i].getAttribute('src'));}}
            var c=document.getElementById('report-check');c.setAttribute('data-images',imgs.length);
            c.setAttribute('data-broken',broken.join(' '));c.setAttribute('data-errors',errs.join(' | '));
            var empty=[],noref=[],secs=document.querySelectorAll('section');
            for(var j=0;j<secs.length;j++){var s=secs[j];if(!s.querySelector('td')){empty.push(s.id);}
            if(s.getAttribute('data-paper')==='yes'&&!s.querySelector('td.ref')){noref.push(s.id);}}
            c.setAttribute('data-sections',secs.length);c.setAttribute('data-empty',empty.join(' '));
            c.setAttribute('data-noref',noref.join(' '));
            c.setAttribute('data-done','yes');});})();
            """;

    static String render(String title, List<ResultFile> files, List<Section> sections) {
        return render(title, files, "", sections);
    }

    /**
     * The page: the curated sections (one per result of the paper, {@link CuratedReport}) first, then a
     * section per result file that no page table reads (a new run the report has no curated place for).
     */
    static String render(String title, List<ResultFile> files, String curated, List<Section> sections) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
                .append(Html.escape(title)).append("</title>\n<style>").append(CSS).append("</style>\n<script>")
                .append(CHECK_SCRIPT).append("</script>\n</head><body>\n");
        sb.append("<div id=\"report-check\" hidden></div>\n");
        sb.append("<h1>").append(Html.escape(title)).append("</h1>\n");
        PaperReferences p = PaperReferences.get();
        sb.append("<p>Our measurements beside the published values of <em>").append(Html.escape(p.paper()))
                .append("</em> (and, for DSM, of the study the records name). Columns and marks labelled ")
                .append("<span class=\"reftag\">reference</span> (shaded cells, hollow squares in figures) are ")
                .append("published values, <strong>not our measurements</strong>. Sections measured on the ")
                .append("software NIC carry a red <span class=\"badge emulated\">EMULATED</span> badge and border; ")
                .append("hardware results a green one.</p>\n");
        sb.append(curated);
        if (curated.isEmpty()) {
            sb.append(CuratedReport.environment(files));
        }
        inputs(sb, files);
        if (!sections.isEmpty()) {
            sb.append("<h2>Other result files</h2>\n<ul>\n");
        }
        for (Section s : sections) {
            sb.append("<li><a href=\"#").append(s.id()).append("\">").append(Html.escape(s.title())).append("</a> ")
                    .append(badge(s.provenance())).append("</li>\n");
        }
        if (!sections.isEmpty()) {
            sb.append("</ul>\n");
        }
        for (Section s : sections) {
            section(sb, s);
        }
        references(sb, p);
        sb.append("</body></html>\n");
        return sb.toString();
    }

    private static String badge(Provenance pr) {
        return "<span class=\"badge " + pr.cssClass() + "\">" + Html.escape(pr.label()) + "</span>";
    }

    private static void inputs(StringBuilder sb, List<ResultFile> files) {
        Table.Builder t = new Table.Builder("input files").col("file", "experiment", "records", "measured on",
                "git_sha", "start_time");
        for (ResultFile f : files) {
            t.row(f.path().toString(), f.experiment(), String.valueOf(f.records().size()),
                    Provenance.of(f.records()).label(), String.valueOf(f.env().getOrDefault("git_sha", "unknown")),
                    String.valueOf(f.env().getOrDefault("start_time", "unknown")));
        }
        sb.append("<details id=\"inputs\"><summary>Inputs: ").append(files.size()).append(" result files</summary>\n")
                .append(t.build().html()).append("</details>\n");
    }

    private static void section(StringBuilder sb, Section s) {
        sb.append("<section id=\"").append(s.id()).append("\" class=\"").append(s.provenance().cssClass())
                .append("\">\n<h2>").append(Html.escape(s.title())).append(' ').append(badge(s.provenance()))
                .append("</h2>\n");
        sb.append("<p class=\"note\">Source: ").append(Html.inline(String.join(", ", s.sources()))).append("; ")
                .append(Html.escape(s.provenanceDetail())).append(".</p>\n");
        sb.append("<div class=\"method\"><strong>Method.</strong> ").append(Html.inline(s.method())).append("</div>\n");
        for (String n : s.notes()) {
            sb.append("<p class=\"note\">").append(Html.inline(n)).append("</p>\n");
        }
        for (Table t : s.tables()) {
            sb.append(t.html());
        }
        for (Section.Figure f : s.figures()) {
            sb.append("<figure><img src=\"").append(Html.escape(f.file())).append("\" alt=\"")
                    .append(Html.escape(f.caption())).append("\" loading=\"eager\"><figcaption>")
                    .append(Html.inline(f.caption())).append("</figcaption></figure>\n");
        }
        sb.append("</section>\n");
    }

    private static void references(StringBuilder sb, PaperReferences p) {
        Table.Builder t = new Table.Builder(p.about()).col("id").ref("value", "unit", "platform", "source", "what");
        for (PaperReferences.Ref r : p.all()) {
            t.row(r.id(), Fmt.plain(r.value()), r.unit().equals("us") ? "µs" : r.unit(), r.platform(), r.source(), r.what());
        }
        sb.append("<h2 id=\"paper-references\">Paper references (").append(Html.escape(p.paper()))
                .append(")</h2>\n").append(t.build().html());
    }
}
