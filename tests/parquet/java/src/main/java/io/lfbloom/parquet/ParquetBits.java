package io.lfbloom.parquet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.io.api.Binary;

/**
 * Apache Parquet's split-block Bloom filter (parquet-mr's {@link BlockSplitBloomFilter}) behind the
 * command-line interface of lfbloom-parquet-interop, so tests/parquet/interop.py can run either:
 *
 * <pre>
 *   write NUM_BYTES KEYS_FILE OUT_FILE   a new filter of NUM_BYTES, every key inserted; OUT_FILE gets
 *                                        the raw bitset (no Thrift header), exactly NUM_BYTES bytes
 *   check BITSET_FILE KEYS_FILE          prints one line: how many keys the filter over those bytes finds
 * </pre>
 *
 * KEYS_FILE holds one key per line, each the key's bytes in hexadecimal, every line ending in '\n'; an
 * empty line is the empty key. A key is hashed as parquet-mr hashes a BYTE_ARRAY value (XXH64 of its
 * bytes, seed 0). parquet-mr rounds NUM_BYTES up to a power of two and clamps it to [32 bytes, 128 MiB];
 * write refuses a NUM_BYTES that it would change rather than write a bitset of another size.
 */
public final class ParquetBits {
  private ParquetBits() {}

  public static void main(String[] args) {
    try {
      if (args.length == 4 && args[0].equals("write")) {
        write(parseSize(args[1]), Path.of(args[2]), Path.of(args[3]));
      } else if (args.length == 3 && args[0].equals("check")) {
        System.out.println(check(Path.of(args[1]), Path.of(args[2])));
      } else {
        fail("usage: write NUM_BYTES KEYS_FILE OUT_FILE | check BITSET_FILE KEYS_FILE");
      }
    } catch (IOException | IllegalArgumentException e) {
      fail(e.toString());
    }
  }

  private static void write(int numBytes, Path keysFile, Path outFile) throws IOException {
    BlockSplitBloomFilter filter = new BlockSplitBloomFilter(numBytes);
    if (filter.getBitsetSize() != numBytes) {
      fail("parquet-mr makes a bitset of " + filter.getBitsetSize() + " bytes for num_bytes " + numBytes
          + " (it takes powers of two from " + BlockSplitBloomFilter.LOWER_BOUND_BYTES + " to "
          + BlockSplitBloomFilter.UPPER_BOUND_BYTES + ")");
    }
    for (byte[] key : readKeys(keysFile)) {
      filter.insertHash(filter.hash(Binary.fromConstantByteArray(key)));
    }
    // writeTo writes the bitset alone (the header is the writer's job); make sure of it.
    ByteArrayOutputStream bits = new ByteArrayOutputStream(numBytes);
    filter.writeTo(bits);
    if (bits.size() != numBytes) {
      fail("BlockSplitBloomFilter.writeTo wrote " + bits.size() + " bytes, not the " + numBytes + " of its bitset");
    }
    Files.write(outFile, bits.toByteArray());
  }

  private static long check(Path bitsetFile, Path keysFile) throws IOException {
    byte[] bitset = Files.readAllBytes(bitsetFile);
    if (bitset.length == 0 || bitset.length % 32 != 0) {
      fail(bitsetFile + ": " + bitset.length + " bytes is not a whole number of 32-byte blocks");
    }
    BlockSplitBloomFilter filter = new BlockSplitBloomFilter(bitset);
    long found = 0;
    for (byte[] key : readKeys(keysFile)) {
      if (filter.findHash(filter.hash(Binary.fromConstantByteArray(key)))) {
        ++found;
      }
    }
    return found;
  }

  private static int parseSize(String text) {
    int numBytes = Integer.parseInt(text);
    if (numBytes <= 0) {
      throw new IllegalArgumentException("num_bytes must be positive: " + text);
    }
    return numBytes;
  }

  /** One key a line, each in hex; every line ends in '\n' (so an empty file holds no key). */
  static List<byte[]> readKeys(Path file) throws IOException {
    byte[] text = Files.readAllBytes(file);
    if (text.length > 0 && text[text.length - 1] != '\n') {
      throw new IllegalArgumentException(file + ": the last line does not end in a newline");
    }
    List<byte[]> keys = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < text.length; ++i) {
      if (text[i] != '\n') {
        continue;
      }
      int digits = i - start;
      if (digits % 2 != 0) {
        throw new IllegalArgumentException(file + ": line " + (keys.size() + 1) + " has an odd number of hex digits");
      }
      byte[] key = new byte[digits / 2];
      for (int j = 0; j < key.length; ++j) {
        key[j] = (byte) (nibble(text[start + 2 * j], file, keys.size()) << 4 | nibble(text[start + 2 * j + 1], file, keys.size()));
      }
      keys.add(key);
      start = i + 1;
    }
    return keys;
  }

  private static int nibble(byte c, Path file, int line) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    throw new IllegalArgumentException(file + ": line " + (line + 1) + " is not lowercase hex");
  }

  private static void fail(String message) {
    System.err.println("parquet-bits: " + message);
    System.exit(2);
  }
}
