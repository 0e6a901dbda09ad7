package io.lfbloom.jmh;

import com.google.common.hash.Funnels;
import io.lfbloom.BloomFilter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;

/**
 * lfbloom against Guava's BloomFilter at equal (n, p): 16-byte keys, single calls and batches of
 * 64, on one shared filter. Run with -t 1 and -t 2 for single- and multi-threaded figures.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class FilterBenchmark {
    static final int KEYS = 1 << 20;
    static final int BATCH = 64;

    @Param({"1000000"})
    long n;

    @Param({"BLOCKED", "CLASSIC"})
    BloomFilter.Layout layout;

    BloomFilter lfbloom;
    com.google.common.hash.BloomFilter<byte[]> guava;
    byte[][] keys;
    List<List<byte[]>> batches;

    @Setup
    public void setUp() {
        keys = Keys.random(KEYS, 42);
        lfbloom = BloomFilter.create(n, 0.01, BloomFilter.Options.defaults().layout(layout));
        guava = com.google.common.hash.BloomFilter.create(Funnels.byteArrayFunnel(), n, 0.01);
        for (int i = 0; i < n / 2; i++) {
            lfbloom.put(keys[i]);
            guava.put(keys[i]);
        }
        List<byte[]> all = Arrays.asList(keys);
        batches = new ArrayList<>();
        for (int i = 0; i + BATCH <= KEYS; i += BATCH) batches.add(all.subList(i, i + BATCH));
    }

    @TearDown
    public void tearDown() {
        lfbloom.close();
    }

    /** Each thread walks the keys from its own random start. */
    @State(Scope.Thread)
    public static class Cursor {
        int next = new SplittableRandom().nextInt(KEYS);

        int key() {
            next = (next + 1) & (KEYS - 1);
            return next;
        }

        int batch() {
            next = (next + 1) & (KEYS / BATCH - 1);
            return next;
        }
    }

    @Benchmark
    public boolean putLfbloom(Cursor c) {
        return lfbloom.put(keys[c.key()]);
    }

    @Benchmark
    public boolean putGuava(Cursor c) {
        return guava.put(keys[c.key()]);
    }

    @Benchmark
    public boolean mightContainLfbloom(Cursor c) {
        return lfbloom.mightContain(keys[c.key()]);
    }

    @Benchmark
    public boolean mightContainGuava(Cursor c) {
        return guava.mightContain(keys[c.key()]);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long putAllLfbloom(Cursor c) {
        return lfbloom.putAll(batches.get(c.batch()));
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long putAllGuava(Cursor c) {
        long added = 0;
        for (byte[] k : batches.get(c.batch())) added += guava.put(k) ? 1 : 0;
        return added;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public boolean[] mightContainAllLfbloom(Cursor c) {
        return lfbloom.mightContainAll(batches.get(c.batch()));
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public boolean[] mightContainAllGuava(Cursor c) {
        List<byte[]> batch = batches.get(c.batch());
        boolean[] found = new boolean[BATCH];
        for (int i = 0; i < BATCH; i++) found[i] = guava.mightContain(batch.get(i));
        return found;
    }
}
