// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import java.util.ArrayList;
import java.util.List;

/**
 * A hardware QP's queues as the GPU addresses them. Closing unmaps in
 * reverse order. The doorbell records share pages with other libmlx5
 * objects; marrow_cuda_host_register reference-counts such pages.
 */
public record GpuQueueMappings(GpuMapping sq, GpuMapping dbrec, GpuMapping uar, GpuMapping cq, GpuMapping cqDbrec)
        implements AutoCloseable {

    static GpuQueueMappings of(Mlx5QueuePair qp) {
        List<GpuMapping> done = new ArrayList<>();
        try {
            GpuMapping sq = add(done, GpuMapping.register(qp.sendQueue(), false));
            GpuMapping db = add(done, GpuMapping.register(qp.dbrec(), false));
            GpuMapping uar = add(done, GpuMapping.register(qp.uar(), true));
            GpuMapping cq = add(done, GpuMapping.register(qp.cqBuffer(), false));
            GpuMapping cdb = add(done, GpuMapping.register(qp.cqDbrec(), false));
            return new GpuQueueMappings(sq, db, uar, cq, cdb);
        } catch (RuntimeException e) {
            for (int i = done.size() - 1; i >= 0; i--) {
                try {
                    done.get(i).close();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    private static GpuMapping add(List<GpuMapping> done, GpuMapping m) {
        done.add(m);
        return m;
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (GpuMapping m : List.of(cqDbrec, cq, uar, dbrec, sq)) {
            try {
                m.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
