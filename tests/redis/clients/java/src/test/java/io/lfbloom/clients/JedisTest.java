package io.lfbloom.clients;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.bloom.BFInsertParams;
import redis.clients.jedis.bloom.CFInsertParams;
import redis.clients.jedis.bloom.CFReserveParams;
import redis.clients.jedis.bloom.BFReserveParams;
import redis.clients.jedis.exceptions.JedisDataException;

/** Jedis 5 against the module: BF.* and CF.* through UnifiedJedis's bf* and cf* methods, under RESP2 and RESP3. */
class JedisTest {
    static void refused(String what, Executable call, String text) {
        JedisDataException e = assertThrows(JedisDataException.class, call, what);
        assertTrue(e.getMessage().contains(text), what + ": " + e.getMessage() + ", want " + text);
    }

    static String[] items(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).toArray(String[]::new);
    }

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void scenario(RedisProtocol protocol) {
        var config = DefaultJedisClientConfig.builder().protocol(protocol).build();
        try (UnifiedJedis jedis = new UnifiedJedis(new HostAndPort("127.0.0.1", Server.port()), config)) {
            jedis.flushAll();
            assertEquals("OK", jedis.bfReserve("k", 0.001, 1000));
            refused("reserve on an existing key", () -> jedis.bfReserve("k", 0.001, 1000), "item exists");
            assertTrue(jedis.bfAdd("k", "a"), "add");
            assertFalse(jedis.bfAdd("k", "a"), "add again");
            assertEquals(List.of(false, true, true), jedis.bfMAdd("k", "a", "b", "c"), "madd");
            assertTrue(jedis.bfExists("k", "b"), "exists");
            for (String never : items("never-", 10)) {
                assertFalse(jedis.bfExists("k", never), "exists, never added: " + never);
            }
            assertEquals(List.of(true, true, true, false, false), jedis.bfMExists("k", "a", "b", "c", "x", "y"), "mexists");
            assertEquals(3, jedis.bfCard("k"), "card");
            assertEquals(0, jedis.bfCard("missing"), "card of a missing key");

            Map<String, Object> info = new HashMap<>(jedis.bfInfo("k"));
            Object size = info.remove("Size");
            assertTrue(size instanceof Long && (Long) size > 0, "info Size: " + size);
            assertEquals(Map.of("Capacity", 1000L, "Number of filters", 1L, "Number of items inserted", 3L, "Expansion rate", 2L),
                info, "info");
            refused("info of a missing key", () -> jedis.bfInfo("missing"), "not found");

            var options = BFInsertParams.insertParams().capacity(100).error(0.01).expansion(4);
            assertEquals(List.of(true, true, false), jedis.bfInsert("ins", options, "x", "y", "x"), "insert");
            Map<String, Object> inserted = new HashMap<>(jedis.bfInfo("ins"));
            inserted.remove("Size");
            assertEquals(Map.of("Capacity", 100L, "Number of filters", 1L, "Number of items inserted", 2L, "Expansion rate", 4L),
                inserted, "insert's options");
            refused("insert NOCREATE on a missing key",
                () -> jedis.bfInsert("missing", BFInsertParams.insertParams().noCreate(), "x"), "not found");

            assertEquals("OK", jedis.bfReserve("fixed", 0.01, 10, BFReserveParams.reserveParams().nonScaling()));
            Map<String, Object> fixed = jedis.bfInfo("fixed");
            assertTrue(fixed.containsKey("Expansion rate") && fixed.get("Expansion rate") == null,
                "NONSCALING: a null expansion rate: " + fixed);
            int added = 0;
            JedisDataException full = null;
            for (int i = 0; i < 20 && full == null; i++) {
                try {
                    added += jedis.bfAdd("fixed", "f" + i) ? 1 : 0;
                } catch (JedisDataException e) {
                    full = e;
                }
            }
            assertTrue(full != null && full.getMessage().contains("full"), "a full NONSCALING filter refuses: " + full);
            assertEquals(List.of(10L, 10L), List.of((long) added, jedis.bfCard("fixed")), "... once it holds its capacity");
            // BF.MADD's array holds the error for an item refused: Jedis 5.2 makes it null, with
            // RedisBloom 2.8.2 as with the module
            assertEquals(Collections.singletonList(null), jedis.bfMAdd("fixed", "one-more"), "madd into a full NONSCALING filter");

            assertEquals("OK", jedis.bfReserve("grow", 0.01, 100));
            String[] all = items("g", 250);
            jedis.bfMAdd("grow", all);
            Map<String, Object> grown = jedis.bfInfo("grow");
            long card = jedis.bfCard("grow");
            assertEquals(List.of(2L, 300L), List.of(grown.get("Number of filters"), grown.get("Capacity")),
                "grown: sub-filters, capacity 100 + 200");
            assertEquals(card, grown.get("Number of items inserted"), "grown: items inserted is BF.CARD");
            assertTrue(card >= 240 && card <= 250, "grown: about 250 items: " + card);
            assertEquals(Collections.nCopies(250, true), jedis.bfMExists("grow", all), "grown: every item present");

            // SCANDUMP into LOADCHUNK: chunks are binary, byte[] in Jedis
            List<Map.Entry<Long, byte[]>> chunks = scanDump(cursor -> jedis.bfScanDump("grow", cursor));
            boolean binary = false;
            for (Map.Entry<Long, byte[]> chunk : chunks) {
                binary |= !utf8(chunk.getValue());
                assertEquals("OK", jedis.bfLoadChunk("copy", chunk.getKey(), chunk.getValue()), "loadchunk " + chunk.getKey());
            }
            assertTrue(binary, "scandump has a non-UTF-8 chunk");
            assertEquals(grown, jedis.bfInfo("copy"), "the copy's info");
            assertEquals(Collections.nCopies(250, true), jedis.bfMExists("copy", all), "the copy's items");
            assertArrayEquals(new boolean[] {true, false}, new boolean[] {jedis.bfAdd("copy", "new"), jedis.bfExists("grow", "new")},
                "the copy is independent");

            jedis.set("string", "v");
            refused("add to a string", () -> jedis.bfAdd("string", "x"), "WRONGTYPE");
        }
    }

    /** CF.* through UnifiedJedis's cf* methods; it holds for RedisBloom 2.8.2 too (Size and Number of buckets aside). */
    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void cuckooScenario(RedisProtocol protocol) {
        var config = DefaultJedisClientConfig.builder().protocol(protocol).build();
        try (UnifiedJedis jedis = new UnifiedJedis(new HostAndPort("127.0.0.1", Server.port()), config)) {
            jedis.flushAll();
            assertEquals("OK", jedis.cfReserve("k", 1000, CFReserveParams.reserveParams().bucketSize(4).maxIterations(50).expansion(2)));
            refused("reserve on an existing key", () -> jedis.cfReserve("k", 1000), "item exists");
            assertTrue(jedis.cfAdd("k", "a"), "add");
            assertTrue(jedis.cfAdd("k", "a"), "add again stores a copy");
            assertFalse(jedis.cfAddNx("k", "a"), "addnx of a present item");
            assertTrue(jedis.cfAddNx("k", "b"), "addnx of a new one");
            assertEquals(2, jedis.cfCount("k", "a"), "count");
            for (String never : items("never-", 10)) {
                assertFalse(jedis.cfExists("k", never), "exists, never added: " + never);
            }
            assertEquals(List.of(true, true, false), jedis.cfMExists("k", "a", "b", "x"), "mexists");
            assertTrue(jedis.cfDel("k", "a"), "del");
            assertEquals(1, jedis.cfCount("k", "a"), "count after a del");
            refused("del on a missing key", () -> jedis.cfDel("missing", "a"), "Not found");

            Map<String, Object> info = new HashMap<>(jedis.cfInfo("k"));
            assertTrue((Long) info.remove("Size") > 0 && (Long) info.remove("Number of buckets") > 0, "info Size, Number of buckets");
            assertEquals(Map.of("Number of filters", 1L, "Number of items inserted", 2L, "Number of items deleted", 1L,
                "Bucket size", 4L, "Expansion rate", 2L, "Max iterations", 50L), info, "info");
            refused("info of a missing key", () -> jedis.cfInfo("missing"), "not found");

            assertEquals(List.of(true, true, true), jedis.cfInsert("ins", CFInsertParams.insertParams().capacity(500), "x", "y", "x"),
                "insert creates");
            assertEquals(List.of(false, true), jedis.cfInsertNx("ins", "x", "z"), "insertnx");
            refused("insert NOCREATE on a missing key", () -> jedis.cfInsert("missing", CFInsertParams.insertParams().noCreate(), "x"),
                "not found");
            String[] all = items("c", 300);
            jedis.cfInsert("ins", all);
            assertEquals(Collections.nCopies(300, true), jedis.cfMExists("ins", all), "every inserted item present");

            // SCANDUMP into LOADCHUNK: each module's own bytes, opaque to the client; the end is [0, nil]
            List<Map.Entry<Long, byte[]>> chunks = scanDump(cursor -> jedis.cfScanDump("ins", cursor));
            for (Map.Entry<Long, byte[]> chunk : chunks) {
                assertEquals("OK", jedis.cfLoadChunk("copy", chunk.getKey(), chunk.getValue()), "loadchunk " + chunk.getKey());
            }
            assertEquals(jedis.cfInfo("ins"), jedis.cfInfo("copy"), "the copy's info");
            assertEquals(Collections.nCopies(300, true), jedis.cfMExists("copy", all), "the copy's items");

            jedis.set("string", "v");
            refused("add to a string", () -> jedis.cfAdd("string", "x"), "WRONGTYPE");
        }
    }

    /** A SCANDUMP's chunks, from cursor 0 to the reply of cursor 0 that ends it. */
    static List<Map.Entry<Long, byte[]>> scanDump(LongFunction<Map.Entry<Long, byte[]>> next) {
        List<Map.Entry<Long, byte[]>> chunks = new ArrayList<>();
        for (Map.Entry<Long, byte[]> chunk = next.apply(0); chunk.getKey() != 0; chunk = next.apply(chunk.getKey())) {
            assertTrue(chunks.size() < 1000, "scandump: no end after 1000 chunks");
            chunks.add(chunk);
        }
        return chunks;
    }

    static boolean utf8(byte[] data) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(data));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
