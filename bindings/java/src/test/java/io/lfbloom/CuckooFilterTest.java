package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CuckooFilterTest {
    private static List<byte[]> keys(String prefix, int n) {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) keys.add((prefix + i).getBytes());
        return keys;
    }

    /** The fewest bytes for the rate by default (16 bits on ties), else the width asked for. */
    @Test
    void fingerprintWidthsFollowTheRateOrTheCaller() {
        double[] rates = {0.001, 0.0002, 0.0001, 0.0001, 0.01};
        int[] asked = {0, 0, 0, 16, 17}, made = {14, 16, 17, 16, 17};
        for (int i = 0; i < rates.length; i++) {
            Plan p = asked[i] == 0 ? CuckooFilter.plan(5000, rates[i]) : CuckooFilter.plan(5000, rates[i], asked[i]);
            try (CuckooFilter f = asked[i] == 0 ? CuckooFilter.create(5000, rates[i]) : CuckooFilter.create(5000, rates[i], asked[i])) {
                assertEquals(made[i], f.stats().slotBits(), "rate " + rates[i]);
                assertEquals(made[i], p.slotBits());
                assertEquals(p.bytes(), f.stats().bytes());
                assertEquals(0, f.stats().slots() % (made[i] == 14 ? 5 : 4));
                assertTrue(f.put("k".getBytes()));
                assertTrue(f.mightContain("k".getBytes()));
                assertTrue(f.remove("k".getBytes()));
            }
        }
        for (int bits : new int[] {0, 8, 15, 18})
            assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(5000, 0.001, bits));
        assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(5000, 0.0001, 14));  // 14 bits stop at 0.03%
    }

    /** A copy holds every key, equals its source, and then changes on its own; closed filters refuse. */
    @Test
    void copiesAreEqualAndIndependent() {
        try (CuckooFilter f = CuckooFilter.create(10_000, 0.001, BloomFilter.Options.defaults().seed(3));
                CuckooFilter otherSeed = CuckooFilter.create(10_000, 0.001)) {
            f.putAll(keys("k", 5000));
            try (CuckooFilter c = f.copy()) {
                assertEquals(f, c);
                assertEquals(f.hashCode(), c.hashCode());
                assertEquals(f.stats().slotsSet(), c.stats().slotsSet());
                for (byte[] k : keys("k", 5000)) assertTrue(c.mightContain(k));
                assertTrue(c.remove("k7"));
                assertNotEquals(f, c);
                assertTrue(f.mightContain("k7"));
                assertTrue(f.remove("k7"));
                assertEquals(f, c);  // the same change to the same table
            }
            try (CuckooFilter seeded = CuckooFilter.create(10_000, 0.001, BloomFilter.Options.defaults().seed(3))) {
                assertNotEquals(otherSeed, seeded);
            }
            assertNotEquals(f, "a string");
            CuckooFilter closed = f.copy();
            int hash = closed.hashCode();
            closed.close();
            assertFalse(f.equals(closed));  // equals never throws: a closed filter equals only itself
            assertTrue(closed.equals(closed));
            assertEquals(hash, closed.hashCode());
            assertThrows(IllegalStateException.class, closed::copy);
        }
    }

    @Test
    void plansDescribeWhatCreateMakesWithoutMakingIt() {
        Plan p = CuckooFilter.plan(100_000, 0.0002);
        try (CuckooFilter f = CuckooFilter.create(100_000, 0.0002)) {
            Stats s = f.stats();
            assertEquals("cuckoo", p.kind());
            assertEquals(s.slots(), p.slots());
            assertEquals(s.bytes(), p.bytes());
            assertEquals(16, p.slotBits());
            assertTrue(p.expectedFpp() <= 0.0002 && p.expectedFpp() > 0.0001, p.toString());
        }
        Plan b = BloomFilter.plan(100_000, 0.01, BloomFilter.Options.defaults());
        try (BloomFilter f = BloomFilter.create(100_000, 0.01)) {
            assertEquals(f.stats().slots(), b.slots());
            assertEquals(f.stats().hashes(), b.hashes());
            assertEquals(f.stats().bytes(), b.bytes());
        }
        assertEquals("classic", BloomFilter.plan(1000, 0.01, BloomFilter.Options.defaults().layout(BloomFilter.Layout.CLASSIC)).kind());
        Plan c = CountingBloomFilter.plan(100_000, 0.01, 8);
        assertEquals("counting", c.kind());
        assertEquals(8, c.slotBits());
        assertEquals(c.slots(), c.bytes());  // one byte per 8-bit counter
        assertTrue(BloomFilter.plan(1_000_000_000_000L, 0.01, BloomFilter.Options.defaults()).bytes() > 1_000_000_000_000L);  // planned, not allocated
        assertThrows(IllegalArgumentException.class, () -> CuckooFilter.plan(1000, 0.00001));  // below 17-bit fingerprints' reach
        assertThrows(IllegalArgumentException.class, () -> CountingBloomFilter.plan(1000, 0.01, 5));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.plan(0, 0.01, BloomFilter.Options.defaults()));
    }

    @Test
    void putQueryRemoveRoundTrips() {
        try (CuckooFilter f = CuckooFilter.create(10_000, 0.001)) {
            List<byte[]> keys = keys("k", 5000);
            long fresh = f.putAll(keys);
            assertTrue(fresh >= 4990 && fresh <= 5000, "new keys: " + fresh);  // a fingerprint collision makes one not new
            for (byte[] k : keys) assertTrue(f.mightContain(k));
            boolean[] all = f.mightContainAll(keys);
            for (boolean b : all) assertTrue(b);
            assertEquals(5000, f.stats().slotsSet());
            assertEquals("cuckoo", f.stats().layout());
            for (byte[] k : keys) assertTrue(f.remove(k));
            assertEquals(0, f.stats().slotsSet());
            assertFalse(f.remove("k1"));  // an answer, not an exception
            assertFalse(f.mightContain("k1"));
        }
    }

    @Test
    void keyTypesAndCounts() {
        try (CuckooFilter f = CuckooFilter.create(1000, 0.001)) {
            assertTrue(f.put(7L));
            assertFalse(f.put(7L));
            assertEquals(2, f.count(7L));
            assertTrue(f.remove(7L));
            assertEquals(1, f.count(7L));
            f.put(java.nio.ByteBuffer.wrap("buffer".getBytes()));
            assertTrue(f.mightContain("buffer".getBytes()));
            assertEquals(0, f.count("absent, certainly: the filter is nearly empty"));
            f.put("removed");
            boolean[] removed = f.removeAll(List.of("removed".getBytes(), "removed".getBytes(), "buffer".getBytes()));
            assertArrayEquals(new boolean[] {true, false, true}, removed);
        }
    }

    @Test
    void theNinthCopyIsRefusedAsDuplicatesAndChangesNothing() {
        try (CuckooFilter f = CuckooFilter.create(1000, 0.001, 16)) {  // 4 slots per bucket
            for (int i = 0; i < 8; i++) f.put("dup");
            long before = f.stats().slotsSet();
            LfbloomException e = assertThrows(LfbloomException.class, () -> f.put("dup"));
            assertTrue(e.isTooManyDuplicates(), e.getMessage());
            assertFalse(e.isFull());
            assertEquals(8, f.count("dup"));
            assertEquals(before, f.stats().slotsSet());
            assertEquals(1, f.activity().duplicateRefusals());
            List<byte[]> batch = List.of("new".getBytes(), "dup".getBytes(), "after".getBytes());
            LfbloomException inBatch = assertThrows(LfbloomException.class, () -> f.putAll(batch));
            assertTrue(inBatch.isTooManyDuplicates(), inBatch.getMessage());
            assertEquals(1, inBatch.keysDone());
            assertTrue(f.mightContain("new"));
            assertEquals(0, f.count("after"));
            assertEquals(before + 1, f.stats().slotsSet());
        }
    }

    @Test
    void aFullFilterRefusesAndLosesNothing() {
        try (CuckooFilter f = CuckooFilter.create(1000, 0.001)) {
            List<byte[]> keys = keys("fill", 5000);  // far more than fits
            LfbloomException e = assertThrows(LfbloomException.class, () -> f.putAll(keys));
            assertTrue(e.isFull(), e.getMessage());
            long done = e.keysDone();
            assertTrue(done > 1000 && done < 5000, "stopped at " + done);
            for (byte[] k : keys.subList(0, (int) done)) assertTrue(f.mightContain(k));
            CuckooFilter.Activity a = f.activity();
            assertEquals(done, a.stats().slotsSet());  // the refused key and the ones after it were not added
            assertEquals(1, a.failedPuts());
            assertTrue(a.kicks() > 0);
            assertTrue(a.stats().nearCapacity());
            assertTrue(a.stats().fillRatio() > 0.9, "load at refusal: " + a.stats().fillRatio());
            // single puts refuse the same way, and still lose nothing
            int refused = 0;
            for (byte[] k : keys.subList((int) done, keys.size())) {
                try {
                    f.put(k);
                } catch (LfbloomException full) {
                    assertTrue(full.isFull());
                    assertEquals(-1, full.keysDone());
                    refused++;
                }
            }
            assertTrue(refused > 0);
            for (byte[] k : keys.subList(0, (int) done)) assertTrue(f.mightContain(k));
        }
    }

    @Test
    void falsePositiveRateAtCapacityIsWithinItsBound() {
        int n = 200_000;
        double p = 0.001;
        try (CuckooFilter f = CuckooFilter.create(n, p)) {
            f.putAll(keys("present-", n));
            int absent = 1_000_000, fp = 0;
            List<byte[]> probe = keys("absent-", absent);
            for (boolean b : f.mightContainAll(probe)) if (b) fp++;
            // mean at most p·absent = 1000; 4 standard deviations above it (seeds and keys fixed)
            double bound = p * absent + 4 * Math.sqrt(p * absent);
            assertTrue(fp <= bound, fp + " false positives of " + absent + ", bound " + bound);
            assertTrue(f.stats().estimatedFpp() <= p, "expected FPR " + f.stats().estimatedFpp());
        }
    }

    @Test
    void savesAndLoadsAndRefusesOtherKinds() throws Exception {
        try (CuckooFilter f = CuckooFilter.create(1000, 0.001, BloomFilter.Options.defaults().seed(42))) {
            f.putAll(keys("s", 500));
            f.put("s0");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            f.save(out);
            byte[] bytes = out.toByteArray();
            try (CuckooFilter back = CuckooFilter.load(new ByteArrayInputStream(bytes))) {
                assertEquals(f.stats(), back.stats());
                assertEquals(2, back.count("s0"));
                for (byte[] k : keys("s", 500)) assertTrue(back.mightContain(k));
            }
            assertThrows(IOException.class, () -> CuckooFilter.load(new ByteArrayInputStream(Arrays.copyOf(bytes, bytes.length - 1))));
            byte[] flipped = bytes.clone();
            flipped[100] ^= 1;
            assertThrows(IOException.class, () -> CuckooFilter.load(new ByteArrayInputStream(flipped)));
        }
        try (BloomFilter bloom = BloomFilter.create(1000, 0.01); CountingBloomFilter counting = CountingBloomFilter.create(1000, 0.01)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            bloom.save(out);
            IOException e = assertThrows(IOException.class, () -> CuckooFilter.load(new ByteArrayInputStream(out.toByteArray())));
            assertTrue(e.getMessage().contains("another kind"), e.getMessage());
            ByteArrayOutputStream counted = new ByteArrayOutputStream();
            counting.save(counted);
            assertThrows(IOException.class, () -> CuckooFilter.load(new ByteArrayInputStream(counted.toByteArray())));
        }
    }

    @Test
    void residentKeysStayVisibleWhileWritersChurnAtHighLoad() throws Exception {
        int capacity = 20_000;
        try (CuckooFilter f = CuckooFilter.create(capacity, 0.001)) {
            List<byte[]> resident = keys("resident-", capacity * 6 / 10);
            f.putAll(resident);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong misses = new AtomicLong(), refusals = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] churn = new Thread[2];
            for (int t = 0; t < churn.length; t++) {
                int id = t;
                churn[t] = new Thread(() -> {
                    List<byte[]> mine = keys("churn-" + id + "-", capacity * 15 / 100);  // together 90% of capacity
                    boolean[] added = new boolean[mine.size()];
                    while (!stop.get()) {
                        for (int i = 0; i < mine.size(); i++) {
                            try {
                                f.put(mine.get(i));
                                added[i] = true;
                            } catch (LfbloomException e) {
                                if (!e.isFull()) throw e;
                                refusals.incrementAndGet();
                            }
                        }
                        // only keys that were added: removing one that was not could take a resident key's fingerprint
                        for (int i = 0; i < mine.size(); i++) {
                            if (added[i] && !f.remove(mine.get(i))) throw new AssertionError("an added churn key was not removable");
                            added[i] = false;
                        }
                    }
                });
                churn[t].setUncaughtExceptionHandler((thread, e) -> failure.set(e));
                churn[t].start();
            }
            long deadline = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < deadline) {
                for (byte[] k : resident) if (!f.mightContain(k)) misses.incrementAndGet();
            }
            stop.set(true);
            for (Thread t : churn) t.join();
            assertNull(failure.get(), () -> "a churn thread failed: " + failure.get());
            assertEquals(0, misses.get(), "false negatives while fingerprints moved");
            for (byte[] k : resident) assertTrue(f.mightContain(k));
            assertTrue(f.activity().kicks() > 0, "the churn must move fingerprints for this test to mean anything");
            assertEquals(0, refusals.get() - f.activity().failedPuts() - f.activity().duplicateRefusals());
        }
    }

    @Test
    void badArgumentsAndClose() {
        assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(0, 0.001));
        assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(1000, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(1000, 1.0));
        assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(1000, 1e-9));  // below what 16-bit fingerprints give
        LfbloomException tooLarge = assertThrows(LfbloomException.class,
                () -> CuckooFilter.create(1L << 40, 0.001, BloomFilter.Options.defaults().memoryLimit(1 << 20)));
        assertEquals(-3, tooLarge.status());
        CuckooFilter f = CuckooFilter.create(100, 0.001);
        f.close();
        assertThrows(IllegalStateException.class, () -> f.remove("x"));
        assertThrows(IllegalStateException.class, () -> f.count("x"));
        assertThrows(IllegalStateException.class, () -> f.put("x"));
        assertThrows(IllegalStateException.class, f::activity);
        f.close();
    }

    @Test
    void sharedFilesAreOpenedOrCreatedInOneCall() throws IOException {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("lfbloom");
        java.nio.file.Path file = dir.resolve("cuckoo.lfb");
        java.nio.file.Path bloom = dir.resolve("bloom.lfb");
        BloomFilter.Options seeded = BloomFilter.Options.defaults().seed(4);
        try (CuckooFilter a = CuckooFilter.openShared(file, 10_000, 0.001, seeded);  // creates
                CuckooFilter b = CuckooFilter.openShared(file, 10_000, 0.001, seeded);  // opens
                CuckooFilter c = CuckooFilter.openShared(file)) {
            for (long i = 0; i < 5_000; i++) assertTrue(a.put(i));
            for (long i = 0; i < 5_000; i++) assertTrue(c.mightContain(i));
            assertTrue(b.remove(7L));
            assertEquals(0, a.count(7L));
            assertEquals(4_999, c.stats().slotsSet());
            b.flush();
            assertEquals(-4, assertThrows(LfbloomException.class,
                    () -> CuckooFilter.openShared(file, 10_001, 0.001, seeded)).status());
            assertEquals(-4, assertThrows(LfbloomException.class,
                    () -> CuckooFilter.openShared(file, 10_000, 0.001, BloomFilter.Options.defaults())).status());
            try (BloomFilter other = BloomFilter.createShared(bloom, 1000, 0.01, BloomFilter.Options.defaults())) {
                assertEquals(-4, assertThrows(LfbloomException.class, () -> CuckooFilter.openShared(bloom)).status());
            }
            assertThrows(IllegalArgumentException.class, () -> CuckooFilter.openShared(null));
            assertThrows(IllegalArgumentException.class, () -> CuckooFilter.openShared(file, 0, 0.001, seeded));
        } finally {
            java.nio.file.Files.deleteIfExists(file);
            java.nio.file.Files.deleteIfExists(bloom);
            java.nio.file.Files.delete(dir);
        }
        assertEquals(-8, assertThrows(LfbloomException.class, () -> CuckooFilter.openShared(file)).status());  // gone
    }

    /** A shared file of a chosen width; reopening without a width takes the file's, another width is refused. */
    @Test
    void sharedFilesKeepTheirFingerprintWidth() throws IOException {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("lfbloom");
        java.nio.file.Path file = dir.resolve("cuckoo16.lfb");
        BloomFilter.Options options = BloomFilter.Options.defaults();
        try (CuckooFilter a = CuckooFilter.openShared(file, 10_000, 0.001, 16, options);  // 0.001 alone picks 14
                CuckooFilter b = CuckooFilter.openShared(file, 10_000, 0.001, options);
                CuckooFilter c = CuckooFilter.openShared(file, 10_000, 0.001, 16, options)) {
            assertEquals(16, a.stats().slotBits());
            assertEquals(16, b.stats().slotBits());
            assertTrue(a.put(42L));
            assertTrue(b.mightContain(42L) && c.mightContain(42L));
            for (int other : new int[] {14, 17})
                assertEquals(-4, assertThrows(LfbloomException.class,
                        () -> CuckooFilter.openShared(file, 10_000, 0.001, other, options)).status());
            assertThrows(IllegalArgumentException.class, () -> CuckooFilter.openShared(file, 10_000, 0.001, 15, options));
        } finally {
            java.nio.file.Files.deleteIfExists(file);
            java.nio.file.Files.delete(dir);
        }
    }
}
