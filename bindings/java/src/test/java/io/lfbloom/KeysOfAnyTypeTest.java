package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue 18: keys of every type on every filter, in chunked batches, as predicates and through a collector. */
class KeysOfAnyTypeTest {
    /** More keys than one chunk holds, so every batch here crosses a chunk boundary. */
    private static final int N = 3 * Native.CHUNK_KEYS + 17;

    private static List<String> strings(String prefix, int n) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) keys.add(prefix + i + (i % 3 == 0 ? "é" : i % 3 == 1 ? "🦆" : ""));  // 1-, 2- and 4-byte UTF-8
        return keys;
    }

    private static byte[] littleEndian(long key) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(key).array();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.lfbloom.EveryKind#filters")
    void stringBatchesAreTheUtf8KeysOfSingleCalls(String name, Supplier<Filter> make) {
        List<String> present = strings("present-", N), absent = strings("absent-", N);
        try (Filter batched = make.get(); Filter single = make.get()) {
            long fresh = batched.putAll(present);
            assertTrue(fresh > N - 30 && fresh <= N, name + ": new keys " + fresh);  // a fingerprint or bit collision makes one not new
            for (String k : present) single.put(k.getBytes(StandardCharsets.UTF_8));
            List<String> probe = new ArrayList<>(present);
            probe.addAll(absent);
            boolean[] answers = batched.mightContainAll(probe);
            assertEquals(probe.size(), answers.length);
            int absentYes = 0;
            for (int i = 0; i < probe.size(); i++) {
                assertEquals(single.mightContain(probe.get(i).getBytes(StandardCharsets.UTF_8)), answers[i], name + ": key " + i);
                if (i < N) assertTrue(answers[i], name + ": false negative at " + i);
                else if (answers[i]) absentYes++;
            }
            // sized for 20,000 keys at 0.1% and holding N < 20,000: expected under 13 false positives; 60 is over 10 sigma
            assertTrue(absentYes < 60, name + ": " + absentYes + " false positives");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.lfbloom.EveryKind#filters")
    void longBatchesAreEightLittleEndianBytes(String name, Supplier<Filter> make) {
        long[] keys = LongStream.range(0, N).map(i -> i * 0x9E3779B97F4A7C15L).toArray();
        try (Filter arrays = make.get(); Filter streamed = make.get()) {
            assertTrue(arrays.putAll(keys) > N - 30);
            assertTrue(streamed.putAll(LongStream.of(keys)) > N - 30);
            for (long k : keys) assertTrue(arrays.mightContain(littleEndian(k)), name);
            long[] probe = LongStream.range(0, 2L * N).map(i -> i * 0x9E3779B97F4A7C15L).toArray();
            boolean[] a = arrays.mightContainAll(probe), s = streamed.mightContainAll(probe);
            for (int i = 0; i < probe.length; i++) {
                assertEquals(arrays.mightContain(probe[i]), a[i], name + ": key " + i);
                if (i < N) assertTrue(a[i] && s[i], name + ": false negative at " + i);
            }
            assertEquals(0, arrays.putAll(new long[0]));
            assertEquals(0, arrays.putAll(LongStream.empty()));
            assertEquals(0, arrays.mightContainAll(new long[0]).length);
        }
    }

    /** A cuckoo filter that fills in the third chunk reports the refused key's index in the whole batch, for every key type. */
    @Test
    void aRefusedPutReportsItsIndexInTheWholeBatch() {
        int n = 40_000;  // a filter for 10,000 fills near 10,500
        List<String> strings = strings("fill-", n);
        long[] longs = LongStream.range(0, n).toArray();
        List<Supplier<Long>> puts = new ArrayList<>();
        List<CuckooFilter> filters = new ArrayList<>();
        for (int i = 0; i < 3; i++) filters.add(CuckooFilter.create(10_000, 0.001));
        puts.add(() -> filters.get(0).putAll(strings));
        puts.add(() -> filters.get(1).putAll(longs));
        puts.add(() -> filters.get(2).putAll(LongStream.of(longs)));
        try {
            for (int i = 0; i < 3; i++) {
                CuckooFilter f = filters.get(i);
                LfbloomException e = assertThrows(LfbloomException.class, puts.get(i)::get);
                assertTrue(e.isFull(), e.getMessage());
                assertEquals("full", e.statusName());
                long done = e.keysDone();
                assertTrue(done > 2L * Native.CHUNK_KEYS && done < n, "stopped at " + done);
                assertEquals(done, f.stats().slotsSet(), "the keys before the refused one are in, the rest are not");
                if (i == 0) {
                    for (String k : strings.subList(0, (int) done)) assertTrue(f.mightContain(k));
                    assertEquals(0, f.count(strings.get((int) done)));
                } else {
                    for (long k = 0; k < done; k++) assertTrue(f.mightContain(k));
                    assertEquals(0, f.count(done));
                }
            }
        } finally {
            filters.forEach(CuckooFilter::close);
        }
    }

    /** Issue 18: a scalable filter that reaches its cap mid-batch reports how far it got, and lost nothing. */
    @Test
    void aScalableFilterThatFillsMidBatchSaysHowFarItGot() {
        BloomFilter.Options o = BloomFilter.Options.defaults();
        // capacities 2000 + 4000 + 8000: full somewhere past 14,000 keys, in the fourth chunk or later
        List<Supplier<Filter>> makers = List.of(() -> ScalableBloomFilter.create(2000, 0.01, 2, 0.5, 3, o),
                () -> ScalableCuckooFilter.create(2000, 0.01, 2, 0.5, 3, o));
        for (Supplier<Filter> make : makers) {
            try (Filter f = make.get()) {
                long[] keys = LongStream.range(0, 100_000).toArray();
                LfbloomException e = assertThrows(LfbloomException.class, () -> f.putAll(keys));
                assertTrue(e.isFull(), e.getMessage());
                long done = e.keysDone();
                assertTrue(done > 3L * Native.CHUNK_KEYS && done < 30_000, f + " stopped at " + done);
                for (long k = 0; k < done; k++) assertTrue(f.mightContain(k), f + ": key " + k + " of the batch's first " + done);
                assertEquals(3, f.geometry().parts());
                Stats before = f.stats();
                assertTrue(assertThrows(LfbloomException.class, () -> f.put(done)).isFull(), "the refused key is refused again");
                assertEquals(before, f.stats(), "a refused put changes nothing");
            }
        }
    }

    /** A null key anywhere (here in the third chunk) fails the batch before any key is used. */
    @Test
    void aNullKeyFailsTheBatchBeforeAnyKeyIsPut() {
        try (BloomFilter f = BloomFilter.create(100_000, 0.01)) {
            List<String> strings = new ArrayList<>(strings("k", N));
            strings.set(N - 5, null);
            assertThrows(IllegalArgumentException.class, () -> f.putAll(strings));
            List<byte[]> bytes = new ArrayList<>(Collections.nCopies(N, "x".getBytes(StandardCharsets.UTF_8)));
            bytes.set(N - 1, null);
            assertThrows(IllegalArgumentException.class, () -> f.putAll(bytes));
            assertThrows(IllegalArgumentException.class, () -> f.mightContainAll(strings));
            assertThrows(IllegalArgumentException.class, () -> f.putAll((long[]) null));
            assertThrows(IllegalArgumentException.class, () -> f.putAll((LongStream) null));
            assertEquals(0, f.stats().slotsSet(), "nothing was put");
        }
    }

    /** Keys larger than a whole chunk's bytes travel alone, among small ones. */
    @Test
    void keysLargerThanAChunkArePutWhole() {
        char[] big = new char[3 * Native.CHUNK_BYTES / 2];
        java.util.Arrays.fill(big, 'ü');  // two UTF-8 bytes each: 3 MiB
        String huge = new String(big);
        List<String> keys = List.of("small-1", huge, "small-2", huge + "!");
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            assertEquals(4, f.putAll(keys));
            for (String k : keys) assertTrue(f.mightContain(k.getBytes(StandardCharsets.UTF_8)));
            assertFalse(f.mightContain(huge + "?"));
            boolean[] answers = f.mightContainAll(List.of(huge, "small-3"));
            assertTrue(answers[0]);
            assertFalse(answers[1]);
        }
    }

    /** A key source that runs a batch of its own on the same thread (a stream's peek) gets its own buffers. */
    @Test
    void aBatchInsideABatchKeepsBothIntact() {
        try (BloomFilter outer = BloomFilter.create(100_000, 0.001); BloomFilter inner = BloomFilter.create(1000, 0.01)) {
            inner.putAll(List.of("a", "b"));
            long[] innerAnswers = new long[1];
            long fresh = outer.putAll(LongStream.range(0, N).peek(i -> {
                if (i % 1000 == 0) {
                    boolean[] ab = inner.mightContainAll(List.of("a", "b", "certainly absent"));
                    if (ab[0] && ab[1] && !ab[2]) innerAnswers[0]++;
                }
            }));
            assertTrue(fresh > N - 10);
            assertEquals((N + 999) / 1000, innerAnswers[0]);
            for (long k = 0; k < N; k++) assertTrue(outer.mightContain(k));
            assertFalse(outer.mightContain("a"), "the inner batch's keys did not leak into the outer one");
        }
    }

    @Test
    void predicatesFilterStreams() {
        try (BloomFilter f = BloomFilter.create(10_000, 0.001)) {
            f.putAll(List.of("alice", "bob"));
            f.putAll(new long[] {7, 42});
            Predicate<CharSequence> seen = f.asPredicate();
            assertFalse(f.mightContain("carol"));  // the premise: carol answers absent in this filter
            assertEquals(List.of("alice", "bob"), Stream.of("alice", "carol", "bob").filter(seen).collect(Collectors.toList()));
            LongPredicate ids = f.asLongPredicate();
            assertArrayEquals(new long[] {7, 42}, LongStream.of(1, 7, 9, 42).filter(ids).toArray());
            f.close();
            assertThrows(IllegalStateException.class, () -> seen.test("alice"));
            assertThrows(IllegalStateException.class, () -> ids.test(7));
        }
    }

    /** The collector makes the filter the same keys' puts make, sequentially or from a parallel stream's threads. */
    @Test
    void theCollectorBuildsTheFilterPutsBuild() {
        List<String> keys = IntStream.range(0, 100_000).mapToObj(i -> "user:" + i).collect(Collectors.toList());
        try (BloomFilter sequential = keys.stream().collect(BloomFilter.toBloomFilter(100_000, 0.01));
                BloomFilter parallel = keys.parallelStream().collect(BloomFilter.toBloomFilter(100_000, 0.01));
                BloomFilter byHand = BloomFilter.create(100_000, 0.01)) {
            for (String k : keys) byHand.put(k);
            assertEquals(byHand, sequential);
            assertEquals(byHand, parallel);
            try (BloomFilter other = Stream.of("x").collect(BloomFilter.toBloomFilter(100_000, 0.01))) {
                assertNotEquals(byHand, other);
            }
        }
        try (BloomFilter classic = Stream.of("a").collect(BloomFilter.toBloomFilter(10, 0.01,
                BloomFilter.Options.defaults().layout(BloomFilter.Layout.CLASSIC)))) {
            assertEquals("classic", classic.geometry().kind());
        }
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.toBloomFilter(0, 0.01));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.toBloomFilter(10, 1.5));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.toBloomFilter(10, 0.01, null));
    }
}
