// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Target;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.api.Backend;
import dev.marrow.internal.ffi.CudaFfi;
import dev.marrow.peer.PeerAddress;
import dev.marrow.results.ResultRecord;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * cuda + mlx5 across two PEs: issue, put+completion and round trip with the
 * destination on the other side (MARROW_GDA_EP_REMOTE_DST), the responder's
 * peer role on its GPU, and its check of the final bytes. Needs a ConnectX
 * and a GPU; skipped elsewhere with the reason.
 *
 * <p>Two ways to run it: with MARROW_GDA_PEER=HOST:PORT, against a responder
 * started on another host ({@code scripts/marrow gda latency --target cuda
 * --nic mlx5 --peer :PORT}); otherwise both roles in this process over
 * loopback TCP and one NIC, which needs two GPUs (two kernels of one
 * process on one GPU would serialize on the legacy default stream).
 */
@Tag("rdma")
@Tag("gpu")
@RequiresBackend(Backend.VERBS)
class MiniGdaTwoHostTest {

    static GdaSetup side(PeerAddress peer, int cudaDevice) {
        return GdaSetup.defaults(Target.CUDA).withNic(Nic.MLX5).withCudaDevice(cudaDevice)
                .withMlx5(Mlx5Options.defaults().withPeer(peer, null).withPeerTimeout(Duration.ofSeconds(30)));
    }

    static List<GdaRun> initiate(GdaSetup s) {
        List<GdaRun> runs = new ArrayList<>();
        try (MiniGda g = MiniGda.open(s)) {
            System.out.println("cuda+mlx5 two PEs: " + g.connection());
            for (Ordering o : new Ordering[] {Ordering.GPU_FENCE, Ordering.FENCE_SYS}) {
                for (Payload p : Payload.values()) {
                    for (Experiment e : Experiment.values()) {
                        runs.add(MiniGdaMlx5Test.run(g, GdaRunSpec.of(e, o, p, 8).withIters(200, 20)));
                    }
                }
            }
            runs.add(MiniGdaMlx5Test.run(g, GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.GPU_FENCE,
                    Payload.INLINE, 220).withIters(100, 10)));
        }
        return runs;
    }

    static void check(List<GdaRun> runs) {
        for (GdaRun r : runs) {
            GdaRunSpec s = r.spec();
            long total = s.iters() + s.warmup();
            String what = s.experiment() + " " + s.ordering() + " " + s.payload() + " " + s.size() + " B";
            assertTrue(r.valid(), what + ": the responder found wrong bytes");
            assertEquals(total, r.posts(), what);
            assertEquals(total, r.cqes(), what);
            assertEquals(s.experiment() == Experiment.ROUND_TRIP ? total : 0, r.peerPosts(), what + ": replies");
            assertTrue(r.stats().p50() > 0, what);
        }
        ResultRecord rec = GdaRecords.record(runs.subList(0, 3));
        assertEquals("cuda+mlx5", rec.backend());
        assertTrue(rec.hardware());
        assertEquals("initiator", rec.params().get("role"));
    }

    @Test
    void issuePutCompletionAndRoundTripAcrossTwoPes() throws Exception {
        assumeTrue(Backend.CUDA.isAvailable(), () -> "cuda + mlx5 needs a GPU too: "
                + Backend.CUDA.unavailabilityCause().getMessage());
        String peer = System.getenv("MARROW_GDA_PEER");
        if (peer != null && !peer.isBlank()) {
            check(initiate(side(PeerAddress.parse(peer), 0)));
            return;
        }
        if (CudaFfi.gpus().size() < 2) {
            String why = "set MARROW_GDA_PEER=HOST:PORT (a responder on another host), or give this host two GPUs "
                    + "for the in-process pair";
            System.out.println("skipped: " + why);
            Assumptions.abort(why);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> log = new ArrayList<>();
        CompletableFuture<Integer> responder = CompletableFuture.supplyAsync(() -> {
            try (MiniGda g = MiniGda.open(side(new PeerAddress(null, port), 1))) {
                return g.serve(log::add);
            }
        });
        List<GdaRun> runs = initiate(side(PeerAddress.parse("127.0.0.1:" + port), 0));
        assertEquals(runs.size(), responder.get(60, TimeUnit.SECONDS), log.toString());
        check(runs);
    }
}
