// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import dev.marrow.api.MarrowException;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Wire format of the peer exchange. Every frame is a big-endian u32 body
 * length, then the body: magic u32 "MRW5", version u16, type u16, payload.
 * <pre>
 *   INFO    (type 1, 56-byte body): qpn u32, psn u32, rkey u32, lid u16,
 *           link_layer u8, mtu u8, gid[16], addr u64, len u64
 *   BARRIER (type 2, 12-byte body): sequence u32
 *   3..6    the run control of the protocol above (types and payloads defined there)
 *   WIRE    (type 7): the name of the sender's software-NIC shared-memory wire, UTF-8
 *           (two processes of one host, docs/design/two-process.md)
 *   ENV     (type 8): the sender's environment header as JSON, UTF-8 (the initiator's
 *           result carries both sides')
 *   9..12   further messages of the protocols above (types and payloads defined there)
 *   HELLO       (type 13, 72-byte body; connecting side first): nonce_c[32],
 *               HMAC-SHA256(token, "MRW5 hello" | version u16 | nonce_c)
 *   HELLO_REPLY (type 14, 72-byte body; listener, only once HELLO's MAC checked): nonce_s[32],
 *               HMAC-SHA256(token, "MRW5 reply" | version u16 | nonce_c | nonce_s)
 *   HELLO_PROOF (type 15, 40-byte body; connecting side):
 *               HMAC-SHA256(token, "MRW5 proof" | version u16 | nonce_c | nonce_s)
 * </pre>
 * The three HELLO frames open every connection (docs/design/two-process.md
 * section 12): each side proves it knows the job's {@link JobToken} without
 * sending it, and the listener sends nothing at all before the first MAC
 * checks; until PROOF checks, frames longer than {@link #HELLO_MAX_BODY} are
 * refused. A version bump changes the whole format: peers must run the same version.
 * Version 2 added the run control types (a version-1 peer could connect
 * but not serve runs, so it is refused at the first message). Version 3 added
 * WIRE and ENV: a version-2 peer would not send them. Version 4 added the
 * HELLO handshake: a version-3 peer's first frame (INFO) is dropped by the listener.
 */
public final class PeerMessages {
    private PeerMessages() {
    }

    public static final int MAGIC = 0x4d525735; // "MRW5"
    public static final int VERSION = 4;
    public static final int TYPE_INFO = 1;
    public static final int TYPE_BARRIER = 2;
    /** Types 3..6 and 9..12 belong to the protocols that run over the exchange; each defines its own. */
    public static final int TYPE_WIRE = 7;
    public static final int TYPE_ENV = 8;
    /** The handshake (docs/design/two-process.md section 12). */
    public static final int TYPE_HELLO = 13;
    public static final int TYPE_HELLO_REPLY = 14;
    public static final int TYPE_HELLO_PROOF = 15;
    static final int HEADER = 8;
    /** Nonces and MACs of the handshake: 32 bytes each. */
    static final int HELLO_FIELD = 32;
    /** Frames of a peer not yet authenticated: at most a HELLO's (nonce and MAC). */
    static final int HELLO_MAX_BODY = HEADER + 2 * HELLO_FIELD;
    static final int INFO_BODY = HEADER + 48;
    static final int BARRIER_BODY = HEADER + 4;
    /** Larger claims are refused before anything is allocated. */
    static final int MAX_BODY = 4096;

    public static byte[] encodeInfo(PeerInfo p) {
        ByteBuffer b = frame(INFO_BODY, TYPE_INFO);
        b.putInt(p.qpn()).putInt(p.psn()).putInt(p.rkey()).putShort((short) p.lid())
                .put((byte) p.linkLayer()).put((byte) p.mtu()).put(p.gid()).putLong(p.addr()).putLong(p.len());
        return b.array();
    }

    public static byte[] encodeBarrier(int seq) {
        return frame(BARRIER_BODY, TYPE_BARRIER).putInt(seq).array();
    }

    /** One decoded frame: its type and the bytes after the 8-byte header. */
    public record Frame(int type, byte[] payload) {
        public ByteBuffer buffer() {
            return ByteBuffer.wrap(payload);
        }
    }

    /** A frame of any type with a free-form payload (length prefix and header added). */
    public static byte[] encode(int type, byte[] payload) {
        if (HEADER + payload.length > MAX_BODY) {
            throw new IllegalArgumentException("peer message payload of " + payload.length + " bytes exceeds "
                    + (MAX_BODY - HEADER));
        }
        return frame(HEADER + payload.length, type).put(payload).array();
    }

    /** Checks magic and version of a body (the bytes after the length prefix) and splits it. */
    public static Frame decodeFrame(byte[] body) {
        ByteBuffer b = header(body, -1, -1, "any");
        int type = Short.toUnsignedInt(b.getShort(6));
        byte[] payload = new byte[body.length - HEADER];
        System.arraycopy(body, HEADER, payload, 0, payload.length);
        return new Frame(type, payload);
    }

    private static ByteBuffer frame(int body, int type) {
        ByteBuffer b = ByteBuffer.allocate(4 + body);
        return b.putInt(body).putInt(MAGIC).putShort((short) VERSION).putShort((short) type);
    }

    /** Decodes an INFO body (the bytes after the length prefix). */
    public static PeerInfo decodeInfo(byte[] body) {
        ByteBuffer b = header(body, TYPE_INFO, INFO_BODY, "INFO");
        try {
            int qpn = b.getInt(), psn = b.getInt(), rkey = b.getInt();
            int lid = Short.toUnsignedInt(b.getShort());
            int link = Byte.toUnsignedInt(b.get()), mtu = Byte.toUnsignedInt(b.get());
            byte[] gid = new byte[16];
            b.get(gid);
            return new PeerInfo(qpn, psn, rkey, lid, link, mtu, gid, b.getLong(), b.getLong());
        } catch (MarrowException e) {
            throw new PeerExchangeException("peer sent an invalid INFO message: " + e.getMessage(), e);
        } catch (BufferUnderflowException e) {
            throw new PeerExchangeException("peer INFO message is truncated", e);
        }
    }

    /** Decodes a BARRIER body and returns its sequence number. */
    public static int decodeBarrier(byte[] body) {
        return header(body, TYPE_BARRIER, BARRIER_BODY, "BARRIER").getInt();
    }

    private static ByteBuffer header(byte[] body, int type, int expectLen, String what) {
        if (body.length < HEADER) {
            throw new PeerExchangeException("peer message of " + body.length + " bytes is shorter than the "
                    + HEADER + "-byte header");
        }
        ByteBuffer b = ByteBuffer.wrap(body);
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new PeerExchangeException(String.format("peer is not a Marrow mlx5 exchange: magic 0x%08x, "
                    + "expected 0x%08x (is another program listening on that port?)", magic, MAGIC));
        }
        int version = Short.toUnsignedInt(b.getShort());
        if (version != VERSION) {
            throw new PeerExchangeException("peer speaks exchange version " + version + ", this build speaks "
                    + VERSION + ": run the same Marrow version on both sides");
        }
        int t = Short.toUnsignedInt(b.getShort());
        if (type < 0) {
            return b; // any type, any length (decodeFrame)
        }
        if (t != type) {
            throw new PeerExchangeException("expected a " + what + " message from the peer, got type " + t
                    + " (the two sides are out of step)");
        }
        if (body.length != expectLen) {
            throw new PeerExchangeException(what + " message of version " + VERSION + " has " + expectLen
                    + " bytes, the peer sent " + body.length);
        }
        return b;
    }

    /**
     * Reads one frame body. A socket timeout surfaces as the
     * {@link java.net.SocketTimeoutException} of the stream; a stream that
     * ends early as {@link PeerExchangeException}.
     */
    static byte[] readFrame(InputStream in, String what) throws IOException {
        return readFrame(in, what, MAX_BODY);
    }

    /** As above with a tighter cap (a peer not yet authenticated: {@link #HELLO_MAX_BODY}). */
    static byte[] readFrame(InputStream in, String what, int maxBody) throws IOException {
        byte[] len = readFully(in, 4, what + " length");
        int n = ByteBuffer.wrap(len).getInt();
        if (n < HEADER || n > maxBody) {
            throw new PeerExchangeException("peer announced a " + what + " of " + Integer.toUnsignedString(n)
                    + " bytes; frames are " + HEADER + ".." + maxBody + " (is another program on that port?)");
        }
        return readFully(in, n, what);
    }

    private static byte[] readFully(InputStream in, int n, String what) throws IOException {
        byte[] b = new byte[n];
        int got = 0;
        while (got < n) {
            int r = in.read(b, got, n - got);
            if (r < 0) {
                throw new PeerExchangeException("peer closed the connection after " + got + " of " + n
                        + " bytes of the " + what + " (did it exit or fail?)", new EOFException());
            }
            got += r;
        }
        return b;
    }
}
