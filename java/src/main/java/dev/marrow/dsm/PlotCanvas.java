// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A minimal headless chart surface (java.awt, no dependency): panels with
 * linear axes, ticks, points, lines and bars, written as PNG.
 */
public final class PlotCanvas {
    public static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
            new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b)};

    private final BufferedImage img;
    private final Graphics2D g;

    public PlotCanvas(int width, int height) {
        System.setProperty("java.awt.headless", "true");
        img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    }

    public void title(String text, int x, int y) {
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(text, x, y);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    }

    public void text(String text, int x, int y, Color c) {
        g.setColor(c);
        g.drawString(text, x, y);
    }

    /** A plotting area at (x, y, w, h) in pixels mapping [x0, x1] x [y0, y1]. */
    public Panel panel(int x, int y, int w, int h, double x0, double x1, double y0, double y1, String xLabel,
                       String yLabel) {
        return new Panel(x, y, w, h, x0, x1, y0, y1, xLabel, yLabel);
    }

    public void write(Path file) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            ImageIO.write(img, "png", file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    public final class Panel {
        private final int px;
        private final int py;
        private final int pw;
        private final int ph;
        private final double x0;
        private final double x1;
        private final double y0;
        private final double y1;

        Panel(int px, int py, int pw, int ph, double x0, double x1, double y0, double y1, String xl, String yl) {
            this.px = px;
            this.py = py;
            this.pw = pw;
            this.ph = ph;
            this.x0 = x0;
            this.x1 = x1 == x0 ? x0 + 1 : x1;
            this.y0 = y0;
            this.y1 = y1 == y0 ? y0 + 1 : y1;
            g.setColor(Color.BLACK);
            g.drawRect(px, py, pw, ph);
            for (int i = 0; i <= 5; i++) {
                double xv = this.x0 + (this.x1 - this.x0) * i / 5;
                double yv = this.y0 + (this.y1 - this.y0) * i / 5;
                int sx = sx(xv);
                int sy = sy(yv);
                g.setColor(new Color(0xe0e0e0));
                g.drawLine(sx, py, sx, py + ph);
                g.drawLine(px, sy, px + pw, sy);
                g.setColor(Color.DARK_GRAY);
                g.drawString(fmt(xv), sx - 12, py + ph + 15);
                g.drawString(fmt(yv), px - 55, sy + 4);
            }
            g.setColor(Color.BLACK);
            g.drawString(xl, px + pw / 2 - 40, py + ph + 32);
            g.drawString(yl, px, py - 6);
        }

        int sx(double x) {
            return (int) Math.round(px + (x - x0) / (x1 - x0) * pw);
        }

        int sy(double y) {
            return (int) Math.round(py + ph - (y - y0) / (y1 - y0) * ph);
        }

        public void points(double[] x, double[] y, Color c) {
            g.setColor(c);
            for (int i = 0; i < x.length; i++) {
                g.fillOval(sx(x[i]) - 4, sy(y[i]) - 4, 8, 8);
            }
        }

        public void line(double xa, double ya, double xb, double yb, Color c, boolean dashed) {
            g.setColor(c);
            g.setStroke(dashed ? new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                    new float[] {6f, 4f}, 0f) : new BasicStroke(1.8f));
            g.drawLine(sx(xa), sy(ya), sx(xb), sy(yb));
            g.setStroke(new BasicStroke(1f));
        }

        public void polyline(double[] x, double[] y, Color c) {
            for (int i = 1; i < x.length; i++) {
                line(x[i - 1], y[i - 1], x[i], y[i], c, false);
            }
            points(x, y, c);
        }

        /** A bar centred at x, width in x units, from y0 (panel bottom) to y. */
        public void bar(double x, double width, double y, Color c, String label) {
            int a = sx(x - width / 2);
            int b = sx(x + width / 2);
            int top = sy(y);
            int base = sy(Math.max(y0, 0));
            g.setColor(c);
            g.fillRect(a, top, Math.max(1, b - a), Math.max(1, base - top));
            g.setColor(Color.BLACK);
            if (label != null) {
                g.drawString(label, a, top - 3);
            }
        }

        /** A hollow marker (used for published reference values). */
        public void marker(double x, double y, Color c) {
            g.setColor(c);
            g.setStroke(new BasicStroke(2f));
            g.drawRect(sx(x) - 6, sy(y) - 6, 12, 12);
            g.setStroke(new BasicStroke(1f));
        }

        public void label(String s, double x, double y, Color c) {
            g.setColor(c);
            g.drawString(s, sx(x), sy(y));
        }
    }

    static String fmt(double v) {
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format("%.0f", v);
        }
        if (a >= 10) {
            return String.format("%.1f", v);
        }
        return String.format("%.2f", v);
    }
}
