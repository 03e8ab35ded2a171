// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PNG charts drawn with JFreeChart, headless. One convention everywhere: our
 * values are filled, coloured marks; published references are hollow black
 * squares (or dashed black lines) whose legend entry says "reference". The
 * paper is "GPU-Initiated Communication: Dissecting Down to the Bone".
 */
public final class Charts {
    private Charts() {
    }

    public static final int WIDTH = 900;
    public static final int HEIGHT = 520;
    static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
        new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
        new Color(0xbcbd22), new Color(0x17becf)};
    private static final Shape REF_SHAPE = new Rectangle2D.Double(-5, -5, 10, 10);
    private static final Shape OUR_SHAPE = new Ellipse2D.Double(-3.5, -3.5, 7, 7);

    /** A named series of (x, y) points. */
    public record Series(String name, double[] x, double[] y) {
    }

    /** A horizontal reference line (dashed, black). */
    public record Level(String label, double y) {
    }

    /** Line chart of our series with reference points and lines. */
    public static final class Xy {
        final String title;
        final String xLabel;
        final String yLabel;
        final List<Series> ours = new ArrayList<>();
        final List<Series> refs = new ArrayList<>();
        final List<Level> levels = new ArrayList<>();
        boolean logX;
        boolean zeroY = true;

        public Xy(String title, String xLabel, String yLabel) {
            this.title = title;
            this.xLabel = xLabel;
            this.yLabel = yLabel;
        }

        public Xy ours(String name, double[] x, double[] y) {
            ours.add(new Series(name, x, y));
            return this;
        }

        public Xy reference(String name, double[] x, double[] y) {
            refs.add(new Series(name, x, y));
            return this;
        }

        public Xy level(String label, double y) {
            levels.add(new Level(label, y));
            return this;
        }

        public Xy logX() {
            logX = true;
            return this;
        }

        public JFreeChart chart() {
            XYPlot plot = xyPlot(xLabel, yLabel, logX, zeroY);
            addSeries(plot, ours, refs, levels);
            return styled(new JFreeChart(title, titleFont(), plot, true));
        }

        public void write(Path file) {
            Charts.write(chart(), file, WIDTH, HEIGHT);
        }
    }

    static XYPlot xyPlot(String xLabel, String yLabel, boolean logX, boolean zeroY) {
        ValueAxis x;
        if (logX) {
            LogAxis l = new LogAxis(xLabel);
            l.setBase(2);
            l.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
            x = l;
        } else {
            NumberAxis n = new NumberAxis(xLabel);
            n.setAutoRangeIncludesZero(false);
            x = n;
        }
        NumberAxis y = new NumberAxis(yLabel);
        y.setAutoRangeIncludesZero(zeroY);
        XYPlot plot = new XYPlot(null, x, y, null);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        return plot;
    }

    static void addSeries(XYPlot plot, List<Series> ours, List<Series> refs, List<Level> levels) {
        XYSeriesCollection o = new XYSeriesCollection();
        XYLineAndShapeRenderer or = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < ours.size(); i++) {
            o.addSeries(series(ours.get(i)));
            Paint p = PALETTE[i % PALETTE.length];
            or.setSeriesPaint(i, p);
            or.setSeriesShape(i, OUR_SHAPE);
            or.setSeriesStroke(i, new BasicStroke(2f));
        }
        plot.setDataset(0, o);
        plot.setRenderer(0, or);
        if (!refs.isEmpty()) {
            XYSeriesCollection r = new XYSeriesCollection();
            XYLineAndShapeRenderer rr = new XYLineAndShapeRenderer(false, true);
            for (int i = 0; i < refs.size(); i++) {
                r.addSeries(series(refs.get(i)));
                rr.setSeriesPaint(i, Color.BLACK);
                rr.setSeriesShape(i, REF_SHAPE);
                rr.setSeriesShapesFilled(i, false);
                rr.setUseOutlinePaint(false);
                rr.setSeriesStroke(i, new BasicStroke(1.8f));
            }
            plot.setDataset(1, r);
            plot.setRenderer(1, rr);
            plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
        }
        for (Level l : levels) {
            ValueMarker m = new ValueMarker(l.y(), Color.BLACK, new BasicStroke(1.2f, BasicStroke.CAP_BUTT,
                    BasicStroke.JOIN_MITER, 1f, new float[] {6f, 4f}, 0f));
            m.setLabel(l.label());
            m.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
            m.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            m.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
            plot.addRangeMarker(m);
            // keep the line inside the visible range
            if (plot.getRangeAxis() instanceof NumberAxis n) {
                n.setAutoRangeIncludesZero(true);
            }
        }
        if (!levels.isEmpty()) {
            double top = levels.stream().mapToDouble(Level::y).max().orElse(0);
            ValueAxis y = plot.getRangeAxis();
            y.setLowerMargin(0.02);
            double dataMax = maxY(ours, refs);
            y.setRange(0, Math.max(top, dataMax) * 1.12);
        }
    }

    private static double maxY(List<Series> ours, List<Series> refs) {
        double m = 0;
        for (List<Series> l : List.of(ours, refs)) {
            for (Series s : l) {
                for (double v : s.y()) {
                    m = Math.max(m, v);
                }
            }
        }
        return m;
    }

    private static XYSeries series(Series s) {
        XYSeries x = new XYSeries(s.name(), false, true);
        for (int i = 0; i < s.x().length; i++) {
            x.add(s.x()[i], s.y()[i]);
        }
        return x;
    }

    /** Grouped bars of our values per category, with reference squares per category where the paper has one. */
    public static final class Bars {
        final String title;
        final String categoryLabel;
        final String valueLabel;
        final Map<String, Map<String, Double>> ours = new LinkedHashMap<>();
        final Map<String, Map<String, Double>> refs = new LinkedHashMap<>();
        final List<Level> levels = new ArrayList<>();

        public Bars(String title, String categoryLabel, String valueLabel) {
            this.title = title;
            this.categoryLabel = categoryLabel;
            this.valueLabel = valueLabel;
        }

        public Bars ours(String series, String category, double value) {
            ours.computeIfAbsent(series, k -> new LinkedHashMap<>()).put(category, value);
            return this;
        }

        public Bars reference(String series, String category, double value) {
            refs.computeIfAbsent(series, k -> new LinkedHashMap<>()).put(category, value);
            return this;
        }

        /** A reference value that belongs to no one bar: a dashed black line across the plot. */
        public Bars level(String label, double y) {
            levels.add(new Level(label, y));
            return this;
        }

        /** A reference series with no value yet: keeps one reference series per bar series, in order. */
        public Bars referenceSeries(String series) {
            refs.computeIfAbsent(series, k -> new LinkedHashMap<>());
            return this;
        }

        public JFreeChart chart() {
            DefaultCategoryDataset o = new DefaultCategoryDataset();
            ours.forEach((s, m) -> m.forEach((c, v) -> o.addValue(v, s, c)));
            CategoryAxis cat = new CategoryAxis(categoryLabel);
            int cats = o.getColumnCount();
            if (cats > 6) {
                cat.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
            }
            NumberAxis val = new NumberAxis(valueLabel);
            BarRenderer br = new BarRenderer();
            br.setBarPainter(new StandardBarPainter());
            br.setShadowVisible(false);
            br.setItemMargin(0.05);
            for (int i = 0; i < ours.size(); i++) {
                br.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            }
            CategoryPlot plot = new CategoryPlot(o, cat, val, br);
            plot.setBackgroundPaint(Color.WHITE);
            plot.setRangeGridlinePaint(new Color(0xdddddd));
            if (!refs.isEmpty()) {
                DefaultCategoryDataset r = new DefaultCategoryDataset();
                // keep the category order of our data; references never add categories of their own
                for (String c : columnKeys(o)) {
                    refs.forEach((s, m) -> r.addValue(m.get(c), s, c));
                }
                LineAndShapeRenderer rr = new LineAndShapeRenderer(false, true);
                for (int i = 0; i < refs.size(); i++) {
                    rr.setSeriesPaint(i, Color.BLACK);
                    rr.setSeriesShape(i, REF_SHAPE);
                    rr.setSeriesShapesFilled(i, false);
                    rr.setSeriesStroke(i, new BasicStroke(1.8f));
                }
                rr.setUseOutlinePaint(false);
                if (refs.size() == ours.size()) {
                    // one reference series per bar series: put each square over its own bar
                    rr.setUseSeriesOffset(true);
                    rr.setItemMargin(br.getItemMargin());
                }
                plot.setDataset(1, r);
                plot.setRenderer(1, rr);
                plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
            }
            for (Level l : levels) {
                ValueMarker m = new ValueMarker(l.y(), Color.BLACK, new BasicStroke(1.2f, BasicStroke.CAP_BUTT,
                        BasicStroke.JOIN_MITER, 1f, new float[] {6f, 4f}, 0f));
                m.setLabel(l.label());
                m.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
                m.setLabelAnchor(RectangleAnchor.TOP_LEFT);
                m.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
                plot.addRangeMarker(m);
                double top = Math.max(l.y(), val.getUpperBound());
                val.setRange(Math.min(0, val.getLowerBound()), top * 1.12);
            }
            return styled(new JFreeChart(title, titleFont(), plot, true));
        }

        public void write(Path file) {
            Charts.write(chart(), file, WIDTH, HEIGHT);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> columnKeys(DefaultCategoryDataset d) {
        List<String> l = new ArrayList<>();
        for (Object k : d.getColumnKeys()) {
            l.add((String) k);
        }
        return l;
    }

    /** Two stacked panels over one x axis: values (with references) above, residuals below. */
    public static JFreeChart withResiduals(String title, String xLabel, Xy top, Xy bottom) {
        NumberAxis x = new NumberAxis(xLabel);
        x.setAutoRangeIncludesZero(true);
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(x);
        XYPlot a = xyPlot(xLabel, top.yLabel, false, true);
        addSeries(a, top.ours, top.refs, top.levels);
        XYPlot b = xyPlot(xLabel, bottom.yLabel, false, false);
        addSeries(b, bottom.ours, bottom.refs, bottom.levels);
        b.addRangeMarker(new ValueMarker(0, Color.GRAY, new BasicStroke(1f)));
        plot.add(a, 3);
        plot.add(b, 1);
        plot.setGap(12);
        return styled(new JFreeChart(title, titleFont(), plot, true));
    }

    private static Font titleFont() {
        return new Font(Font.SANS_SERIF, Font.BOLD, 15);
    }

    private static JFreeChart styled(JFreeChart c) {
        c.setBackgroundPaint(Color.WHITE);
        c.setAntiAlias(true);
        return c;
    }

    public static void write(JFreeChart chart, Path file, int width, int height) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            ChartUtils.saveChartAsPNG(file.toFile(), chart, width, height);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
