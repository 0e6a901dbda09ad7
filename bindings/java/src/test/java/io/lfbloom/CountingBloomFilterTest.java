package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CountingBloomFilterTest {
    @Test
    void addRemoveRoundTrips() {
        try (CountingBloomFilter f = CountingBloomFilter.create(10_000, 0.01)) {
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 5000; i++) keys.add(("k" + i).getBytes());
            assertEquals(5000, f.putAll(keys));
            for (byte[] k : keys) assertTrue(f.mightContain(k));
            for (byte[] k : keys) assertTrue(f.remove(k));
            assertEquals(0, f.stats().slotsSet());
            assertFalse(f.remove("k1"));
        }
    }

    @Test
    void removeAllAnswersAsRemoveWouldInOrder() {
        try (CountingBloomFilter f = CountingBloomFilter.create(10_000, 0.01)) {
            f.put("twice");
            f.put("twice");
            f.put("once");
            List<byte[]> keys = new ArrayList<>();
            for (String k : new String[] {"twice", "once", "once", "never added", "twice", "twice"}) keys.add(k.getBytes());
            assertArrayEquals(new boolean[] {true, true, false, false, true, false}, f.removeAll(keys));
            assertEquals(0, f.stats().slotsSet());
            assertEquals(0, f.removeAll(List.of()).length);
            assertThrows(IllegalArgumentException.class, () -> f.removeAll(null));
            f.put("kept");
            List<byte[]> withNull = new ArrayList<>(List.of("kept".getBytes()));
            withNull.add(null);
            assertThrows(IllegalArgumentException.class, () -> f.removeAll(withNull));
            assertEquals(1, f.count("kept"));  // a bad batch removes nothing
        }
    }

    @Test
    void countsAndSaturation() {
        try (CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01)) {
            assertTrue(f.put(7L));
            assertFalse(f.put(7L));
            assertEquals(2, f.count(7L));
            for (int i = 0; i < 20; i++) f.put("hot");
            assertEquals(15, f.count("hot"));
            assertTrue(f.stats().saturated() > 0);
            for (int i = 0; i < 30; i++) assertTrue(f.remove("hot"));
            assertEquals(15, f.count("hot"));  // saturated counters are never decremented
        }
        try (CountingBloomFilter wide = CountingBloomFilter.create(1000, 0.01, 8, BloomFilter.Options.defaults())) {
            for (int i = 0; i < 300; i++) wide.put("hot");
            assertEquals(255, wide.count("hot"));
            assertEquals(8, wide.stats().slotBits());
        }
    }

    @Test
    void refusedRemovalChangesNothing() {
        try (CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01)) {
            f.put("kept");
            Stats before = f.stats();
            assertFalse(f.remove("never added"));
            assertEquals(before, f.stats());
            assertEquals(1, f.count("kept"));
        }
    }

    @Test
    void mergeSavesAndLoads() throws Exception {
        try (CountingBloomFilter a = CountingBloomFilter.create(1000, 0.01); CountingBloomFilter b = CountingBloomFilter.create(1000, 0.01)) {
            a.put("x");
            b.put("x");
            a.merge(b);
            assertEquals(2, a.count("x"));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            a.save(out);
            try (CountingBloomFilter back = CountingBloomFilter.load(new ByteArrayInputStream(out.toByteArray()))) {
                assertEquals(2, back.count("x"));
            }
        }
    }

    @Test
    void badArgumentsAndClose() {
        assertThrows(IllegalArgumentException.class, () -> CountingBloomFilter.create(1000, 0.01, 5, BloomFilter.Options.defaults()));
        CountingBloomFilter f = CountingBloomFilter.create(100, 0.01);
        f.close();
        assertThrows(IllegalStateException.class, () -> f.remove("x"));
        assertThrows(IllegalStateException.class, () -> f.count("x"));
        f.close();
    }
}
