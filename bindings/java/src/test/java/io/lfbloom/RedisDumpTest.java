package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A BF key's BF.SCANDUMP laid end to end, as ctest redis.exchange writes it with the keys it probed
 * and the key's answers (ctest java passes the directory as lfbloom.redis.dump when the Redis tests
 * run): ScalableBloomFilter.load reads it, answers every probe as the key did, and saves it back
 * byte for byte.
 */
class RedisDumpTest {
    @Test
    void aRedisDumpAnswersAsItsKey() throws IOException {
        String dir = System.getProperty("lfbloom.redis.dump", "");
        Assumptions.assumeFalse(dir.isEmpty(), "lfbloom.redis.dump is not set (no Redis tests in this build)");
        Path d = Path.of(dir);
        byte[] dump = Files.readAllBytes(d.resolve("redis-dump.lfb"));
        List<String> probes = Files.readAllLines(d.resolve("probes.txt"));
        String answers = Files.readString(d.resolve("answers.txt"));
        assertTrue(probes.size() >= 1000 && probes.size() == answers.length(), probes.size() + " probes, " + answers.length() + " answers");
        try (ScalableBloomFilter f = ScalableBloomFilter.load(new ByteArrayInputStream(dump))) {
            boolean[] got = f.mightContainAll(probes);
            for (int i = 0; i < probes.size(); i++)
                assertEquals(answers.charAt(i) == '1', got[i], probes.get(i) + ": Redis answered " + answers.charAt(i));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            f.save(out);
            assertArrayEquals(dump, out.toByteArray(), "the save of the loaded dump is the dump");
        }
    }
}
