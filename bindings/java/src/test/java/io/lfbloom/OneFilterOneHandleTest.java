package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue 18 "one filter, one handle": geometry and counters, answers for absent keys, the one status table, streams. */
class OneFilterOneHandleTest {
    /** The geometry never reads the contents: it stays the same while keys arrive, and bitSize is its bytes' bits. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.lfbloom.EveryKind#filters")
    void geometryIsTheShapeWhateverTheContents(String name, Supplier<Filter> make) {
        try (Filter f = make.get()) {
            Geometry before = f.geometry();
            assertEquals(before.bytes() * 8, f.bitSize());
            assertTrue(before.slots() > 0 && before.bytes() > 0 && before.capacity() > 0, before.toString());
            assertEquals(0.001, before.targetFpp(), 1e-12);
            f.putAll(LongStream.range(0, 1000));
            assertEquals(before, f.geometry(), "a thousand puts changed no part of the geometry");
            String expected = switch (name) {
                case "BloomFilter", "SwappableBloomFilter", "RotatingBloomFilter", "ScalableBloomFilter" -> "blocked";
                case "CountingBloomFilter" -> "counting";
                default -> "cuckoo";
            };
            assertEquals(expected, before.layout());
            assertEquals(expected, f.stats().layout());
            if (name.startsWith("Scalable")) assertEquals("scalable", before.kind());
            else if (name.equals("RotatingBloomFilter")) assertEquals("rotating", before.kind());
            else if (name.equals("SwappableBloomFilter")) assertEquals("swappable", before.kind());
            else assertEquals(expected, before.kind());
        }
    }

    @Test
    void bloomGeometryIsTheFiltersAndBitSizeIsGuavas() {
        for (BloomFilter.Layout layout : BloomFilter.Layout.values()) {
            try (BloomFilter f = BloomFilter.create(100_000, 0.01, BloomFilter.Options.defaults().layout(layout).seed(77))) {
                Geometry g = f.geometry();
                Stats s = f.stats();
                assertEquals(s.slots(), g.slots());
                assertEquals(s.slots(), f.bitSize(), layout + ": Guava's bitSize is the bit count");
                assertEquals(s.hashes(), g.hashes());
                assertEquals(77, g.seed());
                assertEquals(1, g.parts());
                assertEquals(layout.name().toLowerCase().replace('_', '-'), g.kind());
            }
        }
    }

    /** Composites' counters come from the O(1) geometry and follow what happens to them. */
    @Test
    void compositeCountersFollowTheirFilters() {
        try (RotatingBloomFilter r = RotatingBloomFilter.create(1000, 0.01, RotatingBloomFilter.Options.defaults().generations(4))) {
            assertEquals(4, r.geometry().parts());
            assertEquals(0, r.rotations());
            r.rotate();
            r.rotate();
            assertEquals(2, r.rotations());
            assertEquals(2, r.geometry().generation());
        }
        try (SwappableBloomFilter s = SwappableBloomFilter.create(BloomFilter.create(1000, 0.01))) {
            assertEquals(1, s.geometry().parts());
            s.stage(BloomFilter.create(2000, 0.01));
            assertEquals(2, s.geometry().parts(), "a staged filter is the second part");
            assertEquals(0, s.generation());
            s.publish();
            assertEquals(1, s.geometry().parts());
            assertEquals(1, s.generation());
            assertEquals(2000, s.geometry().capacity(), "the geometry is the current filter's");
        }
        try (ScalableCuckooFilter f = ScalableCuckooFilter.create(100, 0.01)) {
            assertEquals(1, f.subFilters());
            // 100 keys fill the first sub-filter, so the second copies of 0-65 go to a new one: each
            // of those keys matches in both, and its remove waits; 64 may wait, the next is refused
            for (long i = 0; i < 100; i++) f.put(i);
            for (long i = 0; i < 66; i++) assertFalse(f.put(i));
            assertEquals(2, f.subFilters());
            assertEquals(2, f.geometry().parts());
            assertEquals(2, f.count(7L), "count sums the copies over sub-filters");
            for (long i = 0; i < 64; i++) assertTrue(f.remove(i), "deferred");
            assertEquals(0, f.ambiguousRemoves());
            LfbloomException e = assertThrows(LfbloomException.class, () -> f.remove(64L));
            assertEquals("ambiguous", e.statusName());
            assertEquals(1, f.ambiguousRemoves());
            assertEquals(1, f.geometry().ambiguousRemoves());
            // a remove batch stops at the refused key and says where
            LfbloomException inBatch = assertThrows(LfbloomException.class,
                    () -> f.removeAll(List.of(bytes(80L), bytes(65L), bytes(81L))));
            assertTrue(inBatch.isAmbiguous());
            assertEquals(1, inBatch.keysDone());
            assertEquals(0, f.count(80L), "the key before the refused one was removed");
            assertEquals(1, f.count(81L), "the key after it was not");
        }
    }

    private static byte[] bytes(long key) {
        return java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(key).array();
    }

    /** Answers, not errors: every remove of a key that is not there returns false, singly and in batches. */
    @Test
    void removingAnAbsentKeyIsAnAnswer() {
        List<Supplier<RemovingFilter>> makers = List.of(() -> CountingBloomFilter.create(10_000, 0.001),
                () -> CuckooFilter.create(10_000, 0.001), () -> ScalableCuckooFilter.create(1000, 0.001));
        for (Supplier<RemovingFilter> make : makers) {
            try (RemovingFilter f = make.get()) {
                f.putAll(LongStream.range(0, 5000));  // a scalable cuckoo filter grows to 3 sub-filters
                int absent = 0;
                for (long k = 1_000_000; k < 1_001_000; k++) {
                    if (f.count(k) != 0) continue;  // a false positive: removing it could take another key's copy
                    absent++;
                    assertFalse(f.remove(k), f + ": key " + k);
                    String text = Long.toString(k);
                    if (f.count(text) == 0) assertFalse(f.remove(text), f + ": key " + text);  // the string key, where absent too
                }
                assertTrue(absent > 990, f + ": " + absent + " absent keys");
                boolean[] removed = f.removeAll(List.of("never put".getBytes(StandardCharsets.UTF_8), bytes(3), "nor this".getBytes()));
                assertArrayEquals(new boolean[] {false, true, false}, removed, f.toString());
                assertFalse(f.remove(3L), f + ": its only copy was removed");
                for (long k = 0; k < 5000; k++) if (k != 3) assertTrue(f.mightContain(k), f + ": key " + k);
            }
        }
    }

    /** One status table: the caller's mistakes are IllegalArgumentException, the rest LfbloomException with the C names. */
    @Test
    void errorsFollowTheStatusClasses() {
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.withGeometry(1000, 3, BloomFilter.Options.defaults()));
        assertThrows(IllegalArgumentException.class, () -> ScalableCuckooFilter.create(100, 0.00005));
        assertThrows(IllegalArgumentException.class, () -> RotatingBloomFilter.create(10, 0.01,
                RotatingBloomFilter.Options.defaults().filter(BloomFilter.Options.defaults().layout(BloomFilter.Layout.CLASSIC))));
        LfbloomException tooLarge = assertThrows(LfbloomException.class,
                () -> ScalableBloomFilter.create(100_000_000, 0.01, 2, 0.5, 8, BloomFilter.Options.defaults().memoryLimit(1 << 20)));
        assertEquals("too_large", tooLarge.statusName());
        assertFalse(tooLarge.isFull() || tooLarge.isReadOnly() || tooLarge.isAmbiguous() || tooLarge.isTooManyDuplicates());
        assertTrue(tooLarge.getMessage().contains("too_large"), tooLarge.getMessage());
        try (BloomFilter a = BloomFilter.create(1000, 0.01); BloomFilter b = BloomFilter.create(1000, 0.01, BloomFilter.Options.defaults().seed(1));
                CuckooFilter c = CuckooFilter.create(1000, 0.001, 16)) {
            assertEquals("incompatible", assertThrows(LfbloomException.class, () -> a.merge(b)).statusName());
            for (int i = 0; i < 8; i++) c.put("dup");
            LfbloomException dup = assertThrows(LfbloomException.class, () -> c.put("dup"));
            assertEquals("too_many_duplicates", dup.statusName());
            assertTrue(dup.isTooManyDuplicates());
            assertEquals(-1, dup.keysDone());
        }
        try (SwappableBloomFilter s = SwappableBloomFilter.create(BloomFilter.create(1000, 0.01))) {
            assertThrows(IllegalArgumentException.class, () -> s.putAllStaged(List.of("x".getBytes())), "nothing is staged");
        }
        // a scalable cuckoo filter takes only the seed and memory limit of its options, whatever their layout
        try (ScalableCuckooFilter f = ScalableCuckooFilter.create(100, 0.01, 2, 0.5, 8,
                BloomFilter.Options.defaults().layout(BloomFilter.Layout.TWO_WORD).seed(3))) {
            assertEquals("cuckoo", f.geometry().layout());
            assertEquals(3, f.geometry().seed());
        }
    }

    /** A stream holds filters one after another: each load reads exactly its filter's bytes. */
    @Test
    void streamsHoldFiltersOneAfterAnother() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (BloomFilter bloom = BloomFilter.create(1000, 0.01); CountingBloomFilter counting = CountingBloomFilter.create(1000, 0.01);
                CuckooFilter cuckoo = CuckooFilter.create(1000, 0.001); BloomFilter classic = BloomFilter.create(1000, 0.01,
                        BloomFilter.Options.defaults().layout(BloomFilter.Layout.CLASSIC))) {
            bloom.put("b");
            counting.put("c");
            cuckoo.put("k");
            classic.put("g");
            bloom.save(out);
            counting.save(out);
            cuckoo.save(out);
            classic.writeTo(out);
            com.google.common.hash.BloomFilter<CharSequence> guava =
                    com.google.common.hash.BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), 500, 0.02);
            guava.put("from guava");
            guava.writeTo(out);
            out.write("tail".getBytes(StandardCharsets.UTF_8));
            InputStream in = new ByteArrayInputStream(out.toByteArray());
            try (BloomFilter b = BloomFilter.load(in); CountingBloomFilter c = CountingBloomFilter.load(in);
                    CuckooFilter k = CuckooFilter.load(in); BloomFilter g = BloomFilter.readFrom(in); BloomFilter fromGuava = BloomFilter.readFrom(in)) {
                assertEquals(bloom, b);
                assertEquals(counting, c);
                assertEquals(cuckoo, k);
                assertEquals(classic, g);
                assertTrue(fromGuava.mightContain("from guava"));
                assertEquals(64 * 64, fromGuava.bitSize());  // Guava: floor(-500 ln 0.02 / ln² 2) = 4071 bits, in 64 words
                assertEquals("tail", new String(in.readAllBytes(), StandardCharsets.UTF_8), "each load stopped at its filter's end");
            }
        }
    }

    /** A header that declares more than maxBytes is refused from the header alone: nothing past it is read or allocated. */
    @Test
    void aFilterOverTheLimitIsRefusedFromItsHeader() throws IOException {
        try (BloomFilter big = BloomFilter.create(2_000_000, 0.01); CountingBloomFilter counted = CountingBloomFilter.create(500_000, 0.01)) {
            ByteArrayOutputStream nativeOut = new ByteArrayOutputStream(), guavaOut = new ByteArrayOutputStream(),
                    countingOut = new ByteArrayOutputStream();
            big.save(nativeOut);
            counted.save(countingOut);
            assertTrue(nativeOut.size() > 2_000_000, "the filter is bigger than the limit below");
            com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), 2_000_000, 0.01).writeTo(guavaOut);
            ByteArrayInputStream in = new ByteArrayInputStream(nativeOut.toByteArray());
            IOException e = assertThrows(IOException.class, () -> BloomFilter.load(in, 1 << 20));
            assertEquals("too_large", ((LfbloomException) e.getCause()).statusName());
            assertEquals(nativeOut.size() - LfbNativeConstants.LFB_NATIVE_HEADER_BYTES, in.available(), "only the header was read");
            ByteArrayInputStream guavaIn = new ByteArrayInputStream(guavaOut.toByteArray());
            assertThrows(IOException.class, () -> BloomFilter.readFrom(guavaIn, 1 << 20));
            assertEquals(guavaOut.size() - LfbNativeConstants.LFB_GUAVA_HEADER_BYTES, guavaIn.available(), "only Guava's header was read");
            ByteArrayInputStream countingIn = new ByteArrayInputStream(countingOut.toByteArray());
            assertThrows(IOException.class, () -> CountingBloomFilter.load(countingIn, 1 << 10));
            try (CountingBloomFilter back = CountingBloomFilter.load(new ByteArrayInputStream(countingOut.toByteArray()), 1 << 30)) {
                assertEquals(counted, back);
            }
            try (BloomFilter back = BloomFilter.load(new ByteArrayInputStream(nativeOut.toByteArray()), nativeOut.size())) {
                assertEquals(big, back);
            }
            assertThrows(IllegalArgumentException.class, () -> BloomFilter.load(new ByteArrayInputStream(new byte[0]), -1));
        }
    }

    /** Rotating filters keep their documented window through lfb_create's spec (the double-write ring has one more generation). */
    @Test
    void rotatingRingsHaveTheirGenerations() {
        for (boolean doubleWrite : new boolean[] {false, true}) {
            RotatingBloomFilter.Options o = RotatingBloomFilter.Options.defaults().generations(5).doubleWrite(doubleWrite)
                    .period(Duration.ofSeconds(1)).manualClock(true);
            try (RotatingBloomFilter f = RotatingBloomFilter.create(1000, 0.01, o)) {
                assertEquals(doubleWrite ? 6 : 5, f.geometry().parts());
                f.put("k");
                f.tick(4_500_000_000L);  // 4 periods: G - 1 rotations
                assertEquals(4, f.rotations());
                assertTrue(f.mightContain("k"));
                f.tick(5_500_000_000L);
                assertEquals(5, f.rotations());
                assertFalse(f.mightContain("k"));
            }
        }
    }
}
