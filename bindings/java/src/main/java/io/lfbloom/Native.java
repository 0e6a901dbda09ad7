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

/**
 * Loading the native library, turning statuses into exceptions, reading saved filters from
 * streams, and the per-thread buffers keys travel in. Every status, kind and format number comes
 * from lfbloom.h through the SWIG constants; none is restated here.
 */
final class Native {
    /** System property naming an installed liblfbloom_jni.so to load instead of the jar's copy. */
    static final String LIBRARY_PROPERTY = "lfbloom.library.path";
    private static final String RESOURCE = "/io/lfbloom/native/linux-x86_64/liblfbloom_jni.so";

    /**
     * Keys per native batch call, and the bytes after which a chunk ends early: a batch over a
     * big collection goes in chunks, so its buffers stay near 1 MiB however many keys there are,
     * while each call still amortizes its JNI cost and prefetches over thousands of keys.
     */
    static final int CHUNK_KEYS = 4096;
    static final int CHUNK_BYTES = 1 << 20;
    /**
     * The same for a bulk build (LFB_BATCH_BULK), whose every call passes over the whole filter:
     * as many keys per call as direct buffers hold (8 bytes of offset a key, then the keys' bytes).
     */
    static final int BULK_CHUNK_KEYS = 1 << 27;
    static final int BULK_CHUNK_BYTES = 1 << 30;

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

    /**
     * Returns a non-negative status; throws for a negative one, as lfb_status_class classes it:
     * the caller's mistake (LFB_CLASS_ARGUMENT) is an IllegalArgumentException, anything else an
     * LfbloomException with this thread's native message.
     */
    static int check(int status) {
        if (status >= 0) return status;
        throw failure(status, -1);
    }

    /** The exception for a failed status; {@code keysDone} >= 0 for a batch that stopped at that key. */
    static RuntimeException failure(int status, long keysDone) {
        String message = LfbNative.lfb_last_error();
        if (LfbNative.lfb_status_class(status) == lfb_status_class_enum.LFB_CLASS_ARGUMENT) return new IllegalArgumentException(message);
        return new LfbloomException(status, message, keysDone);
    }

    static long handleOf(int status, long[] out) {
        check(status);
        return out[0];
    }

    /** lfb_kind_name: "blocked", "cuckoo", "scalable", ... */
    static String kindName(long kind) {
        String name = LfbNative.lfb_kind_name(kind);
        return name != null ? name : "kind " + kind;
    }

    /** A string's UTF-8 bytes and a terminating 0, as C takes it (the SWIG typemap's side in Java). */
    static byte[] cString(String s) {
        if (s == null) return null;
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        for (byte b : utf8) if (b == 0) throw new IllegalArgumentException("a string with a NUL character has no C form");
        return java.util.Arrays.copyOf(utf8, utf8.length + 1);
    }

    // ---- streams ------------------------------------------------------------------------------

    /**
     * Reads exactly one saved filter in {@code format} from the stream, leaving the stream at its
     * end: the header, then the whole length lfb_load_size_kinds reads from that header (the format
     * is the C library's to parse). A header that is corrupt, declares a filter over {@code maxBytes}
     * (which must be positive), one of a kind not in {@code kinds}, or (subKind not 0) one whose
     * lfb_info sub_kind is not {@code subKind}, throws IOException before the rest is read or
     * anything allocated; the buffer then grows
     * only as data arrives, so a stream that lies about its size costs at most twice what it sent.
     */
    static ByteBuffer readSaved(InputStream in, int format, long maxBytes, String what, int subKind, int[] kinds) throws IOException {
        if (in == null) throw new IllegalArgumentException("in is null");
        if (maxBytes <= 0) throw new IllegalArgumentException("maxBytes must be positive");
        byte[] head = new byte[format == lfb_format_enum.LFB_FORMAT_GUAVA ? LfbNativeConstants.LFB_GUAVA_HEADER_BYTES
                : LfbNativeConstants.LFB_NATIVE_HEADER_BYTES];
        readFully(in, head);
        long[] total = new long[1];
        int[] kind = new int[1], sub = new int[1];
        try {
            check(LfbNative.lfb_load_size_kinds(format, buffers().key(head), maxBytes, total, kind, sub));
            if (java.util.Arrays.stream(kinds).noneMatch(k -> k == kind[0]))  // before reading the rest
                throw new LfbloomException(lfb_status_enum.LFB_ERR_INCOMPATIBLE,
                        "the stream holds a filter of another kind (" + kindName(kind[0]) + "), not " + what, -1);
            if (subKind != 0 && sub[0] != subKind)
                throw new LfbloomException(lfb_status_enum.LFB_ERR_INCOMPATIBLE,
                        "the stream holds a " + kindName(kind[0]) + " filter of " + kindName(sub[0]) + " parts, not " + what, -1);
        } catch (IllegalArgumentException | LfbloomException e) {
            throw loadFailure(e);
        }
        if (total[0] > Integer.MAX_VALUE - 16)
            throw new IOException("the stream declares a filter of " + total[0] + " bytes, more than one buffer holds");
        ByteBuffer buffer = ByteBuffer.allocateDirect((int) Math.min(total[0], 1 << 20));
        buffer.put(head);
        byte[] chunk = new byte[1 << 16];
        while (buffer.position() < total[0]) {
            int n = in.read(chunk, 0, (int) Math.min(chunk.length, total[0] - buffer.position()));
            if (n < 0) throw new java.io.EOFException("truncated filter stream: " + buffer.position() + " of " + total[0] + " bytes");
            if (buffer.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocateDirect((int) Math.min(total[0], 2L * buffer.capacity()));
                bigger.put(buffer.flip());
                buffer = bigger;
            }
            buffer.put(chunk, 0, n);
        }
        return buffer.flip();
    }

    private static void readFully(InputStream in, byte[] into) throws IOException {
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

    /**
     * One thread's buffers: one key, or one chunk of a batch (its keys end to end, count + 1
     * native-order uint64 offsets, a result byte per key). Valid until the thread's next call.
     */
    static final class Buffers {
        private ByteBuffer key = direct(64);
        private long keyAddress = addressOf(key);
        private final int chunkKeys, chunkBytes, dataBytes;
        private ByteBuffer data;
        private final ByteBuffer offsets;
        private final ByteBuffer results;
        private int count;
        boolean busy;  // a batch is filling these buffers: one started inside it (by a key source) takes fresh ones
        private final CharsetEncoder utf8 = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);

        Buffers() {
            this(CHUNK_KEYS, CHUNK_BYTES, CHUNK_BYTES / 4, true);
        }

        private Buffers(int chunkKeys, int chunkBytes, int dataBytes, boolean results) {
            this.chunkKeys = chunkKeys;
            this.chunkBytes = chunkBytes;
            this.dataBytes = dataBytes;
            data = direct(dataBytes).order(ByteOrder.LITTLE_ENDIAN);  // long keys are little-endian
            offsets = direct(8 * (chunkKeys + 1));
            this.results = results ? direct(chunkKeys) : null;
        }

        /**
         * Buffers of one bulk build, not kept after it: chunks of up to BULK_CHUNK_KEYS keys or about
         * BULK_CHUNK_BYTES bytes, sized for {@code keys} keys of {@code bytes} bytes in all, without
         * result bytes.
         */
        static Buffers bulk(int keys, long bytes) {
            return new Buffers(Math.max(1, Math.min(keys, BULK_CHUNK_KEYS)), BULK_CHUNK_BYTES,
                    (int) Math.max(64, Math.min(bytes, BULK_CHUNK_BYTES)), false);
        }

        private static ByteBuffer direct(int capacity) {
            return ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        }

        /** {@code b}, or a bigger buffer holding its bytes before the position, with room for {@code more}. */
        private static ByteBuffer room(ByteBuffer b, long more) {
            long needed = b.position() + more;
            if (needed > Integer.MAX_VALUE - 16) throw new IllegalArgumentException("key too large: " + more + " bytes");
            if (b.remaining() >= more) return b;
            ByteBuffer bigger = direct((int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * b.capacity()))).order(b.order());
            return bigger.put(b.flip());
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

        /** Empties the key buffer with room for {@code length} bytes, keeping its address current. */
        private ByteBuffer keyRoom(long length) {
            ByteBuffer b = room(key.clear(), length);
            if (b != key) {
                key = b;
                keyAddress = addressOf(b);
            }
            return key;
        }

        ByteBuffer key(byte[] bytes) {
            if (bytes == null) throw new IllegalArgumentException("key is null");
            return keyRoom(bytes.length).put(bytes).flip();
        }

        /** The 8 little-endian bytes of {@code value}, as Guava's longFunnel. */
        ByteBuffer key(long value) {
            key.clear().order(ByteOrder.LITTLE_ENDIAN).putLong(0, value);
            return key.order(ByteOrder.nativeOrder()).limit(8);
        }

        /** The UTF-8 bytes of {@code s} (unpaired surrogates become '?', as String.getBytes does). */
        ByteBuffer key(CharSequence s) {
            if (s == null) throw new IllegalArgumentException("key is null");
            encode(s, keyRoom(3L * s.length()));
            return key.flip();
        }

        /** The remaining bytes of {@code b}: b itself if direct, else a copy in the key buffer. */
        ByteBuffer key(ByteBuffer b) {
            if (b == null) throw new IllegalArgumentException("key is null");
            if (b.isDirect()) return b;
            return keyRoom(b.remaining()).put(b.duplicate()).flip();
        }

        private void encode(CharSequence s, ByteBuffer into) {
            utf8.reset();
            CoderResult r = utf8.encode(CharBuffer.wrap(s), into, true);
            if (r.isError() || r.isOverflow()) throw new IllegalStateException("UTF-8 encoding failed: " + r);
            utf8.flush(into);
        }

        // ---- one chunk of a batch ----

        /** Starts a chunk; a data buffer a huge key grew past 4 chunks' worth is dropped. */
        void begin() {
            if (data.capacity() > 4L * chunkBytes) data = direct(dataBytes).order(ByteOrder.LITTLE_ENDIAN);
            data.clear();
            offsets.clear().putLong(0);
            count = 0;
        }

        /** True once the chunk holds CHUNK_KEYS keys or CHUNK_BYTES bytes (a bulk build's: BULK_CHUNK_*). */
        boolean full() {
            return count == chunkKeys || data.position() >= chunkBytes;
        }

        void add(byte[] k) {
            if (k == null) throw new IllegalArgumentException("a key in the batch is null");
            data = room(data, k.length).put(k);
            end();
        }

        void add(CharSequence k) {
            if (k == null) throw new IllegalArgumentException("a key in the batch is null");
            data = room(data, 3L * k.length());
            encode(k, data);
            end();
        }

        void add(long k) {
            data = room(data, 8).putLong(k);
            end();
        }

        private void end() {
            offsets.putLong(data.position());
            count++;
        }

        int count() {
            return count;
        }

        /** Ends the chunk: its buffers are ready for lfb_java_batch. */
        void finish() {
            data.flip();
            offsets.flip();
            if (results != null) results.clear().limit(count);
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
