package io.lfbloom.jmh;

import java.util.SplittableRandom;

/** The benchmarks' keys: {@code count} random 16-byte keys from a fixed seed. */
final class Keys {
    private Keys() {}

    static byte[][] random(int count, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            keys[i] = new byte[16];
            rng.nextBytes(keys[i]);
        }
        return keys;
    }
}
