// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import dev.marrow.gda.Experiment;
import dev.marrow.gda.GdaPeerCodec;
import dev.marrow.gda.GdaPeerProtocol;
import dev.marrow.gda.GdaRunSpec;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.Payload;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Property-style fuzzing of the peer-exchange wire format (PeerMessages,
 * the mini-gda run control of GdaPeerProtocol, and PeerExchange over a
 * socket): random and mutated byte streams, from a fixed seed, must each end
 * in decoded messages or a PeerExchangeException with a message; never in
 * another exception, a hang or an allocation driven by a length field.
 * A failure prints the seed and case number; the case replays from them.
 */
class PeerMessagesFuzzTest {
    static final JobToken TOKEN = JobToken.random("test");
    static final long SEED = 0x6d61_7272_6f77L;
    static final int CASES = 4000;
    static final Duration BOUND = Duration.ofSeconds(10);

    /** What one stream decoded into, message by message. */
    private record Decoded(List<Object> messages, PeerExchangeException end) {
    }

    static byte[][] validFrames() {
        byte[] gid = new byte[16];
        gid[15] = 9;
        GdaRunSpec spec = new GdaRunSpec(Experiment.values()[0], Ordering.values()[0], Payload.values()[0], 8, 100,
                10, 1_000_000_000L);
        return new byte[][] {
            PeerMessages.encodeInfo(new PeerInfo(0x123, 0x42, 0x77, 5, 1, 3, gid, 0x7f00_0000_1000L, 4096)),
            PeerMessages.encodeInfo(new PeerInfo(0xffffff, 0, -1, 0, 2, 5, new byte[16], -1L, Long.MAX_VALUE)),
            PeerMessages.encodeBarrier(1),
            PeerMessages.encodeBarrier(-1),
            PeerMessages.encode(GdaPeerProtocol.TYPE_RUN, GdaPeerCodec.encodeRun(3, spec)),
            PeerMessages.encode(GdaPeerProtocol.TYPE_READY, GdaPeerCodec.encodeReady(3, true, "")),
            PeerMessages.encode(GdaPeerProtocol.TYPE_READY, GdaPeerCodec.encodeReady(4, false, "no GPU \u00e9")),
            PeerMessages.encode(GdaPeerProtocol.TYPE_DONE,
                    GdaPeerCodec.encodeDone(new GdaPeerProtocol.Done(3, -110, 110))),
            PeerMessages.encode(GdaPeerProtocol.TYPE_REPORT,
                    GdaPeerCodec.encodeReport(new GdaPeerProtocol.Report(3, 0, 110, true, 0, "ok"))),
            PeerMessages.encode(GdaPeerProtocol.TYPE_REPORT,
                    GdaPeerCodec.encodeReport(new GdaPeerProtocol.Report(3, -5, 0, false, 1, "x".repeat(2048)))),
        };
    }

    /** Reads frames until the stream ends or a frame is refused, decoding each by its type. */
    static Decoded decodeStream(InputStream in) {
        List<Object> out = new ArrayList<>();
        for (int frames = 0; ; frames++) {
            if (frames > 100_000) {
                fail("decoder did not make progress");
            }
            try {
                byte[] body = PeerMessages.readFrame(in, "fuzz frame");
                PeerMessages.Frame f = PeerMessages.decodeFrame(body);
                out.add(switch (f.type()) {
                    case PeerMessages.TYPE_INFO -> PeerMessages.decodeInfo(body);
                    case PeerMessages.TYPE_BARRIER -> PeerMessages.decodeBarrier(body);
                    case GdaPeerProtocol.TYPE_RUN -> GdaPeerCodec.decodeRun(f.payload());
                    case GdaPeerProtocol.TYPE_READY -> GdaPeerCodec.decodeReady(f.payload());
                    case GdaPeerProtocol.TYPE_DONE -> GdaPeerCodec.decodeDone(f.payload());
                    case GdaPeerProtocol.TYPE_REPORT -> GdaPeerCodec.decodeReport(f.payload());
                    default -> f;
                });
            } catch (PeerExchangeException e) {
                return new Decoded(out, e);
            } catch (IOException e) {
                throw new AssertionError("a byte array stream cannot fail", e);
            }
        }
    }

    /** A stream that hands out at most one to three bytes per read (TCP may split anywhere). */
    static InputStream trickle(byte[] data, Random r) {
        return new InputStream() {
            int pos;

            @Override
            public int read() {
                return pos < data.length ? data[pos++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos >= data.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, 1 + r.nextInt(3)), data.length - pos);
                System.arraycopy(data, pos, b, off, n);
                pos += n;
                return n;
            }
        };
    }

    static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        parts.forEach(o::writeBytes);
        return o.toByteArray();
    }

    static final int[] INTERESTING = {0, 1, 0x7f, 0x80, 0xff, 8, 56, 0x10, 0x4d};

    /** One mutation of a stream of valid frames, or pure noise. */
    static byte[] mutate(byte[] s, Random r, byte[][] valid) {
        byte[] b = s.clone();
        switch (r.nextInt(9)) {
            case 0 -> { // flip bits
                for (int i = 1 + r.nextInt(4); i > 0 && b.length > 0; i--) {
                    b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
                }
            }
            case 1 -> { // interesting bytes
                for (int i = 1 + r.nextInt(3); i > 0 && b.length > 0; i--) {
                    b[r.nextInt(b.length)] = (byte) INTERESTING[r.nextInt(INTERESTING.length)];
                }
            }
            case 2 -> b = Arrays.copyOf(b, b.length == 0 ? 0 : r.nextInt(b.length)); // truncate
            case 3 -> { // overwrite a length prefix or a 32-bit field with an extreme value
                if (b.length >= 4) {
                    int at = r.nextBoolean() ? 0 : r.nextInt(b.length - 3);
                    int[] v = {0, 7, 8, 4095, 4096, 4097, Integer.MAX_VALUE, -1, Integer.MIN_VALUE};
                    int x = v[r.nextInt(v.length)];
                    b[at] = (byte) (x >>> 24);
                    b[at + 1] = (byte) (x >>> 16);
                    b[at + 2] = (byte) (x >>> 8);
                    b[at + 3] = (byte) x;
                }
            }
            case 4 -> { // insert random bytes
                int at = r.nextInt(b.length + 1);
                byte[] junk = new byte[1 + r.nextInt(16)];
                r.nextBytes(junk);
                byte[] n = new byte[b.length + junk.length];
                System.arraycopy(b, 0, n, 0, at);
                System.arraycopy(junk, 0, n, at, junk.length);
                System.arraycopy(b, at, n, at + junk.length, b.length - at);
                b = n;
            }
            case 5 -> { // splice: a valid frame's body under another frame's header
                byte[] a = valid[r.nextInt(valid.length)], c = valid[r.nextInt(valid.length)];
                byte[] n = Arrays.copyOf(a, Math.max(12, a.length));
                System.arraycopy(c, 4, n, 4, Math.min(8, c.length - 4)); // magic, version, type of c
                b = concat(List.of(b, n));
            }
            case 6 -> { // retype: keep the frame, change the type field to another (or unknown) type
                if (b.length >= 12) {
                    b[11] = (byte) r.nextInt(9);
                    b[10] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : 0);
                }
            }
            case 7 -> { // noise with a plausible header
                byte[] n = new byte[r.nextInt(200)];
                r.nextBytes(n);
                if (n.length >= 12) {
                    int len = n.length - 4;
                    n[0] = 0;
                    n[1] = 0;
                    n[2] = (byte) (len >>> 8);
                    n[3] = (byte) len;
                    System.arraycopy(valid[0], 4, n, 4, 6); // magic + version
                    n[10] = 0;
                    n[11] = (byte) (1 + r.nextInt(6));
                }
                b = n;
            }
            default -> { // pure noise
                b = new byte[r.nextInt(300)];
                r.nextBytes(b);
            }
        }
        return b;
    }

    @Test
    void validStreamsRoundTrip() {
        byte[][] valid = validFrames();
        Decoded d = decodeStream(new ByteArrayInputStream(concat(Arrays.asList(valid))));
        assertEquals(valid.length, d.messages().size(), "every valid frame decodes");
        assertTrue(d.end().getMessage().contains("closed the connection after 0 of 4"), d.end().getMessage());
        // The mutation below has something to work from: the decoders' output matches the inputs.
        assertEquals(0x123, ((PeerInfo) d.messages().get(0)).qpn());
        assertEquals(-1, (int) (Integer) d.messages().get(3));
        assertEquals(2048, ((GdaPeerProtocol.Report) d.messages().get(9)).message().length());
    }

    @Test
    void randomAndMutatedStreamsEndInAClearError() {
        byte[][] valid = validFrames();
        assertTimeoutPreemptively(BOUND, () -> {
            Random seeds = new Random(SEED);
            int decodedFrames = 0, refusedEarly = 0;
            for (int c = 0; c < CASES; c++) {
                Random r = new Random(seeds.nextLong());
                List<byte[]> parts = new ArrayList<>();
                for (int i = r.nextInt(4); i >= 0; i--) {
                    parts.add(valid[r.nextInt(valid.length)]);
                }
                byte[] s = concat(parts);
                for (int m = 1 + r.nextInt(3); m > 0; m--) {
                    s = mutate(s, r, valid);
                }
                Decoded d;
                try {
                    d = decodeStream(r.nextBoolean() ? new ByteArrayInputStream(s) : trickle(s, r));
                } catch (RuntimeException | OutOfMemoryError e) {
                    throw new AssertionError("case " + c + " (seed " + SEED + "): " + s.length + " bytes "
                            + java.util.HexFormat.of().formatHex(s, 0, Math.min(s.length, 96))
                            + " ended in " + e + " instead of a PeerExchangeException", e);
                }
                String msg = d.end().getMessage();
                assertFalse(msg == null || msg.isBlank(), "case " + c + ": exception without a message");
                decodedFrames += d.messages().size();
                if (!msg.contains("closed the connection after 0 of 4")) {
                    refusedEarly++;
                }
            }
            // The generator must exercise both outcomes, or it tests nothing.
            assertTrue(decodedFrames > CASES / 4, "too few frames decoded: " + decodedFrames);
            assertTrue(refusedEarly > CASES / 4, "too few streams refused: " + refusedEarly);
        });
    }

    @Test
    void lengthPrefixesNeverDriveAllocation() {
        // A 2 GiB claim must be refused from the 4-byte prefix alone.
        for (int n : new int[] {Integer.MAX_VALUE, -1, Integer.MIN_VALUE, PeerMessages.MAX_BODY + 1, 0, 7}) {
            byte[] s = {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
            Decoded d = decodeStream(new ByteArrayInputStream(s));
            assertTrue(d.messages().isEmpty());
            assertTrue(d.end().getMessage().contains("frames are 8.." + PeerMessages.MAX_BODY), d.end().getMessage());
        }
    }

    /** The same generator through real sockets: a peer that sends garbage, closes, or stalls. */
    @Test
    void peerExchangeOverSocketsSurvivesGarbage() {
        byte[][] valid = validFrames();
        assertTimeoutPreemptively(BOUND, () -> {
            Random r = new Random(SEED + 1);
            Duration t = Duration.ofMillis(200);
            for (int c = 0; c < 16; c++) {
                byte[] s = mutate(valid[r.nextInt(valid.length)], r, valid);
                boolean stall = c % 4 == 0; // keep the connection open: the read must time out, not hang
                try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)
                        .warnings(w -> { })) {
                    int port = l.port();
                    CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> {
                        try (Socket sock = new Socket("127.0.0.1", port)) {
                            PeerExchange.sendHello(sock, TOKEN, Duration.ofSeconds(5)); // the garbage comes after it
                            OutputStream o = sock.getOutputStream();
                            o.write(s);
                            o.flush();
                            if (stall) {
                                Thread.sleep(t.toMillis() * 2);
                            }
                        } catch (IOException | InterruptedException | PeerExchangeException e) {
                            // the test side may close first (or give up on a slow handshake): fine
                        }
                    });
                    try (PeerExchange x = l.accept(t)) {
                        for (int i = 0; i < 64; i++) {
                            x.receiveAny("fuzz message");
                        }
                        fail("case " + c + ": 64 messages from " + s.length + " bytes");
                    } catch (PeerExchangeException e) {
                        assertFalse(e.getMessage() == null || e.getMessage().isBlank());
                    }
                    peer.get(5, TimeUnit.SECONDS);
                }
            }
        });
    }

    @Test
    void decodersRefuseEveryTruncationOfValidPayloads() {
        for (byte[] frame : validFrames()) {
            byte[] body = Arrays.copyOfRange(frame, 4, frame.length);
            for (int n = 0; n < body.length; n++) {
                byte[] cut = Arrays.copyOf(body, n);
                Decoded d = decodeStream(new ByteArrayInputStream(withLength(cut)));
                assertTrue(d.messages().isEmpty(), "truncated to " + n + " bytes, still decoded");
            }
            assertArrayEquals(frame, withLength(body));
        }
    }

    private static byte[] withLength(byte[] body) {
        byte[] f = new byte[4 + body.length];
        f[0] = (byte) (body.length >>> 24);
        f[1] = (byte) (body.length >>> 16);
        f[2] = (byte) (body.length >>> 8);
        f[3] = (byte) body.length;
        System.arraycopy(body, 0, f, 4, body.length);
        return f;
    }
}
