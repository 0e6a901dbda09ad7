package io.lfbloom;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/** Loading the native library, status codes, and the per-thread buffers keys travel in. */
final class Native {
    static final int OK = 0;
    static final int ERR_INVALID_ARGUMENT = -1;
    static final int ERR_NOT_PRESENT = -5;
    static final int ERR_INCOMPATIBLE = -4;
    static final int ERR_FULL = -10;
    static final int ERR_TOO_MANY_DUPLICATES = -12;
    static final int ERR_AMBIGUOUS = -13;
    static final int FORMAT_NATIVE = 1;
    static final int FORMAT_GUAVA = 2;
    static final int LAYOUT_CLASSIC = 1;
    static final int LAYOUT_BLOCKED = 2;
    static final int LAYOUT_COUNTING = 3;
    static final int LAYOUT_CUCKOO = 7;
    static final int STATS_LENGTH = 13;
    /** enum lfb_kind: the kinds' names, as Stats.layout and Plan.kind give them. */
    private static final String[] KINDS = {"", "classic", "blocked", "counting", "split-block", "one-word", "two-word", "cuckoo"};

    static String kindName(int kind) {
        return kind > 0 && kind < KINDS.length ? KINDS[kind] : "layout " + kind;
    }

    /** System property naming an installed liblfbloom_jni.so to load instead of the jar's copy. */
    static final String LIBRARY_PROPERTY = "lfbloom.library.path";
    private static final String RESOURCE = "/io/lfbloom/native/linux-x86_64/liblfbloom_jni.so";

    static {
        String installed = System.getProperty(LIBRARY_PROPERTY);
        if (installed != null && !installed.isEmpty()) {
            System.load(Path.of(installed).toAbsolutePath().toString());
        } else {
            System.load(extract().toString());
        }
    }

    private Native() {}

    /** Forces the static initializer (the library load) to run. */
    static void load() {}

    private static Path extract() {
        String os = System.getProperty("os.name", "").toLowerCase();
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new UnsatisfiedLinkError("lfbloom's jar carries linux-x86_64 only; set -D" + LIBRARY_PROPERTY
                    + " to a liblfbloom_jni.so built for " + os + "/" + arch);
        }
        try (InputStream in = Native.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new UnsatisfiedLinkError("the jar has no " + RESOURCE);
            Path file = Files.createTempFile("liblfbloom_jni", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot extract " + RESOURCE + ": " + e.getMessage());
            error.initCause(e);
            throw error;
        }
    }

    /** Returns a non-negative status; throws for a negative one with the native message. */
    static int check(int status) {
        if (status >= 0) return status;
        String message = LfbNative.lfb_last_error();
        if (status == ERR_INVALID_ARGUMENT) throw new IllegalArgumentException(message);
        throw new LfbloomException(status, message);
    }

    static long handleOf(int status, long[] out) {
        check(status);
        return out[0];
    }

    // ---- streams ------------------------------------------------------------------------------

    /**
     * Reads a serialized filter of {@code total} bytes whose first bytes ({@code head}) are read
     * already, into a direct buffer. Refuses totals over {@code limit} before allocating, and grows
     * the buffer only as data arrives, so a stream that lies about its size costs at most twice
     * what it really sent.
     */
    static ByteBuffer readSerialized(InputStream in, byte[] head, long total, long limit) throws IOException {
        if (total > limit || total > Integer.MAX_VALUE - 16)
            throw new IOException("the stream declares a filter of " + total + " bytes, over the limit of "
                    + Math.min(limit, Integer.MAX_VALUE - 16));
        ByteBuffer buffer = ByteBuffer.allocateDirect((int) Math.min(total, 1 << 20));
        buffer.put(head);
        byte[] chunk = new byte[1 << 16];
        while (buffer.position() < total) {
            int n = in.read(chunk, 0, (int) Math.min(chunk.length, total - buffer.position()));
            if (n < 0) throw new java.io.EOFException("truncated filter stream: " + buffer.position() + " of " + total + " bytes");
            if (buffer.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocateDirect((int) Math.min(total, 2L * buffer.capacity()));
                bigger.put(buffer.flip());
                buffer = bigger;
            }
            buffer.put(chunk, 0, n);
        }
        return buffer.flip();
    }

    /** Reads one stream in lfbloom's own format (80-byte header, payload, 8-byte trailer). */
    static ByteBuffer readNative(InputStream in, long maxBytes) throws IOException {
        if (in == null) throw new IllegalArgumentException("in is null");
        byte[] head = new byte[80];
        readFully(in, head);
        long payload = ByteBuffer.wrap(head, 64, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (payload < 0) throw new IOException("malformed lfbloom stream: payload of " + payload + " bytes");
        return readSerialized(in, head, 80 + payload + 8, maxBytes);
    }

    static void readFully(InputStream in, byte[] into) throws IOException {
        int at = 0;
        while (at < into.length) {
            int n = in.read(into, at, into.length - at);
            if (n < 0) throw new java.io.EOFException("truncated filter stream: " + at + " of " + into.length + " header bytes");
            at += n;
        }
    }

    static void write(ByteBuffer data, java.io.OutputStream out) throws IOException {
        byte[] chunk = new byte[1 << 16];
        while (data.hasRemaining()) {
            int n = Math.min(chunk.length, data.remaining());
            data.get(chunk, 0, n);
            out.write(chunk, 0, n);
        }
    }

    /** A load failure (corrupt, unsupported, too large) as the IOException streams promise. */
    static IOException loadFailure(RuntimeException e) {
        return new IOException("cannot load the filter: " + e.getMessage(), e);
    }

    /** The default cap on a filter read from a stream: the JVM's maximum heap. */
    static long defaultReadLimit() {
        return Runtime.getRuntime().maxMemory();
    }

    // ---- per-thread direct buffers: no call allocates -------------------------------------------

    private static final ThreadLocal<Buffers> BUFFERS = ThreadLocal.withInitial(Buffers::new);

    static Buffers buffers() {
        return BUFFERS.get();
    }

    /** One thread's buffers. A key or batch is valid only until the thread's next call. */
    static final class Buffers {
        private ByteBuffer key = direct(64);
        private long keyAddress = addressOf(key);
        private ByteBuffer data = direct(4096);
        private ByteBuffer offsets = direct(8 * 257);
        private ByteBuffer results = direct(256);
        private final CharsetEncoder utf8 = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);

        private static ByteBuffer direct(int capacity) {
            return ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        }

        private static ByteBuffer room(ByteBuffer b, long needed) {
            if (needed > Integer.MAX_VALUE) throw new IllegalArgumentException("batch too large: " + needed + " bytes");
            if (b.capacity() >= needed) return b.clear();
            return direct((int) Math.max(needed, 2L * b.capacity()));
        }

        /** The native address of a direct buffer: this thread's key buffer's is kept, others are asked for. */
        long address(ByteBuffer b) {
            return b == key ? keyAddress : addressOf(b);
        }

        private static long addressOf(ByteBuffer b) {
            long address = LfbNative.java_direct_address(b);
            if (address == 0) throw new IllegalArgumentException("a direct ByteBuffer is required");
            return address;
        }

        /** Makes room for a key of {@code length} bytes, keeping the key buffer's address current. */
        private void keyRoom(long length) {
            ByteBuffer b = room(key, length);
            if (b != key) {
                key = b;
                keyAddress = addressOf(b);
            }
        }

        ByteBuffer key(byte[] bytes) {
            if (bytes == null) throw new IllegalArgumentException("key is null");
            keyRoom(bytes.length);
            return key.put(bytes).flip();
        }

        /** The 8 little-endian bytes of {@code value}, as Guava's longFunnel. */
        ByteBuffer key(long value) {
            key.clear().order(ByteOrder.LITTLE_ENDIAN).putLong(0, value);
            return key.order(ByteOrder.nativeOrder()).limit(8);
        }

        /** The UTF-8 bytes of {@code s} (unpaired surrogates become '?', as String.getBytes does). */
        ByteBuffer key(CharSequence s) {
            if (s == null) throw new IllegalArgumentException("key is null");
            keyRoom(3L * s.length());
            utf8.reset();
            CoderResult r = utf8.encode(CharBuffer.wrap(s), key, true);
            if (r.isError() || r.isOverflow()) throw new IllegalStateException("UTF-8 encoding failed: " + r);
            utf8.flush(key);
            return key.flip();
        }

        /** Packs keys for a batch call: data and count + 1 native-order uint64 offsets. */
        void batch(List<byte[]> keys) {
            long total = 0;
            for (byte[] k : keys) {
                if (k == null) throw new IllegalArgumentException("a key in the batch is null");
                total += k.length;
            }
            data = room(data, total);
            offsets = room(offsets, 8L * (keys.size() + 1));
            results = room(results, keys.size());
            long at = 0;
            offsets.putLong(0);
            for (byte[] k : keys) {
                data.put(k);
                at += k.length;
                offsets.putLong(at);
            }
            data.flip();
            offsets.flip();
            results.limit(keys.size());
        }

        ByteBuffer data() {
            return data;
        }

        ByteBuffer offsets() {
            return offsets;
        }

        ByteBuffer results() {
            return results;
        }
    }
}
