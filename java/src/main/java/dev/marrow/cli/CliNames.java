// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.softnic.SoftNic;
import dev.marrow.gda.Experiment;
import dev.marrow.fabric.Nic;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.PeerRole;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.proxy.Handoff;
import dev.marrow.results.OutputFormat;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The CLI's words for domain values, in one place. A value's word is the
 * label its results carry (so a record's params read back as flags); a few
 * values have extra spellings (experiments also answer to their metric
 * prefix). Each nested class is both a picocli converter (an unknown word is
 * a usage error, exit 2, naming the flag) and its completion candidates (so
 * {@code --help} lists the words through {@code ${COMPLETION-CANDIDATES}}).
 */
final class CliNames {
    private CliNames() {
    }

    /** A closed set of words for values of T. */
    abstract static class Words<T> implements ITypeConverter<T>, Iterable<String> {
        private final Map<String, T> words = new LinkedHashMap<>();
        private final List<String> shown;

        /** values, each under its label (the words --help lists). */
        Words(List<T> values, Function<T, String> label) {
            for (T v : values) {
                words.put(label.apply(v), v);
            }
            this.shown = List.copyOf(words.keySet());
        }

        /** The usage error for an unknown word. */
        abstract String refusal(String word);

        /** Another spelling of a value, accepted but not listed. */
        Words<T> alias(String word, T value) {
            words.put(word, value);
            return this;
        }

        @Override
        public T convert(String word) {
            T v = words.get(word);
            if (v == null) {
                throw new TypeConversionException(refusal(word));
            }
            return v;
        }

        @Override
        public Iterator<String> iterator() {
            return shown.iterator();
        }

        /** "a, b or c". */
        String listed() {
            return shown.size() == 1 ? shown.getFirst()
                    : String.join(", ", shown.subList(0, shown.size() - 1)) + " or " + shown.getLast();
        }
    }

    /** words for the enum's values, refused as "FLAG must be a, b or c, not 'x'". */
    abstract static class FlagWords<E extends Enum<E>> extends Words<E> {
        private final String flag;

        FlagWords(String flag, E[] values, Function<E, String> label) {
            super(List.of(values), label);
            this.flag = flag;
        }

        @Override
        String refusal(String word) {
            return flag + " must be " + listed() + ", not '" + word + "'";
        }
    }

    static final class Targets extends FlagWords<Target> {
        Targets() {
            super("--target", Target.values(), Target::label);
        }
    }

    static final class GdaNics extends FlagWords<Nic> {
        GdaNics() {
            super("--nic", Nic.values(), Nic::label);
        }
    }

    static final class Payloads extends FlagWords<Payload> {
        Payloads() {
            super("--payload", Payload.values(), Payload::label);
        }
    }

    static final class Placements extends FlagWords<Placement> {
        Placements() {
            super("--placement", Placement.values(), Placement::label);
        }
    }

    static final class PeerRoles extends FlagWords<PeerRole> {
        PeerRoles() {
            super("--peer-role", PeerRole.values(), PeerRole::label);
        }
    }

    static final class Orderings extends Words<Ordering> {
        Orderings() {
            super(List.of(Ordering.values()), Ordering::label);
        }

        @Override
        String refusal(String word) {
            return "unknown ordering '" + word + "'; one of " + String.join(", ", this);
        }
    }

    /** issue, put+completion, round-trip; also their metric prefixes putc and rtt. */
    static final class Experiments extends Words<Experiment> {
        Experiments() {
            super(List.of(Experiment.values()), Experiment::metricPrefix);
            for (Experiment e : Experiment.values()) {
                alias(e.label(), e);
            }
        }

        @Override
        String refusal(String word) {
            return "unknown experiment '" + word + "'; one of issue, putc (put+completion), rtt (round-trip)";
        }

        @Override
        public Experiment convert(String word) {
            return super.convert(word.trim());
        }
    }

    /** --handoff: one protocol, or both in turn. */
    enum HandoffChoice {
        BASELINE(List.of(Handoff.BASELINE)), TUNED(List.of(Handoff.TUNED)), BOTH(List.of(Handoff.BASELINE, Handoff.TUNED));

        final List<Handoff> handoffs;

        HandoffChoice(List<Handoff> handoffs) {
            this.handoffs = handoffs;
        }
    }

    static final class Handoffs extends FlagWords<HandoffChoice> {
        Handoffs() {
            super("--handoff", HandoffChoice.values(), c -> c.name().toLowerCase());
        }
    }

    /** mini-proxy producers: CPU threads standing in for GPU threads, or GPU threads. */
    enum Producer {
        CPU, CUDA;

        String label() {
            return name().toLowerCase();
        }
    }

    static final class Producers extends FlagWords<Producer> {
        Producers() {
            super("--producer", Producer.values(), Producer::label);
        }
    }

    /** mini-proxy NICs: the software NIC or a real RDMA device through verbs. */
    static final class ProxyNics extends FlagWords<ProxyNic> {
        ProxyNics() {
            super("--nic", ProxyNic.values(), ProxyNic::label);
        }
    }

    enum ProxyNic {
        SOFTNIC, VERBS;

        String label() {
            return name().toLowerCase();
        }
    }

    static final class PollModes extends FlagWords<SoftNic.PollMode> {
        PollModes() {
            super("--poll", new SoftNic.PollMode[] {SoftNic.PollMode.HOT, SoftNic.PollMode.IDLE}, CliNames::word);
        }
    }

    /** hot or idle, as --poll and the records spell a software NIC poll mode. */
    static String word(SoftNic.PollMode m) {
        return m.name().toLowerCase();
    }

    static final class Formats extends FlagWords<OutputFormat> {
        Formats() {
            super("--format", OutputFormat.values(), f -> f.name().toLowerCase());
        }
    }
}
