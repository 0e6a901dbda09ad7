package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Shared cuckoo files' stripe locks (C ABI 1.10): two filter objects of one file, and the lock timeout. */
class SharedCuckooLocksTest {
    @TempDir
    Path dir;

    /**
     * Two filter objects of one shared file in one JVM: threads put through a and remove through
     * b while the main thread saves through a, over and over. Every kept key whose put returned
     * before the save began is in the saved copy, and the copy loads (a key lost or doubled
     * mid-save would make its fingerprint count disagree with its table, and load refuse it).
     */
    @Test
    @Timeout(300)
    void savesWhileTwoFilterObjectsWriteKeepEveryKey() throws Exception {
        Path file = dir.resolve("cuckoo.lfb");
        BloomFilter.Options options = BloomFilter.Options.defaults();
        try (CuckooFilter a = CuckooFilter.openShared(file, 200_000, 0.001, options);
                CuckooFilter b = CuckooFilter.openShared(file, 200_000, 0.001, options)) {
            int adders = 2;
            long perAdder = 40_000;
            AtomicLongArray added = new AtomicLongArray(adders);  // adder i has put kept keys i<<32 | 0 .. added[i]-1
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stop = new AtomicBoolean();
            BlockingQueue<Long> churn = new ArrayBlockingQueue<>(1024);  // put through a, for the remover to remove through b
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < adders; t++) {
                int i = t;
                threads.add(new Thread(() -> {
                    try {
                        for (long n = 0; n < perAdder && !stop.get(); n++) {
                            a.put((long) i << 32 | n);
                            added.set(i, n + 1);
                            long c = (long) (i + 1) << 48 | n;
                            a.put(c);
                            churn.put(c);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            Thread remover = new Thread(() -> {
                try {
                    for (long c; (c = churn.take()) != -1L; ) {
                        if (!b.remove(c)) failure.compareAndSet(null, new AssertionError("churn key " + c + " put was not removed"));
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            threads.forEach(Thread::start);
            remover.start();
            try {
                for (int round = 0; round < 12 && failure.get() == null; round++) {
                    long[] before = new long[adders];
                    for (int i = 0; i < adders; i++) before[i] = added.get(i);
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    a.save(out);
                    try (CuckooFilter copy = CuckooFilter.load(new ByteArrayInputStream(out.toByteArray()))) {
                        for (int i = 0; i < adders; i++) {
                            for (long n = 0; n < before[i]; n++) {
                                if (!copy.mightContain((long) i << 32 | n))
                                    fail("round " + round + ": key " + n + " of adder " + i + ", put before the save began, is not in the saved copy");
                            }
                        }
                    }
                    Thread.sleep(5);
                }
            } finally {
                stop.set(true);
                for (Thread t : threads) t.join();
                churn.put(-1L);
                remover.join();
            }
            if (failure.get() != null) throw new AssertionError(failure.get());
            for (int i = 0; i < adders; i++) {
                for (long n = 0; n < added.get(i); n++) {
                    if (!b.mightContain((long) i << 32 | n)) fail("key " + n + " of adder " + i + " is missing from the file");
                }
            }
        }
    }

    /**
     * A writer that waits longer than its lock timeout for a stripe lock throws LfbloomException
     * (isTimeout), changes nothing, and the filter works on once the lock is free. Java's save
     * copies the filter into a buffer and writes the stream after releasing the locks, so a stream
     * that blocks holds none; lfb_save_fd into a FIFO nobody reads does hold them all.
     */
    @Test
    @Timeout(120)
    void aWriterWaitingPastItsLockTimeoutThrows() throws Exception {
        Path file = dir.resolve("cuckoo.lfb");
        BloomFilter.Options options = BloomFilter.Options.defaults();
        try (CuckooFilter a = CuckooFilter.openShared(file, 1 << 20, 0.001, options);  // about 2 MB: far more than a pipe buffers
                CuckooFilter b = CuckooFilter.openShared(file, 1 << 20, 0.001, options)) {
            assertThrows(IllegalArgumentException.class, () -> b.setLockTimeout(null));
            for (Duration d : List.of(Duration.ofSeconds(-1), Duration.ZERO, Duration.ofNanos(999_999)))
                assertThrows(IllegalArgumentException.class, () -> b.setLockTimeout(d), d.toString());
            b.setLockTimeout(Duration.ofNanos(1_500_000));  // rounded up
            b.setLockTimeout(Duration.ofSeconds(Long.MAX_VALUE));  // capped
            a.setLockTimeout(Duration.ofMillis(100));
            b.setLockTimeout(Duration.ofMillis(100));
            for (long i = 0; i < 1000; i++) a.put(i);

            // save(OutputStream) into a stream that blocks: the locks are free meanwhile.
            CountDownLatch writing = new CountDownLatch(1), release = new CountDownLatch(1);
            ByteArrayOutputStream saved = new ByteArrayOutputStream();
            OutputStream blocking = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] bytes, int off, int len) throws IOException {
                    writing.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        throw new IOException(e);
                    }
                    saved.write(bytes, off, len);
                }
            };
            AtomicReference<Throwable> saveFailure = new AtomicReference<>();
            Thread saver = new Thread(() -> {
                try {
                    a.save(blocking);
                } catch (Throwable e) {
                    saveFailure.set(e);
                }
            });
            saver.start();
            try {
                assertTrue(writing.await(10, TimeUnit.SECONDS), "save wrote nothing in 10 s");
                assertTrue(b.put(1L << 40));
                assertTrue(b.remove(1L << 40));
            } finally {
                release.countDown();
                saver.join();
            }
            assertNull(saveFailure.get());
            try (CuckooFilter copy = CuckooFilter.load(new ByteArrayInputStream(saved.toByteArray()))) {
                assertEquals(1000, copy.stats().slotsSet());
            }

            // lfb_save_fd into a FIFO that nobody reads holds every stripe lock until it is drained.
            Path fifo = dir.resolve("fifo");
            Process mkfifo;
            try {
                mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
            } catch (IOException noMkfifo) {
                Assumptions.abort("no mkfifo: " + noMkfifo);
                return;
            }
            Assumptions.assumeTrue(mkfifo.waitFor() == 0, "mkfifo failed");
            try (RandomAccessFile ends = new RandomAccessFile(fifo.toFile(), "rw");  // O_RDWR: opens without a peer
                    FileInputStream in = new FileInputStream(ends.getFD())) {
                int fd = fdOf(fifo);
                AtomicInteger status = new AtomicInteger(1);
                Thread streamer = new Thread(() -> status.set(
                        a.handle.callRaw(h -> LfbNative.lfb_save_fd(h, lfb_format_enum.LFB_FORMAT_NATIVE, fd))));
                streamer.start();
                ByteArrayOutputStream streamed = new ByteArrayOutputStream();
                try {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (in.available() == 0) {  // the save writes only once it holds every lock
                        assertTrue(System.nanoTime() < deadline, "lfb_save_fd wrote nothing in 10 s");
                        Thread.sleep(1);
                    }
                    // Not remove: the core's removable_key_operations::remove is noexcept, so a remove's
                    // timeout ends the process (std::terminate) at dbdd4b9.
                    for (var write : List.<Supplier<Object>>of(
                            () -> b.put(1L << 40), () -> a.put(1L << 41), () -> b.copy(),
                            () -> b.putAll(new long[] {1L << 40 | 1, 1L << 40 | 2}), () -> {
                                try {
                                    b.save(new ByteArrayOutputStream());
                                    return null;
                                } catch (IOException e) {
                                    throw new AssertionError(e);
                                }
                            })) {
                        long start = System.nanoTime();
                        LfbloomException e = assertThrows(LfbloomException.class, write::get);
                        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                        assertTrue(e.isTimeout(), e.toString());
                        assertEquals("timeout", e.statusName());
                        assertEquals(lfb_status_enum.LFB_ERR_TIMEOUT, e.status());
                        assertTrue(tookMs >= 90 && tookMs < 3000, "timed out after " + tookMs + " ms, with a timeout of 100 ms");
                    }
                    assertTrue(b.mightContain(7L));  // readers never lock
                } finally {
                    drain(streamer, in, streamed);
                }
                assertEquals(0, status.get(), "lfb_save_fd");
                try (CuckooFilter copy = CuckooFilter.load(new ByteArrayInputStream(streamed.toByteArray()))) {
                    assertEquals(1000, copy.stats().slotsSet());
                }
            }

            // The refused writes changed nothing, and writers work again.
            assertEquals(1000, b.stats().slotsSet());
            assertTrue(b.put(1L << 40));
            assertTrue(a.remove(5L));
            a.save(new ByteArrayOutputStream());
            assertEquals(1000, a.stats().slotsSet());
        }

        // A private filter takes a timeout and never waits for another; a closed one refuses.
        CuckooFilter own = CuckooFilter.create(1000, 0.01);
        own.setLockTimeout(Duration.ofMillis(1));
        own.close();
        assertThrows(IllegalStateException.class, () -> own.setLockTimeout(Duration.ofSeconds(1)));
    }

    /** Reads the FIFO until the streaming thread has ended and nothing is left in it. */
    private static void drain(Thread streamer, FileInputStream in, ByteArrayOutputStream into) throws Exception {
        byte[] buffer = new byte[1 << 16];
        for (;;) {
            boolean ended = !streamer.isAlive();  // read before available(): every byte it wrote is then counted
            int n = in.available();
            if (n > 0) {
                into.write(buffer, 0, in.read(buffer, 0, Math.min(n, buffer.length)));
            } else if (ended) {
                streamer.join();
                return;
            } else {
                Thread.sleep(1);
            }
        }
    }

    /** This process's file descriptor open on {@code path}, from /proc/self/fd. */
    private static int fdOf(Path path) throws IOException {
        Path real = path.toRealPath();
        Path fds = Path.of("/proc/self/fd");
        Assumptions.assumeTrue(Files.isDirectory(fds), "no /proc/self/fd");
        List<Integer> found = new ArrayList<>();
        try (Stream<Path> entries = Files.list(fds)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                try {
                    if (Files.readSymbolicLink(entry).equals(real)) found.add(Integer.parseInt(entry.getFileName().toString()));
                } catch (IOException | NumberFormatException gone) {
                    // the listing's own descriptor, closed by now
                }
            }
        }
        assertEquals(1, found.size(), "descriptors open on " + real + ": " + found);
        return found.get(0);
    }
}
