package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** ScalableBloomFilter, ScalableCuckooFilter, RotatingBloomFilter and SwappableBloomFilter through the Java API. */
class GrowingAndExpiringFiltersTest {
    @Test
    void scalableCuckooGrowsRemovesAndDefersAnAmbiguousRemove() {
        try (ScalableCuckooFilter f = ScalableCuckooFilter.create(100, 0.01)) {
            for (long i = 0; i < 1000; i++) f.put(i);
            assertEquals(4, f.subFilters());  // 100 + 200 + 400 < 1000 <= 1500
            ScalableBloomFilter.SubFilter newest = f.subFilter(3);
            assertEquals("cuckoo", newest.stats().layout());
            assertEquals(14, newest.stats().slotBits());  // 800 keys at 0.0625%: five 14-bit fingerprints per bucket
            assertEquals(300, newest.items());
            assertEquals("cuckoo", f.stats().layout());
            assertFalse(f.put(7L));  // a second copy, in sub-filter 3; the first is in 0
            assertTrue(f.remove(7L));  // deferred: either copy could be another key's
            assertEquals(2, f.count(7L), "both copies wait");
            assertEquals(0, f.ambiguousRemoves());
            for (long i = 500; i < 1000; i++) assertTrue(f.remove(i));
            for (long i = 0; i < 500; i++) assertTrue(f.mightContain(i));
            if (!f.mightContain("never put")) assertFalse(f.remove("never put"));  // matches nowhere: nothing to remove
            for (int i = 0; i < 10; i++) f.put("dup");  // two buckets of five
            assertTrue(assertThrows(LfbloomException.class, () -> f.put("dup")).isTooManyDuplicates());
            assertTrue(f.remove(7L));  // its second remove takes both copies
            assertEquals(0, f.count(7L));
        }
        assertThrows(IllegalArgumentException.class, () -> ScalableCuckooFilter.create(100, 0.00005));  // 0.0025% first
    }

    @Test
    void scalableGrowsWithoutFalseNegativesAndReportsEachSubFilter() {
        try (ScalableBloomFilter f = ScalableBloomFilter.create(1000, 0.01)) {
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                if (i % 2 == 0) f.put("key" + i);
                else batch.add(("key" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            f.putAll(batch);
            for (int i = 0; i < 10_000; i++) assertTrue(f.mightContain("key" + i));
            for (boolean b : f.mightContainAll(batch)) assertTrue(b);
            assertEquals(4, f.subFilters());  // 1000 + 2000 + 4000 < 10000 <= 15000
            long items = 0;
            for (int i = 0; i < f.subFilters(); i++) {
                ScalableBloomFilter.SubFilter s = f.subFilter(i);
                assertEquals(1000L << i, s.stats().capacity());
                assertEquals(0.01 * 0.5 * Math.pow(0.5, i), s.stats().targetFpp(), 1e-12);
                items += s.items();
            }
            assertTrue(items > 9_800 && items <= 10_000, "items " + items);
            assertEquals(15_000, f.stats().capacity());
            assertEquals(0.01, f.stats().targetFpp());
            assertThrows(IllegalArgumentException.class, () -> f.subFilter(4));
            assertThrows(IllegalArgumentException.class, () -> f.subFilter(-1));
        }
    }

    @Test
    void scalableAtItsCapThrowsFullAndChangesNothing() {
        try (ScalableBloomFilter f = ScalableBloomFilter.create(100, 0.01, 2, 0.5, 2, BloomFilter.Options.defaults())) {
            LfbloomException full = null;
            int i = 0;
            for (; i < 10_000 && full == null; i++) {
                try {
                    f.put(i);
                } catch (LfbloomException e) {
                    full = e;
                }
            }
            assertNotNull(full);
            assertTrue(full.isFull(), full.getMessage());
            Stats before = f.stats();
            final long refused = i - 1;
            assertThrows(LfbloomException.class, () -> f.put(refused));
            assertEquals(before, f.stats());
            assertTrue(before.nearCapacity());
            for (long k = 0; k < refused; k++) assertTrue(f.mightContain(k));
        }
    }

    @Test
    void scalableBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> ScalableBloomFilter.create(0, 0.01));
        assertThrows(IllegalArgumentException.class, () -> ScalableBloomFilter.create(10, Double.NaN));
        BloomFilter.Options o = BloomFilter.Options.defaults();
        assertThrows(IllegalArgumentException.class, () -> ScalableBloomFilter.create(10, 0.01, 0.5, 0.5, 8, o));
        assertThrows(IllegalArgumentException.class, () -> ScalableBloomFilter.create(10, 0.01, 2, 1, 8, o));
        assertThrows(IllegalArgumentException.class, () -> ScalableBloomFilter.create(10, 0.01, 2, 0.5, 256, o));
        assertThrows(IllegalArgumentException.class,
                () -> ScalableBloomFilter.create(10, 0.01, 2, 0.5, 8, o.layout(BloomFilter.Layout.CLASSIC)));
        ScalableBloomFilter closed = ScalableBloomFilter.create(10, 0.01);
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.put("x"));
        assertThrows(IllegalStateException.class, closed::subFilters);
    }

    @Test
    void rotatingKeepsAKeyForGMinus1RotationsAndDropsItAtG() {
        for (boolean doubleWrite : new boolean[] {false, true}) {
            RotatingBloomFilter.Options o = RotatingBloomFilter.Options.defaults().generations(3).doubleWrite(doubleWrite);
            try (RotatingBloomFilter f = RotatingBloomFilter.create(1000, 0.01, o)) {
                assertTrue(f.put("k"));
                f.rotate();
                f.rotate();
                assertTrue(f.mightContain("k"));
                f.rotate();
                assertFalse(f.mightContain("k"));
                assertEquals(3, f.rotations());
                assertEquals(1000, f.stats(0).capacity() / (doubleWrite ? 2 : 1));
                int ring = doubleWrite ? 4 : 3;
                f.stats(ring - 1);
                assertThrows(IllegalArgumentException.class, () -> f.stats(ring));
            }
        }
    }

    @Test
    void rotatingWithAPeriodOfCenturiesDoesNotRotateAndALateTickSaturates() {
        for (Duration period : new Duration[] {Duration.ofSeconds(Long.MAX_VALUE), Duration.ofNanos(Long.MAX_VALUE)}) {
            for (boolean manual : new boolean[] {false, true}) {
                RotatingBloomFilter.Options o =
                        RotatingBloomFilter.Options.defaults().generations(2).period(period).manualClock(manual);
                try (RotatingBloomFilter f = RotatingBloomFilter.create(1000, 0.01, o)) {
                    f.put("k");
                    for (int i = 0; i < 5; i++) {
                        f.tick(Long.MAX_VALUE - 1);  // a manual clock (from 0) reaches the deadline at Long.MAX_VALUE
                        assertTrue(f.mightContain("k"));
                    }
                    assertEquals(0, f.rotations());
                }
            }
        }
        // with a period of one second, a tick at Long.MAX_VALUE performs G rotations, then none
        RotatingBloomFilter.Options o =
                RotatingBloomFilter.Options.defaults().generations(3).period(Duration.ofSeconds(1)).manualClock(true);
        try (RotatingBloomFilter f = RotatingBloomFilter.create(1000, 0.01, o)) {
            f.tick(Long.MAX_VALUE);
            assertEquals(3, f.rotations());
            f.put("k");
            for (int i = 0; i < 5; i++) {
                f.tick(Long.MAX_VALUE);
                assertTrue(f.mightContain("k"));
            }
            assertEquals(3, f.rotations());
        }
    }

    @Test
    void rotatingWithAManualClockHonoursBothEdgesOfTheWindow() {
        long second = 1_000_000_000L;
        RotatingBloomFilter.Options o =
                RotatingBloomFilter.Options.defaults().generations(2).period(Duration.ofSeconds(10)).manualClock(true);
        try (RotatingBloomFilter f = RotatingBloomFilter.create(1000, 0.01, o)) {
            f.tick(3 * second);
            f.put(42L);
            f.tick(12 * second);  // W - W/G = 10 s later, less a hair: present
            assertTrue(f.mightContain(42L));
            f.tick(23 * second);  // W = 20 s later: gone
            assertFalse(f.mightContain(42L));
            assertEquals(2, f.rotations());
            assertThrows(IllegalArgumentException.class, () -> f.tick(-1));
        }
        assertThrows(IllegalArgumentException.class, () -> RotatingBloomFilter.Options.defaults().generations(1));
        assertThrows(IllegalArgumentException.class, () -> RotatingBloomFilter.Options.defaults().period(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> RotatingBloomFilter.create(0, 0.01, RotatingBloomFilter.Options.defaults()));
    }

    @Test
    void swappableRebuildLosesNothingAndTakesOverTheFilters() {
        BloomFilter first = BloomFilter.create(1000, 0.01);
        first.put("old");
        try (SwappableBloomFilter h = SwappableBloomFilter.create(first)) {
            assertThrows(IllegalStateException.class, () -> first.put("x"));  // handed over
            assertTrue(h.mightContain("old"));
            assertThrows(IllegalArgumentException.class, () -> h.putStaged("x"));  // nothing staged
            assertThrows(IllegalArgumentException.class, h::publish);
            h.stage(BloomFilter.create(5000, 0.01));
            h.put("during");                       // goes to both
            h.putStaged("source");                 // the rebuild
            assertEquals(2, h.putAllStaged(List.of("a".getBytes(), "b".getBytes())));
            assertFalse(h.mightContain("source"));
            h.publish();
            assertTrue(h.mightContain("source") && h.mightContain("during") && h.mightContain("a"));
            assertFalse(h.mightContain("old"));
            assertEquals(5000, h.stats().capacity());
            BloomFilter complete = BloomFilter.create(100, 0.01);
            complete.put("fresh");
            h.replace(complete);
            assertTrue(h.mightContain("fresh"));
            assertEquals(2, h.generation());
            assertThrows(IllegalArgumentException.class, () -> h.replace(null));
            assertThrows(IllegalStateException.class, () -> h.replace(complete));  // already handed over
            assertTrue(h.mightContain("fresh"));
        }
    }

    @Test
    void swappableReplacedWhileEightThreadsQueryNeverMissesAKey() throws Exception {
        try (SwappableBloomFilter h = SwappableBloomFilter.create(withAlways())) {
            AtomicBoolean stop = new AtomicBoolean(), missed = new AtomicBoolean();
            AtomicLong queries = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Thread th = new Thread(() -> {
                    while (!stop.get()) {
                        if (!h.mightContain("always")) missed.set(true);
                        queries.incrementAndGet();
                    }
                });
                th.start();
                threads.add(th);
            }
            for (int r = 0; r < 100; r++) h.replace(withAlways());
            stop.set(true);
            for (Thread th : threads) th.join();
            assertFalse(missed.get());
            assertEquals(100, h.generation());
            assertTrue(queries.get() > 0);
        }
    }

    private static BloomFilter withAlways() {
        BloomFilter f = BloomFilter.create(1000, 0.01);
        f.put("always");
        return f;
    }
}
