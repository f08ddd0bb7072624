/*
 * A small Wyvern client over TCP: registers the account (or logs in when it exists) with
 * SRP-6a, picks or creates a character, enters the world, walks a stretch that is clear of
 * walls, says something, and prints what it sees (entities coming and going, their moves,
 * chat) until its time is up. When its connection drops it connects again and resumes with
 * the newest resume token (the character lingers in the world meanwhile, so nobody sees it
 * leave); should the server refuse the token, it logs in again with the password and the
 * remembered-device token of its last login, and enters the character again.
 *
 *   example [--host 127.0.0.1] [--port 7777] [--account NAME] [--password PW] [--name CHAR]
 *           [--say TEXT] [--walk MS] [--seconds S] [--reconnect-attempts N] [--resume-say TEXT]
 *
 * Everything on the wire goes through the library (wyvern.h); this file is the socket, the
 * clock and the game logic of a minimal client.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "srp.h"
#include "wyvern.h"

#define MAX_SEEN 512
#define PI 3.141592653589793
/* Keep this far from walls and the zone's edge when choosing where to walk (the server
 * refuses positions closer to a wall than a body's clearance). */
#define CLEARANCE 12.0

typedef struct {
    const char *host, *port, *account, *password, *name, *say, *resume_say;
    double walk_ms, seconds;
    int reconnect_attempts;
} options;

/* What the client knows of one entity in view. */
typedef struct {
    uint32_t id;
    bool used, alive;
    char name[WY_NAME_MAX + 1];
    uint8_t entity;
    uint32_t health, max_health;
    double spawn_speed;
    wy_motion_state motion;
} seen;

static int sock = -1;
/* Why the connection dropped, when it did (NULL while it is up): a drop is resumed, unlike a
 * Bye or a fatal Error, which end the program. */
static const char *lost;
/* The newest resume token (LoginOk's, then each Resumed's): each works once. */
static uint8_t resume_token[32];
static size_t resume_token_len;
/* The remembered-device token of the newest LoginOk, brought back by a later LoginStart: a
 * device that logged in before is not held by the lock that guessing from many addresses
 * puts on the account. Kept in memory only, for a re-login after a refused resume. */
static uint8_t device_token[32];
static size_t device_token_len;
static uint8_t stream_buf[WY_MAX_FRAME_SIZE];
static uint8_t out_buf[WY_MAX_FRAME_SIZE];
static wy_deframer deframer;
/* Large (ZoneInfo holds up to 2048 walls): static, not on the stack. */
static wy_packet in;
static wy_packet out;
static wy_motion_entry ref_entries[4096];
static wy_motion_refs refs;
static seen view[MAX_SEEN];
static wy_zone_info zone;
static wy_enter_world me;

/* The own character as this client predicts it. */
static struct {
    double x, y, angle, speed;
    bool moving;
    double since; /* client ms at which (x, y) held */
    uint8_t epoch;
    uint32_t seq;
    double last_sent;
} self;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    putchar('\n');
    fflush(stdout);
    va_end(ap);
}

/* Opens the connection: false (saying why) when no address of host:port answers. */
static bool connect_to(const char *host, const char *port) {
    struct addrinfo hints, *res, *ai;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int e = getaddrinfo(host, port, &hints, &res);
    if (e != 0) {
        say("%s:%s: %s", host, port, gai_strerror(e));
        return false;
    }
    int why = 0;
    for (ai = res; ai; ai = ai->ai_next) {
        sock = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (sock < 0) continue;
        if (connect(sock, ai->ai_addr, ai->ai_addrlen) == 0) break;
        why = errno;
        close(sock);
        sock = -1;
    }
    freeaddrinfo(res);
    if (sock < 0) {
        say("cannot connect to %s:%s: %s", host, port, strerror(why));
        return false;
    }
    lost = NULL;
    wy_deframer_init(&deframer, stream_buf, sizeof stream_buf);
    return true;
}

static void drop(const char *why) {
    if (!lost) lost = why;
    if (sock >= 0) close(sock);
    sock = -1;
}

/* Sends `out`; a failed send marks the connection lost (the next read reports it). */
static void send_packet(uint16_t opcode) {
    size_t len;
    out.opcode = opcode;
    int e = wy_packet_encode(&out, out_buf, sizeof out_buf, &len);
    if (e != WY_OK) die("cannot encode %s: %s", wy_packet_name(opcode), wy_error_code(e));
    for (size_t sent = 0; sent < len && !lost;) {
        ssize_t n = send(sock, out_buf + sent, len - sent, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) drop(strerror(errno));
        else sent += (size_t)n;
    }
}

/*
 * The next packet from the server into `in`, waiting at most timeout_ms (-1: for ever):
 * 1 when one came, 0 on timeout, -1 when the connection is lost (`lost` says why). Bad
 * frames, a Bye and a fatal Error end the program; a non-fatal Error is returned like any
 * packet.
 */
static int next_packet(int timeout_ms) {
    for (;;) {
        if (lost) return -1;
        uint16_t opcode;
        const uint8_t *payload;
        size_t len;
        int e = wy_deframer_next(&deframer, &opcode, &payload, &len);
        if (e < 0) die("bad frame from the server: %s", wy_error_code(e));
        if (e == 1) {
            e = wy_packet_decode(opcode, payload, len, &in);
            if (e != WY_OK) die("cannot decode opcode 0x%04x: %s", opcode, wy_error_code(e));
            if (opcode == WY_OP_BYE) die("server said goodbye (%s): %s", wy_bye_reason_names[in.u.bye.reason], in.u.bye.message.data);
            if (opcode == WY_OP_ERROR && in.u.error.fatal)
                die("%s: %s (%s)", in.u.error.code.data, wy_error_message(in.u.error.code.data), in.u.error.reason.data);
            return 1;
        }
        struct pollfd p = {sock, POLLIN, 0};
        int ready = poll(&p, 1, timeout_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) die("poll: %s", strerror(errno));
        if (ready == 0) return 0;
        size_t room;
        uint8_t *at = wy_deframer_space(&deframer, &room);
        ssize_t n = recv(sock, at, room, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) drop("the connection was closed");
        else if (n < 0) drop(strerror(errno));
        else wy_deframer_commit(&deframer, (size_t)n);
    }
}

/*
 * Waits up to 30 s for one of two opcodes (b 0: none) or an Error, handling nothing else:
 * that opcode, or 0 when the connection was lost or nothing came (`lost` says which).
 */
static uint16_t await(uint16_t a, uint16_t b) {
    double deadline = now_ms() + 30000;
    while (now_ms() < deadline) {
        int got = next_packet(1000);
        if (got < 0) return 0;
        if (got == 0) continue;
        if (in.opcode == a || (b && in.opcode == b) || in.opcode == WY_OP_ERROR) return in.opcode;
        if (in.opcode == WY_OP_LOGIN_QUEUE)
            say("login queue: %lu of %lu", (unsigned long)in.u.login_queue.position,
                (unsigned long)in.u.login_queue.queue_length);
    }
    drop("the server did not answer in 30 s");
    return 0;
}

/* What refused a request: the Error's message, or why the connection went. */
static const char *refusal(uint16_t op) {
    return op == WY_OP_ERROR ? wy_error_message(in.u.error.code.data) : lost;
}

static void set_str(char *data, uint16_t *len, size_t max, const char *s, const char *what) {
    if (wy_set_str(data, len, max, s) != WY_OK) die("%s is too long or not UTF-8: %s", what, s);
}
#define SET(field, s, what) set_str((field).data, &(field).len, sizeof((field).data) - 1, (s), (what))

static bool hello(void) {
    wy_hello *h = &out.u.hello;
    h->protocol_version = WY_PROTOCOL_VERSION;
    h->client_kind = WY_HELLO_CLIENT_KIND_NATIVE;
    SET(h->client_name, "wyvern-c-example", "client name");
    send_packet(WY_OP_HELLO);
    uint16_t op = await(WY_OP_WELCOME, 0);
    if (op != WY_OP_WELCOME) {
        say("Hello refused: %s", refusal(op));
        return false;
    }
    say("connected to %s (tick rate %u, protocol %u)", in.u.welcome.server_name.data, in.u.welcome.tick_rate,
        in.u.welcome.protocol_version);
    return true;
}

static void keep_resume_token(const uint8_t *token, size_t len) {
    memcpy(resume_token, token, len);
    resume_token_len = len;
}

static void register_account(const options *o) {
    wy_srp_big salt, verifier;
    if (wy_srp_register(o->password, &salt, &verifier) != 0) die("SRP: cannot make a verifier");
    wy_register *r = &out.u.register_;
    SET(r->account, o->account, "account");
    WY_SET_BYTES(r->salt, salt.data, salt.len);
    WY_SET_BYTES(r->verifier, verifier.data, verifier.len);
    send_packet(WY_OP_REGISTER);
    uint16_t op = await(WY_OP_REGISTERED, 0);
    if (op == WY_OP_REGISTERED) {
        say("registered account %s", in.u.registered.account.data);
    } else if (op == WY_OP_ERROR && strcmp(in.u.error.code.data, WY_CODE_ERR_ACCOUNT_TAKEN) == 0) {
        say("account %s exists: logging in", o->account);
    } else {
        die("Register refused: %s", refusal(op));
    }
}

/* SRP-6a on the open connection: false (saying why) when the server refuses or goes. */
static bool login(const options *o) {
    /* The packet union is reused: start from zero, then bring the device token, if any. */
    memset(&out.u.login_start, 0, sizeof out.u.login_start);
    SET(out.u.login_start.account, o->account, "account");
    WY_SET_BYTES(out.u.login_start.device_token, device_token, device_token_len);
    send_packet(WY_OP_LOGIN_START);
    uint16_t op = await(WY_OP_LOGIN_CHALLENGE, 0);
    if (op != WY_OP_LOGIN_CHALLENGE) {
        say("login refused: %s", refusal(op));
        return false;
    }
    wy_srp_proof proof;
    const wy_login_challenge *c = &in.u.login_challenge;
    if (wy_srp_answer(o->password, c->salt.data, c->salt.len, c->b.data, c->b.len, NULL, 0, &proof) != 0)
        die("SRP: the server's challenge is unusable");
    WY_SET_BYTES(out.u.login_proof.a, proof.A.data, proof.A.len);
    WY_SET_BYTES(out.u.login_proof.m1, proof.M1.data, proof.M1.len);
    send_packet(WY_OP_LOGIN_PROOF);
    op = await(WY_OP_LOGIN_OK, 0);
    if (op != WY_OP_LOGIN_OK) {
        say("login refused: %s", refusal(op));
        return false;
    }
    const wy_login_ok *ok = &in.u.login_ok;
    if (!wy_srp_same(&proof.M2, ok->m2.data, ok->m2.len))
        die("the server's proof M2 is wrong: it does not hold this account's verifier");
    keep_resume_token(ok->resume_token.data, ok->resume_token.len);
    memcpy(device_token, ok->device_token.data, ok->device_token.len);
    device_token_len = ok->device_token.len;
    say("logged in as %s (account %lu)", ok->account.data, (unsigned long)ok->account_id);
    return true;
}

static uint32_t choose_character(const options *o) {
    out.u.list_characters.unused = 0;
    send_packet(WY_OP_LIST_CHARACTERS);
    uint16_t op = await(WY_OP_CHARACTER_LIST, 0);
    if (op != WY_OP_CHARACTER_LIST) die("no character list: %s", refusal(op));
    const wy_character_list *l = &in.u.character_list;
    for (size_t i = 0; i < l->characters.count; i++) {
        if (strcasecmp(l->characters.items[i].name.data, o->name) == 0) {
            say("playing %s, level %u, in %s", l->characters.items[i].name.data, l->characters.items[i].level,
                l->characters.items[i].zone.data);
            return l->characters.items[i].id;
        }
    }
    SET(out.u.create_character.name, o->name, "character name");
    out.u.create_character.appearance = 2;
    send_packet(WY_OP_CREATE_CHARACTER);
    op = await(WY_OP_CHARACTER_CREATED, 0);
    if (op != WY_OP_CHARACTER_CREATED) die("cannot create %s: %s", o->name, refusal(op));
    say("created %s", in.u.character_created.character.name.data);
    return in.u.character_created.character.id;
}

static seen *find_seen(uint32_t id, bool add) {
    seen *free_slot = NULL;
    for (int i = 0; i < MAX_SEEN; i++) {
        if (view[i].used && view[i].id == id) return &view[i];
        if (!view[i].used && !free_slot) free_slot = &view[i];
    }
    if (!add || !free_slot) return NULL;
    memset(free_slot, 0, sizeof *free_slot);
    free_slot->used = true;
    free_slot->id = id;
    return free_slot;
}

static const char *label(const seen *s) { return s->name[0] ? s->name : "?"; }

static void apply_record(const wy_record *r, double time) {
    if (r->id == me.entity_id && r->kind != WY_REC_HEALTH && r->kind != WY_REC_DEATH && r->kind != WY_REC_RESPAWN)
        return; /* the own position is predicted, not replicated */
    seen *s = find_seen(r->id, r->kind == WY_REC_SPAWN);
    if (!s) return;
    switch (r->kind) {
    case WY_REC_SPAWN:
        memcpy(s->name, r->name.data, r->name.len + 1u);
        s->entity = r->entity;
        s->alive = r->alive;
        s->health = r->health;
        s->max_health = r->max_health;
        s->spawn_speed = r->speed;
        say("+ %s %s (id %lu) level %u, %lu/%lu health%s", wy_entity_kind_names[r->entity], label(s),
            (unsigned long)r->id, r->level, (unsigned long)r->health, (unsigned long)r->max_health,
            r->alive ? "" : ", dead");
        break;
    case WY_REC_MOVE:
        s->motion.x = r->x;
        s->motion.y = r->y;
        s->motion.t = time - (r->has_age ? r->age : 0);
        s->motion.moving = r->moving;
        s->motion.angle = r->angle;
        s->motion.speed = r->has_speed ? r->speed : s->spawn_speed;
        if (s->entity == WY_ENTITY_PLAYER)
            say("~ %s %s at (%.1f, %.1f) heading %.0f deg", label(s), r->moving ? "walks" : "stands", r->x, r->y,
                r->angle * 180 / PI);
        break;
    case WY_REC_PATH:
        /* A path, drawn here as a walk towards its next waypoint. */
        s->motion.x = r->x;
        s->motion.y = r->y;
        s->motion.t = time - (r->has_age ? r->age : 0);
        s->motion.moving = r->count > 0;
        s->motion.angle = r->count > 0 ? atan2(r->waypoints[0].y - r->y, r->waypoints[0].x - r->x) : 0;
        s->motion.speed = r->has_speed ? r->speed : s->spawn_speed;
        break;
    case WY_REC_DESPAWN:
        say("- %s (%s)", label(s), wy_despawn_reason_names[r->reason]);
        s->used = false;
        break;
    case WY_REC_HEALTH:
        s->health = r->health;
        s->max_health = r->max_health;
        break;
    case WY_REC_DEATH:
        s->alive = false;
        s->motion.moving = false;
        say("x %s died", label(s));
        break;
    case WY_REC_RESPAWN:
        s->alive = true;
        s->motion.x = r->x;
        s->motion.y = r->y;
        s->motion.moving = false;
        say("* %s stands up at (%.1f, %.1f)", label(s), r->x, r->y);
        break;
    default:
        break;
    }
}

static void handle_world_update(void) {
    const wy_world_update *u = &in.u.world_update;
    wy_motion_advance(&refs, u->tick, u->time);
    wy_records_iter it;
    wy_record r;
    int e;
    wy_records_begin(&it, u->records, u->records_len);
    while ((e = wy_records_next(&it, &r)) == 1) {
        int keep = wy_motion_resolve(&refs, &r);
        if (keep < 0) die("too many entities in view for the motion table");
        if (keep) apply_record(&r, refs.time);
    }
}

/* Where the own character is at client time t. */
static void predict(double t, double *x, double *y) {
    double dt = self.moving ? (t - self.since) / 1000 : 0;
    *x = self.x + cos(self.angle) * self.speed * dt;
    *y = self.y + sin(self.angle) * self.speed * dt;
}

static void send_move(bool moving) {
    double t = now_ms();
    double x, y;
    predict(t, &x, &y);
    self.x = x;
    self.y = y;
    self.since = t;
    self.moving = moving;
    wy_move_input *m = &out.u.move_input;
    m->seq = ++self.seq;
    m->x = (float)x;
    m->y = (float)y;
    m->facing = self.angle;
    m->moving = moving;
    m->speed = moving ? (float)self.speed : 0;
    m->client_time = t;
    m->epoch = self.epoch;
    send_packet(WY_OP_MOVE_INPUT);
    self.last_sent = t;
}

static void handle(void) {
    switch (in.opcode) {
    case WY_OP_WORLD_UPDATE:
        handle_world_update();
        break;
    case WY_OP_CHAT_MESSAGE: {
        const wy_chat_message *c = &in.u.chat_message;
        say("[%s] %s: %s", wy_chat_message_channel_names[c->channel], c->from_id ? c->from.data : "server",
            c->text.data);
        break;
    }
    case WY_OP_POSITION_CORRECTION: {
        const wy_position_correction *p = &in.u.position_correction;
        say("corrected to (%.1f, %.1f): %s", p->x, p->y, wy_position_correction_reason_names[p->reason]);
        self.x = p->x;
        self.y = p->y;
        self.angle = p->facing;
        self.since = now_ms();
        self.epoch = p->epoch;
        if (self.moving && p->reason != WY_POSITION_CORRECTION_REASON_DEAD) send_move(true);
        else self.moving = false;
        break;
    }
    case WY_OP_ZONE_INFO:
        zone = in.u.zone_info;
        break;
    case WY_OP_ZONE_CHANGED:
        say("now in zone %s", in.u.zone_changed.zone.data);
        wy_motion_enter(&refs, in.u.zone_changed.tick, in.u.zone_changed.server_time);
        break;
    case WY_OP_COMBAT_EVENT: {
        const wy_combat_event *c = &in.u.combat_event;
        seen *src = find_seen(c->source_id, false), *dst = find_seen(c->target_id, false);
        say("%s %s %s for %lu", src ? label(src) : "someone", c->kind == WY_COMBAT_EVENT_KIND_HEAL ? "heals" : "hits",
            dst ? label(dst) : "someone", (unsigned long)c->amount);
        break;
    }
    case WY_OP_ERROR:
        say("refused: %s (%s)", wy_error_message(in.u.error.code.data), in.u.error.code.data);
        break;
    default:
        break;
    }
}

/* EnterWorld is in `in`: the own character from it, and the view built afresh from the
 * WorldUpdates that follow (their heads count from its tick and server time). */
static void entered(void) {
    me = in.u.enter_world;
    wy_motion_enter(&refs, me.tick, me.server_time);
    memset(view, 0, sizeof view);
    self.x = me.x;
    self.y = me.y;
    self.angle = me.facing;
    self.speed = me.speed;
    self.moving = false;
    self.epoch = me.move_epoch;
    self.since = now_ms();
}

/* Waits for EnterWorld, keeping the ZoneInfo before it: false (saying why) when refused or lost. */
static bool await_enter(void) {
    for (;;) {
        uint16_t op = await(WY_OP_ENTER_WORLD, WY_OP_ZONE_INFO);
        if (op == WY_OP_ZONE_INFO) {
            zone = in.u.zone_info;
        } else if (op == WY_OP_ENTER_WORLD) {
            entered();
            return true;
        } else {
            say("cannot enter the world: %s", refusal(op));
            return false;
        }
    }
}

static bool enter_world(uint32_t character) {
    out.u.enter_world_request.character_id = character;
    send_packet(WY_OP_ENTER_WORLD_REQUEST);
    return await_enter();
}

/* Ms before reconnect attempt `attempt` (1-based; the first goes at once): exponential from
 * 250 ms up to 8 s, half of it fixed and half random, so that clients dropped together by a
 * server that comes back do not all knock at the same moment. */
static double backoff(int attempt) {
    if (attempt <= 1) return 0;
    double ceiling = attempt >= 7 ? 8000 : 250.0 * (1 << (attempt - 2));
    return ceiling / 2 + (rand() / (RAND_MAX + 1.0)) * ceiling / 2;
}

static void sleep_ms(double ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/*
 * After a dropped connection: connect again, Hello, and Resume with the newest token, which
 * takes the lingering character back in place (ZoneInfo, SpellBook and EnterWorld follow
 * without a request). A refused token (used, expired, or the server restarted) leaves only
 * the password: log in on the same connection, bringing the device token, and enter the
 * character again. True once back in the world; false when every attempt failed.
 */
static bool reconnect(const options *o, uint32_t character) {
    double dropped = now_ms();
    for (int attempt = 1; attempt <= o->reconnect_attempts; attempt++) {
        double delay = backoff(attempt);
        if (delay > 0) {
            say("reconnecting in %.1f s (attempt %d of %d)", delay / 1000, attempt, o->reconnect_attempts);
            sleep_ms(delay);
        }
        if (!connect_to(o->host, o->port)) continue;
        const char *how = "entered again";
        bool back = false;
        if (hello()) {
            uint16_t op = 0;
            if (resume_token_len > 0) {
                SET(out.u.resume.account, o->account, "account");
                WY_SET_BYTES(out.u.resume.token, resume_token, resume_token_len);
                send_packet(WY_OP_RESUME);
                /* Each token works once, whether it is accepted or refused. */
                resume_token_len = 0;
                op = await(WY_OP_RESUMED, 0);
            }
            if (op == WY_OP_RESUMED) {
                keep_resume_token(in.u.resumed.resume_token.data, in.u.resumed.resume_token.len);
                if (in.u.resumed.character_id != 0) {
                    how = "resumed";
                    back = await_enter();
                } else {
                    /* The character had left the world (its linger ran out): enter it anew. */
                    back = enter_world(character);
                }
            } else if (op == 0 && lost) {
                say("resume failed: %s", lost);
            } else {
                if (op == WY_OP_ERROR) say("resume refused: %s", wy_error_message(in.u.error.code.data));
                back = login(o) && enter_world(character);
            }
        }
        if (back) {
            say("%s in %.0f ms at (%.1f, %.1f), %lu/%lu health", how, now_ms() - dropped, me.x, me.y,
                (unsigned long)me.health, (unsigned long)me.max_health);
            return true;
        }
        drop("reconnect failed");
        say("reconnect attempt %d of %d failed", attempt, o->reconnect_attempts);
    }
    return false;
}

static void chat(const char *text) {
    out.u.chat_send.channel = WY_CHAT_SEND_CHANNEL_SAY;
    SET(out.u.chat_send.text, text, "chat text");
    send_packet(WY_OP_CHAT_SEND);
}

/* Whether a straight walk of dist units along angle stays inside the zone and clear of walls. */
static bool clear_way(double x, double y, double angle, double dist) {
    for (double d = 0; d <= dist + CLEARANCE; d += 1) {
        double px = x + cos(angle) * d, py = y + sin(angle) * d;
        if (px < zone.x + CLEARANCE || py < zone.y + CLEARANCE || px > zone.x + zone.width - CLEARANCE ||
            py > zone.y + zone.height - CLEARANCE)
            return false;
        for (size_t i = 0; i < zone.obstacles.count; i++) {
            const wy_zone_info_obstacle *o = &zone.obstacles.items[i];
            if (px > o->x - CLEARANCE && px < o->x + o->w + CLEARANCE && py > o->y - CLEARANCE &&
                py < o->y + o->h + CLEARANCE)
                return false;
        }
    }
    return true;
}

static void print_view(void) {
    char line[1024];
    size_t n = 0;
    int count = 0;
    line[0] = '\0';
    for (int i = 0; i < MAX_SEEN; i++) {
        if (!view[i].used) continue;
        double x, y;
        wy_dead_reckon(&view[i].motion, refs.time, WY_MAX_DEAD_RECKON_MS, &x, &y);
        count++;
        if (n < sizeof line - 64)
            n += (size_t)snprintf(line + n, sizeof line - n, " %s(%.0f,%.0f)", label(&view[i]), x, y);
    }
    say("view: %d in sight:%s", count, line);
}

static void usage(void) {
    fputs("usage: example [--host H] [--port P] [--account NAME] [--password PW] [--name CHAR]\n"
          "               [--say TEXT] [--walk MS] [--seconds S] [--reconnect-attempts N]\n"
          "               [--resume-say TEXT]\n"
          "  --reconnect-attempts N  after a dropped connection, try this many times to get back (default 8, 0: never)\n"
          "  --resume-say TEXT       say this each time it is back in the world after a drop\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv) {
    options o = {"127.0.0.1", "7777", "cclient", "cclient-password", "Cee", "Hello from C!", NULL, 1000, 10, 8};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        const char *k = argv[i], *v = argv[++i];
        if (!strcmp(k, "--host")) o.host = v;
        else if (!strcmp(k, "--port")) o.port = v;
        else if (!strcmp(k, "--account")) o.account = v;
        else if (!strcmp(k, "--password")) o.password = v;
        else if (!strcmp(k, "--name")) o.name = v;
        else if (!strcmp(k, "--say")) o.say = v;
        else if (!strcmp(k, "--walk")) o.walk_ms = atof(v);
        else if (!strcmp(k, "--seconds")) o.seconds = atof(v);
        else if (!strcmp(k, "--reconnect-attempts")) o.reconnect_attempts = atoi(v);
        else if (!strcmp(k, "--resume-say")) o.resume_say = v;
        else usage();
    }
    /* A write to a connection the peer closed fails with EPIPE instead of ending the program. */
    signal(SIGPIPE, SIG_IGN);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    wy_motion_init(&refs, ref_entries, sizeof ref_entries / sizeof ref_entries[0]);
    if (!connect_to(o.host, o.port) || !hello()) die("no connection to %s:%s", o.host, o.port);
    register_account(&o);
    if (!login(&o)) die("cannot log in as %s", o.account);
    uint32_t character = choose_character(&o);
    if (!enter_world(character)) die("cannot enter the world as %s", o.name);
    say("entered %s as %s (id %lu) at (%.1f, %.1f), speed %.0f, %u walls", me.zone.data, me.name.data,
        (unsigned long)me.entity_id, me.x, me.y, me.speed, (unsigned)zone.obstacles.count);

    /* Pick the first of eight headings with a clear way for the whole walk. */
    double dist = me.speed * o.walk_ms / 1000, heading = -1;
    for (int k = 0; k < 8 && heading < 0; k++)
        if (clear_way(me.x, me.y, k * PI / 4, dist)) heading = k * PI / 4;

    double start = now_ms(), walk_at = start + 500, stop_at = -1, said_at = -1, view_at = start + 1000;
    while (now_ms() - start < o.seconds * 1000) {
        int got = next_packet(20);
        if (got > 0) handle();
        if (got < 0) {
            say("disconnected: %s", lost);
            if (o.reconnect_attempts <= 0 || !reconnect(&o, character)) die("could not get back in");
            if (stop_at > 0) {
                /* Still on the walk: on from where the server kept the character. */
                self.angle = heading;
                send_move(true);
            }
            if (o.resume_say) chat(o.resume_say);
            continue;
        }
        double t = now_ms();
        if (walk_at > 0 && t >= walk_at) {
            walk_at = -1;
            if (heading < 0 || o.walk_ms <= 0) {
                say("no clear way to walk %.0f units from here: standing", dist);
                said_at = t;
            } else {
                self.angle = heading;
                say("walking %.0f units at %.0f deg", dist, heading * 180 / PI);
                send_move(true);
                stop_at = t + o.walk_ms;
            }
        }
        if (stop_at > 0 && t >= stop_at) {
            stop_at = -1;
            send_move(false);
            say("stopped at (%.1f, %.1f)", self.x, self.y);
            said_at = t + 300;
        } else if (self.moving && t - self.last_sent >= WY_CLIENT_HEARTBEAT_MS) {
            send_move(true);
        }
        if (said_at > 0 && t >= said_at) {
            said_at = -1;
            chat(o.say);
        }
        if (t >= view_at) {
            view_at = t + 2000;
            print_view();
            /* A ping now and then keeps an idle connection open. */
            out.u.ping.seq = (uint32_t)(t / 1000);
            out.u.ping.client_time = t;
            send_packet(WY_OP_PING);
        }
    }
    say("done");
    close(sock);
    return 0;
}
