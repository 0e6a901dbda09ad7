package io.lfbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** 1.9: Bloom and counting filters on the one native handle: every layout, copies, equality, set operations, O(1) size. */
class OneHandleTest {
    static List<byte[]> keys(String prefix, int from, int to) {
        List<byte[]> out = new ArrayList<>();
        for (int i = from; i < to; i++) out.add((prefix + i).getBytes(StandardCharsets.UTF_8));
        return out;
    }

    /** Every layout puts, queries, saves and loads, and reports its name; code over Filter takes any kind. */
    @Test
    void everyLayoutReachesJava() throws IOException {
        for (BloomFilter.Layout layout : BloomFilter.Layout.values()) {
            try (BloomFilter f = BloomFilter.create(5000, 0.01, BloomFilter.Options.defaults().layout(layout).seed(9))) {
                Filter any = f;
                assertEquals(2000, any.putAll(keys("k", 0, 2000)), layout.toString());
                for (boolean b : any.mightContainAll(keys("k", 0, 2000))) assertTrue(b);
                int absent = 0;
                for (boolean b : any.mightContainAll(keys("absent", 0, 10_000))) absent += b ? 1 : 0;
                assertTrue(absent < 300, layout + ": " + absent + " of 10000 absent keys answered maybe");
                Stats s = f.stats();
                assertEquals(layout.name().toLowerCase().replace('_', '-'), s.layout());
                assertEquals(s.slots(), f.bitSize());
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                f.save(out);
                try (BloomFilter back = BloomFilter.load(new ByteArrayInputStream(out.toByteArray()))) {
                    assertEquals(f, back);
                }
            }
        }
    }

    @Test
    void bloomCopiesEqualityAndSetOperations() {
        BloomFilter.Options o = BloomFilter.Options.defaults().seed(4);
        try (BloomFilter a = BloomFilter.create(10_000, 0.01, o); BloomFilter b = BloomFilter.create(10_000, 0.01, o);
                BloomFilter otherSeed = BloomFilter.create(10_000, 0.01)) {
            a.putAll(keys("k", 0, 3000));
            b.putAll(keys("k", 2000, 5000));
            try (BloomFilter c = a.copy()) {
                assertEquals(a, c);
                assertEquals(a.hashCode(), c.hashCode());
                assertTrue(c.put("only in the copy"));
                assertNotEquals(a, c);
                assertFalse(a.mightContain("only in the copy"));
            }
            assertNotEquals(a, b);
            assertNotEquals(a, otherSeed);
            try (BloomFilter u = a.copy(); BloomFilter i = a.copy()) {
                u.merge(b);
                i.intersect(b);
                for (byte[] k : keys("k", 0, 5000)) assertTrue(u.mightContain(k));
                for (byte[] k : keys("k", 2000, 3000)) assertTrue(i.mightContain(k));
                int others = 0;
                for (byte[] k : keys("k", 0, 2000)) others += i.mightContain(k) ? 1 : 0;
                assertTrue(others < 200, others + " of 2000 keys only in a survive the intersection");
                assertThrows(LfbloomException.class, () -> u.merge(otherSeed));
                assertThrows(IllegalArgumentException.class, () -> u.intersect(null));
            }
            a.clear();
            assertEquals(0, a.stats().slotsSet());
        }
    }

    @Test
    void countingCopiesGeometryAndIntersection() throws IOException {
        try (CountingBloomFilter a = CountingBloomFilter.withGeometry(128 * 100, 5, 4, BloomFilter.Options.defaults());
                CountingBloomFilter b = CountingBloomFilter.withGeometry(128 * 100, 5, 4, BloomFilter.Options.defaults())) {
            assertEquals(128 * 100, a.stats().slots());
            a.put("x");
            a.put("x");
            a.put("y");
            b.put("x");
            try (CountingBloomFilter c = a.copy()) {
                assertEquals(a, c);
                c.intersect(b);
                assertEquals(1, c.count("x"));  // the smaller count
                assertEquals(0, c.count("y"));
                assertFalse(c.remove("y"));
                assertTrue(c.remove("x"));
                assertFalse(c.mightContain("x"));
            }
            assertEquals(2, a.count("x"));
            assertThrows(IllegalArgumentException.class, () -> CountingBloomFilter.withGeometry(100, 5, 4, BloomFilter.Options.defaults()));
            assertThrows(IllegalArgumentException.class, () -> CountingBloomFilter.withGeometry(128, 5, 5, BloomFilter.Options.defaults()));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            a.save(out);
            assertThrows(IOException.class, () -> BloomFilter.load(new ByteArrayInputStream(out.toByteArray())));
            try (CountingBloomFilter back = CountingBloomFilter.load(new ByteArrayInputStream(out.toByteArray()))) {
                assertEquals(a, back);
            }
        }
    }

    /** The per-kind composites refuse the layouts they do not have, rather than making a blocked filter. */
    @Test
    void compositesRefuseNewLayouts() {
        assertThrows(IllegalArgumentException.class, () -> ScalableBloomFilter.create(1000, 0.01, 2, 0.9, 8,
                BloomFilter.Options.defaults().layout(BloomFilter.Layout.TWO_WORD)));
    }

    /** A swap takes a filter of any Bloom layout. */
    @Test
    void swapsTakeEveryLayout() {
        try (SwappableBloomFilter s = SwappableBloomFilter.create(
                BloomFilter.create(1000, 0.01, BloomFilter.Options.defaults().layout(BloomFilter.Layout.SPLIT_BLOCK)))) {
            assertTrue(s.put("old"));
            s.replace(BloomFilter.create(1000, 0.01, BloomFilter.Options.defaults().layout(BloomFilter.Layout.ONE_WORD)));
            assertFalse(s.mightContain("old"));
            assertTrue(s.put("new"));
            assertEquals("one-word", s.stats().layout());
            assertArrayEquals(new boolean[] {true}, s.mightContainAll(List.of("new".getBytes(StandardCharsets.UTF_8))));
        }
    }

    /**
     * 1.11: a bulk build (putAllBulk, LFB_BATCH_BULK) leaves every layout, counting and cuckoo
     * filter equal (lfb_equal) to puts one by one; the Bloom filters span several 256 KiB
     * partitions. 1 and 3 threads and 0 (one per CPU), each with one of the three key shapes.
     */
    @Test
    void bulkBuildEqualsPutsOneByOne() {
        int n = 200_000;
        List<byte[]> bytes = keys("bulk", 0, n);
        List<String> strings = new ArrayList<>();
        long[] longs = new long[n];
        for (int i = 0; i < n; i++) {
            strings.add("bulk" + i);
            longs[i] = i * 0x9e3779b97f4a7c15L;
        }
        List<Supplier<Filter>> makers = new ArrayList<>();
        for (BloomFilter.Layout layout : BloomFilter.Layout.values())
            makers.add(() -> BloomFilter.create(500_000, 0.01, BloomFilter.Options.defaults().layout(layout).seed(5)));
        makers.add(() -> CountingBloomFilter.create(500_000, 0.01));
        makers.add(() -> CuckooFilter.create(500_000, 0.01));
        for (Supplier<Filter> make : makers) {
            for (int threads : new int[] {1, 3, 0}) {
                try (Filter one = make.get(); Filter bulk = make.get()) {
                    if (threads == 1) {
                        bulk.putAllBulk(bytes, threads);
                        for (byte[] k : bytes) one.put(k);
                    } else if (threads == 3) {
                        bulk.putAllBulk(strings, threads);
                        for (String k : strings) one.put(k);
                    } else {
                        bulk.putAllBulk(longs, threads);
                        for (long k : longs) one.put(k);
                    }
                    assertEquals(one, bulk, bulk + ", " + threads + " threads: the bulk build differs from puts one by one");
                    for (boolean b : threads == 0 ? bulk.mightContainAll(longs) : bulk.mightContainAll(bytes)) assertTrue(b);
                }
            }
        }
    }

    /** Every class builds in bulk; the composites (no comparison of contents) to the same fill and parts. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.lfbloom.EveryKind#filters")
    void everyKindBuildsInBulk(String name, Supplier<Filter> make) {
        List<byte[]> keys = keys("k", 0, 15_000);
        try (Filter one = make.get(); Filter bulk = make.get()) {
            for (byte[] k : keys) one.put(k);
            bulk.putAllBulk(keys, 2);
            for (boolean b : bulk.mightContainAll(keys)) assertTrue(b, name);
            assertEquals(one.stats().slotsSet(), bulk.stats().slotsSet(), name);
            assertEquals(one.geometry().parts(), bulk.geometry().parts(), name);
            bulk.putAllBulk(List.<byte[]>of(), 0);  // no keys: nothing to do
            assertThrows(IllegalArgumentException.class, () -> bulk.putAllBulk(keys("new", 0, 10), -1));
            assertFalse(bulk.mightContain("new0"), name + ": a refused bulk build put its keys");
            List<byte[]> withNull = new ArrayList<>(keys("new", 0, 10));
            withNull.add(null);
            assertThrows(IllegalArgumentException.class, () -> bulk.putAllBulk(withNull, 2));
            assertFalse(bulk.mightContain("new0"), name + ": a bulk build with a null key put its keys");
            bulk.close();
            assertThrows(IllegalStateException.class, () -> bulk.putAllBulk(keys, 2));
            assertThrows(IllegalStateException.class, () -> bulk.putAllBulk(keys, -1));  // the closed rule first
            assertThrows(IllegalStateException.class, () -> bulk.putAllBulk(new long[] {1}, 2));
        }
    }

    /** A cuckoo filter's refusal stops its bulk build (put one by one) as it stops putAll: keysDone says where. */
    @Test
    void refusedBulkBuildSaysWhereItStopped() {
        try (CuckooFilter c = CuckooFilter.create(1000, 0.001, 16)) {
            List<byte[]> keys = new ArrayList<>(keys("new", 0, 1));
            for (int i = 0; i < 10; i++) keys.add("dup".getBytes(StandardCharsets.UTF_8));
            LfbloomException e = assertThrows(LfbloomException.class, () -> c.putAllBulk(keys, 2));
            assertTrue(e.isTooManyDuplicates());
            assertEquals(9, e.keysDone());
            assertEquals(8, c.count("dup"));
            assertTrue(c.mightContain("new0"));
        }
    }

    /** putAllBulkStaged rebuilds the staged filter only, to the bits of puts one by one. */
    @Test
    void swapsRebuildInBulk() {
        List<byte[]> keys = keys("staged", 0, 50_000);
        try (SwappableBloomFilter s = SwappableBloomFilter.create(BloomFilter.create(100_000, 0.01));
                BloomFilter reference = BloomFilter.create(100_000, 0.01)) {
            assertThrows(IllegalArgumentException.class, () -> s.putAllBulkStaged(keys, 2), "nothing is staged");
            s.stage(BloomFilter.create(100_000, 0.01));
            assertThrows(IllegalArgumentException.class, () -> s.putAllBulkStaged(keys, -1));
            s.putAllBulkStaged(keys, 2);
            assertFalse(s.mightContain("staged7"), "a staged key visible before publish");
            s.publish();
            for (byte[] k : keys) reference.put(k);
            assertEquals(reference.stats().slotsSet(), s.stats().slotsSet());
            for (boolean b : s.mightContainAll(keys)) assertTrue(b);
            s.close();
            assertThrows(IllegalStateException.class, () -> s.putAllBulkStaged(keys, 2));
        }
    }
}
