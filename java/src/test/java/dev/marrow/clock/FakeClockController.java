// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import java.util.ArrayList;
import java.util.List;

/** A clock controller that records what it was asked to do; it can refuse to lock, or fail on a given lock. */
public final class FakeClockController implements ClockController {
    public final List<String> calls = new ArrayList<>();
    private final String refusal;
    private final int failOnMhz;

    public FakeClockController() {
        this(null, -1);
    }

    /** refusal: checkCanLock throws with it (null: can lock); failOnMhz: lock(failOnMhz) throws (-1: never). */
    public FakeClockController(String refusal, int failOnMhz) {
        this.refusal = refusal;
        this.failOnMhz = failOnMhz;
    }

    @Override
    public synchronized void checkCanLock() {
        calls.add("check");
        if (refusal != null) {
            throw new ClockControlException(refusal);
        }
    }

    @Override
    public synchronized void lock(int mhz) {
        calls.add("lock " + mhz);
        if (mhz == failOnMhz) {
            throw new ClockControlException("fake: lock " + mhz + " failed");
        }
    }

    @Override
    public synchronized void restore() {
        calls.add("restore");
    }

    public synchronized long restores() {
        return calls.stream().filter("restore"::equals).count();
    }

    public synchronized long locks() {
        return calls.stream().filter(c -> c.startsWith("lock")).count();
    }

    @Override
    public String describe() {
        return "fake";
    }
}
