package io.lfbloom.jmh;

import com.google.common.hash.Funnels;
import io.lfbloom.CuckooFilter;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.*;

/**
 * lfbloom's CuckooFilter against cuckoofilter4j (the thread-safe Java cuckoo filter: segment
 * locks, readers included) at equal (n, p), on one shared filter filled to 90% of n with 16-byte
 * keys. Queries of absent keys (the cache-penetration case), of present keys, and a put followed
 * by the remove of the same key (the load stays at 90%; reported per call, two calls per pair).
 * Run with -t 1 and -t 2.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CuckooBenchmark {
    static final int KEYS = 1 << 20;

    @Param({"1000000"})
    int n;

    @Param({"0.0001"})
    double fpp;

    CuckooFilter lfbloom;
    com.github.mgunlogson.cuckoofilter4j.CuckooFilter<byte[]> peer;
    byte[][] present;
    byte[][] absent;
    final AtomicInteger threads = new AtomicInteger();

    @Setup
    public void setUp() {
        present = Keys.random(KEYS, 42);
        absent = Keys.random(KEYS, 43);
        lfbloom = CuckooFilter.create(n, fpp);
        peer = new com.github.mgunlogson.cuckoofilter4j.CuckooFilter.Builder<>(Funnels.byteArrayFunnel(), n)
                .withFalsePositiveRate(fpp).withExpectedConcurrency(2).build();
        for (int i = 0; i < n * 9 / 10; i++) {
            if (!lfbloom.put(present[i]) && !lfbloom.mightContain(present[i])) throw new IllegalStateException("lfbloom put failed");
            if (!peer.put(present[i])) throw new IllegalStateException("cuckoofilter4j put failed at " + i);
        }
    }

    @TearDown
    public void tearDown() {
        lfbloom.close();
    }

    /** Each thread walks the keys from its own random start; churn keys are its own (absent ones, by thread). */
    @State(Scope.Thread)
    public static class Cursor {
        int next = new SplittableRandom().nextInt(KEYS);
        int churn;

        @Setup
        public void setUp(CuckooBenchmark b) {
            churn = b.threads.getAndIncrement() * (KEYS / 8);
        }

        int key() {
            next = (next + 1) & (KEYS - 1);
            return next;
        }

        int churnKey() {
            churn = (churn + 1) & (KEYS - 1);
            return churn;
        }

        int present(int filled) {
            next = (next + 1) % filled;
            return next;
        }
    }

    @Benchmark
    public boolean containsAbsentLfbloom(Cursor c) {
        return lfbloom.mightContain(absent[c.key()]);
    }

    @Benchmark
    public boolean containsAbsentCuckoofilter4j(Cursor c) {
        return peer.mightContain(absent[c.key()]);
    }

    @Benchmark
    public boolean containsPresentLfbloom(Cursor c) {
        return lfbloom.mightContain(present[c.present(n * 9 / 10)]);
    }

    @Benchmark
    public boolean containsPresentCuckoofilter4j(Cursor c) {
        return peer.mightContain(present[c.present(n * 9 / 10)]);
    }

    @Benchmark
    @OperationsPerInvocation(2)
    public boolean putRemoveLfbloom(Cursor c) {
        byte[] k = absent[c.churnKey()];
        lfbloom.put(k);
        return lfbloom.remove(k);
    }

    @Benchmark
    @OperationsPerInvocation(2)
    public boolean putRemoveCuckoofilter4j(Cursor c) {
        byte[] k = absent[c.churnKey()];
        peer.put(k);
        return peer.delete(k);
    }
}
