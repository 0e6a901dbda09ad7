package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.LongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * lfbloom and real Guava, both ways: Guava writes, lfbloom reads and answers identically on 10^6
 * probes; lfbloom writes exactly the bytes Guava writes for the same keys, and Guava reads them.
 */
class GuavaCompatibilityTest {
    /** How one Guava funnel's keys look to each library. */
    private record KeyKind<T>(String name, Funnel<? super T> funnel, LongFunction<T> make) {}

    private static final KeyKind<CharSequence> STRINGS =
            new KeyKind<>("string", Funnels.stringFunnel(StandardCharsets.UTF_8), i -> "user:" + i + ":é");
    private static final KeyKind<Long> LONGS = new KeyKind<>("long", Funnels.longFunnel(), i -> i * 0x9E3779B97F4A7C15L);
    private static final KeyKind<byte[]> BYTES =
            new KeyKind<>("bytes", Funnels.byteArrayFunnel(), i -> ByteBuffer.allocate(12).putLong(i).putInt((int) (i >>> 7)).array());

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(STRINGS, 1000L, 0.01), Arguments.of(STRINGS, 1_000_000L, 0.001),
                Arguments.of(LONGS, 1000L, 0.01), Arguments.of(LONGS, 1_000_000L, 0.03),
                Arguments.of(BYTES, 1000L, 0.01), Arguments.of(BYTES, 500_000L, 0.0001),
                // Over 2^31 bits (2.9 * 10^9 bits, 359 MB), where 32-bit index math breaks.
                Arguments.of(STRINGS, 300_000_000L, 0.01));
    }

    private static <T> boolean ours(BloomFilter f, T key) {
        if (key instanceof CharSequence s) return f.mightContain(s);
        if (key instanceof Long l) return f.mightContain(l);
        return f.mightContain((byte[]) key);
    }

    private static <T> void put(BloomFilter f, T key) {
        if (key instanceof CharSequence s) f.put(s);
        else if (key instanceof Long l) f.put(l);
        else f.put((byte[]) key);
    }

    @ParameterizedTest(name = "{0} n={1} p={2}")
    @MethodSource("cases")
    <T> void bothDirectionsAgreeWithGuava(KeyKind<T> kind, long n, double p) throws IOException {
        com.google.common.hash.BloomFilter<T> guava = com.google.common.hash.BloomFilter.create(kind.funnel(), n, p);
        final long added = Math.min(n, 200_000);
        for (long i = 0; i < added; i++) guava.put(kind.make().apply(i));
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        guava.writeTo(stream);
        final byte[] guavaBytes = stream.toByteArray();
        stream = null;

        // Guava -> lfbloom: identical answers on 10^6 probes, present and absent.
        try (BloomFilter imported = BloomFilter.readFrom(new ByteArrayInputStream(guavaBytes))) {
            assertEquals("classic", imported.stats().layout());
            long disagreements = 0;
            for (long i = 0; i < 1_000_000; i++) {
                T key = kind.make().apply(i % 2 == 0 ? i / 2 : n + i);
                if (ours(imported, key) != guava.mightContain(key)) disagreements++;
            }
            assertEquals(0, disagreements);

            // lfbloom -> Guava: a filter of the same geometry with the same keys writes Guava's bytes.
            Stats s = imported.stats();
            try (BloomFilter ours = BloomFilter.withGeometry(s.slots(), s.hashes(),
                    BloomFilter.Options.defaults().layout(BloomFilter.Layout.CLASSIC))) {
                for (long i = 0; i < added; i++) put(ours, kind.make().apply(i));
                ByteArrayOutputStream myBytes = new ByteArrayOutputStream();
                ours.writeTo(myBytes);
                byte[] mine = myBytes.toByteArray();
                myBytes = null;
                assertArrayEquals(guavaBytes, mine);
                com.google.common.hash.BloomFilter<T> readBack =
                        com.google.common.hash.BloomFilter.readFrom(new ByteArrayInputStream(mine), kind.funnel());
                for (long i = 0; i < 1000; i++) assertTrue(readBack.mightContain(kind.make().apply(i)));
            }
        }
    }

    @Test
    void malformedGuavaStreamsAreIOExceptions() throws IOException {
        com.google.common.hash.BloomFilter<Long> guava = com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), 1000, 0.01);
        guava.put(1L);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        guava.writeTo(out);
        byte[] good = out.toByteArray();
        for (int cut : new int[] {0, 1, 5, 6, 100, good.length - 1}) {
            byte[] truncated = java.util.Arrays.copyOf(good, cut);
            assertThrows(IOException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(truncated)), "cut " + cut);
        }
        byte[] ordinal = good.clone();
        ordinal[0] = 0;  // MURMUR128_MITZ_32
        assertThrows(IOException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(ordinal)));
        byte[] absurd = good.clone();
        absurd[2] = 0x7f;  // about 2^31 words (16 GiB) declared, a few bytes sent: refused before allocating
        absurd[3] = (byte) 0xff;
        assertThrows(IOException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(absurd), 1 << 20));
        assertThrows(IOException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(absurd)));
        byte[] negative = good.clone();
        negative[2] = (byte) 0x80;
        assertThrows(IOException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(negative)));
        byte[] zeroK = good.clone();
        zeroK[1] = 0;
        assertThrows(IOException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(zeroK)));
    }

    @Test
    void onlyClassicSeedZeroFiltersHaveAGuavaForm() {
        try (BloomFilter blocked = BloomFilter.create(100, 0.01)) {
            assertThrows(LfbloomException.class, () -> blocked.writeTo(new ByteArrayOutputStream()));
        }
    }
}
