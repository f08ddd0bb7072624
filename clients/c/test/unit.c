/* Unit tests of the hand-written half of the library: CRC, primitives, frames, records,
 * motion references and dead reckoning. Prints one line per failure and a summary. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wyvern.h"

static int checks, failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                 \
        }                                                                                          \
    } while (0)

static int read_varint(const uint8_t *b, size_t n, uint32_t *v) {
    wy_reader r;
    wy_reader_init(&r, b, n);
    int e = wy_get_varint(&r, v);
    return e == WY_OK ? wy_reader_done(&r) : e;
}

static void test_crc(void) {
    CHECK(wy_crc16((const uint8_t *)"123456789", 9) == 0x29b1);
    CHECK(wy_crc16(NULL, 0) == 0xffff);
}

static void test_varint(void) {
    uint32_t v;
    const uint8_t ok[] = {0xac, 0x02};
    CHECK(read_varint(ok, 2, &v) == WY_OK && v == 300);
    const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    CHECK(read_varint(max, 5, &v) == WY_OK && v == 0xffffffffu);
    const uint8_t above[] = {0xff, 0xff, 0xff, 0xff, 0x10};
    CHECK(read_varint(above, 5, &v) == WY_ERR_BAD_VARINT);
    const uint8_t longer[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    CHECK(read_varint(longer, 6, &v) == WY_ERR_BAD_VARINT);
    const uint8_t not_shortest[] = {0x81, 0x00};
    CHECK(read_varint(not_shortest, 2, &v) == WY_ERR_BAD_VARINT);
    const uint8_t cut[] = {0x81};
    CHECK(read_varint(cut, 1, &v) == WY_ERR_SHORT);
    uint8_t buf[8];
    wy_writer w;
    wy_writer_init(&w, buf, sizeof buf);
    CHECK(wy_put_varint(&w, 16384) == WY_OK && w.pos == 3);
    CHECK(buf[0] == 0x80 && buf[1] == 0x80 && buf[2] == 0x01);
    wy_writer_init(&w, buf, 2);
    CHECK(wy_put_varint(&w, 16384) == WY_ERR_BUFFER);
}

static void test_utf8(void) {
    CHECK(wy_utf8_valid((const uint8_t *)"Wyrm \xe2\x9c\x93", 8));
    CHECK(wy_utf8_valid((const uint8_t *)"\xf0\x9f\x90\x89", 4));
    CHECK(!wy_utf8_valid((const uint8_t *)"\xc0\xaf", 2));         /* overlong */
    CHECK(!wy_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3));     /* surrogate */
    CHECK(!wy_utf8_valid((const uint8_t *)"\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
    CHECK(!wy_utf8_valid((const uint8_t *)"\xe2\x9c", 2));         /* cut short */
    wy_hello hello;
    CHECK(WY_SET_STR(hello.client_name, "ok") == WY_OK && hello.client_name.len == 2);
    CHECK(WY_SET_STR(hello.client_name, "a name far longer than thirty-two bytes") == WY_ERR_ENCODE);
    CHECK(WY_SET_STR(hello.client_name, "\xff") == WY_ERR_ENCODE);
}

static void test_encode_refuses(void) {
    uint8_t buf[64];
    size_t len;
    wy_hello hello = {WY_PROTOCOL_VERSION, WY_HELLO_CLIENT_KIND_NATIVE, {0, ""}};
    CHECK(wy_hello_encode(&hello, buf, sizeof buf, &len) == WY_OK && len == 10);
    hello.client_kind = (wy_hello_client_kind)WY_HELLO_CLIENT_KIND_COUNT;
    CHECK(wy_hello_encode(&hello, buf, sizeof buf, &len) == WY_ERR_ENCODE);
    wy_ping ping = {1, NAN};
    CHECK(wy_ping_encode(&ping, buf, sizeof buf, &len) == WY_ERR_ENCODE);
    ping.client_time = 5;
    CHECK(wy_ping_encode(&ping, buf, 10, &len) == WY_ERR_BUFFER);
    wy_list_characters none = {0};
    CHECK(wy_list_characters_encode(&none, buf, sizeof buf, &len) == WY_OK && len == 6);
    /* The frame PROTOCOL.md gives for ListCharacters. */
    const uint8_t want[] = {0x06, 0x00, 0x01, 0x02, 0xff, 0xff};
    CHECK(memcmp(buf, want, 6) == 0);
}

static void test_decode_errors(void) {
    wy_error err;
    const uint8_t overlong[] = {0, 0, 0, 0, 0, 0};
    CHECK(wy_error_decode(overlong, 6, &err) == WY_ERR_OVERLONG);
    CHECK(wy_error_decode(overlong, 4, &err) == WY_ERR_SHORT);
    const uint8_t bad_bool[] = {0, 0, 0, 0, 2};
    CHECK(wy_error_decode(bad_bool, 5, &err) == WY_ERR_BAD_BOOL);
    const uint8_t long_code[] = {41};
    CHECK(wy_error_decode(long_code, 1, &err) == WY_ERR_STRING_TOO_LONG);
    const uint8_t bad_utf8[] = {1, 0xff, 0, 0, 0, 0};
    CHECK(wy_error_decode(bad_utf8, 6, &err) == WY_ERR_BAD_UTF8);
    const uint8_t bye[] = {9, 0};
    wy_bye b;
    CHECK(wy_bye_decode(bye, 2, &b) == WY_ERR_BAD_ENUM);
    const uint8_t nan[] = {1, 0, 0, 0, 0, 0, 0xc0, 0x7f};
    wy_ping p;
    CHECK(wy_ping_decode(nan, 8, &p) == WY_ERR_SHORT);
    const uint8_t nan12[] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
    CHECK(wy_ping_decode(nan12, 12, &p) == WY_ERR_BAD_NUMBER);
    const uint8_t too_many[] = {9};
    wy_character_list cl;
    CHECK(wy_character_list_decode(too_many, 1, &cl) == WY_ERR_LIST_TOO_LONG);
    wy_packet pk;
    CHECK(wy_packet_decode(0x7777, NULL, 0, &pk) == WY_ERR_UNKNOWN_OPCODE);
    CHECK(strcmp(wy_error_code(WY_ERR_BAD_CRC), "ERR_BAD_CRC") == 0);
    CHECK(strcmp(wy_error_message(WY_CODE_ERR_BAD_LOGIN), "Wrong account name or password.") == 0);
}

static void test_deframer(void) {
    uint8_t frames[64];
    size_t a, b;
    wy_ping ping = {7, 1234.5};
    CHECK(wy_ping_encode(&ping, frames, sizeof frames, &a) == WY_OK);
    wy_move_ack ack = {99};
    CHECK(wy_move_ack_encode(&ack, frames + a, sizeof frames - a, &b) == WY_OK);
    /* Split at every byte boundary: the same two frames come out. */
    for (size_t cut = 0; cut <= a + b; cut++) {
        uint8_t store[WY_MAX_FRAME_SIZE];
        wy_deframer d;
        wy_deframer_init(&d, store, sizeof store);
        uint16_t ops[2];
        int got = 0, e = 0;
        uint16_t op;
        const uint8_t *payload;
        size_t len;
        wy_deframer_push(&d, frames, cut);
        while ((e = wy_deframer_next(&d, &op, &payload, &len)) == 1) ops[got++] = op;
        CHECK(e == 0);
        wy_deframer_push(&d, frames + cut, a + b - cut);
        while ((e = wy_deframer_next(&d, &op, &payload, &len)) == 1) ops[got++] = op;
        CHECK(e == 0 && got == 2 && ops[0] == WY_OP_PING && ops[1] == WY_OP_MOVE_ACK);
    }
    uint8_t store[WY_MAX_FRAME_SIZE];
    wy_deframer d;
    uint16_t op;
    const uint8_t *payload;
    size_t len;
    frames[a - 1] ^= 1;
    wy_deframer_init(&d, store, sizeof store);
    wy_deframer_push(&d, frames, a);
    CHECK(wy_deframer_next(&d, &op, &payload, &len) == WY_ERR_BAD_CRC);
    const uint8_t tiny[] = {5, 0};
    wy_deframer_init(&d, store, sizeof store);
    wy_deframer_push(&d, tiny, 2);
    CHECK(wy_deframer_next(&d, &op, &payload, &len) == WY_ERR_FRAME_SIZE);
}

static void test_steps(void) {
    CHECK(wy_quantize_angle(0) == 0);
    CHECK(wy_quantize_angle(-3.141592653589793 / 2) == 192);
    CHECK(wy_quantize_angle(2 * 3.141592653589793 - 0.001) == 0);
    CHECK(wy_quantize_coord(4096) == 65535 && wy_quantize_coord(-5) == 0);
    CHECK(wy_quantize_coord(100) == 1600);
    CHECK(wy_quantize_speed(7) == 112 && wy_speed_of_step(112) == 7);
}

static void test_dead_reckoning(void) {
    wy_motion_state s = {100, 100, 1000, true, 0, 10};
    double x, y;
    wy_dead_reckon(&s, 1500, WY_MAX_DEAD_RECKON_MS, &x, &y);
    CHECK(fabs(x - 105) < 1e-9 && fabs(y - 100) < 1e-9);
    wy_dead_reckon(&s, 900, WY_MAX_DEAD_RECKON_MS, &x, &y);
    CHECK(x == 100 && y == 100);
    wy_dead_reckon(&s, 1000 + 10 * WY_MAX_DEAD_RECKON_MS, WY_MAX_DEAD_RECKON_MS, &x, &y);
    CHECK(fabs(x - (100 + 10 * WY_MAX_DEAD_RECKON_MS / 1000.0)) < 1e-9);
    s.moving = false;
    wy_dead_reckon(&s, 5000, WY_MAX_DEAD_RECKON_MS, &x, &y);
    CHECK(x == 100 && y == 100);
}

static wy_record move_record(uint32_t id, uint16_t qx, uint16_t qy, uint8_t qa, bool moving) {
    wy_record r;
    memset(&r, 0, sizeof r);
    r.kind = WY_REC_MOVE;
    r.id = id;
    r.qx = qx;
    r.qy = qy;
    r.qa = qa;
    r.has_angle = true;
    r.moving = moving;
    wy_record_values(&r);
    return r;
}

static void test_motion_refs(void) {
    wy_motion_entry entries[16];
    wy_motion_refs m;
    wy_motion_init(&m, entries, 16);
    wy_motion_enter(&m, 10, 1000);
    /* A moveBy without a reference is dropped. */
    wy_record by;
    memset(&by, 0, sizeof by);
    by.kind = WY_REC_MOVE_BY;
    by.id = 3;
    by.dx = 2;
    CHECK(wy_motion_resolve(&m, &by) == 0);
    /* Standing at (1000, 2000): a moveBy of (2, -1) lands at (1002, 1999). */
    wy_record r = move_record(3, 1000, 2000, 0, false);
    CHECK(wy_motion_resolve(&m, &r) == 1);
    wy_motion_advance(&m, 1, 50);
    by.dy = -1;
    CHECK(wy_motion_resolve(&m, &by) == 1 && by.kind == WY_REC_MOVE && by.qx == 1002 && by.qy == 1999);
    /* Walking along +x at 16 units/s for 1 s: 16 * 65535/4096 = 255.996 steps on. */
    r = move_record(3, 1000, 2000, 0, true);
    r.has_speed = true;
    r.qs = 256;
    CHECK(wy_motion_resolve(&m, &r) == 1);
    wy_motion_advance(&m, 20, 1000);
    memset(&by, 0, sizeof by);
    by.kind = WY_REC_MOVE_BY;
    by.id = 3;
    CHECK(wy_motion_resolve(&m, &by) == 1 && by.qx == 1256 && by.qy == 2000);
    /* The table holds 12 of 16 entries; despawns free their slots for later ids. */
    for (uint32_t id = 100; id < 111; id++) {
        wy_record s = move_record(id, 1, 1, 0, false);
        CHECK(wy_motion_resolve(&m, &s) == 1);
    }
    wy_record more = move_record(500, 1, 1, 0, false);
    CHECK(wy_motion_resolve(&m, &more) == WY_ERR_BUFFER);
    for (uint32_t id = 100; id < 111; id += 2) {
        wy_record gone;
        memset(&gone, 0, sizeof gone);
        gone.kind = WY_REC_DESPAWN;
        gone.id = id;
        CHECK(wy_motion_resolve(&m, &gone) == 1);
    }
    CHECK(m.count == 6);
    for (uint32_t id = 101; id < 111; id += 2) {
        memset(&by, 0, sizeof by);
        by.kind = WY_REC_MOVE_BY;
        by.id = id;
        by.dx = 1;
        CHECK(wy_motion_resolve(&m, &by) == 1 && by.qx == 2);
    }
}

int main(void) {
    test_crc();
    test_varint();
    test_utf8();
    test_encode_refuses();
    test_decode_errors();
    test_deframer();
    test_steps();
    test_dead_reckoning();
    test_motion_refs();
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
