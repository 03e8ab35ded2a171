// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import dev.marrow.internal.ffi.CStruct;
import dev.marrow.api.MarrowException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Arrays;
import java.util.HexFormat;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setLong;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * What one PE tells the other to connect an RC QP and write into its
 * buffer (docs/design/mlx5-queue-formats.md §5.3): QPN, start PSN, LID (IB) or GID (RoCE), the
 * active MTU, and rkey/address/length of the buffer the peer may write.
 *
 * @param qpn       24-bit QP number
 * @param psn       24-bit start PSN of the sender's SQ
 * @param rkey      remote key of the exposed buffer (0 if none)
 * @param lid       16-bit IB LID, 0 on RoCE
 * @param linkLayer 1 InfiniBand, 2 Ethernet (RoCE)
 * @param mtu       active MTU as enum ibv_mtu, 1 (256) .. 5 (4096)
 * @param gid       16 bytes, network order; all zero = none
 * @param addr      address of the exposed buffer in the sender's space
 * @param len       its length in bytes
 */
public record PeerInfo(int qpn, int psn, int rkey, int lid, int linkLayer, int mtu, byte[] gid, long addr,
                       long len) {
    public static final int LINK_IB = 1;
    public static final int LINK_ETHERNET = 2;

    public PeerInfo {
        gid = gid == null ? new byte[16] : gid.clone();
        validate(qpn, psn, lid, linkLayer, mtu, gid, len);
    }

    static void validate(int qpn, int psn, int lid, int linkLayer, int mtu, byte[] gid, long len) {
        if (qpn <= 1 || (qpn & ~0xffffff) != 0) {
            throw new MarrowException("peer info: QPN 0x" + Integer.toHexString(qpn) + " is not a 24-bit QP number");
        }
        if ((psn & ~0xffffff) != 0) {
            throw new MarrowException("peer info: PSN 0x" + Integer.toHexString(psn) + " exceeds 24 bits");
        }
        if ((lid & ~0xffff) != 0) {
            throw new MarrowException("peer info: LID " + lid + " exceeds 16 bits");
        }
        if (linkLayer != LINK_IB && linkLayer != LINK_ETHERNET) {
            throw new MarrowException("peer info: link layer " + linkLayer + " is neither 1 (IB) nor 2 (Ethernet)");
        }
        if (mtu < 1 || mtu > 5) {
            throw new MarrowException("peer info: MTU enum " + mtu + " is not 1 (256) .. 5 (4096)");
        }
        if (gid.length != 16) {
            throw new MarrowException("peer info: GID has " + gid.length + " bytes, not 16");
        }
        if (len < 0) {
            throw new MarrowException("peer info: negative buffer length " + len);
        }
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    public int mtuBytes() {
        return 128 << mtu;
    }

    /**
     * Reads a struct marrow_mlx5_peer_info laid out as l (the layout that the library which fills
     * it reports).
     */
    public static PeerInfo fromNative(MemorySegment s, StructLayout l) {
        byte[] g = CStruct.slice(s, l, "gid").toArray(JAVA_BYTE);
        return new PeerInfo(getInt(s, l, "qpn"), getInt(s, l, "psn"), getInt(s, l, "rkey"), getInt(s, l, "lid"),
                getInt(s, l, "link_layer"), getInt(s, l, "mtu"), g, getLong(s, l, "addr"), getLong(s, l, "len"));
    }

    /**
     * Writes this as a struct marrow_mlx5_peer_info laid out as l (port 0, gid_index -1: the
     * receiver does not need them).
     */
    public void toNative(MemorySegment s, StructLayout l) {
        s.fill((byte) 0);
        setInt(s, l, "size", (int) l.byteSize());
        setInt(s, l, "qpn", qpn);
        setInt(s, l, "psn", psn);
        setInt(s, l, "rkey", rkey);
        setInt(s, l, "lid", lid);
        setInt(s, l, "link_layer", linkLayer);
        setInt(s, l, "mtu", mtu);
        setInt(s, l, "gid_index", -1);
        CStruct.slice(s, l, "gid").copyFrom(MemorySegment.ofArray(gid));
        setLong(s, l, "addr", addr);
        setLong(s, l, "len", len);
    }



    @Override
    public boolean equals(Object o) {
        return o instanceof PeerInfo p && qpn == p.qpn && psn == p.psn && rkey == p.rkey && lid == p.lid
                && linkLayer == p.linkLayer && mtu == p.mtu && Arrays.equals(gid, p.gid) && addr == p.addr
                && len == p.len;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(gid) * 31 + Integer.hashCode(qpn) * 17 + Long.hashCode(addr);
    }

    @Override
    public String toString() {
        return String.format("PeerInfo[qpn=0x%x, psn=0x%x, rkey=0x%x, lid=%d, link=%s, mtu=%d, gid=%s, addr=0x%x, len=%d]",
                qpn, psn, rkey, lid, linkLayer == LINK_IB ? "IB" : "Ethernet", mtuBytes(),
                HexFormat.of().formatHex(gid), addr, len);
    }
}
