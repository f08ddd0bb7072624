/*
 * Wyvern client library for C99: frames, field primitives, CRC-16, entity records, motion
 * references and dead reckoning. The packets themselves (structs, encoders, decoders, opcodes,
 * error codes) are generated from the packet definitions into wyvern_packets.h.
 *
 * Frame (every packet, on every transport), all integers little-endian:
 *
 *   offset  size  field
 *   0       2     size    u16, the whole frame including this 6-byte header
 *   2       2     opcode  u16
 *   4       2     crc     u16, CRC-16/CCITT-FALSE of the payload
 *   6       ...   payload (size - 6 bytes)
 *
 * Nothing here allocates: every buffer is the caller's, every array is bounded by the maximum
 * its definition declares. Nothing here blocks or touches a socket. Functions return WY_OK (0)
 * or a negative error whose stable code wy_error_code() names (the codes the server uses).
 */
#ifndef WYVERN_H
#define WYVERN_H

#include "wyvern_packets.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor ---- */
uint16_t wy_crc16(const uint8_t *bytes, size_t len);

/* ---- field primitives (the generated codecs are made of these) ---- */

/* Reads a payload; every read is bounds-checked (WY_ERR_SHORT). */
typedef struct {
    const uint8_t *buf;
    size_t pos;
    size_t end;
} wy_reader;

/* Writes into a caller's buffer of cap bytes (WY_ERR_BUFFER when it is full). */
typedef struct {
    uint8_t *buf;
    size_t pos;
    size_t cap;
    /* Where the frame being written starts (wy_frame_begin). */
    size_t frame;
} wy_writer;

void wy_reader_init(wy_reader *r, const uint8_t *buf, size_t len);
/* WY_ERR_OVERLONG when bytes are left after the last field. */
int wy_reader_done(const wy_reader *r);
int wy_get_u8(wy_reader *r, uint8_t *v);
int wy_get_i8(wy_reader *r, int8_t *v);
int wy_get_u16(wy_reader *r, uint16_t *v);
int wy_get_i16(wy_reader *r, int16_t *v);
int wy_get_u32(wy_reader *r, uint32_t *v);
int wy_get_i32(wy_reader *r, int32_t *v);
int wy_get_f32(wy_reader *r, float *v);
int wy_get_f64(wy_reader *r, double *v);
int wy_get_bool(wy_reader *r, bool *v);
/* Unsigned LEB128, shortest form, at most 5 bytes and 2^32-1 (else WY_ERR_BAD_VARINT). */
int wy_get_varint(wy_reader *r, uint32_t *v);
int wy_get_angle(wy_reader *r, double *v);
int wy_get_quantized(wy_reader *r, double min, double step, double *v);
/* A length-prefixed UTF-8 string into data (max + 1 bytes: it is NUL-terminated too). */
int wy_get_string(wy_reader *r, size_t max, int prefix, char *data, uint16_t *len);
int wy_get_bytes(wy_reader *r, size_t max, int prefix, uint8_t *data, uint16_t *len);
int wy_get_enum(wy_reader *r, size_t count, uint8_t *v);
int wy_get_count(wy_reader *r, size_t max, int prefix, uint16_t *count);
/* Checks the entity records to the end of the payload and points at them. */
int wy_get_records(wy_reader *r, const uint8_t **records, size_t *len);

void wy_writer_init(wy_writer *w, uint8_t *buf, size_t cap);
int wy_put_u8(wy_writer *w, uint8_t v);
int wy_put_i8(wy_writer *w, int8_t v);
int wy_put_u16(wy_writer *w, uint16_t v);
int wy_put_i16(wy_writer *w, int16_t v);
int wy_put_u32(wy_writer *w, uint32_t v);
int wy_put_i32(wy_writer *w, int32_t v);
int wy_put_f32(wy_writer *w, float v);
int wy_put_f64(wy_writer *w, double v);
int wy_put_bool(wy_writer *w, bool v);
int wy_put_varint(wy_writer *w, uint32_t v);
int wy_put_angle(wy_writer *w, double radians);
int wy_put_quantized(wy_writer *w, double min, double scale, double v);
/* Refuses (WY_ERR_ENCODE) a string longer than max bytes or not valid UTF-8. */
int wy_put_string(wy_writer *w, size_t max, int prefix, const char *data, size_t len);
int wy_put_bytes(wy_writer *w, size_t max, int prefix, const uint8_t *data, size_t len);
int wy_put_enum(wy_writer *w, size_t count, int v);
int wy_put_count(wy_writer *w, size_t max, int prefix, size_t count);
int wy_put_raw(wy_writer *w, const uint8_t *data, size_t len);

/* An angle in radians as its u8 step (2*pi/256), and back, exactly as the server does it. */
uint8_t wy_quantize_angle(double radians);
double wy_angle_of_step(uint8_t q);
/* A zone coordinate as its u16 step (COORD_MAX/65535), clamped, and back. */
uint16_t wy_quantize_coord(double v);
double wy_coord_of_step(uint16_t q);
/* A speed (units per second) as its u16 step (1/16), clamped, and back. */
uint16_t wy_quantize_speed(double v);
double wy_speed_of_step(uint16_t q);

/* Whether bytes are valid UTF-8 (no overlong forms, surrogates or code points above U+10FFFF). */
bool wy_utf8_valid(const uint8_t *bytes, size_t len);

/* ---- frames ---- */

/* Starts a frame at w's buffer: room for the header is kept. */
int wy_frame_begin(wy_writer *w, uint8_t *buf, size_t cap);
/* Fills in the header (size, opcode, CRC of the payload); *len is the whole frame. */
int wy_frame_end(wy_writer *w, uint16_t opcode, size_t *len);

/*
 * One frame at the start of bytes[0, len): 1 when a whole frame is there (its opcode, payload
 * and whole size set), 0 when more bytes are needed (never an error), or WY_ERR_FRAME_SIZE /
 * WY_ERR_BAD_CRC.
 */
int wy_frame_parse(const uint8_t *bytes, size_t len, uint16_t *opcode, const uint8_t **payload,
                   size_t *payload_len, size_t *frame_len);

/*
 * Turns a byte stream (a TCP connection) into frames, in a caller's buffer of at least
 * WY_MAX_FRAME_SIZE bytes. Give it bytes with wy_deframer_push, or receive straight into
 * wy_deframer_space and then wy_deframer_commit; then call wy_deframer_next until it returns 0.
 * A payload stays valid until the next push, space or commit. After an error the stream is
 * unusable: close the connection.
 */
typedef struct {
    uint8_t *buf;
    size_t cap;
    /* Valid bytes in buf, and where the next frame starts. */
    size_t len;
    size_t pos;
} wy_deframer;

void wy_deframer_init(wy_deframer *d, uint8_t *buf, size_t cap);
/* Copies in as much of data as fits; returns how many bytes it took. */
size_t wy_deframer_push(wy_deframer *d, const uint8_t *data, size_t len);
/* Free space to receive into (after moving what is left to the front), and its size. */
uint8_t *wy_deframer_space(wy_deframer *d, size_t *room);
void wy_deframer_commit(wy_deframer *d, size_t n);
/* 1: a frame; 0: need more bytes; negative: a bad frame. */
int wy_deframer_next(wy_deframer *d, uint16_t *opcode, const uint8_t **payload, size_t *len);

/* ---- entity records: the body of a WorldUpdate (see docs/PROTOCOL.md) ---- */

typedef enum {
    WY_REC_MOVE = WY_RECORD_KIND_MOVE,
    WY_REC_PATH = WY_RECORD_KIND_PATH,
    WY_REC_SPAWN = WY_RECORD_KIND_SPAWN,
    WY_REC_DESPAWN = WY_RECORD_KIND_DESPAWN,
    WY_REC_HEALTH = WY_RECORD_KIND_HEALTH,
    WY_REC_DEATH = WY_RECORD_KIND_DEATH,
    WY_REC_RESPAWN = WY_RECORD_KIND_RESPAWN,
    WY_REC_MOVE_BY = WY_RECORD_KIND_MOVE_BY,
    /* A path record with HERE: from where the entity's reference puts it. */
    WY_REC_PATH_HERE = 8
} wy_record_kind;

typedef struct {
    uint16_t qx, qy;
    double x, y;
} wy_point;

/*
 * One record, decoded. The wire steps (q*) are what the record carries; the doubles next to
 * them are their values (coord steps of COORD_MAX/65535, angle steps of 2*pi/256, speed steps
 * of 1/16 unit per second). Writing a record reads the steps only.
 */
typedef struct {
    wy_record_kind kind;
    uint32_t id;
    /* The first record of its block: its id was sent whole, not as a delta. */
    bool base;
    /* move, path, respawn: the position. */
    uint16_t qx, qy;
    double x, y;
    /* move (always), moveBy (unless it keeps the reference's angle): heading or facing. */
    bool has_angle;
    uint8_t qa;
    double angle;
    /* move, moveBy */
    bool moving;
    /* move: a discontinuity, snap rather than blend. */
    bool jump;
    /* Units per second: always for a spawn; for motion records when it is not the spawn's. */
    bool has_speed;
    uint16_t qs;
    double speed;
    /* Ms before the frame's time at which the state held. */
    bool has_age;
    uint32_t age;
    /* moveBy: coord steps from where the reference puts the entity. */
    int32_t dx, dy;
    /* path, pathHere */
    uint8_t count;
    wy_point waypoints[WY_MAX_PATH_POINTS];
    /* spawn */
    uint8_t entity; /* WY_ENTITY_PLAYER or WY_ENTITY_MOB */
    uint16_t template_id;
    wy_str16 name;
    uint8_t level;
    uint8_t appearance;
    bool alive;
    /* spawn, health, respawn */
    uint32_t health, max_health;
    /* despawn: WY_DESPAWN_* */
    uint8_t reason;
    /* death: 0 when none */
    uint32_t killer_id;
} wy_record;

typedef struct {
    wy_reader r;
    uint64_t id;
} wy_records_iter;

void wy_records_begin(wy_records_iter *it, const uint8_t *records, size_t len);
/* 1: *out holds the next record; 0: no more; negative: a malformed record. */
int wy_records_next(wy_records_iter *it, wy_record *out);
/* Appends one record; its id is sent whole when r->base, else as r->id - prev_id. */
int wy_record_write(wy_writer *w, uint32_t prev_id, const wy_record *r);
void wy_record_json(FILE *out, const wy_record *r);
void wy_records_json(FILE *out, const uint8_t *records, size_t len);
/* Fills in the doubles of a record from its steps (after setting the steps by hand). */
void wy_record_values(wy_record *r);

/* ---- motion references (shared/protocol/motion-refs.ts) ----
 *
 * A moveBy record is a move relative to its entity's reference, and a HERE path a path from
 * where that reference puts it: the reference is the entity's newest move, moveBy or path,
 * which the server keeps alike. wy_motion_resolve rewrites each record of a WorldUpdate into
 * its absolute form (moveBy into move, pathHere into path or a standing move, aged paths
 * carried to the frame's time), exactly as the TypeScript client does, so the rest of a
 * client reads plain states. Entries live in the caller's array (a power of two in size,
 * kept at most three quarters full). */
typedef struct {
    uint32_t id;
    bool used;
    /* Holds a reference (from the entity's first move or path on). */
    bool held;
    bool moving;
    uint8_t qa;
    uint16_t qx, qy, qs, spawn_qs;
    /* Server ms at which the reference held. */
    double t;
    /* A path reference: npts waypoints (x, y steps) walked from (qx, qy) at t. */
    bool path;
    uint8_t npts;
    uint16_t pts[2 * WY_MAX_PATH_POINTS];
} wy_motion_entry;

typedef struct {
    /* The newest WorldUpdate's absolute tick and server time (ms). */
    double tick;
    double time;
    wy_motion_entry *entries;
    size_t cap;
    size_t count;
    /* Where the last resolved moveBy or path put its entity, in coord steps. */
    uint16_t qx, qy;
} wy_motion_refs;

/* cap must be a power of two. */
void wy_motion_init(wy_motion_refs *m, wy_motion_entry *entries, size_t cap);
/* EnterWorld (also after a resume) or ZoneChanged: the heads count from this tick and server
 * time, and references start afresh (the next WorldUpdate spawns everything in view). */
void wy_motion_enter(wy_motion_refs *m, double tick, double server_time);
/* A WorldUpdate's head: its tick and time are deltas from the previous one. */
void wy_motion_advance(wy_motion_refs *m, uint32_t tick_delta, uint32_t time_delta);
/*
 * Rewrites one record (in WorldUpdate order, after wy_motion_advance for its frame) into
 * absolute form: 1 keep it, 0 drop it (a moveBy or HERE path for an entity without a
 * reference: the client's own, which it predicts), WY_ERR_BUFFER when the table is full.
 */
int wy_motion_resolve(wy_motion_refs *m, wy_record *r);

/* ---- dead reckoning (shared/game/motion.ts) ---- */

typedef struct {
    /* Position at server time t (ms). */
    double x, y, t;
    bool moving;
    /* Heading while moving, facing while standing (radians); units per second. */
    double angle, speed;
} wy_motion_state;

/* Where a state puts its entity at time t: never before the state, never past max_ms of it. */
void wy_dead_reckon(const wy_motion_state *s, double t, double max_ms, double *x, double *y);

/* ---- JSON (the test driver's canonical form; a debugging aid) ---- */
void wy_json_number(FILE *out, double v);
void wy_json_string(FILE *out, const char *s, size_t len);
void wy_json_hex(FILE *out, const uint8_t *bytes, size_t len);

#ifdef __cplusplus
}
#endif

#endif
