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
import org.junit.jupiter.api.Test;

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
}
