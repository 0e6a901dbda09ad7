package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Saving and loading the composites (ScalableBloomFilter, ScalableCuckooFilter,
 * RotatingBloomFilter): the C++ core's golden files, round trips, saves beside puts, refusals.
 */
class CompositeFilesTest {
    /** tests/data/format-v1, where the C++ core's golden files are (the pom passes tests/data). */
    private static final Path GOLDEN = Path.of(System.getProperty("lfbloom.test.data", "../../tests/data"), "format-v1");

    private static List<String> keys(String prefix, int from, int to) {
        List<String> keys = new ArrayList<>();
        for (int i = from; i < to; i++) keys.add(prefix + i);
        return keys;
    }

    private static int present(Filter f, List<String> keys) {
        int n = 0;
        for (boolean b : f.mightContainAll(keys)) n += b ? 1 : 0;
        return n;
    }

    private interface Loader<F> {
        F load(InputStream in) throws IOException;
    }

    private static <F> F golden(String name, Loader<F> loader) throws IOException {
        try (InputStream in = Files.newInputStream(GOLDEN.resolve(name))) {
            F f = loader.load(in);
            assertEquals(-1, in.read(), name + ": the load read the whole file");
            return f;
        }
    }

    private static byte[] saved(Filter f) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (f instanceof ScalableBloomFilter s) s.save(out);
        else if (f instanceof ScalableCuckooFilter c) c.save(out);
        else ((RotatingBloomFilter) f).save(out);
        return out.toByteArray();
    }

    /**
     * The C++ core's scalable.lfb and scalable-cuckoo.lfb (seed 7, capacity 200, fpp 0.01, keys
     * "golden:0" to "golden:999"): each loads as its class with its three sub-filters and answers
     * every key; the other classes refuse it.
     */
    @Test
    void goldenScalableFilesFromCpp() throws Exception {
        List<String> golden = keys("golden:", 0, 1000);
        try (ScalableBloomFilter f = golden("scalable.lfb", ScalableBloomFilter::load)) {
            Geometry g = f.geometry();
            assertEquals("scalable", g.kind());
            assertEquals("blocked", g.layout());
            assertEquals(7, g.seed());
            assertEquals(0.01, g.targetFpp());
            assertEquals(3, f.subFilters());
            for (int i = 0; i < 3; i++) assertEquals(200L << i, f.subFilter(i).stats().capacity());
            assertEquals(1000, present(f, golden));
        }
        try (ScalableCuckooFilter f = golden("scalable-cuckoo.lfb", ScalableCuckooFilter::load)) {
            assertEquals("cuckoo", f.geometry().layout());
            assertEquals(7, f.geometry().seed());
            assertEquals(3, f.subFilters());
            for (int i = 0; i < 3; i++) assertEquals(200L << i, f.subFilter(i).stats().capacity());
            assertEquals(1000, present(f, golden));
            assertTrue(f.remove("golden:5"));  // it removes, as it did in C++
        }
        // the other classes refuse them: from the header, or (the scalable ones) once loaded
        assertThrows(IOException.class, () -> golden("scalable.lfb", ScalableCuckooFilter::load));
        assertThrows(IOException.class, () -> golden("scalable-cuckoo.lfb", ScalableBloomFilter::load));
        assertThrows(IOException.class, () -> golden("scalable.lfb", RotatingBloomFilter::load));
        assertThrows(IOException.class, () -> golden("scalable.lfb", BloomFilter::load));
        IOException e = assertThrows(IOException.class, () -> golden("scalable-cuckoo.lfb", CuckooFilter::load));
        assertTrue(e.getMessage().contains("scalable"), e.getMessage());
    }

    /**
     * The C++ core's rotating.lfb (seed 7, capacity 500, 3 generations, period 1000 ns on a manual
     * clock; keys "golden:0" to "golden:299", a tick at 1500, "golden:300" to "golden:599"): it
     * loads with its one rotation, and goes on in the caller's time from the deadline it had, 2000:
     * a tick to 1999 rotates nothing, to 2000 once, and the third rotation, at 3000, drops keys 0-299.
     */
    @Test
    void goldenRotatingFileFromCpp() throws Exception {
        List<String> first = keys("golden:", 0, 300), second = keys("golden:", 300, 600);
        try (RotatingBloomFilter f = golden("rotating.lfb", RotatingBloomFilter::load)) {
            Geometry g = f.geometry();
            assertEquals("rotating", g.kind());
            assertEquals(3, g.parts());
            assertEquals(500, g.capacity());
            assertEquals(7, g.seed());
            assertEquals(1, f.rotations());
            assertEquals(300, present(f, first));
            assertEquals(300, present(f, second));
            f.tick(1999);
            assertEquals(1, f.rotations());
            assertEquals(300, present(f, first));
            f.tick(2000);
            assertEquals(2, f.rotations());
            assertEquals(300, present(f, first), "keys 0-299 live through G-1 = 2 rotations");
            assertEquals(300, present(f, second));
            f.tick(3000);
            assertEquals(3, f.rotations());
            int stale = present(f, first);
            assertTrue(stale <= 15, stale + " of keys 0-299 still answer true after their third rotation (1% expected)");
            assertEquals(300, present(f, second));
        }
        assertThrows(IOException.class, () -> golden("rotating.lfb", ScalableBloomFilter::load));
        assertThrows(IOException.class, () -> golden("rotating.lfb", BloomFilter::load));
    }

    /** A composite filled with keys "c:0" to "c:2999"; manual: a rotating filter ticked to 1500 halfway. */
    private record Filled(boolean manual, Supplier<Filter> make) {}

    private static final List<Filled> FILLED = List.of(
            new Filled(false, () -> fill(ScalableBloomFilter.create(100, 0.01, 2, 0.5, 32, BloomFilter.Options.defaults().seed(3)),
                    false, null)),
            new Filled(false, () -> fill(ScalableCuckooFilter.create(100, 0.01), false, f -> {
                ScalableCuckooFilter c = (ScalableCuckooFilter) f;
                c.put("c:7");     // a second copy, in a later sub-filter
                c.remove("c:7");  // deferred: it waits in the file too
                c.remove("c:8");
            })),
            new Filled(true, () -> fill(RotatingBloomFilter.create(1000, 0.01,
                    RotatingBloomFilter.Options.defaults().generations(3).period(Duration.ofNanos(1000)).manualClock(true)), true, null)),
            new Filled(false, () -> fill(RotatingBloomFilter.create(2000, 0.01,
                    RotatingBloomFilter.Options.defaults().generations(4).period(Duration.ofHours(1)).doubleWrite(true)),
                    false, f -> ((RotatingBloomFilter) f).rotate())));

    private static Filter fill(Filter f, boolean manual, java.util.function.Consumer<Filter> more) {
        for (int i = 0; i < 3000; i++) {
            if (i == 1500 && manual) ((RotatingBloomFilter) f).tick(1500);
            f.put("c:" + i);
        }
        if (more != null) more.accept(f);
        return f;
    }

    private static Filter load(Class<?> type, InputStream in) throws IOException {
        if (type == ScalableBloomFilter.class) return ScalableBloomFilter.load(in);
        if (type == ScalableCuckooFilter.class) return ScalableCuckooFilter.load(in);
        return RotatingBloomFilter.load(in);
    }

    private static void assertSameAnswers(String what, Filter a, Filter b, List<String> keys) {
        assertEquals(a.getClass(), b.getClass(), what);
        assertArrayEquals(a.mightContainAll(keys), b.mightContainAll(keys), what + ": the answers differ");
        assertEquals(a.geometry(), b.geometry(), what);
    }

    /**
     * save then load gives a filter of the same class, parts, settings and rotations that answers
     * every key, put or not, as the original; a manual clock's deadline goes on in the caller's
     * time; a stream of composites back to back reads one filter per load, and then what follows.
     */
    @Test
    void roundTripsAnswerAsTheOriginal() throws Exception {
        List<String> all = keys("c:", 0, 6000);  // 0-2999 put, the rest not
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        List<Filter> originals = new ArrayList<>();
        List<byte[]> saves = new ArrayList<>();
        try {
            for (Filled c : FILLED) {
                Filter f = c.make().get();
                originals.add(f);
                byte[] data = saved(f);
                stream.write(data);
                saves.add(data);
                try (Filter back = load(f.getClass(), new ByteArrayInputStream(data))) {
                    String what = f.toString();
                    assertSameAnswers(what, f, back, all);
                    if (f instanceof ScalableBloomFilter s) assertTrue(s.subFilters() >= 4, what);
                    if (f instanceof RotatingBloomFilter r) assertEquals(1, r.rotations(), what);  // a tick at 1500, or rotate()
                    if (c.manual()) {
                        RotatingBloomFilter rot = (RotatingBloomFilter) f;
                        for (long at : new long[] {1999, 2000, 2999, 3000, 4500}) {
                            rot.tick(at);
                            ((RotatingBloomFilter) back).tick(at);
                            assertSameAnswers(what + " ticked to " + at, f, back, all);
                        }
                        assertEquals(4, rot.rotations());
                    }
                }
            }
            stream.write("tail".getBytes(StandardCharsets.UTF_8));
            InputStream in = new ByteArrayInputStream(stream.toByteArray());
            for (int i = 0; i < saves.size(); i++) {  // as loaded alone (the manual clock's original ticked on since)
                Filter f = originals.get(i);
                try (Filter back = load(f.getClass(), in); Filter alone = load(f.getClass(), new ByteArrayInputStream(saves.get(i)))) {
                    assertSameAnswers("from the stream: " + f, alone, back, all);
                }
            }
            assertEquals("tail", new String(in.readAllBytes(), StandardCharsets.UTF_8), "each load stopped at its filter's end");
        } finally {
            for (Filter f : originals) f.close();
        }
    }

    /** Corrupt, truncated and oversized data throws IOException; so does a closed filter's save IllegalStateException. */
    @Test
    void corruptTruncatedAndTooLargeDataIsRefused() throws Exception {
        try (Filter f = FILLED.get(0).make().get(); Filter r = FILLED.get(2).make().get()) {
            byte[] data = saved(f);
            byte[] flipped = data.clone();
            flipped[data.length / 2] ^= 1;
            assertThrows(IOException.class, () -> ScalableBloomFilter.load(new ByteArrayInputStream(flipped)));
            assertThrows(IOException.class,
                    () -> ScalableBloomFilter.load(new ByteArrayInputStream(Arrays.copyOf(data, data.length - 1))));
            assertThrows(IOException.class, () -> ScalableBloomFilter.load(new ByteArrayInputStream(data), data.length - 1));
            try (ScalableBloomFilter exact = ScalableBloomFilter.load(new ByteArrayInputStream(data), data.length)) {
                assertEquals(f.geometry(), exact.geometry());
            }
            byte[] rotating = saved(r);
            assertThrows(IOException.class, () -> RotatingBloomFilter.load(new ByteArrayInputStream(rotating), 100));
            assertThrows(IllegalArgumentException.class, () -> RotatingBloomFilter.load(new ByteArrayInputStream(rotating), 0));
            assertThrows(IOException.class, () -> ScalableCuckooFilter.load(new ByteArrayInputStream(rotating)));
            // a scalable filter of the other sub-filters, refused from its header (1.14): the
            // header alone is enough, so the message is not a truncation's
            byte[] head = Arrays.copyOf(data, LfbNativeConstants.LFB_NATIVE_HEADER_BYTES);
            IOException wrong = assertThrows(IOException.class, () -> ScalableCuckooFilter.load(new ByteArrayInputStream(head)));
            assertTrue(wrong.getMessage().contains("blocked parts"), wrong.getMessage());
        }
        ScalableBloomFilter closed = ScalableBloomFilter.create(100, 0.01);
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.save(new ByteArrayOutputStream()));
    }

    /**
     * Saves beside puts: four threads put keys (pausing a millisecond every 64, so that the saves
     * set the pace) while the main thread saves the filter over and over; every key whose put
     * returned before a save began is in the filter loaded from it. The scalable ones grow
     * meanwhile.
     */
    @Test
    @Timeout(120)
    void savesBesidePutsKeepEveryKeyPutBefore() throws Exception {
        List<Supplier<Filter>> makers = List.of(
                () -> ScalableBloomFilter.create(200, 0.01),
                () -> ScalableCuckooFilter.create(200, 0.01, 2, 0.9, 32, BloomFilter.Options.defaults()),
                () -> RotatingBloomFilter.create(200_000, 0.01,
                        RotatingBloomFilter.Options.defaults().generations(3).period(Duration.ofHours(1))));
        int adders = 4, saves = 25;
        for (Supplier<Filter> make : makers) {
            try (Filter f = make.get()) {
                AtomicLongArray added = new AtomicLongArray(adders);  // adder i has put keys i<<32 | 0 .. added[i]-1
                AtomicBoolean stop = new AtomicBoolean();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < adders; t++) {
                    int i = t;
                    threads.add(new Thread(() -> {
                        try {
                            for (long n = 0; n < 1_000_000 && !stop.get(); n++) {
                                f.put((long) i << 32 | n);
                                added.set(i, n + 1);
                                if (n % 64 == 63) Thread.sleep(1);
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }));
                }
                threads.forEach(Thread::start);
                int beside = 0;
                try {
                    for (int round = 0; round < saves && failure.get() == null; round++) {
                        if (threads.stream().anyMatch(Thread::isAlive)) beside++;
                        long[] before = new long[adders];
                        for (int i = 0; i < adders; i++) before[i] = added.get(i);
                        byte[] data = saved(f);
                        try (Filter back = load(f.getClass(), new ByteArrayInputStream(data))) {
                            for (int i = 0; i < adders; i++) {
                                long[] keys = new long[(int) before[i]];
                                for (int n = 0; n < keys.length; n++) keys[n] = (long) i << 32 | n;
                                boolean[] answers = back.mightContainAll(keys);
                                for (int n = 0; n < keys.length; n++) {
                                    if (!answers[n]) fail(f + ", save " + round + ": key " + n + " of adder " + i
                                            + ", put before the save began, is not in the saved copy");
                                }
                            }
                        }
                        Thread.sleep(5);
                    }
                } finally {
                    stop.set(true);
                    for (Thread t : threads) t.join();
                }
                if (failure.get() != null) throw new AssertionError(failure.get());
                assertTrue(beside > saves / 2, f + ": only " + beside + " of " + saves + " saves began while puts ran");
                if (f instanceof ScalableBloomFilter s) assertTrue(s.subFilters() >= 4, s.subFilters() + " sub-filters");
            }
        }
    }

    /**
     * A scalable filter that adds a sub-filter every 2,000 keys, saved over and over while two
     * threads fill it to its cap: now and then it grows between save's size and its copy (lfb_save
     * refuses the buffer as too small) and save copies it again at the new size; no save fails,
     * and each holds at least the sub-filters there were when it began.
     */
    @Test
    @Timeout(120)
    void saveOfAScalableFilterGrowingMeanwhile() throws Exception {
        for (int trial = 0; trial < 5; trial++) {
            try (ScalableBloomFilter f = ScalableBloomFilter.create(2000, 0.01, 1, 0.5, 64, BloomFilter.Options.defaults())) {
                AtomicBoolean full = new AtomicBoolean();
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    long base = (long) t << 32;
                    threads.add(new Thread(() -> {
                        for (long n = 0; !full.get(); n++) {
                            try {
                                f.put(base | n);
                            } catch (LfbloomException e) {
                                full.set(true);  // isFull() at 64 sub-filters
                            }
                        }
                    }));
                }
                threads.forEach(Thread::start);
                try {
                    while (!full.get()) {
                        int parts = f.subFilters();
                        try (ScalableBloomFilter back = ScalableBloomFilter.load(new ByteArrayInputStream(saved(f)))) {
                            assertTrue(back.subFilters() >= parts, back.subFilters() + " sub-filters saved, " + parts + " before");
                        }
                    }
                } finally {
                    full.set(true);
                    for (Thread t : threads) t.join();
                }
            }
        }
    }

    /**
     * A rotating filter on the real clock counts the time between save and load: saved with its
     * first deadline a period (200 ms) away and loaded 450 ms later, it has rotated twice (three
     * times if this machine stalled past 600 ms) before any put or query; on a manual clock the
     * same wait rotates nothing.
     */
    @Test
    void theRealClockRunsBetweenSaveAndLoad() throws Exception {
        for (boolean manual : new boolean[] {false, true}) {
            byte[] data;
            try (RotatingBloomFilter f = RotatingBloomFilter.create(1000, 0.01,
                    RotatingBloomFilter.Options.defaults().generations(3).period(Duration.ofMillis(200)).manualClock(manual))) {
                f.put("k");
                data = saved(f);
            }
            Thread.sleep(450);
            try (RotatingBloomFilter back = RotatingBloomFilter.load(new ByteArrayInputStream(data))) {
                long rotations = back.rotations();
                if (manual) assertEquals(0, rotations);
                else assertTrue(rotations == 2 || rotations == 3, rotations + " rotations at the load");
            }
        }
    }
}
