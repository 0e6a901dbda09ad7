package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;

/**
 * A Bloom filter whose keys expire: a ring of G generations covering a window W = G × period.
 * Each rotation makes the next generation current after clearing it, so a key lives between
 * W − W/G and W. Rotation happens every period (performed by the first put or query after the
 * deadline, which never waits for another rotation), when you call {@link #rotate()}, or at the
 * times you pass to {@link #tick(long)} with a manual clock.
 *
 * <p><b>Contract.</b> A key is reported present if at most G−1 rotations overlap the time from the
 * start of its put to the end of the query: with timed rotation, every key put in the last W − W/G.
 * Once G rotations have completed after its put, it is no longer reported (except as a false
 * positive). {@code expectedInsertions} is the most keys put in one period; a query's
 * false-positive probability stays at most {@code fpp}. With double write, puts go to the current
 * and the next generation and queries check G−1 generations (one when G = 2): cheaper, more
 * precise queries for twice the writes and more memory.
 *
 * <p><b>Thread safety.</b> Every method may be called from any number of threads at once; puts
 * and queries never wait for a rotation. {@link #close()} as for BloomFilter. A rotating filter
 * has no copy or comparison: it equals only itself. It saves and loads ({@link #save},
 * {@link #load}) in lfbloom's own format, which every language reads.
 */
public final class RotatingBloomFilter extends HandleFilter {
    /** Creation options; immutable. */
    public static final class Options {
        final int generations;
        final Duration period;
        final boolean doubleWrite;
        final boolean manualClock;
        final BloomFilter.Options filter;

        private Options(int generations, Duration period, boolean doubleWrite, boolean manualClock, BloomFilter.Options filter) {
            this.generations = generations;
            this.period = period;
            this.doubleWrite = doubleWrite;
            this.manualClock = manualClock;
            this.filter = filter;
        }

        /** Two generations, no period (rotate by hand), single write, the real clock. Any thread (immutable). */
        public static Options defaults() {
            return new Options(2, Duration.ZERO, false, false, BloomFilter.Options.defaults());
        }

        /** G, in 2..64. Any thread (immutable). */
        public Options generations(int generations) {
            if (generations < 2 || generations > 64) throw new IllegalArgumentException("generations must be in 2..64");
            return new Options(generations, period, doubleWrite, manualClock, filter);
        }

        /**
         * W / G; zero rotates only in {@link #rotate()}. A period past {@code Long.MAX_VALUE}
         * nanoseconds (292 years) counts as that many, instead of throwing from
         * {@code Duration.toNanos}: the real clock never gets there, a manual one at {@code Long.MAX_VALUE}.
         * Any thread (immutable).
         */
        public Options period(Duration period) {
            if (period == null || period.isNegative()) throw new IllegalArgumentException("period must be >= 0");
            return new Options(generations, period, doubleWrite, manualClock, filter);
        }

        /**
         * Puts go to the current and the next generation; queries check G-1 (see the class comment).
         * Any thread (immutable).
         */
        public Options doubleWrite(boolean doubleWrite) {
            return new Options(generations, period, doubleWrite, manualClock, filter);
        }

        /** Time advances only through {@link #tick(long)}, in nanoseconds from creation. Any thread (immutable). */
        public Options manualClock(boolean manualClock) {
            return new Options(generations, period, doubleWrite, manualClock, filter);
        }

        /** Seed and memory limit (the sum over the ring); the layout must be BLOCKED. Any thread (immutable). */
        public Options filter(BloomFilter.Options filter) {
            if (filter == null) throw new IllegalArgumentException("filter options are null");
            return new Options(generations, period, doubleWrite, manualClock, filter);
        }
    }

    private RotatingBloomFilter(long nativeHandle) {
        super(nativeHandle);
    }

    /**
     * @param expectedInsertions the most keys put in one period
     * @param fpp                the false-positive probability of a whole query, in (0, 1)
     * Any thread.
     */
    public static RotatingBloomFilter create(long expectedInsertions, double fpp, Options options) {
        if (options == null) throw new IllegalArgumentException("options is null");
        lfb_spec spec = options.filter.blockedSpec(lfb_kind_enum.LFB_KIND_ROTATING, expectedInsertions, fpp);
        spec.setGenerations(options.generations);
        spec.setPeriod_ns(saturatedNanos(options.period));
        spec.setRotating_flags((options.doubleWrite ? LfbNativeConstants.LFB_ROTATING_DOUBLE_WRITE : 0)
                | (options.manualClock ? LfbNativeConstants.LFB_ROTATING_MANUAL_TICK : 0));
        return new RotatingBloomFilter(created(spec));
    }

    private static long saturatedNanos(Duration d) {
        return d.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : d.toNanos();
    }

    /** One rotation now; waits only for another rotation in progress. Any thread. */
    public void rotate() {
        handle.call(LfbNative::lfb_rotate);
    }

    /**
     * Performs the rotations due at {@code nowNanos}: one per period passed, at most G. The clock
     * is CLOCK_MONOTONIC (System.nanoTime on Linux), or with a manual clock yours, from 0 at
     * creation. Any thread.
     */
    public void tick(long nowNanos) {
        handle.ensureOpen();
        if (nowNanos < 0) throw new IllegalArgumentException("nowNanos must be >= 0");
        handle.call(h -> LfbNative.lfb_tick(h, nowNanos));
    }

    /** Rotations so far: O(1). Any thread. */
    public long rotations() {
        return geometry().generation();
    }

    /** The current generation's statistics. Any thread. */
    @Override
    public Stats stats() {
        return stats(0);
    }

    /**
     * Generation {@code age}: 0 current, 1 the one before...; with double write the last is the
     * next one. IllegalArgumentException past the ring ({@link Geometry#parts()} generations). Any thread.
     */
    public Stats stats(int age) {
        return part(age, Stats::of);
    }

    // ---- streams ------------------------------------------------------------------------------

    /**
     * Writes the filter in lfbloom's own format (docs/FORMAT.md; the composites' part is described
     * in core/include/lfbloom/io/composite_format.hpp): its settings, every generation and the time
     * left to the next rotation; any process or language loads it. Any thread: it
     * holds every put that completed before it began; rotations wait for it, puts and queries do
     * not.
     */
    public void save(OutputStream out) throws IOException {
        write(out, lfb_format_enum.LFB_FORMAT_NATIVE);
    }

    /**
     * Reads a rotating filter written by {@link #save} (in any language), exactly its bytes; corrupt
     * data, or a filter of another kind, throws IOException. With a manual clock the filter goes on
     * in your time: the next rotation is due when {@link #tick(long)} reaches the deadline it had
     * at the save. With the real clock the wall-clock time between the save and the load counts:
     * the rotations due meanwhile (at most G) are performed as it loads. Any thread.
     */
    public static RotatingBloomFilter load(InputStream in) throws IOException {
        return load(in, Native.defaultReadLimit());
    }

    /** As {@link #load(InputStream)}, refusing filters over {@code maxBytes} (positive, else IllegalArgumentException), and a filter of another kind, from the header alone. Any thread. */
    public static RotatingBloomFilter load(InputStream in, long maxBytes) throws IOException {
        return new RotatingBloomFilter(loaded(in, lfb_format_enum.LFB_FORMAT_NATIVE, maxBytes, "a rotating filter",
                lfb_kind_enum.LFB_KIND_ROTATING));
    }
}
