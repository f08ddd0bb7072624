/*
 * The hand-written half of the C library: CRC-16, field primitives, frames, entity records,
 * motion references and dead reckoning. Each mirrors its TypeScript original (shared/codec,
 * shared/protocol/records.ts, motion-refs.ts, shared/game/motion.ts) down to the order of
 * floating-point operations, so that references reckoned here land on the same coord steps
 * as the server's. That needs IEEE doubles without fused multiply-adds: the Makefile builds
 * with -ffp-contract=off.
 */
#include "wyvern.h"

#include <math.h>
#include <string.h>

#define WY_TRY(expr)                                                                               \
    do {                                                                                           \
        int wy_e_ = (expr);                                                                        \
        if (wy_e_ != WY_OK) return wy_e_;                                                          \
    } while (0)

static const double TAU = 6.283185307179586;
/* 65535 / COORD_MAX and its inverse, as shared/protocol/records.ts computes them. */
#define COORD_SCALE (65535.0 / WY_COORD_MAX)
#define COORD_STEP ((double)WY_COORD_MAX / 65535.0)

/* Math.round: the nearest integer, halves up (C's round() takes halves away from zero). */
static double js_round(double x) {
    double f = floor(x);
    return x - f >= 0.5 ? f + 1 : f;
}

/* ------------------------------------------------------------------ CRC */

static uint16_t crc_table[256];
static bool crc_ready;

uint16_t wy_crc16(const uint8_t *bytes, size_t len) {
    if (!crc_ready) {
        for (int i = 0; i < 256; i++) {
            uint16_t crc = (uint16_t)(i << 8);
            for (int bit = 0; bit < 8; bit++)
                crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
            crc_table[i] = crc;
        }
        crc_ready = true;
    }
    uint16_t crc = 0xffff;
    for (size_t i = 0; i < len; i++)
        crc = (uint16_t)((crc << 8) ^ crc_table[((crc >> 8) ^ bytes[i]) & 0xff]);
    return crc;
}

/* ------------------------------------------------------------------ steps */

uint8_t wy_quantize_angle(double radians) {
    double turns = radians / TAU;
    return (uint8_t)((long)js_round((turns - floor(turns)) * 256) & 0xff);
}

double wy_angle_of_step(uint8_t q) { return q * (TAU / 256); }

uint16_t wy_quantize_coord(double v) {
    double q = js_round(v * COORD_SCALE);
    return (uint16_t)(q < 0 ? 0 : q > 65535 ? 65535 : q);
}

double wy_coord_of_step(uint16_t q) { return q * COORD_STEP; }

uint16_t wy_quantize_speed(double v) {
    double q = js_round(v * 16);
    return (uint16_t)(q < 0 ? 0 : q > 65535 ? 65535 : q);
}

double wy_speed_of_step(uint16_t q) { return q / 16.0; }

bool wy_utf8_valid(const uint8_t *b, size_t len) {
    size_t i = 0;
    while (i < len) {
        uint8_t c = b[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        uint32_t cp, min;
        if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
            cp = c & 0x1f;
            min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            cp = c & 0x0f;
            min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            cp = c & 0x07;
            min = 0x10000;
        } else {
            return false;
        }
        if (len - i - 1 < n) return false;
        for (size_t k = 1; k <= n; k++) {
            if ((b[i + k] & 0xc0) != 0x80) return false;
            cp = (cp << 6) | (b[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += n + 1;
    }
    return true;
}

/* ------------------------------------------------------------------ reader */

void wy_reader_init(wy_reader *r, const uint8_t *buf, size_t len) {
    r->buf = buf;
    r->pos = 0;
    r->end = len;
}

int wy_reader_done(const wy_reader *r) { return r->pos == r->end ? WY_OK : WY_ERR_OVERLONG; }

static int need(const wy_reader *r, size_t n) { return r->end - r->pos < n ? WY_ERR_SHORT : WY_OK; }

int wy_get_u8(wy_reader *r, uint8_t *v) {
    WY_TRY(need(r, 1));
    *v = r->buf[r->pos++];
    return WY_OK;
}

int wy_get_i8(wy_reader *r, int8_t *v) {
    uint8_t u;
    WY_TRY(wy_get_u8(r, &u));
    *v = (int8_t)(u < 0x80 ? u : (int)u - 0x100);
    return WY_OK;
}

int wy_get_u16(wy_reader *r, uint16_t *v) {
    WY_TRY(need(r, 2));
    const uint8_t *b = r->buf + r->pos;
    *v = (uint16_t)(b[0] | (b[1] << 8));
    r->pos += 2;
    return WY_OK;
}

int wy_get_i16(wy_reader *r, int16_t *v) {
    uint16_t u;
    WY_TRY(wy_get_u16(r, &u));
    *v = (int16_t)(u < 0x8000 ? (long)u : (long)u - 0x10000);
    return WY_OK;
}

int wy_get_u32(wy_reader *r, uint32_t *v) {
    WY_TRY(need(r, 4));
    const uint8_t *b = r->buf + r->pos;
    *v = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
    r->pos += 4;
    return WY_OK;
}

int wy_get_i32(wy_reader *r, int32_t *v) {
    uint32_t u;
    WY_TRY(wy_get_u32(r, &u));
    *v = (int32_t)(u < 0x80000000u ? (int64_t)u : (int64_t)u - 0x100000000LL);
    return WY_OK;
}

int wy_get_f32(wy_reader *r, float *v) {
    uint32_t u;
    WY_TRY(wy_get_u32(r, &u));
    float f;
    memcpy(&f, &u, 4);
    if (!isfinite(f)) return WY_ERR_BAD_NUMBER;
    *v = f;
    return WY_OK;
}

int wy_get_f64(wy_reader *r, double *v) {
    WY_TRY(need(r, 8));
    const uint8_t *b = r->buf + r->pos;
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--) u = (u << 8) | b[i];
    double d;
    memcpy(&d, &u, 8);
    if (!isfinite(d)) return WY_ERR_BAD_NUMBER;
    r->pos += 8;
    *v = d;
    return WY_OK;
}

int wy_get_bool(wy_reader *r, bool *v) {
    uint8_t u;
    WY_TRY(wy_get_u8(r, &u));
    if (u > 1) return WY_ERR_BAD_BOOL;
    *v = u == 1;
    return WY_OK;
}

int wy_get_varint(wy_reader *r, uint32_t *v) {
    uint64_t value = 0;
    for (int i = 0; i < 5; i++) {
        uint8_t b;
        WY_TRY(wy_get_u8(r, &b));
        value |= (uint64_t)(b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0) {
            if (b == 0 && i > 0) return WY_ERR_BAD_VARINT;
            if (value > 0xffffffffu) return WY_ERR_BAD_VARINT;
            *v = (uint32_t)value;
            return WY_OK;
        }
    }
    return WY_ERR_BAD_VARINT;
}

int wy_get_angle(wy_reader *r, double *v) {
    uint8_t q;
    WY_TRY(wy_get_u8(r, &q));
    *v = wy_angle_of_step(q);
    return WY_OK;
}

int wy_get_quantized(wy_reader *r, double min, double step, double *v) {
    uint16_t q;
    WY_TRY(wy_get_u16(r, &q));
    *v = min + q * step;
    return WY_OK;
}

static int get_prefix(wy_reader *r, int prefix, uint16_t *n) {
    if (prefix == 1) {
        uint8_t b;
        WY_TRY(wy_get_u8(r, &b));
        *n = b;
        return WY_OK;
    }
    return wy_get_u16(r, n);
}

int wy_get_string(wy_reader *r, size_t max, int prefix, char *data, uint16_t *len) {
    uint16_t n;
    WY_TRY(get_prefix(r, prefix, &n));
    if (n > max) return WY_ERR_STRING_TOO_LONG;
    WY_TRY(need(r, n));
    if (!wy_utf8_valid(r->buf + r->pos, n)) return WY_ERR_BAD_UTF8;
    memcpy(data, r->buf + r->pos, n);
    data[n] = '\0';
    *len = n;
    r->pos += n;
    return WY_OK;
}

int wy_get_bytes(wy_reader *r, size_t max, int prefix, uint8_t *data, uint16_t *len) {
    uint16_t n;
    WY_TRY(get_prefix(r, prefix, &n));
    if (n > max) return WY_ERR_BYTES_TOO_LONG;
    WY_TRY(need(r, n));
    memcpy(data, r->buf + r->pos, n);
    *len = n;
    r->pos += n;
    return WY_OK;
}

int wy_get_enum(wy_reader *r, size_t count, uint8_t *v) {
    WY_TRY(wy_get_u8(r, v));
    return *v < count ? WY_OK : WY_ERR_BAD_ENUM;
}

int wy_get_count(wy_reader *r, size_t max, int prefix, uint16_t *count) {
    WY_TRY(get_prefix(r, prefix, count));
    return *count <= max ? WY_OK : WY_ERR_LIST_TOO_LONG;
}

int wy_get_records(wy_reader *r, const uint8_t **records, size_t *len) {
    wy_records_iter it;
    wy_record rec;
    int e;
    wy_records_begin(&it, r->buf + r->pos, r->end - r->pos);
    while ((e = wy_records_next(&it, &rec)) == 1) {
    }
    if (e < 0) return e;
    *records = r->buf + r->pos;
    *len = r->end - r->pos;
    r->pos = r->end;
    return WY_OK;
}

/* ------------------------------------------------------------------ writer */

void wy_writer_init(wy_writer *w, uint8_t *buf, size_t cap) {
    w->buf = buf;
    w->pos = 0;
    w->cap = cap;
    w->frame = 0;
}

static int room(const wy_writer *w, size_t n) { return w->cap - w->pos < n ? WY_ERR_BUFFER : WY_OK; }

int wy_put_u8(wy_writer *w, uint8_t v) {
    WY_TRY(room(w, 1));
    w->buf[w->pos++] = v;
    return WY_OK;
}

int wy_put_i8(wy_writer *w, int8_t v) { return wy_put_u8(w, (uint8_t)v); }

int wy_put_u16(wy_writer *w, uint16_t v) {
    WY_TRY(room(w, 2));
    w->buf[w->pos++] = (uint8_t)v;
    w->buf[w->pos++] = (uint8_t)(v >> 8);
    return WY_OK;
}

int wy_put_i16(wy_writer *w, int16_t v) { return wy_put_u16(w, (uint16_t)v); }

int wy_put_u32(wy_writer *w, uint32_t v) {
    WY_TRY(room(w, 4));
    for (int i = 0; i < 4; i++) w->buf[w->pos++] = (uint8_t)(v >> (8 * i));
    return WY_OK;
}

int wy_put_i32(wy_writer *w, int32_t v) { return wy_put_u32(w, (uint32_t)v); }

int wy_put_f32(wy_writer *w, float v) {
    if (!isfinite(v)) return WY_ERR_ENCODE;
    uint32_t u;
    memcpy(&u, &v, 4);
    return wy_put_u32(w, u);
}

int wy_put_f64(wy_writer *w, double v) {
    if (!isfinite(v)) return WY_ERR_ENCODE;
    uint64_t u;
    memcpy(&u, &v, 8);
    WY_TRY(room(w, 8));
    for (int i = 0; i < 8; i++) w->buf[w->pos++] = (uint8_t)(u >> (8 * i));
    return WY_OK;
}

int wy_put_bool(wy_writer *w, bool v) { return wy_put_u8(w, v ? 1 : 0); }

int wy_put_varint(wy_writer *w, uint32_t v) {
    while (v >= 0x80) {
        WY_TRY(wy_put_u8(w, (uint8_t)((v & 0x7f) | 0x80)));
        v >>= 7;
    }
    return wy_put_u8(w, (uint8_t)v);
}

int wy_put_angle(wy_writer *w, double radians) {
    if (!isfinite(radians)) return WY_ERR_ENCODE;
    return wy_put_u8(w, wy_quantize_angle(radians));
}

int wy_put_quantized(wy_writer *w, double min, double scale, double v) {
    if (!isfinite(v)) return WY_ERR_ENCODE;
    double q = js_round((v - min) * scale);
    return wy_put_u16(w, (uint16_t)(q < 0 ? 0 : q > 65535 ? 65535 : q));
}

static int put_prefix(wy_writer *w, int prefix, size_t n) {
    return prefix == 1 ? wy_put_u8(w, (uint8_t)n) : wy_put_u16(w, (uint16_t)n);
}

int wy_put_raw(wy_writer *w, const uint8_t *data, size_t len) {
    WY_TRY(room(w, len));
    if (len > 0) memcpy(w->buf + w->pos, data, len);
    w->pos += len;
    return WY_OK;
}

int wy_put_string(wy_writer *w, size_t max, int prefix, const char *data, size_t len) {
    if (len > max || !wy_utf8_valid((const uint8_t *)data, len)) return WY_ERR_ENCODE;
    WY_TRY(put_prefix(w, prefix, len));
    return wy_put_raw(w, (const uint8_t *)data, len);
}

int wy_put_bytes(wy_writer *w, size_t max, int prefix, const uint8_t *data, size_t len) {
    if (len > max) return WY_ERR_ENCODE;
    WY_TRY(put_prefix(w, prefix, len));
    return wy_put_raw(w, data, len);
}

int wy_put_enum(wy_writer *w, size_t count, int v) {
    if (v < 0 || (size_t)v >= count) return WY_ERR_ENCODE;
    return wy_put_u8(w, (uint8_t)v);
}

int wy_put_count(wy_writer *w, size_t max, int prefix, size_t count) {
    if (count > max) return WY_ERR_ENCODE;
    return put_prefix(w, prefix, count);
}

int wy_set_str(char *data, uint16_t *len, size_t max, const char *cstr) {
    size_t n = strlen(cstr);
    if (n > max || !wy_utf8_valid((const uint8_t *)cstr, n)) return WY_ERR_ENCODE;
    memcpy(data, cstr, n + 1);
    *len = (uint16_t)n;
    return WY_OK;
}

int wy_set_bytes(uint8_t *data, uint16_t *len, size_t max, const uint8_t *src, size_t n) {
    if (n > max) return WY_ERR_ENCODE;
    if (n > 0) memcpy(data, src, n);
    *len = (uint16_t)n;
    return WY_OK;
}

/* ------------------------------------------------------------------ frames */

int wy_frame_begin(wy_writer *w, uint8_t *buf, size_t cap) {
    wy_writer_init(w, buf, cap);
    WY_TRY(room(w, WY_HEADER_SIZE));
    w->pos = WY_HEADER_SIZE;
    return WY_OK;
}

int wy_frame_end(wy_writer *w, uint16_t opcode, size_t *len) {
    size_t size = w->pos - w->frame;
    if (size > WY_MAX_FRAME_SIZE) return WY_ERR_ENCODE;
    uint8_t *h = w->buf + w->frame;
    uint16_t crc = wy_crc16(h + WY_HEADER_SIZE, size - WY_HEADER_SIZE);
    h[0] = (uint8_t)size;
    h[1] = (uint8_t)(size >> 8);
    h[2] = (uint8_t)opcode;
    h[3] = (uint8_t)(opcode >> 8);
    h[4] = (uint8_t)crc;
    h[5] = (uint8_t)(crc >> 8);
    *len = size;
    return WY_OK;
}

int wy_frame_parse(const uint8_t *b, size_t len, uint16_t *opcode, const uint8_t **payload,
                   size_t *payload_len, size_t *frame_len) {
    if (len < 2) return 0;
    size_t size = (size_t)(b[0] | (b[1] << 8));
    if (size < WY_HEADER_SIZE) return WY_ERR_FRAME_SIZE;
    if (len < size) return 0;
    uint16_t crc = (uint16_t)(b[4] | (b[5] << 8));
    if (crc != wy_crc16(b + WY_HEADER_SIZE, size - WY_HEADER_SIZE)) return WY_ERR_BAD_CRC;
    *opcode = (uint16_t)(b[2] | (b[3] << 8));
    *payload = b + WY_HEADER_SIZE;
    *payload_len = size - WY_HEADER_SIZE;
    *frame_len = size;
    return 1;
}

void wy_deframer_init(wy_deframer *d, uint8_t *buf, size_t cap) {
    d->buf = buf;
    d->cap = cap;
    d->len = 0;
    d->pos = 0;
}

static void compact(wy_deframer *d) {
    if (d->pos == 0) return;
    memmove(d->buf, d->buf + d->pos, d->len - d->pos);
    d->len -= d->pos;
    d->pos = 0;
}

uint8_t *wy_deframer_space(wy_deframer *d, size_t *room_left) {
    compact(d);
    *room_left = d->cap - d->len;
    return d->buf + d->len;
}

void wy_deframer_commit(wy_deframer *d, size_t n) { d->len += n; }

size_t wy_deframer_push(wy_deframer *d, const uint8_t *data, size_t len) {
    size_t space;
    uint8_t *at = wy_deframer_space(d, &space);
    size_t n = len < space ? len : space;
    if (n > 0) memcpy(at, data, n);
    d->len += n;
    return n;
}

int wy_deframer_next(wy_deframer *d, uint16_t *opcode, const uint8_t **payload, size_t *len) {
    size_t frame_len;
    int e = wy_frame_parse(d->buf + d->pos, d->len - d->pos, opcode, payload, len, &frame_len);
    if (e == 1) d->pos += frame_len;
    return e;
}

/* ------------------------------------------------------------------ entity records */

void wy_record_values(wy_record *r) {
    r->x = wy_coord_of_step(r->qx);
    r->y = wy_coord_of_step(r->qy);
    r->angle = wy_angle_of_step(r->qa);
    r->speed = wy_speed_of_step(r->qs);
    for (int i = 0; i < r->count; i++) {
        r->waypoints[i].x = wy_coord_of_step(r->waypoints[i].qx);
        r->waypoints[i].y = wy_coord_of_step(r->waypoints[i].qy);
    }
}

void wy_records_begin(wy_records_iter *it, const uint8_t *records, size_t len) {
    wy_reader_init(&it->r, records, len);
    it->id = 0;
}

static int get_zigzag(wy_reader *r, int32_t *v) {
    uint32_t z;
    WY_TRY(wy_get_varint(r, &z));
    *v = (int32_t)(z % 2 == 0 ? (int64_t)(z / 2) : -(((int64_t)z + 1) / 2));
    return WY_OK;
}

static int read_record(wy_reader *r, uint8_t tag, wy_record *out) {
    uint8_t flags = tag & 0xf0;
    switch (tag & 0x07) {
    case WY_RECORD_KIND_MOVE:
        out->kind = WY_REC_MOVE;
        WY_TRY(wy_get_u16(r, &out->qx));
        WY_TRY(wy_get_u16(r, &out->qy));
        WY_TRY(wy_get_u8(r, &out->qa));
        out->has_angle = true;
        out->has_speed = (flags & WY_RECORD_SPEED) != 0;
        if (out->has_speed) WY_TRY(wy_get_u16(r, &out->qs));
        out->moving = (flags & WY_RECORD_MOVING) != 0;
        out->jump = (flags & WY_RECORD_JUMP) != 0;
        out->has_age = (flags & WY_RECORD_AGE) != 0;
        if (out->has_age) WY_TRY(wy_get_varint(r, &out->age));
        return WY_OK;
    case WY_RECORD_KIND_MOVE_BY:
        out->kind = WY_REC_MOVE_BY;
        WY_TRY(get_zigzag(r, &out->dx));
        WY_TRY(get_zigzag(r, &out->dy));
        out->has_angle = (flags & WY_RECORD_SAME_ANGLE) == 0;
        if (out->has_angle) WY_TRY(wy_get_u8(r, &out->qa));
        out->has_speed = (flags & WY_RECORD_SPEED) != 0;
        if (out->has_speed) WY_TRY(wy_get_u16(r, &out->qs));
        out->moving = (flags & WY_RECORD_MOVING) != 0;
        out->has_age = (flags & WY_RECORD_AGE) != 0;
        if (out->has_age) WY_TRY(wy_get_varint(r, &out->age));
        return WY_OK;
    case WY_RECORD_KIND_PATH: {
        bool here = (flags & WY_RECORD_HERE) != 0;
        out->kind = here ? WY_REC_PATH_HERE : WY_REC_PATH;
        if (!here) {
            WY_TRY(wy_get_u16(r, &out->qx));
            WY_TRY(wy_get_u16(r, &out->qy));
        }
        out->has_speed = (flags & WY_RECORD_SPEED) != 0;
        if (out->has_speed) WY_TRY(wy_get_u16(r, &out->qs));
        if (flags & WY_RECORD_ONE) {
            out->count = 1;
        } else {
            WY_TRY(wy_get_u8(r, &out->count));
            if (out->count > WY_MAX_PATH_POINTS) return WY_ERR_LIST_TOO_LONG;
        }
        for (int i = 0; i < out->count; i++) {
            WY_TRY(wy_get_u16(r, &out->waypoints[i].qx));
            WY_TRY(wy_get_u16(r, &out->waypoints[i].qy));
        }
        out->has_age = (flags & WY_RECORD_AGE) != 0;
        if (out->has_age) WY_TRY(wy_get_varint(r, &out->age));
        return WY_OK;
    }
    case WY_RECORD_KIND_SPAWN:
        out->kind = WY_REC_SPAWN;
        if (flags & ~WY_RECORD_ALIVE) return WY_ERR_BAD_ENUM;
        WY_TRY(wy_get_u8(r, &out->entity));
        if (out->entity >= WY_ENTITY_KIND_COUNT) return WY_ERR_BAD_ENUM;
        WY_TRY(wy_get_u16(r, &out->template_id));
        WY_TRY(wy_get_string(r, WY_NAME_MAX, 1, out->name.data, &out->name.len));
        WY_TRY(wy_get_u8(r, &out->level));
        WY_TRY(wy_get_varint(r, &out->health));
        WY_TRY(wy_get_varint(r, &out->max_health));
        WY_TRY(wy_get_u16(r, &out->qs));
        out->has_speed = true;
        WY_TRY(wy_get_u8(r, &out->appearance));
        out->alive = (flags & WY_RECORD_ALIVE) != 0;
        return WY_OK;
    case WY_RECORD_KIND_DESPAWN:
        out->kind = WY_REC_DESPAWN;
        if (flags) return WY_ERR_BAD_ENUM;
        WY_TRY(wy_get_u8(r, &out->reason));
        return out->reason < WY_DESPAWN_REASON_COUNT ? WY_OK : WY_ERR_BAD_ENUM;
    case WY_RECORD_KIND_HEALTH:
        out->kind = WY_REC_HEALTH;
        if (flags) return WY_ERR_BAD_ENUM;
        WY_TRY(wy_get_varint(r, &out->health));
        return wy_get_varint(r, &out->max_health);
    case WY_RECORD_KIND_DEATH:
        out->kind = WY_REC_DEATH;
        if (flags) return WY_ERR_BAD_ENUM;
        return wy_get_varint(r, &out->killer_id);
    default: /* WY_RECORD_KIND_RESPAWN: the kind is 3 bits, all eight are defined */
        out->kind = WY_REC_RESPAWN;
        if (flags) return WY_ERR_BAD_ENUM;
        WY_TRY(wy_get_u16(r, &out->qx));
        WY_TRY(wy_get_u16(r, &out->qy));
        WY_TRY(wy_get_varint(r, &out->health));
        return wy_get_varint(r, &out->max_health);
    }
}

int wy_records_next(wy_records_iter *it, wy_record *out) {
    if (it->r.pos >= it->r.end) return 0;
    uint32_t delta;
    uint8_t tag;
    WY_TRY(wy_get_varint(&it->r, &delta));
    WY_TRY(wy_get_u8(&it->r, &tag));
    uint64_t id = tag & WY_RECORD_BASE ? delta : it->id + delta;
    if (id > 0xffffffffu) return WY_ERR_BAD_VARINT;
    it->id = id;
    memset(out, 0, sizeof *out);
    out->id = (uint32_t)id;
    out->base = (tag & WY_RECORD_BASE) != 0;
    WY_TRY(read_record(&it->r, tag, out));
    wy_record_values(out);
    return 1;
}

static int put_zigzag(wy_writer *w, int32_t v) {
    int64_t n = v;
    return wy_put_varint(w, (uint32_t)(n >= 0 ? n * 2 : -n * 2 - 1));
}

int wy_record_write(wy_writer *w, uint32_t prev_id, const wy_record *r) {
    uint8_t base = r->base ? WY_RECORD_BASE : 0;
    if (!r->base && r->id < prev_id) return WY_ERR_ENCODE;
    WY_TRY(wy_put_varint(w, r->base ? r->id : r->id - prev_id));
    uint8_t speed = r->has_speed ? WY_RECORD_SPEED : 0;
    uint8_t age = r->has_age ? WY_RECORD_AGE : 0;
    uint8_t moving = r->moving ? WY_RECORD_MOVING : 0;
    switch (r->kind) {
    case WY_REC_MOVE:
        WY_TRY(wy_put_u8(w, WY_RECORD_KIND_MOVE | base | moving | (r->jump ? WY_RECORD_JUMP : 0) | speed | age));
        WY_TRY(wy_put_u16(w, r->qx));
        WY_TRY(wy_put_u16(w, r->qy));
        WY_TRY(wy_put_u8(w, r->qa));
        if (r->has_speed) WY_TRY(wy_put_u16(w, r->qs));
        if (r->has_age) WY_TRY(wy_put_varint(w, r->age));
        return WY_OK;
    case WY_REC_MOVE_BY:
        if (r->dx < -65535 || r->dx > 65535 || r->dy < -65535 || r->dy > 65535) return WY_ERR_ENCODE;
        WY_TRY(wy_put_u8(w, WY_RECORD_KIND_MOVE_BY | base | moving |
                                (r->has_angle ? 0 : WY_RECORD_SAME_ANGLE) | speed | age));
        WY_TRY(put_zigzag(w, r->dx));
        WY_TRY(put_zigzag(w, r->dy));
        if (r->has_angle) WY_TRY(wy_put_u8(w, r->qa));
        if (r->has_speed) WY_TRY(wy_put_u16(w, r->qs));
        if (r->has_age) WY_TRY(wy_put_varint(w, r->age));
        return WY_OK;
    case WY_REC_PATH:
    case WY_REC_PATH_HERE: {
        bool here = r->kind == WY_REC_PATH_HERE;
        if (r->count > WY_MAX_PATH_POINTS) return WY_ERR_ENCODE;
        WY_TRY(wy_put_u8(w, WY_RECORD_KIND_PATH | base | (here ? WY_RECORD_HERE : 0) |
                                (r->count == 1 ? WY_RECORD_ONE : 0) | speed | age));
        if (!here) {
            WY_TRY(wy_put_u16(w, r->qx));
            WY_TRY(wy_put_u16(w, r->qy));
        }
        if (r->has_speed) WY_TRY(wy_put_u16(w, r->qs));
        if (r->count != 1) WY_TRY(wy_put_u8(w, r->count));
        for (int i = 0; i < r->count; i++) {
            WY_TRY(wy_put_u16(w, r->waypoints[i].qx));
            WY_TRY(wy_put_u16(w, r->waypoints[i].qy));
        }
        if (r->has_age) WY_TRY(wy_put_varint(w, r->age));
        return WY_OK;
    }
    case WY_REC_SPAWN:
        if (r->entity >= WY_ENTITY_KIND_COUNT) return WY_ERR_ENCODE;
        WY_TRY(wy_put_u8(w, WY_RECORD_KIND_SPAWN | base | (r->alive ? WY_RECORD_ALIVE : 0)));
        WY_TRY(wy_put_u8(w, r->entity));
        WY_TRY(wy_put_u16(w, r->template_id));
        WY_TRY(wy_put_string(w, WY_NAME_MAX, 1, r->name.data, r->name.len));
        WY_TRY(wy_put_u8(w, r->level));
        WY_TRY(wy_put_varint(w, r->health));
        WY_TRY(wy_put_varint(w, r->max_health));
        WY_TRY(wy_put_u16(w, r->qs));
        return wy_put_u8(w, r->appearance);
    case WY_REC_DESPAWN:
        if (r->reason >= WY_DESPAWN_REASON_COUNT) return WY_ERR_ENCODE;
        WY_TRY(wy_put_u8(w, WY_RECORD_KIND_DESPAWN | base));
        return wy_put_u8(w, r->reason);
    case WY_REC_HEALTH:
        WY_TRY(wy_put_u8(w, WY_RECORD_KIND_HEALTH | base));
        WY_TRY(wy_put_varint(w, r->health));
        return wy_put_varint(w, r->max_health);
    case WY_REC_DEATH:
        WY_TRY(wy_put_u8(w, WY_RECORD_KIND_DEATH | base));
        return wy_put_varint(w, r->killer_id);
    case WY_REC_RESPAWN:
        WY_TRY(wy_put_u8(w, WY_RECORD_KIND_RESPAWN | base));
        WY_TRY(wy_put_u16(w, r->qx));
        WY_TRY(wy_put_u16(w, r->qy));
        WY_TRY(wy_put_varint(w, r->health));
        return wy_put_varint(w, r->max_health);
    }
    return WY_ERR_ENCODE;
}

/* ------------------------------------------------------------------ motion references */

void wy_motion_init(wy_motion_refs *m, wy_motion_entry *entries, size_t cap) {
    m->entries = entries;
    m->cap = cap;
    wy_motion_enter(m, 0, 0);
}

void wy_motion_enter(wy_motion_refs *m, double tick, double server_time) {
    m->tick = tick;
    m->time = server_time;
    m->count = 0;
    m->qx = m->qy = 0;
    for (size_t i = 0; i < m->cap; i++) m->entries[i].used = false;
}

void wy_motion_advance(wy_motion_refs *m, uint32_t tick_delta, uint32_t time_delta) {
    m->tick += tick_delta;
    m->time += time_delta;
}

static size_t slot_of(const wy_motion_refs *m, uint32_t id) {
    /* Fibonacci hashing: ids come in runs (players from 1, mobs from 2^20). */
    return (size_t)((id * 2654435769u) & (m->cap - 1));
}

static wy_motion_entry *find(wy_motion_refs *m, uint32_t id) {
    for (size_t i = slot_of(m, id), n = 0; n < m->cap; i = (i + 1) & (m->cap - 1), n++) {
        wy_motion_entry *e = &m->entries[i];
        if (!e->used) return NULL;
        if (e->id == id) return e;
    }
    return NULL;
}

/* A fresh entry for an id not in the table; NULL when the table is full. */
static wy_motion_entry *insert(wy_motion_refs *m, uint32_t id) {
    if ((m->count + 1) * 4 > m->cap * 3) return NULL;
    size_t i = slot_of(m, id);
    while (m->entries[i].used) i = (i + 1) & (m->cap - 1);
    wy_motion_entry *e = &m->entries[i];
    memset(e, 0, sizeof *e);
    e->used = true;
    e->id = id;
    m->count++;
    return e;
}

/* Linear probing's deletion: moves later entries of the run back so lookups still find them. */
static void forget(wy_motion_refs *m, uint32_t id) {
    wy_motion_entry *e = find(m, id);
    if (!e) return;
    size_t mask = m->cap - 1;
    size_t hole = (size_t)(e - m->entries);
    size_t i = hole;
    m->entries[hole].used = false;
    m->count--;
    for (;;) {
        i = (i + 1) & mask;
        wy_motion_entry *next = &m->entries[i];
        if (!next->used) return;
        size_t home = slot_of(m, next->id);
        /* Whether home lies cyclically in (hole, i]: then the entry stays. */
        bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
        if (stays) continue;
        m->entries[hole] = *next;
        next->used = false;
        hole = i;
    }
}

static uint16_t clamp_step(double q) { return (uint16_t)(q < 0 ? 0 : q > 65535 ? 65535 : q); }

/* reckonRef: where a move reference puts its entity at t, in coord steps. */
static void reckon_ref(const wy_motion_entry *e, double t, uint16_t *qx, uint16_t *qy) {
    if (!e->moving || t == e->t) {
        *qx = e->qx;
        *qy = e->qy;
        return;
    }
    double d = ((e->qs / 16.0) * (t - e->t) * COORD_SCALE) / 1000;
    double x = floor(e->qx + wy_angle_cos[e->qa] * d + 0.5);
    double y = floor(e->qy + wy_angle_sin[e->qa] * d + 0.5);
    *qx = clamp_step(x);
    *qy = clamp_step(y);
}

/* reckonPath: where a path reference puts its entity at t, and the waypoint it walks to. */
static int reckon_path(const wy_motion_entry *e, double t, uint16_t *qx, uint16_t *qy, uint8_t *qa) {
    double left = t > e->t ? ((e->qs / 16.0) * (t - e->t) * COORD_SCALE) / 1000 : 0;
    double fx = e->qx, fy = e->qy;
    uint8_t a = e->qa;
    for (int i = 0; i < e->npts; i++) {
        double tx = e->pts[2 * i], ty = e->pts[2 * i + 1];
        double dx = tx - fx, dy = ty - fy;
        double len = sqrt(dx * dx + dy * dy);
        if (len > 0) a = wy_quantize_angle(atan2(dy, dx));
        if (left < len) {
            double f = left / len;
            *qx = (uint16_t)floor(fx + dx * f + 0.5);
            *qy = (uint16_t)floor(fy + dy * f + 0.5);
            *qa = a;
            return i;
        }
        left -= len;
        fx = tx;
        fy = ty;
    }
    *qx = (uint16_t)fx;
    *qy = (uint16_t)fy;
    *qa = a;
    return e->npts;
}

static int reckon(const wy_motion_entry *e, double t, uint16_t *qx, uint16_t *qy, uint8_t *qa) {
    if (e->path) return reckon_path(e, t, qx, qy, qa);
    reckon_ref(e, t, qx, qy);
    *qa = e->qa;
    return 0;
}

static void start_path(wy_motion_refs *m, wy_motion_entry *e, uint16_t qx, uint16_t qy, uint8_t qa,
                       const wy_record *r, double t) {
    e->qx = qx;
    e->qy = qy;
    e->qa = qa;
    e->qs = r->has_speed ? r->qs : e->spawn_qs;
    e->t = t;
    e->held = true;
    if (r->count == 0) {
        /* Stopped: a standing move reference, facing along the way it came. */
        e->moving = false;
        e->path = false;
        e->npts = 0;
    } else {
        e->moving = true;
        e->path = true;
        e->npts = r->count;
        for (int i = 0; i < r->count; i++) {
            e->pts[2 * i] = r->waypoints[i].qx;
            e->pts[2 * i + 1] = r->waypoints[i].qy;
        }
    }
    m->qx = qx;
    m->qy = qy;
}

/* A path record as of the frame's time: carried along its waypoints, or standing at its end. */
static void carry(wy_motion_refs *m, const wy_motion_entry *e, wy_record *r) {
    uint16_t qx, qy;
    uint8_t qa;
    int next = reckon(e, m->time, &qx, &qy, &qa);
    if (!e->path || next >= e->npts) {
        r->kind = WY_REC_MOVE;
        r->qx = qx;
        r->qy = qy;
        r->qa = qa;
        r->has_angle = true;
        r->moving = false;
        r->jump = false;
        r->has_speed = false;
        r->has_age = false;
        r->count = 0;
    } else if (!(next == 0 && e->t == m->time)) {
        r->qx = qx;
        r->qy = qy;
        r->has_age = false;
        r->count = (uint8_t)(r->count - next);
        memmove(r->waypoints, r->waypoints + next, r->count * sizeof r->waypoints[0]);
    }
    wy_record_values(r);
}

int wy_motion_resolve(wy_motion_refs *m, wy_record *r) {
    wy_motion_entry *e = find(m, r->id);
    uint16_t qx, qy;
    uint8_t qa;
    switch (r->kind) {
    case WY_REC_SPAWN:
        if (e) {
            e->spawn_qs = r->qs;
            e->held = false;
            e->path = false;
        } else {
            if (!(e = insert(m, r->id))) return WY_ERR_BUFFER;
            e->spawn_qs = r->qs;
        }
        return 1;
    case WY_REC_DESPAWN:
        forget(m, r->id);
        return 1;
    case WY_REC_PATH: {
        if (!e) {
            if (!(e = insert(m, r->id))) return WY_ERR_BUFFER;
            e->qx = r->qx;
            e->qy = r->qy;
        }
        uint32_t age = r->has_age ? r->age : 0;
        start_path(m, e, r->qx, r->qy, e->qa, r, m->time - age);
        if (age) carry(m, e, r);
        return 1;
    }
    case WY_REC_PATH_HERE: {
        if (!e || !e->held) return 0;
        double t = m->time - (r->has_age ? r->age : 0);
        reckon(e, t, &qx, &qy, &qa);
        start_path(m, e, qx, qy, qa, r, t);
        r->kind = WY_REC_PATH;
        r->qx = m->qx;
        r->qy = m->qy;
        r->has_age = false;
        /* As a path from a point it starts at t, which carry takes to the frame's time. */
        carry(m, e, r);
        return 1;
    }
    case WY_REC_MOVE:
        if (!e) {
            /* Never spawned here (the client's own entity): its speed is whatever the record says. */
            if (!(e = insert(m, r->id))) return WY_ERR_BUFFER;
        }
        e->path = false;
        e->npts = 0;
        e->qx = r->qx;
        e->qy = r->qy;
        e->qa = r->qa;
        e->moving = r->moving;
        e->qs = r->has_speed ? r->qs : e->spawn_qs;
        e->t = m->time - (r->has_age ? r->age : 0);
        e->held = true;
        m->qx = r->qx;
        m->qy = r->qy;
        return 1;
    case WY_REC_MOVE_BY: {
        if (!e || !e->held) return 0;
        double t = m->time - (r->has_age ? r->age : 0);
        reckon(e, t, &qx, &qy, &qa);
        if (e->path) {
            /* From a path reference: a move reference from here on, facing as it walked. */
            e->qa = qa;
            e->path = false;
            e->npts = 0;
        }
        e->qx = clamp_step((double)qx + r->dx);
        e->qy = clamp_step((double)qy + r->dy);
        if (r->has_angle) e->qa = r->qa;
        e->moving = r->moving;
        e->qs = r->has_speed ? r->qs : e->spawn_qs;
        e->t = t;
        m->qx = e->qx;
        m->qy = e->qy;
        r->kind = WY_REC_MOVE;
        r->qx = e->qx;
        r->qy = e->qy;
        r->qa = e->qa;
        r->has_angle = true;
        r->jump = false;
        r->qs = e->qs;
        r->dx = r->dy = 0;
        if (r->has_age && r->age == 0) r->has_age = false;
        wy_record_values(r);
        return 1;
    }
    default:
        return 1;
    }
}

/* ------------------------------------------------------------------ dead reckoning */

void wy_dead_reckon(const wy_motion_state *s, double t, double max_ms, double *x, double *y) {
    if (!s->moving) {
        *x = s->x;
        *y = s->y;
        return;
    }
    double dt = t - s->t;
    if (dt < 0) dt = 0;
    if (dt > max_ms) dt = max_ms;
    dt /= 1000;
    *x = s->x + cos(s->angle) * s->speed * dt;
    *y = s->y + sin(s->angle) * s->speed * dt;
}

/* ------------------------------------------------------------------ JSON */

void wy_json_number(FILE *out, double v) { fprintf(out, "%.17g", v); }

void wy_json_string(FILE *out, const char *s, size_t len) {
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void wy_json_hex(FILE *out, const uint8_t *bytes, size_t len) {
    fputc('"', out);
    for (size_t i = 0; i < len; i++) fprintf(out, "%02x", bytes[i]);
    fputc('"', out);
}

static const char *const record_kinds[] = {"move",  "path",    "spawn",  "despawn", "health",
                                           "death", "respawn", "moveBy", "pathHere"};

void wy_record_json(FILE *out, const wy_record *r) {
    fprintf(out, "{\"kind\":\"%s\",\"id\":%lu", record_kinds[r->kind], (unsigned long)r->id);
    switch (r->kind) {
    case WY_REC_MOVE:
    case WY_REC_MOVE_BY:
        if (r->kind == WY_REC_MOVE) {
            fputs(",\"x\":", out);
            wy_json_number(out, r->x);
            fputs(",\"y\":", out);
            wy_json_number(out, r->y);
        } else {
            fprintf(out, ",\"dx\":%ld,\"dy\":%ld", (long)r->dx, (long)r->dy);
        }
        if (r->has_angle) {
            fputs(",\"angle\":", out);
            wy_json_number(out, r->angle);
        }
        fprintf(out, ",\"moving\":%s", r->moving ? "true" : "false");
        if (r->kind == WY_REC_MOVE) fprintf(out, ",\"jump\":%s", r->jump ? "true" : "false");
        if (r->has_speed) {
            fputs(",\"speed\":", out);
            wy_json_number(out, r->speed);
        }
        break;
    case WY_REC_PATH:
    case WY_REC_PATH_HERE:
        if (r->kind == WY_REC_PATH) {
            fputs(",\"x\":", out);
            wy_json_number(out, r->x);
            fputs(",\"y\":", out);
            wy_json_number(out, r->y);
        }
        if (r->has_speed) {
            fputs(",\"speed\":", out);
            wy_json_number(out, r->speed);
        }
        fputs(",\"waypoints\":[", out);
        for (int i = 0; i < r->count; i++) {
            fputs(i > 0 ? ",{\"x\":" : "{\"x\":", out);
            wy_json_number(out, r->waypoints[i].x);
            fputs(",\"y\":", out);
            wy_json_number(out, r->waypoints[i].y);
            fputc('}', out);
        }
        fputc(']', out);
        break;
    case WY_REC_SPAWN:
        fprintf(out, ",\"entity\":\"%s\",\"template\":%u,\"name\":", wy_entity_kind_names[r->entity],
                (unsigned)r->template_id);
        wy_json_string(out, r->name.data, r->name.len);
        fprintf(out, ",\"level\":%u,\"health\":%lu,\"maxHealth\":%lu,\"speed\":", (unsigned)r->level,
                (unsigned long)r->health, (unsigned long)r->max_health);
        wy_json_number(out, r->speed);
        fprintf(out, ",\"appearance\":%u,\"alive\":%s", (unsigned)r->appearance, r->alive ? "true" : "false");
        break;
    case WY_REC_DESPAWN:
        fprintf(out, ",\"reason\":\"%s\"", wy_despawn_reason_names[r->reason]);
        break;
    case WY_REC_HEALTH:
        fprintf(out, ",\"health\":%lu,\"maxHealth\":%lu", (unsigned long)r->health,
                (unsigned long)r->max_health);
        break;
    case WY_REC_DEATH:
        fprintf(out, ",\"killerId\":%lu", (unsigned long)r->killer_id);
        break;
    case WY_REC_RESPAWN:
        fputs(",\"x\":", out);
        wy_json_number(out, r->x);
        fputs(",\"y\":", out);
        wy_json_number(out, r->y);
        fprintf(out, ",\"health\":%lu,\"maxHealth\":%lu", (unsigned long)r->health,
                (unsigned long)r->max_health);
        break;
    }
    if (r->has_age && r->kind != WY_REC_SPAWN) fprintf(out, ",\"age\":%lu", (unsigned long)r->age);
    fputc('}', out);
}

void wy_records_json(FILE *out, const uint8_t *records, size_t len) {
    wy_records_iter it;
    wy_record r;
    wy_records_begin(&it, records, len);
    fputc('[', out);
    for (int n = 0; wy_records_next(&it, &r) == 1; n++) {
        if (n > 0) fputc(',', out);
        wy_record_json(out, &r);
    }
    fputc(']', out);
}
