// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/**
 * How one traffic stream's time is read from a launch. Cycles are always a
 * difference of two %clock64 values of the same SM (clocks of different SMs
 * are not synchronised); ns may span SMs because %globaltimer is global.
 */
public interface Stream {
    String label();

    double cycles(Launch l);

    double ns(Launch l);

    /** reader's loads of its peer's tile: reader's start to "all loads returned". */
    static Stream load(int reader, String label) {
        return new Stream() {
            public String label() {
                return label;
            }

            public double cycles(Launch l) {
                Sample s = l.rank(reader);
                return s.clkLoadEnd() - s.clkStart();
            }

            public double ns(Launch l) {
                Sample s = l.rank(reader);
                return s.gtLoadEnd() - s.gtStart();
            }
        };
    }

    /** writer's remote stores: writer's start to "fence.acq_rel.cluster done". */
    static Stream store(int writer, String label) {
        return new Stream() {
            public String label() {
                return label;
            }

            public double cycles(Launch l) {
                Sample s = l.rank(writer);
                return s.clkStoreEnd() - s.clkStart();
            }

            public double ns(Launch l) {
                Sample s = l.rank(writer);
                return s.gtStoreEnd() - s.gtStart();
            }
        };
    }

    /**
     * TMA put src to dst. Cycles on the destination SM, from its own start
     * (the same cluster barrier the source leaves) to mbarrier completion; ns
     * from the source's start to the destination's completion.
     */
    static Stream tma(int src, int dst, String label) {
        return new Stream() {
            public String label() {
                return label;
            }

            public double cycles(Launch l) {
                Sample d = l.rank(dst);
                return d.clkRecvEnd() - d.clkStart();
            }

            public double ns(Launch l) {
                return l.rank(dst).gtRecvEnd() - l.rank(src).gtStart();
            }
        };
    }

    /**
     * The slowest of several TMA receivers: per launch the largest own-SM
     * cycle count, and in ns the span from the earliest start to the latest
     * completion (the "ring span").
     */
    static Stream slowestTma(int[] receivers, String label) {
        return new Stream() {
            public String label() {
                return label;
            }

            public double cycles(Launch l) {
                double m = 0;
                for (int r : receivers) {
                    Sample d = l.rank(r);
                    m = Math.max(m, d.clkRecvEnd() - d.clkStart());
                }
                return m;
            }

            public double ns(Launch l) {
                long start = Long.MAX_VALUE;
                long end = Long.MIN_VALUE;
                for (Sample s : l.ranks()) {
                    start = Math.min(start, s.gtStart());
                }
                for (int r : receivers) {
                    end = Math.max(end, l.rank(r).gtRecvEnd());
                }
                return end - start;
            }
        };
    }
}
