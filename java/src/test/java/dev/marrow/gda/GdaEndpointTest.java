// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Endpoints;
import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.PeerRole;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.peer.PeerAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.time.Duration;

import static dev.marrow.gda.internal.GdaLayouts.off;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The marrow_gda_endpoint that MiniGda builds from a QP's and CQ's views,
 * checked without a NIC: softnic views stand in for the mlx5 ones (same
 * structs), and only the NIC decides the UAR MMIO flag. Also the mlx5
 * options' peer-role rules.
 */
class GdaEndpointTest {

    @ParameterizedTest
    @EnumSource(Nic.class)
    void endpointFromViewsCarriesTheViewsBuffersAndTheMmioFlagOnlyForMlx5(Nic nicKind) {
        try (SoftNic nic = SoftNic.open(SoftNic.Options.defaults().withPollMode(SoftNic.PollMode.IDLE).withQuiet(true));
             Arena arena = Arena.ofConfined()) {
            CompletionQueue cq = nic.createCompletionQueue(6, false, false);
            QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(5).withMaxInlineData(60));
            MemorySegment qv = Endpoints.qpView(arena, qp);
            MemorySegment cv = Endpoints.cqView(arena, cq);
            Endpoints.Buffers b = new Endpoints.Buffers(0x1000, 4096, 0x11, 0x3000, 0x7f00_0000_0000L, 8192, 0x22);

            MemorySegment ep = Endpoints.endpoint(arena, nicKind, Placement.HOST, qv, cv, b);

            StructLayout el = GdaLayouts.ENDPOINT;
            assertEquals((int) el.byteSize(), ep.get(JAVA_INT, off(el, "size")));
            assertEquals(0, ep.get(JAVA_INT, off(el, "comp_mask")));
            assertEquals(Placement.HOST.code(), ep.get(JAVA_INT, off(el, "placement")));
            assertEquals(qv.address(), ep.get(ADDRESS, off(el, "qp")).address(), "ep.qp is the QP view");
            assertEquals(cv.address(), ep.get(ADDRESS, off(el, "cq")).address(), "ep.cq is the CQ view");
            assertEquals(0x11, ep.get(JAVA_INT, off(el, "lkey")), "lkey of the source MR");
            assertEquals(0x1000L, ep.get(JAVA_LONG, off(el, "local_addr")));
            assertEquals(4096L, ep.get(JAVA_LONG, off(el, "local_len")));
            assertEquals(0x3000L, ep.get(JAVA_LONG, off(el, "inbox_addr")), "this side's inbox");
            assertEquals(0x7f00_0000_0000L, ep.get(JAVA_LONG, off(el, "remote_addr")), "peer's inbox address");
            assertEquals(8192L, ep.get(JAVA_LONG, off(el, "remote_len")));
            assertEquals(0x22, ep.get(JAVA_INT, off(el, "rkey")), "peer's rkey");
            int flags = ep.get(JAVA_INT, off(el, "flags"));
            assertEquals(nicKind == Nic.MLX5 ? Endpoints.EP_UAR_MMIO : 0, flags,
                    "UAR MMIO (io_memory mapping) for the ConnectX register only; the softnic mailbox is RAM");

            // the views themselves describe the QP the endpoint names
            StructLayout q = dev.marrow.internal.ffi.EmuLayouts.QP_VIEW;
            assertEquals(qp.qpn(), qv.get(JAVA_INT, off(q, "qpn")));
            assertEquals(qp.sqWqebbs(), qv.get(JAVA_INT, off(q, "sq_wqe_cnt")));
            assertEquals(qp.uar().address(), qv.get(ADDRESS, off(q, "uar")).address());
        }
    }

    @Test
    void theFlagValuesAreTheCompiledHeadersOnes() {
        // the runners reject unknown bits: Java's copies must equal what the C compiler saw in marrow_gda.h
        NativeLib host = NativeLib.load("host");
        assertEquals(host.abiQuery("const:MARROW_GDA_EP_UAR_MMIO"), Endpoints.EP_UAR_MMIO);
        assertEquals(host.abiQuery("const:MARROW_GDA_EP_REMOTE_DST"), Endpoints.EP_REMOTE_DST);
        assertEquals(0, Endpoints.EP_UAR_MMIO & Endpoints.EP_REMOTE_DST, "distinct bits");
    }

    @Test
    void aTwoHostEndpointMarksItsDestinationRemote() {
        try (SoftNic nic = SoftNic.open(SoftNic.Options.defaults().withPollMode(SoftNic.PollMode.IDLE).withQuiet(true));
             Arena arena = Arena.ofConfined()) {
            CompletionQueue cq = nic.createCompletionQueue(6, false, false);
            QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(5).withMaxInlineData(60));
            Endpoints.Buffers b = new Endpoints.Buffers(0x1000, 4096, 0x11, 0x3000, 0x7f00_0000_0000L, 8192, 0x22);
            MemorySegment ep = Endpoints.endpoint(arena, Nic.MLX5, Placement.HOST, Endpoints.qpView(arena, qp),
                    Endpoints.cqView(arena, cq), b, true);
            assertEquals(Endpoints.EP_UAR_MMIO | Endpoints.EP_REMOTE_DST,
                    ep.get(JAVA_INT, off(GdaLayouts.ENDPOINT, "flags")));
            assertEquals(0x7f00_0000_0000L, ep.get(JAVA_LONG, off(GdaLayouts.ENDPOINT, "remote_addr")),
                    "the remote address still goes into the WQEs");
        }
    }

    @Test
    void peerRoleFollowsTheAddressUnlessGiven() {
        Mlx5Options d = Mlx5Options.defaults();
        assertNull(d.peer());
        assertNull(d.role());
        assertEquals(PeerRole.RESPONDER, d.withPeer(PeerAddress.parse(":7000"), null).role());
        assertEquals(PeerRole.INITIATOR, d.withPeer(PeerAddress.parse("node2:7000"), null).role());
        assertEquals(PeerRole.INITIATOR, d.withPeer(PeerAddress.parse("[fe80::1]:7000"), PeerRole.INITIATOR).role());
        // Under a launcher rank 0 listens and initiates, rank 1 connects and responds (the CLI
        // refuses these pairings for an explicit --peer: GdaCommandTest).
        assertEquals(PeerRole.INITIATOR, d.withPeer(PeerAddress.parse(":7000"), PeerRole.INITIATOR).role());
        assertEquals(PeerRole.RESPONDER, d.withPeer(PeerAddress.parse("node2:7000"), PeerRole.RESPONDER).role());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> d.withPeer(null, PeerRole.RESPONDER));
        assertTrue(e.getMessage().contains("needs --peer"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> d.withPeerTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> d.withDevice("mlx5_0", -2));
        assertTrue(d.withPeer(PeerAddress.parse(":7000"), null).twoHost());
    }
}
