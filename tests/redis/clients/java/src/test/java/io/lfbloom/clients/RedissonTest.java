package io.lfbloom.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.Redisson;
import org.redisson.api.CuckooFilterInfo;
import org.redisson.api.RBloomFilterNative;
import org.redisson.api.RCuckooFilter;
import org.redisson.api.RedissonClient;
import org.redisson.api.bloomfilter.BloomFilterInfo;
import org.redisson.api.bloomfilter.BloomFilterInfoOption;
import org.redisson.api.bloomfilter.BloomFilterInitArgs;
import org.redisson.api.bloomfilter.BloomFilterInsertArgs;
import org.redisson.api.bloomfilter.BloomFilterScanDumpInfo;
import org.redisson.api.cuckoofilter.CuckooFilterAddArgs;
import org.redisson.api.cuckoofilter.CuckooFilterInitArgs;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.Protocol;

/**
 * Redisson 4 against the module: RBloomFilterNative (getBloomFilterNative, BF.* underneath, unlike
 * getBloomFilter's own bitmap) and RCuckooFilter (getCuckooFilter, CF.*), under RESP2 and RESP3.
 */
class RedissonTest {
    static void refused(String what, Executable call, String text) {
        RedisException e = assertThrows(RedisException.class, call, what);
        assertTrue(e.getMessage().contains(text), what + ": " + e.getMessage() + ", want " + text);
    }

    static List<String> items(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.toList());
    }

    /** A client of the test's server speaking the given protocol. */
    static RedissonClient client(Protocol protocol) {
        Config config = new Config();
        config.setProtocol(protocol);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + Server.port());
        return Redisson.create(config);
    }

    /** BloomFilterInfo has no equals: its five fields, Size last. */
    static List<Long> fields(BloomFilterInfo info) {
        return List.of(info.getCapacity(), info.getSubFilterCount(), info.getItemCount(), info.getExpansionRate(), info.getSize());
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void scenario(Protocol protocol) {
        RedissonClient redisson = client(protocol);
        try {
            redisson.getKeys().flushall();
            RBloomFilterNative<String> k = redisson.getBloomFilterNative("k");
            k.init(0.001, 1000);
            refused("reserve on an existing key", () -> k.init(0.001, 1000), "item exists");
            assertTrue(k.add("a"), "add");
            assertFalse(k.add("a"), "add again");
            assertEquals(Set.of("b", "c"), k.add(List.of("a", "b", "c")), "madd: the items added");
            assertTrue(k.exists("b"), "exists");
            for (String never : items("never-", 10)) {
                assertFalse(k.exists(never), "exists, never added: " + never);
            }
            assertEquals(Set.of("a", "b", "c"), k.exists(List.of("a", "b", "c", "x", "y")), "mexists: the items present");
            assertEquals(3, k.count(), "card");
            assertEquals(0, redisson.<String>getBloomFilterNative("missing").count(), "card of a missing key");

            BloomFilterInfo info = k.getInfo();
            assertTrue(info.getSize() > 0, "info Size: " + info.getSize());
            assertEquals(List.of(1000L, 1L, 3L, 2L, info.getSize()), fields(info), "info");
            if (protocol == Protocol.RESP2) {
                List<Long> single = new ArrayList<>();
                for (BloomFilterInfoOption option : List.of(BloomFilterInfoOption.CAPACITY, BloomFilterInfoOption.FILTERS,
                         BloomFilterInfoOption.ITEMS, BloomFilterInfoOption.EXPANSION, BloomFilterInfoOption.SIZE)) {
                    single.add(k.getInfo(option));
                }
                assertEquals(fields(info), single, "info, field by field");
            } else {
                // Redisson 4.7's BloomFilterInfoSingleDecoder takes the first element of the reply as
                // the value: under RESP3 that is the map's key ("Capacity"), a ClassCastException,
                // with RedisBloom 2.8.2 as with the module (both reply {"Capacity": 1000}).
                RedisException e = assertThrows(RedisException.class, () -> k.getInfo(BloomFilterInfoOption.CAPACITY));
                assertInstanceOf(ClassCastException.class, e.getCause(), "Redisson's RESP3 single-field info: " + e);
            }
            refused("info of a missing key", () -> redisson.getBloomFilterNative("missing").getInfo(), "not found");

            RBloomFilterNative<String> ins = redisson.getBloomFilterNative("ins");
            assertEquals(Set.of("x", "y"),
                ins.insert(BloomFilterInsertArgs.elements(List.of("x", "y", "x")).capacity(100).errorRate(0.01).expansionRate(4)),
                "insert: the items added");
            BloomFilterInfo inserted = ins.getInfo();
            assertEquals(List.of(100L, 1L, 2L, 4L, inserted.getSize()), fields(inserted), "insert's options");
            refused("insert NOCREATE on a missing key",
                () -> redisson.<String>getBloomFilterNative("missing").insert(BloomFilterInsertArgs.elements(List.of("x")).noCreate(true)),
                "not found");

            RBloomFilterNative<String> fixed = redisson.getBloomFilterNative("fixed");
            fixed.init(BloomFilterInitArgs.create().errorRate(0.01).capacity(10).nonScaling(true));
            // A NONSCALING filter's Expansion rate is nil (RedisBloom's reply too): Redisson 4.7's
            // BloomFilterInfo unboxes it, a NullPointerException, with RedisBloom 2.8.2 as with the module.
            RedisException nonscaling = assertThrows(RedisException.class, fixed::getInfo);
            assertInstanceOf(NullPointerException.class, nonscaling.getCause(), "Redisson's info of a NONSCALING filter: " + nonscaling);
            int added = 0;
            RedisException full = null;
            for (int i = 0; i < 20 && full == null; i++) {
                try {
                    added += fixed.add("f" + i) ? 1 : 0;
                } catch (RedisException e) {
                    full = e;
                }
            }
            assertTrue(full != null && full.getMessage().contains("full"), "a full NONSCALING filter refuses: " + full);
            assertEquals(List.of(10L, 10L), List.of((long) added, fixed.count()), "... once it holds its capacity");
            refused("madd into a full NONSCALING filter", () -> fixed.add(List.of("one-more")), "full");

            RBloomFilterNative<String> grow = redisson.getBloomFilterNative("grow");
            grow.init(0.01, 100);
            List<String> all = items("g", 250);
            grow.add(all);
            BloomFilterInfo grown = grow.getInfo();
            long card = grow.count();
            assertEquals(List.of(2L, 300L), List.of(grown.getSubFilterCount(), grown.getCapacity()),
                "grown: sub-filters, capacity 100 + 200");
            assertEquals(card, grown.getItemCount(), "grown: items inserted is BF.CARD");
            assertTrue(card >= 240 && card <= 250, "grown: about 250 items: " + card);
            assertEquals(Set.copyOf(all), grow.exists(all), "grown: every item present");

            // SCANDUMP into LOADCHUNK: chunks are binary, byte[] in Redisson
            RBloomFilterNative<String> copy = redisson.getBloomFilterNative("copy");
            boolean binary = false;
            int chunks = 0;
            for (long cursor = 0;;) {
                BloomFilterScanDumpInfo chunk = grow.scanDump(cursor);
                if (chunk.getIterator() == 0) {
                    break;
                }
                assertTrue(++chunks < 1000, "scandump: no end after 1000 chunks");
                binary |= !JedisTest.utf8(chunk.getData());
                copy.loadChunk(chunk.getIterator(), chunk.getData());
                cursor = chunk.getIterator();
            }
            assertTrue(binary, "scandump has a non-UTF-8 chunk");
            assertEquals(fields(grown), fields(copy.getInfo()), "the copy's info");
            assertEquals(Set.copyOf(all), copy.exists(all), "the copy's items");
            assertEquals(List.of(true, false), List.of(copy.add("new"), grow.exists("new")), "the copy is independent");

            redisson.getBucket("string", StringCodec.INSTANCE).set("v");
            refused("add to a string", () -> redisson.getBloomFilterNative("string").add("x"), "WRONGTYPE");
        } finally {
            redisson.shutdown();
        }
    }

    /** CuckooFilterInfo has no equals: its eight fields, Size and Number of buckets (ours) first. */
    static List<Long> fields(CuckooFilterInfo info) {
        return List.of(info.getSize(), info.getNumberOfBuckets(), info.getNumberOfFilters(), info.getNumberOfInsertedItems(),
            info.getNumberOfDeletedItems(), info.getBucketSize(), info.getExpansionRate(), info.getMaxIterations());
    }

    /** CF.* through Redisson 4.7's RCuckooFilter; it holds for RedisBloom 2.8.2 too (Size and Number of buckets aside). */
    @ParameterizedTest
    @EnumSource(Protocol.class)
    void cuckoo(Protocol protocol) {
        RedissonClient redisson = client(protocol);
        try {
            redisson.getKeys().flushall();
            RCuckooFilter<String> k = redisson.getCuckooFilter("k", StringCodec.INSTANCE);
            k.init(CuckooFilterInitArgs.capacity(1000).bucketSize(4).maxIterations(50).expansion(2));
            refused("init on an existing key", () -> k.init(1000), "item exists");
            assertTrue(k.add("a"), "add");
            assertTrue(k.add("a"), "add again stores a copy");
            assertFalse(k.addIfAbsent("a"), "addIfAbsent of a present item");
            assertTrue(k.addIfAbsent("b"), "addIfAbsent of a new one");
            assertEquals(2, k.count("a"), "count");
            for (String never : items("never-", 10)) {
                assertFalse(k.exists(never), "exists, never added: " + never);
            }
            assertEquals(Set.of("a", "b"), k.exists(List.of("a", "b", "x")), "mexists: the items present");
            assertTrue(k.remove("a"), "del");
            assertEquals(1, k.count("a"), "count after a del");
            refused("del on a missing key", () -> redisson.<String>getCuckooFilter("missing", StringCodec.INSTANCE).remove("a"), "Not found");

            CuckooFilterInfo info = k.getInfo();
            assertTrue(info.getSize() > 0 && info.getNumberOfBuckets() > 0, "info Size, buckets: " + fields(info));
            assertEquals(List.of(1L, 2L, 1L, 4L, 2L, 50L), fields(info).subList(2, 8), "info: filters, items, deleted, bucket size, expansion, iterations");
            refused("info of a missing key", () -> redisson.<String>getCuckooFilter("missing", StringCodec.INSTANCE).getInfo(), "not found");

            RCuckooFilter<String> ins = redisson.getCuckooFilter("ins", StringCodec.INSTANCE);
            assertEquals(Set.of("x", "y"), ins.add(CuckooFilterAddArgs.items(List.of("x", "y", "x")).capacity(500)), "insert: the items added");
            assertEquals(List.of(1L, 3L), List.of(ins.getInfo().getNumberOfFilters(), ins.getInfo().getNumberOfInsertedItems()), "insert's filter");
            assertEquals(Set.of("z"), ins.addIfAbsent(CuckooFilterAddArgs.items(List.of("x", "z"))), "insertnx: the items added");
            refused("insert NOCREATE on a missing key",
                () -> redisson.<String>getCuckooFilter("missing", StringCodec.INSTANCE).add(CuckooFilterAddArgs.items(List.of("x")).noCreate()),
                "not found");
            List<String> all = items("i", 300);
            ins.add(CuckooFilterAddArgs.items(all));
            assertEquals(Set.copyOf(all), ins.exists(all), "every inserted item present");

            redisson.getBucket("string", StringCodec.INSTANCE).set("v");
            refused("add to a string", () -> redisson.<String>getCuckooFilter("string", StringCodec.INSTANCE).add("x"), "WRONGTYPE");
        } finally {
            redisson.shutdown();
        }
    }
}
