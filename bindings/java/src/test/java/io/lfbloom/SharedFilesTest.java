package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue 18: shared files of every kind that has one, through one set of calls: create-or-open, exclusive create, read-only, mode. */
class SharedFilesTest {
    /** The shared-file calls of one class, so one test covers all three. */
    interface Kind {
        Filter openOrCreate(Path path, long n, double fpp, BloomFilter.Options options);

        Filter create(Path path, long n, double fpp, BloomFilter.Options options);

        Filter open(Path path);

        Filter openReadOnly(Path path);

        Filter open(Path path, long maxBytes, boolean readOnly);
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("bloom", new Kind() {
                    public Filter openOrCreate(Path p, long n, double fpp, BloomFilter.Options o) {
                        return BloomFilter.openShared(p, n, fpp, o);
                    }

                    public Filter create(Path p, long n, double fpp, BloomFilter.Options o) {
                        return BloomFilter.createShared(p, n, fpp, o);
                    }

                    public Filter open(Path p) {
                        return BloomFilter.openShared(p);
                    }

                    public Filter openReadOnly(Path p) {
                        return BloomFilter.openSharedReadOnly(p);
                    }

                    public Filter open(Path p, long maxBytes, boolean readOnly) {
                        return BloomFilter.openShared(p, maxBytes, readOnly);
                    }
                }),
                Arguments.of("counting", new Kind() {
                    public Filter openOrCreate(Path p, long n, double fpp, BloomFilter.Options o) {
                        return CountingBloomFilter.openShared(p, n, fpp, 8, o);
                    }

                    public Filter create(Path p, long n, double fpp, BloomFilter.Options o) {
                        return CountingBloomFilter.createShared(p, n, fpp, 8, o);
                    }

                    public Filter open(Path p) {
                        return CountingBloomFilter.openShared(p);
                    }

                    public Filter openReadOnly(Path p) {
                        return CountingBloomFilter.openSharedReadOnly(p);
                    }

                    public Filter open(Path p, long maxBytes, boolean readOnly) {
                        return CountingBloomFilter.openShared(p, maxBytes, readOnly);
                    }
                }),
                Arguments.of("cuckoo", new Kind() {
                    public Filter openOrCreate(Path p, long n, double fpp, BloomFilter.Options o) {
                        return CuckooFilter.openShared(p, n, fpp, o);
                    }

                    public Filter create(Path p, long n, double fpp, BloomFilter.Options o) {
                        return CuckooFilter.createShared(p, n, fpp, o);
                    }

                    public Filter open(Path p) {
                        return CuckooFilter.openShared(p);
                    }

                    public Filter openReadOnly(Path p) {
                        return CuckooFilter.openSharedReadOnly(p);
                    }

                    public Filter open(Path p, long maxBytes, boolean readOnly) {
                        return CuckooFilter.openShared(p, maxBytes, readOnly);
                    }
                }));
    }

    private Path dir;

    @BeforeEach
    void makeDirectory() throws IOException {
        dir = Files.createTempDirectory("lfbloom-shared");
    }

    @AfterEach
    void removeDirectory() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void oneCallCreatesOrOpensAndCreateIsExclusive(String name, Kind kind) {
        Path file = dir.resolve(name + ".lfb");
        BloomFilter.Options o = BloomFilter.Options.defaults().seed(5);
        try (Filter a = kind.openOrCreate(file, 10_000, 0.001, o);  // creates
                Filter b = kind.openOrCreate(file, 10_000, 0.001, o);  // opens
                Filter c = kind.open(file)) {
            assertTrue(Files.exists(file));
            assertTrue(a.putAll(java.util.stream.LongStream.range(0, 1000)) > 990);
            for (long k = 0; k < 1000; k++) assertTrue(b.mightContain(k) && c.mightContain(k), name + ": key " + k);
            assertEquals(a.geometry(), c.geometry());
            LfbloomException other = assertThrows(LfbloomException.class, () -> kind.openOrCreate(file, 20_000, 0.001, o));
            assertEquals("incompatible", other.statusName());
            LfbloomException exists = assertThrows(LfbloomException.class, () -> kind.create(file, 10_000, 0.001, o));
            assertEquals("io", exists.statusName());
        }
        Path fresh = dir.resolve(name + "-exclusive.lfb");
        try (Filter created = kind.create(fresh, 1000, 0.01, BloomFilter.Options.defaults())) {
            assertTrue(created.put("x"));
        }
        try (Filter reopened = kind.open(fresh)) {
            assertTrue(reopened.mightContain("x"), "the file keeps what was put");
        }
        assertThrows(IllegalArgumentException.class, () -> kind.openOrCreate(null, 1000, 0.01, BloomFilter.Options.defaults()));
        assertThrows(IllegalArgumentException.class, () -> kind.openOrCreate(file, 1000, 0.01, null));
        assertThrows(IllegalArgumentException.class, () -> kind.openReadOnly(null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aReadOnlyOpenSeesTheWritersAndRefusesToWrite(String name, Kind kind) throws IOException {
        Path file = dir.resolve(name + ".lfb");
        try (Filter writer = kind.openOrCreate(file, 10_000, 0.001, BloomFilter.Options.defaults());
                Filter reader = kind.openReadOnly(file)) {
            writer.put("before");
            assertTrue(reader.mightContain("before"));
            writer.put("after the reader opened");
            assertTrue(reader.mightContain("after the reader opened"));
            assertFalse(reader.mightContain("never put"));
            LfbloomException refused = assertThrows(LfbloomException.class, () -> reader.put("x"));
            assertTrue(refused.isReadOnly(), refused.getMessage());
            assertEquals("read_only", refused.statusName());
            LfbloomException batch = assertThrows(LfbloomException.class, () -> reader.putAll(List.of("y", "z")));
            assertTrue(batch.isReadOnly());
            assertEquals(0, batch.keysDone());
            if (reader instanceof RemovingFilter removing) {
                assertTrue(assertThrows(LfbloomException.class, () -> removing.remove("before")).isReadOnly());
                assertTrue(writer instanceof RemovingFilter w && w.remove("before"), "the writer still removes");
            }
            assertFalse(writer.mightContain("x") || writer.mightContain("y"), "refused puts changed nothing");
            assertEquals(writer.geometry(), reader.geometry());
            // equals never throws: a read-only cuckoo filter cannot pause the writers to compare, so it equals only itself
            assertTrue(reader.equals(reader));
            if (reader instanceof CuckooFilter) assertFalse(reader.equals(writer) || writer.equals(reader));
            else assertEquals(writer, reader);
        }
        LfbloomException missing = assertThrows(LfbloomException.class, () -> kind.openReadOnly(dir.resolve("missing.lfb")));
        assertEquals("io", missing.statusName());
    }

    /** An open with a byte limit maps a filter within it and refuses a larger one before mapping it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void anOpenWithALimitRefusesALargerFilter(String name, Kind kind) {
        Path file = dir.resolve(name + ".lfb");
        try (Filter writer = kind.create(file, 10_000, 0.001, BloomFilter.Options.defaults())) {
            writer.put("k");
            long bytes = writer.geometry().bytes();
            for (boolean readOnly : new boolean[] {false, true}) {
                try (Filter within = kind.open(file, bytes, readOnly)) {
                    assertTrue(within.mightContain("k"));
                    assertEquals(readOnly, assertThrowsOrNot(() -> within.put("x")));
                }
                LfbloomException over = assertThrows(LfbloomException.class, () -> kind.open(file, bytes - 1, readOnly));
                assertEquals("too_large", over.statusName(), over.getMessage());
                assertThrows(IllegalArgumentException.class, () -> kind.open(file, 0, readOnly));
                assertThrows(IllegalArgumentException.class, () -> kind.open(file, -1, readOnly));
            }
        }
    }

    /** True if the call throws LfbloomException read_only, false if it returns. */
    private static boolean assertThrowsOrNot(Runnable call) {
        try {
            call.run();
            return false;
        } catch (LfbloomException e) {
            assertTrue(e.isReadOnly(), e.getMessage());
            return true;
        }
    }

    /** Each open refuses a file of another kind, read-only included. */
    @Test
    void opensRefuseAnotherKindsFile() {
        Path bloom = dir.resolve("bloom.lfb"), counting = dir.resolve("counting.lfb");
        try (BloomFilter b = BloomFilter.createShared(bloom, 1000, 0.01, BloomFilter.Options.defaults());
                CountingBloomFilter c = CountingBloomFilter.createShared(counting, 1000, 0.01, 4, BloomFilter.Options.defaults())) {
            assertEquals("incompatible", assertThrows(LfbloomException.class, () -> CountingBloomFilter.openShared(bloom)).statusName());
            assertEquals("incompatible", assertThrows(LfbloomException.class, () -> CountingBloomFilter.openSharedReadOnly(bloom)).statusName());
            assertEquals("incompatible", assertThrows(LfbloomException.class, () -> CuckooFilter.openSharedReadOnly(counting)).statusName());
            assertEquals("incompatible", assertThrows(LfbloomException.class, () -> BloomFilter.openSharedReadOnly(counting)).statusName());
            try (CountingBloomFilter reader = CountingBloomFilter.openSharedReadOnly(counting)) {
                c.put("k");
                assertEquals(1, reader.count("k"));
            }
        }
    }

    /** The options' file mode is the new file's permissions (the umask only removes bits: 0640 and 0600 survive 022). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aCreatedFileGetsTheOptionsMode(String name, Kind kind) throws IOException {
        Path shared = dir.resolve(name + "-0640.lfb"), exclusive = dir.resolve(name + "-0600.lfb");
        try (Filter a = kind.openOrCreate(shared, 1000, 0.01, BloomFilter.Options.defaults().fileMode(0640));
                Filter b = kind.create(exclusive, 1000, 0.01, BloomFilter.Options.defaults().fileMode(0600))) {
            assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(shared)));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(exclusive)));
        }
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.Options.defaults().fileMode(01000));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.Options.defaults().fileMode(-1));
    }

    /**
     * A path outside the Basic Multilingual Plane names the same file in Java and in C, and comes
     * back intact in an error message: strings cross JNI as UTF-8, not JNI's modified UTF-8.
     */
    @Test
    void pathsAndMessagesKeepCharactersOutsideTheBmp() {
        Assumptions.assumeTrue("UTF-8".equals(System.getProperty("sun.jnu.encoding")), "Java names files in UTF-8 here");
        Path file = dir.resolve("filter-🦆.lfb");
        try (BloomFilter f = BloomFilter.openShared(file, 1000, 0.01, BloomFilter.Options.defaults())) {
            assertTrue(Files.exists(file), "the C library created the file Java names " + file);
            f.put("k");
        }
        try (BloomFilter again = BloomFilter.openShared(file)) {
            assertTrue(again.mightContain("k"));
        }
        LfbloomException e = assertThrows(LfbloomException.class, () -> BloomFilter.openShared(dir.resolve("missing-🦆.lfb")));
        assertTrue(e.getMessage().contains("missing-🦆.lfb"), e.getMessage());
    }
}
