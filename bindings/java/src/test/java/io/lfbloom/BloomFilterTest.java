package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class BloomFilterTest {
    private static BloomFilter.Options layout(BloomFilter.Layout layout) {
        return BloomFilter.Options.defaults().layout(layout);
    }

    @ParameterizedTest
    @EnumSource(BloomFilter.Layout.class)
    void everyKeyTypeRoundTrips(BloomFilter.Layout l) {
        try (BloomFilter f = BloomFilter.create(10_000, 0.01, layout(l))) {
            assertTrue(f.put("héllo"));
            assertFalse(f.put("héllo"));
            assertTrue(f.mightContain("héllo"));
            assertTrue(f.mightContain("héllo".getBytes(StandardCharsets.UTF_8)));  // strings are their UTF-8 bytes
            assertTrue(f.put(42L));
            assertTrue(f.mightContain(ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, 42L)));
            byte[] bytes = {1, 2, 3};
            assertTrue(f.put(bytes));
            ByteBuffer direct = ByteBuffer.allocateDirect(16);
            direct.put(new byte[] {9, 9, 1, 2, 3, 9}).position(2).limit(5);  // position..limit is the key
            assertTrue(f.mightContain(direct));
            assertEquals(2, direct.position());  // untouched
            assertTrue(f.put(ByteBuffer.wrap(new byte[] {7, 7})));
            assertTrue(f.mightContain(new byte[] {7, 7}));
            assertFalse(f.mightContain("never added"));
            assertFalse(f.mightContain(43L));
        }
    }

    @Test
    void batchCallsAgreeWithSingleCalls() {
        try (BloomFilter batch = BloomFilter.create(10_000, 0.01); BloomFilter single = BloomFilter.create(10_000, 0.01)) {
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 1000; i++) keys.add(("key" + i).getBytes(StandardCharsets.UTF_8));
            assertEquals(500, batch.putAll(keys.subList(0, 500)));
            for (byte[] k : keys.subList(0, 500)) single.put(k);
            boolean[] found = batch.mightContainAll(keys);
            for (int i = 0; i < keys.size(); i++) assertEquals(single.mightContain(keys.get(i)), found[i]);
            for (int i = 0; i < 500; i++) assertTrue(found[i]);
            assertEquals(0, batch.putAll(List.<byte[]>of()));
        }
    }

    @Test
    void statisticsDescribeTheFilter() {
        try (BloomFilter f = BloomFilter.create(100_000, 0.01)) {
            for (long i = 0; i < 50_000; i++) f.put(i);
            Stats s = f.stats();
            assertEquals("blocked", s.layout());
            assertEquals(100_000, s.capacity());
            assertEquals(0.01, s.targetFpp());
            assertEquals(s.slots(), f.bitSize());
            assertEquals(50_000, f.approximateElementCount(), 2_500);
            assertTrue(f.expectedFpp() < 0.01);
            assertFalse(s.nearCapacity());
            f.clear();
            assertEquals(0, f.stats().slotsSet());
        }
    }

    @Test
    void mergeIsTheUnionAndRefusesIncompatibleFilters() {
        try (BloomFilter a = BloomFilter.create(1000, 0.01); BloomFilter b = BloomFilter.create(1000, 0.01);
                BloomFilter other = BloomFilter.create(5000, 0.01)) {
            a.put("a");
            b.put("b");
            a.merge(b);
            assertTrue(a.mightContain("b"));
            LfbloomException e = assertThrows(LfbloomException.class, () -> a.merge(other));
            assertEquals(-4, e.status());
        }
    }

    @Test
    void badArgumentsAreIllegalArgumentExceptions() {
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(0, 0.01));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(100, 0));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(100, 1));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(100, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.withGeometry(1000, 3, BloomFilter.Options.defaults()));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.withGeometry(4096, 256, BloomFilter.Options.defaults()));
        LfbloomException tooLarge = assertThrows(LfbloomException.class,
                () -> BloomFilter.create(100_000_000, 0.01, BloomFilter.Options.defaults().memoryLimit(1 << 20)));
        assertEquals(-3, tooLarge.status());
        try (BloomFilter f = BloomFilter.create(100, 0.01)) {
            assertThrows(IllegalArgumentException.class, () -> f.put((byte[]) null));
            assertThrows(IllegalArgumentException.class, () -> f.put((String) null));
            assertThrows(IllegalArgumentException.class, () -> f.mightContain((ByteBuffer) null));
            assertThrows(IllegalArgumentException.class, () -> f.putAll((List<byte[]>) null));
            assertThrows(IllegalArgumentException.class, () -> f.merge(null));
            List<byte[]> withNull = new ArrayList<>();
            withNull.add(null);
            assertThrows(IllegalArgumentException.class, () -> f.putAll(withNull));
            assertTrue(f.put("still usable"));
        }
    }

    @Test
    void useAfterCloseIsAnIllegalStateException() {
        BloomFilter f = BloomFilter.create(100, 0.01);
        f.put("x");
        f.close();
        f.close();  // idempotent
        assertThrows(IllegalStateException.class, () -> f.put("x"));
        assertThrows(IllegalStateException.class, () -> f.mightContain("x"));
        assertThrows(IllegalStateException.class, f::stats);
        assertThrows(IllegalStateException.class, () -> f.save(new ByteArrayOutputStream()));
    }

    /** Threads hammer the filter while another closes it: every call completes or throws ISE; no crash. */
    @Test
    void closeRacingWithUseNeverCrashes() throws Exception {
        for (int round = 0; round < 50; round++) {
            BloomFilter f = BloomFilter.create(10_000, 0.01);
            AtomicLong completed = new AtomicLong();
            CountDownLatch started = new CountDownLatch(4);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                final long base = t * 1_000_000L;
                threads.add(new Thread(() -> {
                    started.countDown();
                    for (long i = 0; ; i++) {
                        try {
                            f.put(base + i);
                            f.mightContain(base + i);
                            completed.incrementAndGet();
                        } catch (IllegalStateException closed) {
                            return;
                        }
                    }
                }));
            }
            threads.forEach(Thread::start);
            started.await();
            Thread.sleep(1);
            f.close();
            for (Thread t : threads) t.join();
            assertThrows(IllegalStateException.class, () -> f.put(1L));
        }
    }

    /** 8 threads share one filter; readers check only keys whose put happened-before (volatile handoff). */
    @Test
    void eightThreadsShareOneFilterWithoutFalseNegatives() throws Exception {
        final int writers = 4, readers = 4, perWriter = 100_000;
        try (BloomFilter f = BloomFilter.create(writers * perWriter, 0.01)) {
            AtomicLongArray published = new AtomicLongArray(writers);
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong falseNegatives = new AtomicLong(), checks = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                final int writer = w;
                threads.add(new Thread(() -> {
                    for (int i = 0; i < perWriter; i++) {
                        f.put("w" + writer + ":" + i);
                        published.set(writer, i + 1);  // volatile write: the put happens-before readers' checks
                    }
                }));
            }
            for (int r = 0; r < readers; r++) {
                threads.add(new Thread(() -> {
                    java.util.Random rng = new java.util.Random();
                    while (!done.get()) {
                        int w = rng.nextInt(writers);
                        long n = published.get(w);
                        if (n == 0) continue;
                        long i = rng.nextBoolean() ? n - 1 : rng.nextInt((int) n);
                        if (!f.mightContain("w" + w + ":" + i)) falseNegatives.incrementAndGet();
                        checks.incrementAndGet();
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (int w = 0; w < writers; w++) threads.get(w).join();
            done.set(true);
            for (Thread t : threads) t.join();
            assertEquals(0, falseNegatives.get());
            assertTrue(checks.get() > 0);
            for (int w = 0; w < writers; w++)
                for (int i = 0; i < perWriter; i++) assertTrue(f.mightContain("w" + w + ":" + i));
        }
    }

    @Test
    void sharedFilesAreSeenByEveryHandle() throws IOException {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("lfbloom");
        java.nio.file.Path file = dir.resolve("shared.lfb");
        try (BloomFilter a = BloomFilter.createShared(file, 10_000, 0.01, BloomFilter.Options.defaults());
                BloomFilter b = BloomFilter.openShared(file)) {
            a.put("from a");
            assertTrue(b.mightContain("from a"));
            b.flush();
            LfbloomException exists = assertThrows(LfbloomException.class,
                    () -> BloomFilter.createShared(file, 10, 0.01, BloomFilter.Options.defaults()));
            assertEquals(-8, exists.status());
        } finally {
            java.nio.file.Files.deleteIfExists(file);
            java.nio.file.Files.delete(dir);
        }
    }

    @ParameterizedTest
    @EnumSource(BloomFilter.Layout.class)
    void nativeFormatRoundTrips(BloomFilter.Layout l) throws IOException {
        try (BloomFilter f = BloomFilter.create(1000, 0.01, layout(l))) {
            for (int i = 0; i < 100; i++) f.put("k" + i);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            f.save(out);
            try (BloomFilter back = BloomFilter.load(new ByteArrayInputStream(out.toByteArray()))) {
                for (int i = 0; i < 100; i++) assertTrue(back.mightContain("k" + i));
                assertEquals(f.stats(), back.stats());
            }
            byte[] corrupt = out.toByteArray();
            corrupt[corrupt.length / 2] ^= 1;
            assertThrows(IOException.class, () -> BloomFilter.load(new ByteArrayInputStream(corrupt)));
            byte[] truncated = java.util.Arrays.copyOf(out.toByteArray(), out.size() - 1);
            assertThrows(IOException.class, () -> BloomFilter.load(new ByteArrayInputStream(truncated)));
            assertThrows(IOException.class, () -> BloomFilter.load(new ByteArrayInputStream(new byte[10])));
        }
    }
}
