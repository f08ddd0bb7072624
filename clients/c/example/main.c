/*
 * A small Wyvern client over TCP: registers the account (or logs in when it exists) with
 * SRP-6a, picks or creates a character, enters the world, walks a stretch that is clear of
 * walls, says something, and prints what it sees (entities coming and going, their moves,
 * chat) until its time is up.
 *
 *   example [--host 127.0.0.1] [--port 7777] [--account NAME] [--password PW] [--name CHAR]
 *           [--say TEXT] [--walk MS] [--seconds S]
 *
 * Everything on the wire goes through the library (wyvern.h); this file is the socket, the
 * clock and the game logic of a minimal client.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
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
    const char *host, *port, *account, *password, *name, *say;
    double walk_ms, seconds;
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

static void connect_to(const char *host, const char *port) {
    struct addrinfo hints, *res, *ai;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int e = getaddrinfo(host, port, &hints, &res);
    if (e != 0) die("%s:%s: %s", host, port, gai_strerror(e));
    for (ai = res; ai; ai = ai->ai_next) {
        sock = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (sock < 0) continue;
        if (connect(sock, ai->ai_addr, ai->ai_addrlen) == 0) break;
        close(sock);
        sock = -1;
    }
    freeaddrinfo(res);
    if (sock < 0) die("cannot connect to %s:%s: %s", host, port, strerror(errno));
    wy_deframer_init(&deframer, stream_buf, sizeof stream_buf);
}

static void send_packet(uint16_t opcode) {
    size_t len;
    out.opcode = opcode;
    int e = wy_packet_encode(&out, out_buf, sizeof out_buf, &len);
    if (e != WY_OK) die("cannot encode %s: %s", wy_packet_name(opcode), wy_error_code(e));
    for (size_t sent = 0; sent < len;) {
        ssize_t n = send(sock, out_buf + sent, len - sent, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("send: %s", strerror(errno));
        sent += (size_t)n;
    }
}

/*
 * The next packet from the server into `in`, waiting at most timeout_ms (-1: for ever):
 * 1 when one came, 0 on timeout. Errors and Bye end the program, except a non-fatal Error,
 * which is returned like any packet.
 */
static int next_packet(int timeout_ms) {
    for (;;) {
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
        if (n == 0) die("the server closed the connection");
        if (n < 0) die("recv: %s", strerror(errno));
        wy_deframer_commit(&deframer, (size_t)n);
    }
}

/* Waits for one of two opcodes (0: none), handling nothing else; a refusal is an Error. */
static uint16_t await(uint16_t a, uint16_t b) {
    double deadline = now_ms() + 30000;
    while (now_ms() < deadline) {
        if (!next_packet(1000)) continue;
        if (in.opcode == a || (b && in.opcode == b) || in.opcode == WY_OP_ERROR) return in.opcode;
        if (in.opcode == WY_OP_LOGIN_QUEUE)
            say("login queue: %lu of %lu", (unsigned long)in.u.login_queue.position,
                (unsigned long)in.u.login_queue.queue_length);
    }
    die("no %s from the server in 30 s", wy_packet_name(a));
    return 0;
}

static void set_str(char *data, uint16_t *len, size_t max, const char *s, const char *what) {
    if (wy_set_str(data, len, max, s) != WY_OK) die("%s is too long or not UTF-8: %s", what, s);
}
#define SET(field, s, what) set_str((field).data, &(field).len, sizeof((field).data) - 1, (s), (what))

static void hello(void) {
    wy_hello *h = &out.u.hello;
    h->protocol_version = WY_PROTOCOL_VERSION;
    h->client_kind = WY_HELLO_CLIENT_KIND_NATIVE;
    SET(h->client_name, "wyvern-c-example", "client name");
    send_packet(WY_OP_HELLO);
    if (await(WY_OP_WELCOME, 0) != WY_OP_WELCOME) die("Hello refused: %s", in.u.error.code.data);
    say("connected to %s (tick rate %u, protocol %u)", in.u.welcome.server_name.data, in.u.welcome.tick_rate,
        in.u.welcome.protocol_version);
}

static void register_account(const options *o) {
    wy_srp_big salt, verifier;
    if (wy_srp_register(o->password, &salt, &verifier) != 0) die("SRP: cannot make a verifier");
    wy_register *r = &out.u.register_;
    SET(r->account, o->account, "account");
    WY_SET_BYTES(r->salt, salt.data, salt.len);
    WY_SET_BYTES(r->verifier, verifier.data, verifier.len);
    send_packet(WY_OP_REGISTER);
    if (await(WY_OP_REGISTERED, 0) == WY_OP_REGISTERED) {
        say("registered account %s", in.u.registered.account.data);
    } else if (strcmp(in.u.error.code.data, WY_CODE_ERR_ACCOUNT_TAKEN) == 0) {
        say("account %s exists: logging in", o->account);
    } else {
        die("Register refused: %s", wy_error_message(in.u.error.code.data));
    }
}

static void login(const options *o) {
    SET(out.u.login_start.account, o->account, "account");
    send_packet(WY_OP_LOGIN_START);
    if (await(WY_OP_LOGIN_CHALLENGE, 0) != WY_OP_LOGIN_CHALLENGE)
        die("login refused: %s", wy_error_message(in.u.error.code.data));
    wy_srp_proof proof;
    const wy_login_challenge *c = &in.u.login_challenge;
    if (wy_srp_answer(o->password, c->salt.data, c->salt.len, c->b.data, c->b.len, NULL, 0, &proof) != 0)
        die("SRP: the server's challenge is unusable");
    WY_SET_BYTES(out.u.login_proof.a, proof.A.data, proof.A.len);
    WY_SET_BYTES(out.u.login_proof.m1, proof.M1.data, proof.M1.len);
    send_packet(WY_OP_LOGIN_PROOF);
    if (await(WY_OP_LOGIN_OK, 0) != WY_OP_LOGIN_OK) die("login refused: %s", wy_error_message(in.u.error.code.data));
    if (!wy_srp_same(&proof.M2, in.u.login_ok.m2.data, in.u.login_ok.m2.len))
        die("the server's proof M2 is wrong: it does not hold this account's verifier");
    say("logged in as %s (account %lu)", in.u.login_ok.account.data, (unsigned long)in.u.login_ok.account_id);
}

static uint32_t choose_character(const options *o) {
    out.u.list_characters.unused = 0;
    send_packet(WY_OP_LIST_CHARACTERS);
    if (await(WY_OP_CHARACTER_LIST, 0) != WY_OP_CHARACTER_LIST) die("no character list");
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
    if (await(WY_OP_CHARACTER_CREATED, 0) != WY_OP_CHARACTER_CREATED)
        die("cannot create %s: %s", o->name, wy_error_message(in.u.error.code.data));
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
          "               [--say TEXT] [--walk MS] [--seconds S]\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv) {
    options o = {"127.0.0.1", "7777", "cclient", "cclient-password", "Cee", "Hello from C!", 1000, 10};
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
        else usage();
    }
    wy_motion_init(&refs, ref_entries, sizeof ref_entries / sizeof ref_entries[0]);
    connect_to(o.host, o.port);
    hello();
    register_account(&o);
    login(&o);
    uint32_t character = choose_character(&o);

    out.u.enter_world_request.character_id = character;
    send_packet(WY_OP_ENTER_WORLD_REQUEST);
    for (;;) {
        uint16_t op = await(WY_OP_ENTER_WORLD, WY_OP_ZONE_INFO);
        if (op == WY_OP_ZONE_INFO) zone = in.u.zone_info;
        else if (op == WY_OP_ERROR) die("cannot enter the world: %s", wy_error_message(in.u.error.code.data));
        else break;
    }
    me = in.u.enter_world;
    wy_motion_enter(&refs, me.tick, me.server_time);
    self.x = me.x;
    self.y = me.y;
    self.angle = me.facing;
    self.speed = me.speed;
    self.epoch = me.move_epoch;
    self.since = now_ms();
    say("entered %s as %s (id %lu) at (%.1f, %.1f), speed %.0f, %u walls", me.zone.data, me.name.data,
        (unsigned long)me.entity_id, me.x, me.y, me.speed, (unsigned)zone.obstacles.count);

    /* Pick the first of eight headings with a clear way for the whole walk. */
    double dist = me.speed * o.walk_ms / 1000, heading = -1;
    for (int k = 0; k < 8 && heading < 0; k++)
        if (clear_way(me.x, me.y, k * PI / 4, dist)) heading = k * PI / 4;

    double start = now_ms(), walk_at = start + 500, stop_at = -1, said_at = -1, view_at = start + 1000;
    while (now_ms() - start < o.seconds * 1000) {
        if (next_packet(20)) handle();
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
            out.u.chat_send.channel = WY_CHAT_SEND_CHANNEL_SAY;
            SET(out.u.chat_send.text, o.say, "chat text");
            send_packet(WY_OP_CHAT_SEND);
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
