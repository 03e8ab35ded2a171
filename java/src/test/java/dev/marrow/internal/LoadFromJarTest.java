// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal;

import dev.marrow.internal.loader.NativeLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Properties;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The .so files travel inside a jar: extract them through a class loader that
 * sees only that jar, dlopen the result and call into it.
 */
class LoadFromJarTest {
    static final String DIR = "META-INF/native/" + NativeLoader.PLATFORM + "/";

    @Test
    void extractsFromAJarAndCallsIntoTheLibrary(@TempDir Path tmp) throws Throwable {
        Path jar = tmp.resolve("natives.jar");
        Properties manifest = new Properties();
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(DIR + "native-manifest.properties")) {
            assertNotNull(in, "native resources are not on the test class path");
            manifest.load(in);
        }
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            copy(out, "native-manifest.properties");
            for (String c : manifest.getProperty("components").split(",")) {
                copy(out, "libmarrow_" + c.trim() + ".so");
            }
        }
        // parent = platform loader: the test class path's copies are invisible
        try (URLClassLoader cl = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            assertTrue(cl.getResource(DIR + "libmarrow_emu.so").toString().startsWith("jar:"));
            Path dir = NativeLoader.extractFrom(cl, tmp.resolve("work"));
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
            assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                    PosixFilePermission.OWNER_EXECUTE), perms, "extraction directory must be private");
            SymbolLookup lib = SymbolLookup.libraryLookup(dir.resolve("libmarrow_emu.so"), Arena.ofAuto());
            MethodHandle v = Linker.nativeLinker().downcallHandle(lib.findOrThrow("marrow_emu_abi_version"),
                    FunctionDescriptor.of(JAVA_INT));
            assertEquals(1, (int) v.invokeExact());
        }
    }

    @Test
    void aJarWithoutNativesGivesAnActionableError(@TempDir Path tmp) throws Exception {
        Path jar = tmp.resolve("empty.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("README"));
            out.closeEntry();
        }
        try (URLClassLoader cl = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> NativeLoader.extractFrom(cl, tmp));
            assertTrue(e.getMessage().contains("marrow.native.dir"), e.getMessage());
        }
    }

    private void copy(JarOutputStream out, String name) throws Exception {
        out.putNextEntry(new JarEntry(DIR + name));
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(DIR + name)) {
            assertNotNull(in, name);
            in.transferTo(out);
        }
        out.closeEntry();
    }

}
