// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.internal.ffi.EmuFfi;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The software NIC between two processes of one host (marrow_shmwire.h,
 * docs/design/two-process.md): this process's shared-memory segment. Memory
 * the peer process may write comes from {@link #allocate}, is registered as
 * usual and {@link #export(MemoryRegion) exported}; the QP the peer targets is
 * exported too. The peer maps the segment by {@link #name()} ({@link Peer})
 * and connects its QP to ours. Closing withdraws everything (the peer's
 * WRITEs then time out); {@link SoftNic#close()} closes wires first.
 */
public final class ShmWire implements AutoCloseable {
    private final MemorySegment handle;
    private final String name;
    private boolean closed;
    /**
     * Removes the segment's name when the JVM exits on SIGTERM/SIGINT before
     * {@link #close()}: a rank killed while it waits for its peer would
     * otherwise leave /dev/shm/marrow-wire-* behind (marrow_emu_wire_unlink).
     */
    private final Thread unlinkAtExit;

    private ShmWire(MemorySegment handle, String name) {
        this.handle = handle;
        this.name = name;
        this.unlinkAtExit = new Thread(this::unlinkName, "marrow-wire-unlink");
        Runtime.getRuntime().addShutdownHook(unlinkAtExit);
    }

    /** The shutdown hook: never races close(), which frees the handle. */
    private synchronized void unlinkName() {
        if (closed) {
            return;
        }
        try {
            int ignored = (int) EmuFfi.WIRE_UNLINK.invokeExact(handle);
        } catch (Throwable t) {
            // exiting anyway: the next marrow_emu_wire_create removes what is left
        }
    }

    static ShmWire create(MemorySegment dev, long heapBytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            EmuFfi.LIB.check((int) EmuFfi.WIRE_CREATE.invokeExact(dev, heapBytes, out), "marrow_emu_wire_create");
            MemorySegment w = out.get(ADDRESS, 0);
            MemorySegment buf = a.allocate(128);
            int rc = (int) EmuFfi.WIRE_NAME.invokeExact(w, buf, 128);
            if (rc != 0) {
                int ignored = (int) EmuFfi.WIRE_CLOSE.invokeExact(w);
                EmuFfi.LIB.check(rc, "marrow_emu_wire_name");
            }
            return new ShmWire(w, buf.getString(0));
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** The segment's name ("/marrow-wire-..."), for the peer's {@link SoftNic#attachWire}. */
    public String name() {
        return name;
    }

    /** Zeroed, page-aligned memory in the segment; lives until this wire is closed. */
    public MemorySegment allocate(long bytes) {
        ensureOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            EmuFfi.LIB.check((int) EmuFfi.WIRE_ALLOC.invokeExact(handle, bytes, out), "marrow_emu_wire_alloc");
            return out.get(ADDRESS, 0).reinterpret(bytes);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** Lets the peer write into mr (which must cover memory from {@link #allocate}). */
    public void export(MemoryRegion mr) {
        ensureOpen();
        call(EmuFfi.WIRE_EXPORT_MR, mr.handle(), "marrow_emu_wire_export_mr");
    }

    /** After return no byte of the peer lands in mr. */
    public void unexport(MemoryRegion mr) {
        ensureOpen();
        call(EmuFfi.WIRE_UNEXPORT_MR, mr.handle(), "marrow_emu_wire_unexport_mr");
    }

    /** Makes qp a target the peer can connect to (its state is mirrored). */
    public void export(QueuePair qp) {
        ensureOpen();
        call(EmuFfi.WIRE_EXPORT_QP, qp.handle(), "marrow_emu_wire_export_qp");
    }

    private void call(java.lang.invoke.MethodHandle h, MemorySegment obj, String fn) {
        try {
            EmuFfi.LIB.check((int) h.invokeExact(handle, obj), fn);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the wire is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(unlinkAtExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs, sees closed and does nothing
        }
        try {
            EmuFfi.LIB.check((int) EmuFfi.WIRE_CLOSE.invokeExact(handle), "marrow_emu_wire_close");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** The peer process's segment, mapped into this one. */
    public static final class Peer implements AutoCloseable {
        private final MemorySegment handle;
        private boolean closed;

        private Peer(MemorySegment handle) {
            this.handle = handle;
        }

        static Peer attach(MemorySegment dev, String name, int deadAfterMs) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment out = a.allocate(ADDRESS);
                EmuFfi.LIB.check((int) EmuFfi.WIRE_ATTACH.invokeExact(dev, a.allocateFrom(name), deadAfterMs, out),
                        "marrow_emu_wire_attach");
                return new Peer(out.get(ADDRESS, 0));
            } catch (Throwable t) {
                throw NativeLib.rethrow(t);
            }
        }

        /** RESET -> INIT -> RTR (peer: QP remoteQpn of the other process) -> RTS. */
        public void connect(QueuePair qp, int remoteQpn) {
            ensureOpen();
            qp.modify(QpState.INIT, 0);
            try {
                EmuFfi.LIB.check((int) EmuFfi.QP_CONNECT_WIRE.invokeExact(qp.handle(), handle, remoteQpn),
                        "marrow_emu_qp_connect_wire");
            } catch (Throwable t) {
                throw NativeLib.rethrow(t);
            }
            qp.modify(QpState.RTS, 0);
        }

        /** Whether the peer's heartbeat is fresh, its process exists and it has not closed its wire. */
        public boolean alive() {
            ensureOpen();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment out = a.allocate(JAVA_INT);
                EmuFfi.LIB.check((int) EmuFfi.WIRE_PEER_ALIVE.invokeExact(handle, out), "marrow_emu_wire_peer_alive");
                return out.get(JAVA_INT, 0) != 0;
            } catch (Throwable t) {
                throw NativeLib.rethrow(t);
            }
        }

        private void ensureOpen() {
            if (closed) {
                throw new IllegalStateException("the peer's wire is detached");
            }
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                EmuFfi.LIB.check((int) EmuFfi.WIRE_DETACH.invokeExact(handle), "marrow_emu_wire_detach");
            } catch (Throwable t) {
                throw NativeLib.rethrow(t);
            }
        }
    }
}
