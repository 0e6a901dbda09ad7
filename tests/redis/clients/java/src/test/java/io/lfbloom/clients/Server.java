package io.lfbloom.clients;

/** The server clients.py started for these tests. */
final class Server {
    private Server() {}

    static int port() {
        String port = System.getenv("LFBLOOM_REDIS_PORT");
        if (port == null) {
            throw new IllegalStateException("LFBLOOM_REDIS_PORT is not set: run through tests/redis/clients/clients.py");
        }
        return Integer.parseInt(port);
    }
}
