// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

/**
 * A Java enum whose values are C enum values. Java knows each value's C name
 * only; the number comes from the library that defines it
 * ({@link NativeLib#constant}), so the C header stays the one source.
 */
public interface CEnum {
    /** The library component whose ABI table exports these constants ("emu", "host", ...). */
    String component();

    /** The C name of this value (MARROW_...). */
    String cName();

    /** The C value, as the library exports it. */
    default int code() {
        return NativeLib.shared(component()).intConstant(cName());
    }

    /** A C enum value known by its component and C name only (e.g. the api's status codes). */
    static CEnum named(String component, String cName) {
        return new CEnum() {
            @Override
            public String component() {
                return component;
            }

            @Override
            public String cName() {
                return cName;
            }
        };
    }

    /** The value of {@code values} whose C value is {@code code}; null when none is. */
    static <E extends CEnum> E byCode(E[] values, int code) {
        for (E e : values) {
            if (e.code() == code) {
                return e;
            }
        }
        return null;
    }
}
