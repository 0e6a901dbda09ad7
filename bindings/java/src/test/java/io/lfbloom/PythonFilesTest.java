package io.lfbloom;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Python's files in Java and Java's for Python (ctest java passes lfbloom.python.files, the
 * directory that ctest python.go fills with Python's filters; ctest python.java then checks the
 * files written here). The keys follow bindings/python/tests/exchange.py's rule: str keys
 * "xlang:é:&lt;i&gt;" and long keys i * 0x9E3779B97F4A7C15 (8 little-endian bytes, as Python's ints
 * and Go's uint64); keys 0 to 1999 are added, 0 to 3999 asked. Java's filter of the same keys is
 * Python's file byte for byte, and the loaded file answers every asked key as Java's does.
 */
class PythonFilesTest {
    private static final int ADDED = 2000, ASKED = 4000;

    @Test
    void pythonsFilesAreJavasBitsAndAnswerAlike() throws IOException {
        String dir = System.getProperty("lfbloom.python.files", "");
        Assumptions.assumeFalse(dir.isEmpty(), "lfbloom.python.files is not set (no Python tests in this build)");
        Path d = Path.of(dir);
        List<String> strs = new ArrayList<>();
        long[] longs = new long[ASKED];
        for (int i = 0; i < ASKED; i++) {
            strs.add("xlang:\u00e9:" + i);
            longs[i] = i * 0x9E3779B97F4A7C15L;
        }
        for (String name : List.of("str", "int")) {
            try (BloomFilter ours = BloomFilter.create(ADDED, 0.01, BloomFilter.Options.defaults().seed(39))) {
                boolean[] answers;
                if (name.equals("str")) {
                    ours.putAll(strs.subList(0, ADDED));
                    answers = ours.mightContainAll(strs);
                } else {
                    ours.putAll(java.util.Arrays.copyOf(longs, ADDED));
                    answers = ours.mightContainAll(longs);
                }
                ByteArrayOutputStream saved = new ByteArrayOutputStream();
                ours.save(saved);
                byte[] data = Files.readAllBytes(d.resolve("py-" + name + ".lfb"));
                assertArrayEquals(data, saved.toByteArray(), "py-" + name + ".lfb: not the bytes Java makes from the same keys");
                try (BloomFilter theirs = BloomFilter.load(new ByteArrayInputStream(data))) {
                    boolean[] got = name.equals("str") ? theirs.mightContainAll(strs) : theirs.mightContainAll(longs);
                    for (int i = 0; i < ASKED; i++) {
                        assertEquals(answers[i], got[i], name + " key " + i);
                        assertTrue(i >= ADDED || got[i], name + " key " + i + ": a false negative");
                    }
                }
                Files.write(d.resolve("java-" + name + ".lfb"), saved.toByteArray());
            }
        }
    }
}
