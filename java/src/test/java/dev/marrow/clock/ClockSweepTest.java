// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClockSweepTest {
    static final int[] CLOCKS = {1980, 1755, 1410, 1005, 705, 502};

    @Test
    void eachPassVisitsEveryClockOnceInASeededShuffle() {
        List<ClockSweep.Visit> a = ClockSweep.plan(CLOCKS, 3, 42);
        assertEquals(a, ClockSweep.plan(CLOCKS, 3, 42), "same seed, same plan");
        assertNotEquals(a, ClockSweep.plan(CLOCKS, 3, 43));
        assertEquals(18, a.size());
        List<List<Integer>> orders = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            int pass = p;
            List<Integer> order = a.stream().filter(v -> v.pass() == pass).map(ClockSweep.Visit::clockMhz).toList();
            assertEquals(List.of(502, 705, 1005, 1410, 1755, 1980), order.stream().sorted().toList());
            orders.add(order);
        }
        assertTrue(!orders.get(0).equals(orders.get(1)) || !orders.get(1).equals(orders.get(2)),
                "passes are shuffled independently");
    }

    @Test
    void stopsBetweenCellsWhenTheTimeIsUp() {
        FakeClockController c = new FakeClockController();
        AtomicInteger steps = new AtomicInteger();
        ClockSweep.Outcome o;
        try (ClockGuard g = ClockGuard.open(c)) {
            o = ClockSweep.run(g, ClockSweep.plan(CLOCKS, 2, 1), ClockGuardTest::cell, 0, () -> steps.get() >= 4,
                    steps::incrementAndGet);
        }
        assertTrue(o.cutShort());
        assertEquals(4, o.cells().size());
        assertEquals(4, o.visited().size());
        assertEquals(4, c.locks());
        assertEquals(1, c.restores());
    }
}
