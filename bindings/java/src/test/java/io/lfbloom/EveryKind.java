package io.lfbloom;

import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** One filter of every class, for tests that prove a property of them all (the one base class). */
final class EveryKind {
    private EveryKind() {}

    /** (class name, a maker of a fresh filter sized for 20,000 keys at 0.1%) for each public filter class. */
    static Stream<Arguments> filters() {
        return Stream.of(
                kind("BloomFilter", () -> BloomFilter.create(20_000, 0.001)),
                kind("CountingBloomFilter", () -> CountingBloomFilter.create(20_000, 0.001)),
                kind("CuckooFilter", () -> CuckooFilter.create(20_000, 0.001)),
                kind("ScalableBloomFilter", () -> ScalableBloomFilter.create(5_000, 0.001)),
                kind("ScalableCuckooFilter", () -> ScalableCuckooFilter.create(5_000, 0.001)),
                kind("RotatingBloomFilter", () -> RotatingBloomFilter.create(20_000, 0.001,
                        RotatingBloomFilter.Options.defaults().generations(3).period(Duration.ofHours(1)))),
                kind("SwappableBloomFilter", () -> SwappableBloomFilter.create(BloomFilter.create(20_000, 0.001))));
    }

    private static Arguments kind(String name, Supplier<Filter> make) {
        return Arguments.of(name, make);
    }
}
