/*
 * Test driver: runs the library over frames given as hex and prints what it made of them, so
 * the TypeScript tests can compare it with the TypeScript codec.
 *
 *   driver golden FILE...   every golden vector: decode, re-encode, compare the bytes
 *   driver decode           stdin: one line of hex per chunk of frames; stdout: one JSON line
 *                           per frame, {"opcode", "value", "reencoded"} or {"error"}
 *   driver resolve          stdin: "enter TICK TIME" lines and WorldUpdate frames in hex;
 *                           stdout: each WorldUpdate resolved against motion references,
 *                           {"tick", "time", "records"}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wyvern.h"

#define LINE_MAX_CHARS (4 * WY_MAX_FRAME_SIZE)

static char line[LINE_MAX_CHARS];
static uint8_t bytes[2 * WY_MAX_FRAME_SIZE];
static uint8_t frame_buf[WY_MAX_FRAME_SIZE];
static uint8_t out_buf[WY_MAX_FRAME_SIZE];
static uint8_t records_buf[WY_MAX_FRAME_SIZE];
static wy_packet packet;
static wy_motion_entry entries[4096];

static int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Hex digits (spaces and newlines skipped) into bytes; -1 on anything else. */
static long parse_hex(const char *s, uint8_t *out, size_t cap) {
    size_t n = 0;
    int hi = -1;
    for (; *s; s++) {
        if (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') continue;
        int v = hex_value((unsigned char)*s);
        if (v < 0) return -1;
        if (hi < 0) {
            hi = v;
        } else {
            if (n == cap) return -1;
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    return hi < 0 ? (long)n : -1;
}

static void print_hex(const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
}

/* Re-encodes a WorldUpdate's records one by one with wy_record_write (not a byte copy). */
static int rewrite_records(wy_world_update *u) {
    wy_records_iter it;
    wy_record r;
    wy_writer w;
    uint32_t prev = 0;
    int e;
    wy_writer_init(&w, records_buf, sizeof records_buf);
    wy_records_begin(&it, u->records, u->records_len);
    while ((e = wy_records_next(&it, &r)) == 1) {
        if ((e = wy_record_write(&w, prev, &r)) != WY_OK) return e;
        prev = r.id;
    }
    if (e < 0) return e;
    u->records = records_buf;
    u->records_len = w.pos;
    return WY_OK;
}

/* Decodes a frame's payload and encodes it again; the frame's bytes in *len. */
static int round_trip(uint16_t opcode, const uint8_t *payload, size_t len, size_t *out_len) {
    int e = wy_packet_decode(opcode, payload, len, &packet);
    if (e != WY_OK) return e;
    if (opcode == WY_OP_WORLD_UPDATE) {
        wy_world_update copy = packet.u.world_update;
        wy_packet again;
        if ((e = rewrite_records(&copy)) != WY_OK) return e;
        again.opcode = opcode;
        again.u.world_update = copy;
        return wy_packet_encode(&again, out_buf, sizeof out_buf, out_len);
    }
    return wy_packet_encode(&packet, out_buf, sizeof out_buf, out_len);
}

static int golden(int argc, char **argv) {
    int failed = 0;
    for (int i = 0; i < argc; i++) {
        FILE *f = fopen(argv[i], "r");
        if (!f) {
            fprintf(stderr, "%s: cannot open\n", argv[i]);
            return 1;
        }
        size_t n = 0;
        while (fgets(line, sizeof line, f)) {
            if (line[0] == '#') continue;
            long got = parse_hex(line, bytes + n, sizeof bytes - n);
            if (got < 0) {
                fprintf(stderr, "%s: not hex: %s", argv[i], line);
                fclose(f);
                return 1;
            }
            n += (size_t)got;
        }
        fclose(f);
        uint16_t opcode;
        const uint8_t *payload;
        size_t payload_len, frame_len, out_len = 0;
        int e = wy_frame_parse(bytes, n, &opcode, &payload, &payload_len, &frame_len);
        if (e != 1 || frame_len != n) {
            fprintf(stderr, "%s: not one whole frame (%s)\n", argv[i], e < 0 ? wy_error_code(e) : "short");
            failed++;
            continue;
        }
        e = round_trip(opcode, payload, payload_len, &out_len);
        if (e != WY_OK) {
            fprintf(stderr, "%s: %s\n", argv[i], wy_error_code(e));
            failed++;
        } else if (out_len != n || memcmp(out_buf, bytes, n) != 0) {
            fprintf(stderr, "%s: re-encoded bytes differ\n", argv[i]);
            failed++;
        }
    }
    printf("%d golden vectors: %d decoded and re-encoded to the same bytes, %d failed\n", argc,
           argc - failed, failed);
    return failed ? 1 : 0;
}

/* Prints every whole frame the deframer holds; negative on a bad frame. */
static int drain(wy_deframer *d) {
    uint16_t opcode;
    const uint8_t *payload;
    size_t len;
    int e;
    while ((e = wy_deframer_next(d, &opcode, &payload, &len)) == 1) {
        size_t out_len = 0;
        /* The payload lives in the stream buffer until the next push: decode a copy. */
        memcpy(frame_buf, payload, len);
        int r = round_trip(opcode, frame_buf, len, &out_len);
        if (r != WY_OK) {
            printf("{\"opcode\":%u,\"error\":\"%s\"}\n", (unsigned)opcode, wy_error_code(r));
            continue;
        }
        printf("{\"opcode\":%u,\"name\":\"%s\",\"value\":", (unsigned)opcode, wy_packet_name(opcode));
        wy_packet_json(stdout, &packet);
        printf(",\"reencoded\":\"");
        print_hex(out_buf, out_len);
        printf("\"}\n");
    }
    return e;
}

static int decode(void) {
    static uint8_t stream[WY_MAX_FRAME_SIZE];
    while (fgets(line, sizeof line, stdin)) {
        long n = parse_hex(line, bytes, sizeof bytes);
        if (n < 0) {
            printf("{\"error\":\"not hex\"}\n");
            continue;
        }
        /* A fresh stream per line, fed in pieces of 1, 2, 3... bytes: frames that straddle
         * pushes must come out whole. */
        wy_deframer d;
        wy_deframer_init(&d, stream, sizeof stream);
        size_t fed = 0, piece = 1;
        int e = 0;
        while (fed < (size_t)n && e >= 0) {
            size_t want = (size_t)n - fed < piece ? (size_t)n - fed : piece++;
            fed += wy_deframer_push(&d, bytes + fed, want);
            e = drain(&d);
        }
        if (e < 0) printf("{\"error\":\"%s\"}\n", wy_error_code(e));
        fflush(stdout);
    }
    return 0;
}

static int resolve(void) {
    wy_motion_refs refs;
    wy_motion_init(&refs, entries, sizeof entries / sizeof entries[0]);
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "enter ", 6) == 0) {
            double tick, time;
            if (sscanf(line + 6, "%lf %lf", &tick, &time) != 2) return 1;
            wy_motion_enter(&refs, tick, time);
            continue;
        }
        long n = parse_hex(line, bytes, sizeof bytes);
        uint16_t opcode;
        const uint8_t *payload;
        size_t len, frame_len;
        int e = n < 0 ? WY_ERR_SHORT : wy_frame_parse(bytes, (size_t)n, &opcode, &payload, &len, &frame_len);
        if (e == 1) e = opcode == WY_OP_WORLD_UPDATE ? wy_world_update_decode(payload, len, &packet.u.world_update)
                                                     : WY_ERR_UNKNOWN_OPCODE;
        if (e != WY_OK) {
            printf("{\"error\":\"%s\"}\n", wy_error_code(e));
            continue;
        }
        const wy_world_update *u = &packet.u.world_update;
        wy_motion_advance(&refs, u->tick, u->time);
        printf("{\"tick\":");
        wy_json_number(stdout, refs.tick);
        printf(",\"time\":");
        wy_json_number(stdout, refs.time);
        printf(",\"records\":[");
        wy_records_iter it;
        wy_record r;
        int kept = 0;
        wy_records_begin(&it, u->records, u->records_len);
        while (wy_records_next(&it, &r) == 1) {
            int keep = wy_motion_resolve(&refs, &r);
            if (keep < 0) {
                printf("\"%s\"", wy_error_code(keep));
                break;
            }
            if (!keep) continue;
            if (kept++ > 0) putchar(',');
            wy_record_json(stdout, &r);
        }
        printf("]}\n");
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "golden") == 0) return golden(argc - 2, argv + 2);
    if (argc == 2 && strcmp(argv[1], "decode") == 0) return decode();
    if (argc == 2 && strcmp(argv[1], "resolve") == 0) return resolve();
    fprintf(stderr, "usage: driver golden FILE... | driver decode | driver resolve\n");
    return 2;
}
