// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.MarrowException;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * C structs as the library describes them, and the one way Java reads and
 * writes their fields.
 *
 * <p>Java names the fields it uses and their kind (int, long, pointer, array);
 * where each field sits, how wide an array is and how large the struct is
 * come from the library's ABI table ({@code marrow_abi_query}) when the
 * layout is built. Fields Java does not name become padding. So the C header
 * is the only place a layout is written; a field Java names that C lacks, or
 * whose width differs from its kind, refuses the load.
 */
public final class CStruct {
    private CStruct() {
    }

    /** What Java does with one field; arrays take their length from C. */
    public enum Kind { I32, I64, PTR, BYTES, I32_ARRAY }

    /** One field Java uses, by its C name. */
    public record Field(String name, Kind kind) {
    }

    public static Field i32(String name) {
        return new Field(name, Kind.I32);
    }

    public static Field i64(String name) {
        return new Field(name, Kind.I64);
    }

    public static Field ptr(String name) {
        return new Field(name, Kind.PTR);
    }

    /** A char or byte array (strings, ids); its length is C's. */
    public static Field bytes(String name) {
        return new Field(name, Kind.BYTES);
    }

    /** An int array; its length is C's. */
    public static Field ints(String name) {
        return new Field(name, Kind.I32_ARRAY);
    }

    /**
     * The layout of {@code struct cName} as compiled into {@code lib}, with the
     * named fields at C's offsets. Every Marrow struct starts with
     * {@code uint32_t size; uint32_t comp_mask}; they are always included.
     */
    public static StructLayout layout(NativeLib lib, String cName, Field... fields) {
        List<String> bad = new ArrayList<>();
        long size = lib.abiQuery("sizeof:" + cName);
        if (size <= 0) {
            throw new MarrowException("ABI layout mismatch: libmarrow_" + lib.component() + ".so does not describe struct "
                    + cName + "; rebuild the jar and the native libraries together");
        }
        record Placed(long offset, MemoryLayout layout) {
        }
        List<Field> all = new ArrayList<>(List.of(i32("size"), i32("comp_mask")));
        all.addAll(List.of(fields));
        List<Placed> placed = new ArrayList<>();
        for (Field f : all) {
            String key = cName + "." + f.name();
            long off = lib.abiQuery("offsetof:" + key);
            long width = lib.abiQuery("sizeof:" + key);
            if (off < 0 || width <= 0) {
                bad.add(key + " is not in the library's ABI table");
                continue;
            }
            MemoryLayout l = switch (f.kind()) {
                case I32 -> JAVA_INT;
                case I64 -> JAVA_LONG;
                case PTR -> ADDRESS;
                case BYTES -> MemoryLayout.sequenceLayout(width, JAVA_BYTE);
                case I32_ARRAY -> MemoryLayout.sequenceLayout(width / JAVA_INT.byteSize(), JAVA_INT);
            };
            if (l.byteSize() != width || off % l.byteAlignment() != 0) {
                bad.add(key + ": C has " + width + " bytes at offset " + off + ", Java reads it as " + f.kind());
                continue;
            }
            placed.add(new Placed(off, l.withName(f.name())));
        }
        placed.sort(Comparator.comparingLong(Placed::offset));
        List<MemoryLayout> members = new ArrayList<>();
        long at = 0;
        for (Placed p : placed) {
            if (p.offset() < at) {
                bad.add(cName + "." + p.layout().name().orElseThrow() + " overlaps the field before it");
                continue;
            }
            if (p.offset() > at) {
                members.add(MemoryLayout.paddingLayout(p.offset() - at));
            }
            members.add(p.layout());
            at = p.offset() + p.layout().byteSize();
        }
        if (at > size) {
            bad.add("sizeof(" + cName + ") is " + size + " but its fields reach " + at);
        } else if (at < size) {
            members.add(MemoryLayout.paddingLayout(size - at));
        }
        if (!bad.isEmpty()) {
            throw new MarrowException("ABI layout mismatch with libmarrow_" + lib.component() + ".so: "
                    + String.join("; ", bad) + ". Rebuild the jar and the native libraries together.");
        }
        return MemoryLayout.structLayout(members.toArray(MemoryLayout[]::new)).withName(cName);
    }

    /** A zeroed struct whose leading {@code uint32_t size} holds its size, as every Marrow struct expects. */
    public static MemorySegment allocate(SegmentAllocator allocator, StructLayout l) {
        MemorySegment s = allocator.allocate(l);
        setInt(s, l, "size", (int) l.byteSize());
        return s;
    }

    /** Byte offset of a field. */
    public static long offset(StructLayout l, String field) {
        return l.byteOffset(groupElement(field));
    }

    private static <T extends MemoryLayout> T member(StructLayout l, String field, Class<T> kind) {
        MemoryLayout m = l.select(groupElement(field));
        if (!kind.isInstance(m)) {
            throw new IllegalArgumentException(l.name().orElse("struct") + "." + field + " is " + m + ", not "
                    + kind.getSimpleName());
        }
        return kind.cast(m);
    }

    public static int getInt(MemorySegment s, StructLayout l, String field) {
        return s.get(member(l, field, ValueLayout.OfInt.class), offset(l, field));
    }

    public static void setInt(MemorySegment s, StructLayout l, String field, int v) {
        s.set(member(l, field, ValueLayout.OfInt.class), offset(l, field), v);
    }

    public static long getLong(MemorySegment s, StructLayout l, String field) {
        return s.get(member(l, field, ValueLayout.OfLong.class), offset(l, field));
    }

    public static void setLong(MemorySegment s, StructLayout l, String field, long v) {
        s.set(member(l, field, ValueLayout.OfLong.class), offset(l, field), v);
    }

    public static MemorySegment getAddress(MemorySegment s, StructLayout l, String field) {
        return s.get(member(l, field, AddressLayout.class), offset(l, field));
    }

    public static void setAddress(MemorySegment s, StructLayout l, String field, MemorySegment v) {
        s.set(member(l, field, AddressLayout.class), offset(l, field), v);
    }

    /** Bytes of a field (an array's whole length). */
    public static long byteSize(StructLayout l, String field) {
        return l.select(groupElement(field)).byteSize();
    }

    /** An array field as its own segment. */
    public static MemorySegment slice(MemorySegment s, StructLayout l, String field) {
        return s.asSlice(offset(l, field), member(l, field, SequenceLayout.class).byteSize());
    }

    /** A NUL-terminated char array field. */
    public static String getString(MemorySegment s, StructLayout l, String field) {
        MemorySegment a = slice(s, l, field);
        long n = 0;
        while (n < a.byteSize() && a.get(JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(a.asSlice(0, n).toArray(JAVA_BYTE), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Writes a string into a char array field, NUL-terminated; refuses one that does not fit. */
    public static void setString(MemorySegment s, StructLayout l, String field, String v) {
        MemorySegment a = slice(s, l, field);
        byte[] b = v.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (b.length >= a.byteSize()) {
            throw new IllegalArgumentException(field + " '" + v + "' is longer than " + (a.byteSize() - 1) + " bytes");
        }
        a.fill((byte) 0);
        MemorySegment.copy(b, 0, a, JAVA_BYTE, 0, b.length);
    }
}
