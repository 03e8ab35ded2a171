// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
/**
 * Which ordering variant a setup gets by default, and which variants are
 * safe on a real NIC (docs/design/orderings.md §3). The rule follows where
 * the queues live: a GPU-scope fence orders the WQE and doorbell-record
 * stores for the NIC only when they are in GPU memory; for queues in host
 * memory only the system-scope variants are formally ordered (NVSHMEM
 * likewise fences at system scope whenever NIC buffers are in host memory).
 */
public final class OrderingPolicy {
    /** The CLI flag that lets a hardware run use a variant that is not safe there. */
    public static final String ALLOW_UNSAFE_FLAG = "--allow-unsafe-ordering";

    private OrderingPolicy() {
    }

    /**
     * GPU-resident queues: {@code gpu-fence} (GPU scope, the setup of "GPU-Initiated
     * Communication: Dissecting Down to the Bone");
     * host-resident queues: {@code release-sys}, on either NIC.
     */
    public static Ordering defaultFor(Placement placement) {
        return placement == Placement.GPU ? Ordering.GPU_FENCE : Ordering.RELEASE_SYS;
    }

    /**
     * Whether the variant orders the WQE (and doorbell record) stores before
     * the doorbell for a ConnectX with queues at this placement: never for
     * {@code none}; for the GPU-scope variants only with GPU-resident
     * queues; always for the system-scope ones. It describes hardware, so
     * records of the software NIC carry it too.
     */
    public static boolean safeOnHardware(Ordering ordering, Placement placement) {
        if (ordering == Ordering.NONE) {
            return false;
        }
        return ordering.systemScope() || placement == Placement.GPU;
    }

    /**
     * Refuses, before any device is opened, a variant that is not safe on
     * the ConnectX unless the caller allowed it. The software NIC measures
     * every variant, as "GPU-Initiated Communication: Dissecting Down to the Bone" does.
     *
     * @throws IllegalArgumentException naming the variant, why, and the flag
     */
    public static void requireAllowed(Nic nic, Placement placement, Ordering ordering, boolean allowUnsafe) {
        if (nic != Nic.MLX5 || allowUnsafe || safeOnHardware(ordering, placement)) {
            return;
        }
        String why = ordering == Ordering.NONE ? "orders nothing"
                : "orders the WQE and doorbell-record stores only for observers inside the GPU";
        throw new IllegalArgumentException("--ordering " + ordering.label() + " " + why + ", and with --nic mlx5 "
                + "and --placement " + placement.label() + " the queues are in host memory, where the NIC is a "
                + "system-scope observer: the WQE may reach it after the doorbell. Use a system-scope ordering ("
                + Ordering.RELEASE_SYS.label() + ", the default here, or " + Ordering.FENCE_SYS.label()
                + "), or pass " + ALLOW_UNSAFE_FLAG + " to measure it anyway (records carry "
                + "ordering_safe_on_hardware=false); see docs/design/orderings.md §3");
    }
}
