// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The study's bandwidth model ("How does Hopper distributed shared memory
 * actually move data?"; docs/design/methods.md §4.2), evaluated on any
 * one-way and duplex read rate: four 32-B lanes serve six SMs, so one
 * 32-B flit costs 6/4 = 1.5 cycles of an SM's share and the cap is
 * 4 x 32 / 6 = 21.33 B/cycle. A saturated read returns a 128-B quantum (4
 * flits); in a symmetric duplex read each direction also carries about one
 * 32-B read command per quantum, so it moves 128 B per 5 flits = 7.5 cycles
 * (ideal 17.07 B/cycle), and scaled by the measured one-way utilisation
 * (oneWay / 21.33) the duplex prediction is oneWay x 4/5. On the study's
 * own 19.874 that is 15.90 against its measured 15.372; per 128 B, 6.441
 * cycles one way and 8.327 duplex, 1.886 more, close to one 1.5-cycle flit.
 */
public record ModelPredictions(double oneWay, double duplex) {
    public static final double LANE_BYTES = 32;
    public static final int LANES = 4;
    public static final int SMS_PER_GROUP = 6;
    /** The read-response quantum the study found to fit best. */
    public static final double QUANTUM = 128;
    /** Quanta compared under the same one-command-flit assumption. */
    public static final double[] QUANTA = {32, 64, 128, 256};

    public ModelPredictions {
        if (!(oneWay > 0) || !(duplex > 0)) {
            throw new IllegalArgumentException("rates must be positive: one-way " + oneWay + ", duplex " + duplex);
        }
    }

    /** 4 x 32 / 6 B/cycle: an SM's share of its group's lanes. */
    public static double capPerSm() {
        return LANES * LANE_BYTES / SMS_PER_GROUP;
    }

    /** Cycles of an SM's share per 32-B flit: 6/4. */
    public static double cyclesPerFlit() {
        return (double) SMS_PER_GROUP / LANES;
    }

    /** Data flits per response of q bytes plus one command flit, in cycles. */
    public static double duplexCyclesPerQuantum(double q) {
        return (q / LANE_BYTES + 1) * cyclesPerFlit();
    }

    /** Ideal duplex read per direction with quantum q: q / ((q/32 + 1) x 1.5). */
    public static double idealDuplex(double q) {
        return q / duplexCyclesPerQuantum(q);
    }

    /** One-way utilisation of the cap: oneWay / 21.33. */
    public double utilisation() {
        return oneWay / capPerSm();
    }

    /** The duplex prediction for quantum q: ideal duplex x utilisation = oneWay x q / (q + 32). */
    public double predictedDuplex(double q) {
        return idealDuplex(q) * utilisation();
    }

    public double predictedDuplex() {
        return predictedDuplex(QUANTUM);
    }

    /** How far the prediction lies above the measured duplex, percent of the measured (the study: 3.4 %). */
    public double predictionAboveMeasuredPct() {
        return 100 * (predictedDuplex() / duplex - 1);
    }

    public double cyclesPer128OneWay() {
        return QUANTUM / oneWay;
    }

    public double cyclesPer128Duplex() {
        return QUANTUM / duplex;
    }

    /** Extra cycles per 128 B when the read runs both ways; the model: one flit, 1.5. */
    public double extraCyclesPer128() {
        return cyclesPer128Duplex() - cyclesPer128OneWay();
    }

    public double predictedLossPct() {
        return 100 * (1 - predictedDuplex() / oneWay);
    }

    public double measuredLossPct() {
        return 100 * (1 - duplex / oneWay);
    }

    /** The quantum whose prediction lies closest to the measured duplex. */
    public double bestQuantum() {
        double best = QUANTA[0];
        for (double q : QUANTA) {
            if (Math.abs(predictedDuplex(q) - duplex) < Math.abs(predictedDuplex(best) - duplex)) {
                best = q;
            }
        }
        return best;
    }

    /** Every figure by name, for records and tables. */
    public Map<String, Double> figures() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("one_way_b_per_cycle", oneWay);
        m.put("duplex_b_per_cycle", duplex);
        m.put("cap_per_sm_b_per_cycle", capPerSm());
        m.put("cycles_per_flit", cyclesPerFlit());
        m.put("utilisation", utilisation());
        m.put("ideal_duplex_b_per_cycle", idealDuplex(QUANTUM));
        m.put("predicted_duplex_b_per_cycle", predictedDuplex());
        m.put("prediction_above_measured_pct", predictionAboveMeasuredPct());
        m.put("cycles_per_128b_one_way", cyclesPer128OneWay());
        m.put("cycles_per_128b_duplex", cyclesPer128Duplex());
        m.put("extra_cycles_per_128b", extraCyclesPer128());
        m.put("predicted_loss_pct", predictedLossPct());
        m.put("measured_loss_pct", measuredLossPct());
        for (double q : QUANTA) {
            m.put("predicted_duplex_q" + (int) q + "_b_per_cycle", predictedDuplex(q));
        }
        m.put("best_quantum_bytes", bestQuantum());
        return m;
    }

    /** The study's own inputs (its one-way and duplex load). */
    public static ModelPredictions study() {
        return new ModelPredictions(Reference.MODEL_LOAD_ONE_WAY.value(), Reference.MODEL_LOAD_DUPLEX.value());
    }
}
