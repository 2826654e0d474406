/* H-search for engine/_hexsolve.c: its scratch memory, the search on 64- and 128-bit
 * masks (_hexsolve_connections.h included twice) and settle(). Included once, after
 * _hexsolve_board.h. */

/* -- H-search (hexsolve.Connections) ------------------------------------------------ */

/* A node's entry for the far end of one of its pairs. */
typedef struct {
    uint16_t far, pair;
} Link;

/* Scratch memory for H-search, kept from one search to the next; the records of pairs
 * and the queue are sized for the 128-bit search and serve the 64-bit one as well. */
typedef struct {
    int nodes_cap;      /* nodes the arrays below are sized for */
    int *pair_index;    /* nodes_cap^2: the pair of x and y, -1 none */
    /* nodes_cap^2: bit 0 add_full(x, y) can add nothing more, bit 1 add_semi(x, y) */
    unsigned char *closed;
    Link *full_order;   /* nodes_cap^2: per node, the far ends of its fulls in order */
    Link *semi_order;
    int *full_len, *semi_len;
    void *fulls, *semis; /* by pair */
    void *queue;
    size_t queue_bytes;
} Scratch;

static int scratch_reserve(Scratch *s, int nodes);

/* The order lists of x and y get the pair when its dict entry is made. */
static inline void order_append(Scratch *s, int nodes, Link *order, int *len, int x, int y,
                                int pair) {
    order[x * nodes + len[x]++] = (Link){(uint16_t)y, (uint16_t)pair};
    order[y * nodes + len[y]++] = (Link){(uint16_t)x, (uint16_t)pair};
}

/* A pair at its limit takes no more connections of that kind, ever (a pair at its limit
 * returns before a new carrier could replace others), and the edges' pair takes every
 * semi connection; a pair joined with no carrier takes none either (every carrier holds
 * the empty one): the AND rule skips closed pairs before trying their carriers. */
enum { FULL_CLOSED = 1, SEMI_CLOSED = 2 };
static inline void close_pair(Scratch *s, int nodes, int x, int y, int kind) {
    s->closed[x * nodes + y] |= (unsigned char)kind;
    s->closed[y * nodes + x] |= (unsigned char)kind;
}

#define HMASK uint64_t
#define H(name) name##_64
#include "_hexsolve_connections.h"
#undef HMASK
#undef H
#define HMASK mask_t
#define H(name) name##_128
#include "_hexsolve_connections.h"
#undef HMASK
#undef H

static void scratch_free(Scratch *s) {
    free(s->pair_index);
    free(s->closed);
    free(s->full_order);
    free(s->semi_order);
    free(s->full_len);
    free(s->semi_len);
    free(s->fulls);
    free(s->semis);
    free(s->queue);
    memset(s, 0, sizeof *s);
}

/* Room for `nodes` nodes; 0 when memory runs out. */
static int scratch_reserve(Scratch *s, int nodes) {
    if (nodes <= s->nodes_cap) return 1;
    scratch_free(s);
    size_t square = (size_t)nodes * nodes, pairs = (size_t)nodes * (nodes - 1) / 2 + 1;
    s->pair_index = malloc(square * sizeof(int));
    s->closed = malloc(square);
    s->full_order = malloc(square * sizeof(Link));
    s->semi_order = malloc(square * sizeof(Link));
    s->full_len = malloc(nodes * sizeof(int));
    s->semi_len = malloc(nodes * sizeof(int));
    s->fulls = malloc(pairs * sizeof(Fulls_128));
    s->semis = malloc(pairs * sizeof(Semis_128));
    s->queue_bytes = 4096 * sizeof(Queued_128);
    s->queue = malloc(s->queue_bytes);
    if (!s->pair_index || !s->closed || !s->full_order || !s->semi_order || !s->full_len ||
        !s->semi_len || !s->fulls || !s->semis || !s->queue) {
        scratch_free(s);
        return 0;
    }
    s->nodes_cap = nodes;
    return 1;
}

/* Connections on the narrowest masks that hold the board. */
static int connections(const Geometry *geo, Scratch *s, mask_t own, mask_t other, int colour,
                       int stop_on_semi, double deadline, int *done, mask_t *must_play) {
    return (geo->cells <= 64 ? connections_64 : connections_128)(
        geo, s, own, other, colour, stop_on_semi, deadline, done, must_play);
}

/* HexProver._evaluate on filled stones: WINS / LOSES, UNSETTLED with *moves the
 * must-play region, OUT_VALUE out of budget. */
#define OUT_VALUE 2
static int settle(const Geometry *geo, Scratch *s, mask_t own, mask_t other, int colour,
                  double deadline, mask_t *moves) {
    int done;
    mask_t must_play;
    *moves = 0;
    if (connected(geo, own, colour)) return 1;
    if (connected(geo, other, colour ^ 1)) return 0;
    if (connections(geo, s, own, other, colour, 1, deadline, &done, &must_play) == OUT)
        return OUT_VALUE;
    if (done) return 1;
    if (connections(geo, s, other, own, colour ^ 1, 0, deadline, &done, &must_play) == OUT)
        return OUT_VALUE;
    if (done) return 0; /* a full connection, or no cell in every semi connection */
    *moves = must_play;
    return -1;
}
