// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;

/**
 * The locked-clock sweep: in each of several passes, visit every clock once
 * in a shuffled order (seeded, so a run can be repeated and its order is in
 * the records), lock it, let it settle, measure one cell. Shuffling keeps a
 * slow drift (temperature, a neighbour) from lining up with the clock.
 * The caller owns the {@link ClockGuard} (try-with-resources), which
 * restores the clock on every way out.
 */
public final class ClockSweep {
    private ClockSweep() {
    }

    /** One visit of the plan: pass (0-based), position within the pass, clock to lock. */
    public record Visit(int pass, int position, int clockMhz) {
    }

    /**
     * One cell's measurement at the locked clock.
     *
     * @param latencyUs  median latency per timed sequence (issue, putc, ...), in us
     * @param clockMhz   the SM clock measured during each sequence, in MHz
     * @param detail     the measurement's own record (its parameters), extended into the cell record
     */
    public record Cell(Map<String, Double> latencyUs, Map<String, Double> clockMhz, ResultRecord detail) {
    }

    /** Measures one cell at the clock just locked. */
    @FunctionalInterface
    public interface Measurement {
        Cell measure(int lockedMhz);
    }

    /** What a sweep did: the visits that ran with their cells, and whether it stopped before the plan's end. */
    public record Outcome(List<Visit> visited, List<Cell> cells, boolean cutShort) {
    }

    /** passes x clocks visits; each pass a fresh permutation from one Random(seed). */
    public static List<Visit> plan(int[] clocks, int passes, long seed) {
        if (clocks.length == 0 || passes < 1) {
            throw new IllegalArgumentException("a sweep needs at least one clock and one pass");
        }
        Random rnd = new Random(seed);
        List<Visit> plan = new ArrayList<>();
        for (int p = 0; p < passes; p++) {
            List<Integer> order = new ArrayList<>();
            for (int c : clocks) {
                order.add(c);
            }
            Collections.shuffle(order, rnd);
            for (int i = 0; i < order.size(); i++) {
                plan.add(new Visit(p, i, order.get(i)));
            }
        }
        return plan;
    }

    /**
     * Runs the plan: for each visit (unless stop says the time is up) lock,
     * wait settleMs, measure, then afterCell. An exception ends the sweep and
     * propagates; the caller's guard restores the clock.
     */
    public static Outcome run(ClockGuard guard, List<Visit> plan, Measurement m, long settleMs, BooleanSupplier stop,
                              Runnable afterCell) {
        return run(guard, plan, m, settleMs, stop, (v, c) -> afterCell.run());
    }

    /** As above; afterCell gets each visit and its cell as it completes (a command writes its record then). */
    public static Outcome run(ClockGuard guard, List<Visit> plan, Measurement m, long settleMs, BooleanSupplier stop,
                              java.util.function.BiConsumer<Visit, Cell> afterCell) {
        List<Visit> visited = new ArrayList<>();
        List<Cell> cells = new ArrayList<>();
        for (Visit v : plan) {
            if (stop.getAsBoolean()) {
                return new Outcome(visited, cells, true);
            }
            guard.lock(v.clockMhz());
            if (settleMs > 0) {
                try {
                    Thread.sleep(settleMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the clock settled", e);
                }
            }
            Cell c = m.measure(v.clockMhz());
            cells.add(c);
            visited.add(v);
            afterCell.accept(v, c);
        }
        return new Outcome(visited, cells, false);
    }
}
