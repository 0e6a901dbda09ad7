package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue 18: one rule for closed filters, the same for every class (Filter's Javadoc states it). */
class ClosedFilterTest {
    private static final Set<String> ALLOWED = Set.of("close", "equals", "hashCode", "toString", "getClass", "wait", "notify",
            "notifyAll");

    private static Object zero(Class<?> type) {
        if (type == long.class) return 0L;
        if (type == int.class) return 0;
        if (type == double.class) return 0.0;
        if (type == boolean.class) return false;
        return null;
    }

    /**
     * Every public instance method of a closed filter, called with null and zero arguments (which
     * an open filter would refuse as IllegalArgumentException), throws IllegalStateException; the
     * allowed ones do not throw.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.lfbloom.EveryKind#filters")
    void everyMethodOfAClosedFilterThrowsIllegalStateException(String name, Supplier<Filter> make) throws Exception {
        Filter f = make.get();
        Filter other = make.get();
        int hash = f.hashCode();
        f.close();
        int checked = 0;
        for (Method m : f.getClass().getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || ALLOWED.contains(m.getName())) continue;
            Object[] args = new Object[m.getParameterCount()];
            for (int i = 0; i < args.length; i++) args[i] = zero(m.getParameterTypes()[i]);
            InvocationTargetException e = assertThrows(InvocationTargetException.class, () -> m.invoke(f, args),
                    name + "." + m.getName() + " did not throw");
            assertInstanceOf(IllegalStateException.class, e.getCause(), name + "." + m + " threw " + e.getCause());
            checked++;
        }
        assertTrue(checked >= 22, name + ": only " + checked + " methods checked");
        f.close();  // idempotent
        assertEquals(hash, f.hashCode());
        assertTrue(f.equals(f));
        assertFalse(f.equals(other));
        assertFalse(other.equals(f));
        assertTrue(f.toString().startsWith(name + "[") && f.toString().endsWith(", closed]"), f.toString());
        assertFalse(other.toString().contains("closed"), other.toString());
        other.close();
    }

    /** Batches racing with close complete or throw IllegalStateException, chunk by chunk; none crashes. */
    @Test
    void closeRacingWithBatchesNeverCrashes() throws Exception {
        long[] keys = LongStream.range(0, 10 * Native.CHUNK_KEYS).toArray();
        for (int round = 0; round < 20; round++) {
            CountingBloomFilter f = CountingBloomFilter.create(100_000, 0.01);
            AtomicLong batches = new AtomicLong();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(3);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int id = t;
                threads.add(new Thread(() -> {
                    started.countDown();
                    try {
                        for (;;) {
                            if (id == 0) f.putAll(keys);
                            else if (id == 1) f.mightContainAll(keys);
                            else f.removeAll(List.of("a".getBytes(), "b".getBytes()));
                            batches.incrementAndGet();
                        }
                    } catch (IllegalStateException closed) {
                        // the rule
                    } catch (Throwable other) {
                        unexpected.set(other);
                    }
                }));
            }
            threads.forEach(Thread::start);
            started.await();
            Thread.sleep(2);
            f.close();
            for (Thread t : threads) t.join();
            assertNull(unexpected.get(), () -> "a batch racing close threw " + unexpected.get());
        }
    }
}
