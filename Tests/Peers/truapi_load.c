/* truapi-load: the load generator of `make bench`'s TrUAPI rows (Tests/Peers/bench_truapi.py).
 *
 * Opens N WebSocket connections to a ws://127.0.0.1:PORT/… URL (RFC 6455 client, one thread per connection, no
 * library), and on each sends one binary frame and waits for one answer, again and again, for a fixed time. Every
 * answer must equal --expect byte for byte. It prints one JSON line: round trips, round trips per second over all
 * connections, and the p50, p99 and maximum of the round-trip times after the warm-up.
 *
 * Written in C so that the generator is not what limits the figures: per round trip it does one write, one read
 * (usually) and a memcmp, with the masked frame built once. While it waits for an answer it polls the socket for
 * up to --spin-us microseconds (default 50) before it sleeps in recv: on an idle machine the wake-up of a sleeping
 * thread costs more than a round trip, and it would be measured as the server's. --spin-us 0 sleeps at once.
 *
 *   truapi-load --url ws://127.0.0.1:PORT/?t=TOKEN --frame HEX --expect HEX [--connections N] [--seconds S]
 *               [--warmup S] [--spin-us N]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *host = "127.0.0.1";
static int port;
static char target[4096] = "/";
static unsigned char frame[1 << 16], expect[1 << 16];
static size_t frame_len, expect_len;
static double seconds = 3, warmup = 0.5, spin = 50e-6;
static atomic_int failures;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what) {
    fprintf(stderr, "truapi-load: %s\n", what);
    exit(2);
}

static size_t from_hex(const char *text, unsigned char *out, size_t capacity) {
    size_t length = strlen(text);
    if (length % 2 || length / 2 > capacity) die("bad hex");
    for (size_t i = 0; i < length / 2; i++) {
        unsigned int byte;
        if (sscanf(text + 2 * i, "%2x", &byte) != 1) die("bad hex");
        out[i] = (unsigned char)byte;
    }
    return length / 2;
}

static void parse_url(const char *url) {
    if (strncmp(url, "ws://", 5) != 0) die("the URL must start with ws://");
    const char *authority = url + 5, *slash = strpbrk(authority, "/?");
    const char *colon = memchr(authority, ':', slash ? (size_t)(slash - authority) : strlen(authority));
    if (!colon) die("the URL needs a port");
    static char name[256];
    size_t name_len = (size_t)(colon - authority);
    if (name_len >= sizeof name) die("host too long");
    memcpy(name, authority, name_len);
    name[name_len] = 0;
    host = name;
    port = atoi(colon + 1);
    if (slash) snprintf(target, sizeof target, "%s%s", *slash == '?' ? "/" : "", slash);
}

static int write_all(int fd, const unsigned char *bytes, size_t length) {
    while (length > 0) {
        ssize_t n = send(fd, bytes, length, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        bytes += n;
        length -= (size_t)n;
    }
    return 0;
}

/* A buffered reader of one connection. */
typedef struct {
    int fd;
    unsigned char buffer[1 << 17];
    size_t start, end;
} reader_t;

static int fill(reader_t *r, size_t need) {
    if (r->end - r->start >= need) return 0;
    if (r->start > 0) {
        memmove(r->buffer, r->buffer + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (need > sizeof r->buffer) return -1;
    double spin_until = spin > 0 ? now() + spin : 0;
    while (r->end - r->start < need) {
        int spinning = spin_until > 0 && now() < spin_until;
        ssize_t n = recv(r->fd, r->buffer + r->end, sizeof r->buffer - r->end, spinning ? MSG_DONTWAIT : 0);
        if (n < 0 && spinning && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            sched_yield(); /* free on an idle machine; on a busy one the server may be waiting for this core */
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        r->end += (size_t)n;
    }
    return 0;
}

static unsigned char masked_frame(unsigned char opcode, const unsigned char *payload, size_t length, unsigned char *out,
                                  size_t *out_len) {
    static const unsigned char mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    size_t at = 0;
    out[at++] = 0x80 | opcode;
    if (length < 126) {
        out[at++] = 0x80 | (unsigned char)length;
    } else {
        out[at++] = 0x80 | 126;
        out[at++] = (unsigned char)(length >> 8);
        out[at++] = (unsigned char)length;
    }
    memcpy(out + at, mask, 4);
    at += 4;
    for (size_t i = 0; i < length; i++) out[at + i] = payload[i] ^ mask[i % 4];
    *out_len = at + length;
    return 0;
}

/* Reads the next data message (answering pings); its payload is left at r->buffer + r->start, length *length. */
static int next_message(reader_t *r, size_t *length, unsigned char *opcode) {
    for (;;) {
        if (fill(r, 2) < 0) return -1;
        unsigned char *head = r->buffer + r->start;
        unsigned char code = head[0] & 0x0f;
        size_t header = 2, len = head[1] & 0x7f;
        if (head[1] & 0x80) return -1; /* servers never mask */
        if (len == 126) {
            if (fill(r, 4) < 0) return -1;
            head = r->buffer + r->start;
            len = ((size_t)head[2] << 8) | head[3];
            header = 4;
        } else if (len == 127) {
            if (fill(r, 10) < 0) return -1;
            head = r->buffer + r->start;
            len = 0;
            for (int i = 2; i < 10; i++) len = (len << 8) | head[i];
            header = 10;
        }
        if (fill(r, header + len) < 0) return -1;
        r->start += header;
        if (code == 0x9) { /* ping: answer with a pong of the same payload */
            unsigned char pong[256];
            size_t pong_len;
            if (len > 125) return -1;
            masked_frame(0xA, r->buffer + r->start, len, pong, &pong_len);
            r->start += len;
            if (write_all(r->fd, pong, pong_len) < 0) return -1;
            continue;
        }
        if (code == 0xA) {
            r->start += len;
            continue;
        }
        if (!(head[0] & 0x80)) return -1; /* the answers here are one frame each */
        *length = len;
        *opcode = code;
        return 0;
    }
}

typedef struct {
    pthread_t thread;
    int index;
    double *samples;
    size_t count, capacity;
    long round_trips;
} worker_t;

static pthread_barrier_t barrier;
static double begin_at, measure_at, end_at;

static int connect_socket(reader_t *r) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, &address.sin_addr) != 1) return -1;
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) return -1;
    char request[8192];
    int n = snprintf(request, sizeof request,
                     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                     target, host, port);
    if (write_all(fd, (unsigned char *)request, (size_t)n) < 0) return -1;
    r->fd = fd;
    r->start = r->end = 0;
    /* The head ends at the first blank line; frames may follow in the same read. */
    for (;;) {
        if (r->end == sizeof r->buffer) return -1;
        ssize_t got = recv(fd, r->buffer + r->end, sizeof r->buffer - r->end, 0);
        if (got <= 0) return -1;
        r->end += (size_t)got;
        unsigned char *blank = memmem(r->buffer, r->end, "\r\n\r\n", 4);
        if (blank) {
            if (r->end < 12 || memcmp(r->buffer + 9, "101", 3) != 0) {
                fprintf(stderr, "truapi-load: upgrade refused: %.*s\n", (int)(blank - r->buffer), r->buffer);
                return -1;
            }
            r->start = (size_t)(blank + 4 - r->buffer);
            return 0;
        }
    }
}

static void *run(void *argument) {
    worker_t *worker = argument;
    reader_t *r = malloc(sizeof *r);
    unsigned char *wire = malloc(frame_len + 16);
    size_t wire_len;
    masked_frame(0x2, frame, frame_len, wire, &wire_len);
    int ok = connect_socket(r) == 0;
    if (!ok) atomic_fetch_add(&failures, 1);
    pthread_barrier_wait(&barrier); /* every connection is open */
    pthread_barrier_wait(&barrier); /* the clock is set */
    while (ok) {
        double sent = now();
        if (sent >= end_at) break;
        size_t length;
        unsigned char opcode;
        if (write_all(r->fd, wire, wire_len) < 0 || next_message(r, &length, &opcode) < 0) {
            atomic_fetch_add(&failures, 1);
            break;
        }
        double answered = now();
        if (opcode != 0x2 || length != expect_len || memcmp(r->buffer + r->start, expect, length) != 0) {
            fprintf(stderr, "truapi-load: connection %d: an answer other than --expect\n", worker->index);
            atomic_fetch_add(&failures, 1);
            break;
        }
        r->start += length;
        if (sent >= measure_at) {
            if (worker->count == worker->capacity) {
                worker->capacity = worker->capacity ? worker->capacity * 2 : 1 << 16;
                worker->samples = realloc(worker->samples, worker->capacity * sizeof(double));
            }
            worker->samples[worker->count++] = answered - sent;
            worker->round_trips++;
        }
    }
    if (ok) {
        /* Close 1000, then read until the server's Close (or the end), so neither side logs a broken connection. */
        static const unsigned char code[2] = {0x03, 0xe8};
        unsigned char closing[16];
        size_t closing_len, length;
        unsigned char opcode;
        masked_frame(0x8, code, 2, closing, &closing_len);
        if (write_all(r->fd, closing, closing_len) == 0) {
            while (next_message(r, &length, &opcode) == 0 && opcode != 0x8) r->start += length;
        }
        close(r->fd);
    }
    free(r);
    free(wire);
    return NULL;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int connections = 1;
    const char *url = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--url")) url = argv[i + 1];
        else if (!strcmp(argv[i], "--frame")) frame_len = from_hex(argv[i + 1], frame, sizeof frame);
        else if (!strcmp(argv[i], "--expect")) expect_len = from_hex(argv[i + 1], expect, sizeof expect);
        else if (!strcmp(argv[i], "--connections")) connections = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--warmup")) warmup = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--spin-us")) spin = atof(argv[i + 1]) / 1e6;
        else die("unknown option");
    }
    if (!url || !frame_len || !expect_len || connections < 1 || connections > 256) {
        die("usage: truapi-load --url ws://HOST:PORT/… --frame HEX --expect HEX [--connections N] [--seconds S] [--warmup S] [--spin-us N]");
    }
    if (frame_len > 65535) die("frame too long");
    parse_url(url);
    worker_t *workers = calloc((size_t)connections, sizeof *workers);
    pthread_barrier_init(&barrier, NULL, (unsigned)connections + 1);
    for (int i = 0; i < connections; i++) {
        workers[i].index = i;
        pthread_create(&workers[i].thread, NULL, run, &workers[i]);
    }
    /* The clock starts when every connection is open. */
    pthread_barrier_wait(&barrier);
    begin_at = now();
    measure_at = begin_at + warmup;
    end_at = measure_at + seconds;
    pthread_barrier_wait(&barrier);
    size_t total = 0;
    for (int i = 0; i < connections; i++) {
        pthread_join(workers[i].thread, NULL);
        total += workers[i].count;
    }
    if (atomic_load(&failures) > 0 || total == 0) {
        fprintf(stderr, "truapi-load: %d connection(s) failed\n", atomic_load(&failures));
        return 1;
    }
    double *all = malloc(total * sizeof(double));
    size_t at = 0;
    for (int i = 0; i < connections; i++) {
        memcpy(all + at, workers[i].samples, workers[i].count * sizeof(double));
        at += workers[i].count;
    }
    qsort(all, total, sizeof(double), compare);
    printf("{\"connections\":%d,\"round_trips\":%zu,\"seconds\":%.3f,\"round_trips_per_second\":%.1f,"
           "\"p50_seconds\":%.9f,\"p99_seconds\":%.9f,\"max_seconds\":%.9f}\n",
           connections, total, seconds, total / seconds, all[total / 2], all[(size_t)(total * 0.99)], all[total - 1]);
    return 0;
}
