/* Hex's exact prover compiled: engine/ai/hexsolve.py's fill-in, H-search and
 * proof-number search step for step (the same rules, limits, order of trial and
 * domination, so the same positions give the same answers), on 128-bit masks for
 * boards up to 11x11. The Python code is the reference and the fallback where no C
 * compiler built this module; tests/test_hexsolve_compiled.py runs both side by side.
 *
 * Memory is bounded: the table of positions (settled ones, and the must-play region of
 * unsettled ones) stops taking entries at its cap (it is a cache: the search stays
 * exact), and a call whose proof tree or H-search queue reaches its cap ends out of
 * budget, as at the deadline.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned __int128 mask_t;

#define MAX_SIZE 11
#define MAX_CELLS (MAX_SIZE * MAX_SIZE)
/* hexsolve.py's limits */
#define FULL_LIMIT 6
#define SEMI_LIMIT 12
#define OR_DEPTH 4
#define INFINITE 1000000000u
/* the caps that bound memory */
#define QUEUE_CAP (1 << 20)       /* H-search queue entries of one search: 32 MB */
#define TREE_CAP (1 << 19)        /* live proof-tree nodes of one call: 40 MB */
#define TABLE_SLOTS_CAP (1 << 20) /* the table's slots (56 bytes each): 59 MB */

enum { BLACK = 0, WHITE = 1, EMPTY = 2 };
/* What a search step returns: done, or stopped by the deadline, node limit or a cap. */
enum { OK = 0, OUT = 1 };

static const mask_t ALL = ~(mask_t)0;

static inline mask_t bit(int cell) { return (mask_t)1 << cell; }
static inline int test(mask_t mask, int cell) { return (int)(mask >> cell) & 1; }
static inline int lowest(mask_t mask) {
    uint64_t low = (uint64_t)mask;
    return low ? __builtin_ctzll(low) : 64 + __builtin_ctzll((uint64_t)(mask >> 64));
}
static inline int count(mask_t mask) {
    return __builtin_popcountll((uint64_t)mask) + __builtin_popcountll((uint64_t)(mask >> 64));
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* -- geometry (hexsolve.geometry) ------------------------------------------------- */

typedef struct {
    int size, cells;
    mask_t full, inner_left, inner_right;
    mask_t neighbours[MAX_CELLS];
    mask_t edges[2][2];            /* per colour: first and second edge rows */
    signed char rings[MAX_CELLS][6]; /* cell, or -1 - colour for an edge, -3 a corner */
    unsigned char order[MAX_CELLS];  /* centre first */
} Geometry;

static Geometry geometries[MAX_SIZE + 1];
static int geometry_made[MAX_SIZE + 1];
static const int RING[6][2] = {{1, 0}, {1, -1}, {0, -1}, {-1, 0}, {-1, 1}, {0, 1}};

static const Geometry *geometry(int size) {
    Geometry *geo = &geometries[size];
    if (geometry_made[size]) return geo;
    int cells = size * size;
    geo->size = size;
    geo->cells = cells;
    geo->full = cells == 128 ? ALL : (bit(cells) - 1);
    mask_t column_first = 0, row_first = bit(size) - 1;
    for (int r = 0; r < size; r++) column_first |= bit(r * size);
    geo->edges[0][0] = row_first;
    geo->edges[0][1] = row_first << (size * (size - 1));
    geo->edges[1][0] = column_first;
    geo->edges[1][1] = column_first << (size - 1);
    geo->inner_left = geo->full & ~column_first;
    geo->inner_right = geo->full & ~geo->edges[1][1];
    int distance[MAX_CELLS];
    for (int cell = 0; cell < cells; cell++) {
        int row = cell / size, column = cell % size;
        mask_t around = 0;
        for (int i = 0; i < 6; i++) {
            int c = column + RING[i][0], r = row + RING[i][1];
            int row_inside = 0 <= r && r < size, column_inside = 0 <= c && c < size;
            if (row_inside && column_inside) {
                around |= bit(r * size + c);
                geo->rings[cell][i] = (signed char)(r * size + c);
            } else if (column_inside) {
                geo->rings[cell][i] = -1;
            } else if (row_inside) {
                geo->rings[cell][i] = -2;
            } else {
                geo->rings[cell][i] = -3;
            }
        }
        geo->neighbours[cell] = around;
        /* twice hexsolve's distance, in integers */
        int dy = 2 * row - (size - 1), dx = 2 * column - (size - 1);
        int d = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
        if (abs(dx + dy) > d) d = abs(dx + dy);
        distance[cell] = d;
        /* a stable insertion, as Python's sorted */
        int at = cell;
        while (at > 0 && distance[geo->order[at - 1]] > d) {
            geo->order[at] = geo->order[at - 1];
            at--;
        }
        geo->order[at] = (unsigned char)cell;
    }
    geometry_made[size] = 1;
    return geo;
}

static inline mask_t dilate(const Geometry *geo, mask_t mask) {
    int size = geo->size;
    mask_t left = mask & geo->inner_left, right = mask & geo->inner_right;
    return (mask | mask >> size | right >> (size - 1) | left >> 1 | right << 1 |
            left << (size - 1) | mask << size) &
           geo->full;
}

static inline mask_t dilate_cells(const Geometry *geo, mask_t mask) {
    return dilate(geo, mask) & ~mask;
}

static mask_t flood(const Geometry *geo, mask_t seed, mask_t within) {
    mask_t grown = seed, frontier = seed;
    while (frontier) {
        mask_t wider = dilate_cells(geo, frontier) & within & ~grown;
        grown |= wider;
        frontier = wider;
    }
    return grown;
}

static int connected(const Geometry *geo, mask_t own, int colour) {
    return (flood(geo, own & geo->edges[colour][0], own) & geo->edges[colour][1]) != 0;
}

/* -- fill-in (hexsolve.FillIn) ---------------------------------------------------- */

static unsigned char dead_ring[729]; /* by ring code: sum of value_i * 3^i */

static int useless_for(const int ring[6], int colour) {
    int opponent = colour ^ 1, usable[6], n = 0;
    for (int i = 0; i < 6; i++)
        if (ring[i] != opponent) usable[n++] = i;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int a = usable[i], b = usable[j], forward = 1, backward = 1;
            for (int k = a + 1; k < b; k++) forward &= ring[k % 6] == colour;
            for (int k = b + 1; k < a + 6; k++) backward &= ring[k % 6] == colour;
            if (!(forward || backward)) return 0;
        }
    return 1;
}

static void make_dead_rings(void) {
    for (int code = 0; code < 729; code++) {
        int ring[6], rest = code;
        for (int i = 0; i < 6; i++) {
            ring[i] = rest % 3;
            rest /= 3;
        }
        dead_ring[code] = useless_for(ring, BLACK) && useless_for(ring, WHITE);
    }
}

static int is_dead(const Geometry *geo, int cell, mask_t black, mask_t white) {
    int code = 0, scale = 1;
    for (int i = 0; i < 6; i++, scale *= 3) {
        int other = geo->rings[cell][i], value;
        if (other >= 0)
            value = test(black, other) ? BLACK : test(white, other) ? WHITE : EMPTY;
        else if (other == -3)
            return 0; /* a corner beyond two edges: no pattern claims it */
        else
            value = -1 - other;
        code += value * scale;
    }
    return dead_ring[code];
}

/* The colour of `colours` (first one of them, or both from Black) capturing a, b; -1 none. */
static int captured_pair(const Geometry *geo, int a, int b, mask_t black, mask_t white,
                         int only) {
    for (int colour = 0; colour < 2; colour++) {
        if (only >= 0 && colour != only) continue;
        mask_t own = colour == BLACK ? black : white, other = colour == BLACK ? white : black;
        int held = 1;
        for (int turn = 0; turn < 2 && held; turn++) {
            int taken = turn ? b : a, kept = turn ? a : b;
            mask_t after_own = own | bit(kept), after_other = other | bit(taken);
            held = colour == BLACK ? is_dead(geo, taken, after_own, after_other)
                                   : is_dead(geo, taken, after_other, after_own);
        }
        if (held) return colour;
    }
    return -1;
}

/* FillIn.fill; `only` -1 for both colours. */
static void fill(const Geometry *geo, mask_t *black_io, mask_t *white_io, int only) {
    mask_t black = *black_io, white = *white_io;
    int dead_colour = only < 0 ? WHITE : only;
    int changed = 1;
    while (changed) {
        changed = 0;
        mask_t empty = geo->full & ~(black | white);
        for (mask_t rest = empty; rest; rest &= rest - 1) {
            int cell = lowest(rest);
            mask_t around = geo->neighbours[cell];
            if (count(around & (black | white)) + 6 - count(around) < 2) continue;
            if (is_dead(geo, cell, black, white)) {
                if (dead_colour == BLACK)
                    black |= bit(cell);
                else
                    white |= bit(cell);
                changed = 1;
                continue;
            }
            for (mask_t partners = around & empty & ~(black | white); partners;
                 partners &= partners - 1) {
                int partner = lowest(partners);
                int owner = captured_pair(geo, cell, partner, black, white, only);
                if (owner >= 0) {
                    mask_t pair = bit(cell) | bit(partner);
                    if (owner == BLACK)
                        black |= pair;
                    else
                        white |= pair;
                    changed = 1;
                    break;
                }
            }
            if (changed) break; /* the board changed under the loop: start over */
        }
    }
    *black_io = black;
    *white_io = white;
}

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

/* -- the table of positions ------------------------------------------------------ */

/* What the table says of a position: the mover wins or loses, or it is not settled and
 * its must-play region is known (a position reached again in the tree by another order
 * of moves, 40% of the evaluations on 7x7, needs no H-search), or nothing. */
enum { LOSES = 0, WINS = 1, UNSETTLED = -1, ABSENT = -2 };

typedef struct {
    uint64_t key[4];   /* black low, high, white low, high: the smaller of the two turns */
    uint64_t moves[2]; /* the must-play region of an unsettled position */
    uint32_t meta;     /* bit 0 used, bit 1 the colour to move, bits 2-3 the value + 1 */
} Entry;

typedef struct {
    Entry *slots;
    size_t capacity, used;
} Table;

static inline uint64_t reverse64(uint64_t x) {
    x = (x >> 1 & 0x5555555555555555u) | (x & 0x5555555555555555u) << 1;
    x = (x >> 2 & 0x3333333333333333u) | (x & 0x3333333333333333u) << 2;
    x = (x >> 4 & 0x0f0f0f0f0f0f0f0fu) | (x & 0x0f0f0f0f0f0f0f0fu) << 4;
    return __builtin_bswap64(x);
}

/* hexsolve.turn: cell i becomes cell cells - 1 - i. */
static inline mask_t turn(mask_t mask, int cells) {
    mask_t reversed = (mask_t)reverse64((uint64_t)mask) << 64 | reverse64((uint64_t)(mask >> 64));
    return reversed >> (128 - cells);
}

typedef struct {
    mask_t black, white;
    int colour;
} Key;

/* HexProver.key: a position and its 180-degree turn share one. */
static Key key_of(const Geometry *geo, mask_t own, mask_t other, int colour) {
    mask_t black = colour == BLACK ? own : other, white = colour == BLACK ? other : own;
    mask_t turned_black = turn(black, geo->cells), turned_white = turn(white, geo->cells);
    Key key = {black, white, colour};
    if (turned_black < black || (turned_black == black && turned_white < white)) {
        key.black = turned_black;
        key.white = turned_white;
    }
    return key;
}

static inline size_t key_hash(const Key *key) {
    uint64_t h = (uint64_t)key->black * 0x9e3779b97f4a7c15u;
    h ^= (uint64_t)(key->black >> 64) * 0xc2b2ae3d27d4eb4fu;
    h = (h ^ h >> 29) + (uint64_t)key->white * 0x165667b19e3779f9u;
    h ^= (uint64_t)(key->white >> 64) * 0x85ebca77c2b2ae63u + (uint64_t)key->colour;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93u;
    return (size_t)(h ^ h >> 32);
}

static inline int entry_is(const Entry *entry, const Key *key) {
    return (entry->meta & 1) && ((entry->meta >> 1) & 1) == (uint32_t)key->colour &&
           entry->key[0] == (uint64_t)key->black && entry->key[1] == (uint64_t)(key->black >> 64) &&
           entry->key[2] == (uint64_t)key->white && entry->key[3] == (uint64_t)(key->white >> 64);
}

/* WINS, LOSES, UNSETTLED with *moves its must-play region, or ABSENT. */
static int table_get(const Table *table, const Key *key, mask_t *moves) {
    if (!table->capacity) return ABSENT;
    size_t mask = table->capacity - 1;
    for (size_t at = key_hash(key) & mask;; at = (at + 1) & mask) {
        const Entry *entry = &table->slots[at];
        if (!(entry->meta & 1)) return ABSENT;
        if (entry_is(entry, key)) {
            *moves = (mask_t)entry->moves[1] << 64 | entry->moves[0];
            return (int)(entry->meta >> 2 & 3) - 1;
        }
    }
}

static void table_place(Table *table, const Key *key, int value, mask_t moves) {
    size_t mask = table->capacity - 1;
    for (size_t at = key_hash(key) & mask;; at = (at + 1) & mask) {
        Entry *entry = &table->slots[at];
        int fresh = !(entry->meta & 1);
        if (fresh || entry_is(entry, key)) {
            entry->key[0] = (uint64_t)key->black;
            entry->key[1] = (uint64_t)(key->black >> 64);
            entry->key[2] = (uint64_t)key->white;
            entry->key[3] = (uint64_t)(key->white >> 64);
            entry->moves[0] = (uint64_t)moves;
            entry->moves[1] = (uint64_t)(moves >> 64);
            entry->meta = 1u | (uint32_t)key->colour << 1 | (uint32_t)(value + 1) << 2;
            table->used += fresh;
            return;
        }
    }
}

/* The table is a cache: at its cap it takes no new positions (known ones are updated). */
static void table_put(Table *table, const Key *key, int value, mask_t moves) {
    mask_t unused;
    if (4 * (table->used + 1) > 3 * table->capacity) {
        if (table->capacity >= TABLE_SLOTS_CAP) {
            if (table_get(table, key, &unused) == ABSENT) return;
        } else {
            size_t capacity = table->capacity ? table->capacity * 2 : 1024;
            Entry *slots = calloc(capacity, sizeof(Entry));
            if (!slots) {
                if (table_get(table, key, &unused) == ABSENT) return;
            } else {
                Table wider = {slots, capacity, 0};
                for (size_t i = 0; i < table->capacity; i++) {
                    const Entry *old = &table->slots[i];
                    if (!(old->meta & 1)) continue;
                    Key moved = {(mask_t)old->key[1] << 64 | old->key[0],
                                 (mask_t)old->key[3] << 64 | old->key[2], (int)(old->meta >> 1 & 1)};
                    table_place(&wider, &moved, (int)(old->meta >> 2 & 3) - 1,
                                (mask_t)old->moves[1] << 64 | old->moves[0]);
                }
                free(table->slots);
                *table = wider;
            }
        }
    }
    table_place(table, key, value, moves);
}

/* -- proof-number search (hexsolve.HexProver) ---------------------------------------- */

typedef struct Node {
    mask_t own, other, moves;
    uint32_t pn, dn;
    struct Node *children; /* NULL: a leaf not expanded yet */
    int child_count;
    int colour;
} Node;

typedef struct {
    const Geometry *geo;
    Table table;
    Scratch scratch;
    /* one call's budget */
    double deadline;       /* for the nodes (INFINITY with a node limit) */
    long long node_limit;  /* -1 none */
    long long ticks;
    long long live_nodes;
} Prover;

static int tick(Prover *p) {
    p->ticks++;
    if (p->node_limit >= 0) return p->ticks > p->node_limit ? OUT : OK;
    return now() >= p->deadline ? OUT : OK;
}

static int check(Prover *p) {
    return p->node_limit < 0 && now() >= p->deadline ? OUT : OK;
}

/* HexProver._node into `node`. */
static int make_node(Prover *p, Node *node, mask_t own, mask_t other, int colour) {
    const Geometry *geo = p->geo;
    node->children = NULL;
    node->child_count = 0;
    node->moves = 0;
    if (tick(p) == OUT) return OUT;
    mask_t black = colour == BLACK ? own : other, white = colour == BLACK ? other : own;
    fill(geo, &black, &white, -1);
    own = colour == BLACK ? black : white;
    other = colour == BLACK ? white : black;
    node->own = own;
    node->other = other;
    node->colour = colour;
    node->pn = node->dn = 1;
    Key key = key_of(geo, own, other, colour);
    int known = table_get(&p->table, &key, &node->moves);
    if (known == ABSENT) {
        known = settle(geo, &p->scratch, own, other, colour, p->deadline, &node->moves);
        if (known == OUT_VALUE) return OUT;
        if (known == UNSETTLED) table_put(&p->table, &key, UNSETTLED, node->moves);
    }
    if (known != UNSETTLED) {
        table_put(&p->table, &key, known, 0);
        node->pn = known ? 0 : INFINITE;
        node->dn = known ? INFINITE : 0;
        node->children = node; /* settled: no children (not NULL: not a leaf to expand) */
        node->child_count = 0;
    } else {
        node->dn = (uint32_t)count(node->moves);
    }
    return OK;
}

static void free_children(Prover *p, Node *node) {
    if (node->children == NULL || node->children == node) return;
    for (int i = 0; i < node->child_count; i++) free_children(p, &node->children[i]);
    p->live_nodes -= node->child_count;
    free(node->children);
    node->children = node;
    node->child_count = 0;
}

/* HexProver._undominated: the cells to try, in order, into `kept`; their count, or -1. */
static int undominated(Prover *p, const Node *node, unsigned char *kept_cells) {
    const Geometry *geo = p->geo;
    mask_t own = node->own, other = node->other, moves = node->moves;
    int colour = node->colour;
    mask_t dominated[MAX_CELLS];
    for (mask_t rest = moves; rest; rest &= rest - 1) {
        int cell = lowest(rest);
        if (check(p) == OUT) return -1;
        mask_t after = own | bit(cell);
        mask_t black = colour == BLACK ? after : other, white = colour == BLACK ? other : after;
        fill(geo, &black, &white, colour);
        dominated[cell] = ((colour == BLACK ? black : white) & ~after) & moves;
    }
    int kept = 0;
    mask_t pruned = 0, later = 0;
    for (int i = 0; i < geo->cells; i++) {
        int cell = geo->order[i];
        if (test(moves, cell) && !test(pruned, cell)) {
            kept_cells[kept++] = (unsigned char)cell;
            pruned |= dominated[cell];
        }
    }
    for (int i = 0; i < kept; i++) later |= dominated[kept_cells[i]];
    int left = 0;
    for (int i = 0; i < kept; i++)
        if (!test(later, kept_cells[i])) kept_cells[left++] = kept_cells[i];
    return left;
}

static int expand(Prover *p, Node *node) {
    unsigned char cells[MAX_CELLS];
    int n = undominated(p, node, cells);
    if (n < 0) return OUT;
    if (p->live_nodes + n > TREE_CAP) return OUT;
    Node *children = malloc((size_t)(n ? n : 1) * sizeof(Node));
    if (!children) return OUT;
    node->children = children;
    node->child_count = 0;
    p->live_nodes += n;
    for (int i = 0; i < n; i++) {
        Node *child = &children[i];
        int status = make_node(p, child, node->other, node->own | bit(cells[i]), node->colour ^ 1);
        node->child_count = i + 1;
        if (status == OUT) return OUT;
        if (child->dn == 0) break; /* a winning move: the node is proven */
    }
    p->live_nodes -= n - node->child_count;
    return OK;
}

static void update(Prover *p, Node *node) {
    if (node->children == NULL || node->child_count == 0) return;
    uint32_t pn = INFINITE;
    uint64_t dn = 0;
    for (int i = 0; i < node->child_count; i++) {
        const Node *child = &node->children[i];
        if (child->dn < pn) pn = child->dn;
        dn += child->pn;
    }
    node->pn = pn;
    node->dn = dn < INFINITE ? (uint32_t)dn : INFINITE;
    if (node->pn == 0 || node->dn == 0) {
        Key key = key_of(p->geo, node->own, node->other, node->colour);
        table_put(&p->table, &key, node->pn == 0 ? WINS : LOSES, 0);
        free_children(p, node); /* settled: the subtree is no longer needed */
    }
}

/* HexProver.mover_wins: 1 / 0, or -1 out of budget. */
static int prove(Prover *p, mask_t own, mask_t other, int colour) {
    Node root;
    int result = -1;
    p->live_nodes = 1;
    if (make_node(p, &root, own, other, colour) == OUT) goto out;
    Node *path[MAX_CELLS + 2];
    while (root.pn && root.dn) {
        int depth = 0;
        Node *node = &root;
        path[depth++] = node;
        while (node->children != NULL) {
            Node *best = &node->children[0];
            for (int i = 1; i < node->child_count; i++)
                if (node->children[i].dn < best->dn) best = &node->children[i];
            node = best;
            path[depth++] = node;
        }
        if (expand(p, node) == OUT) goto out;
        while (depth) update(p, path[--depth]);
    }
    result = root.pn == 0;
out:
    free_children(p, &root);
    return result;
}

/* -- Python ------------------------------------------------------------------------ */

static PyObject *sixty_four;

static int mask_from(PyObject *number, mask_t *mask) {
    if (!PyLong_Check(number)) {
        PyErr_SetString(PyExc_TypeError, "a mask must be an int");
        return -1;
    }
    uint64_t low = PyLong_AsUnsignedLongLongMask(number);
    if (low == (uint64_t)-1 && PyErr_Occurred()) return -1;
    PyObject *high_part = PyNumber_Rshift(number, sixty_four);
    if (!high_part) return -1;
    uint64_t high = PyLong_AsUnsignedLongLongMask(high_part);
    Py_DECREF(high_part);
    if (high == (uint64_t)-1 && PyErr_Occurred()) return -1;
    *mask = (mask_t)high << 64 | low;
    return 0;
}

static PyObject *mask_to(mask_t mask) {
    PyObject *high = PyLong_FromUnsignedLongLong((uint64_t)(mask >> 64));
    if (!high) return NULL;
    PyObject *shifted = PyNumber_Lshift(high, sixty_four);
    Py_DECREF(high);
    if (!shifted) return NULL;
    PyObject *low = PyLong_FromUnsignedLongLong((uint64_t)mask);
    if (!low) {
        Py_DECREF(shifted);
        return NULL;
    }
    PyObject *joined = PyNumber_Or(shifted, low);
    Py_DECREF(shifted);
    Py_DECREF(low);
    return joined;
}

/* The stones of a position on a board of `size`, checked: inside it, no cell twice. */
static const Geometry *position_from(int size, PyObject *own_object, PyObject *other_object,
                                     int colour, mask_t *own, mask_t *other) {
    if (size < 1 || size > MAX_SIZE) {
        PyErr_Format(PyExc_ValueError, "size %d: 1 to %d", size, MAX_SIZE);
        return NULL;
    }
    if (colour != 0 && colour != 1) {
        PyErr_SetString(PyExc_ValueError, "colour: 0 or 1");
        return NULL;
    }
    if (mask_from(own_object, own) < 0 || mask_from(other_object, other) < 0) return NULL;
    const Geometry *geo = geometry(size);
    if ((*own | *other) & ~geo->full || *own & *other) {
        PyErr_SetString(PyExc_ValueError, "stones off the board or on one cell twice");
        return NULL;
    }
    return geo;
}

static Scratch module_scratch; /* for evaluate(), which holds the GIL */

static PyObject *py_fill(PyObject *self, PyObject *args) {
    int size, only = -1;
    PyObject *black_object, *white_object, *only_object = Py_None;
    if (!PyArg_ParseTuple(args, "iOO|O", &size, &black_object, &white_object, &only_object))
        return NULL;
    if (only_object != Py_None) {
        only = PyLong_AsLong(only_object);
        if (only == -1 && PyErr_Occurred()) return NULL;
    }
    mask_t black, white;
    const Geometry *geo = position_from(size, black_object, white_object, 0, &black, &white);
    if (!geo) return NULL;
    if (only != -1 && only != 0 && only != 1) {
        PyErr_SetString(PyExc_ValueError, "only: None, 0 or 1");
        return NULL;
    }
    fill(geo, &black, &white, only);
    PyObject *black_filled = mask_to(black), *white_filled = black_filled ? mask_to(white) : NULL;
    if (!white_filled) {
        Py_XDECREF(black_filled);
        return NULL;
    }
    return Py_BuildValue("(NN)", black_filled, white_filled);
}

static PyObject *py_evaluate(PyObject *self, PyObject *args) {
    int size, colour;
    double deadline;
    PyObject *own_object, *other_object;
    if (!PyArg_ParseTuple(args, "iOOid", &size, &own_object, &other_object, &colour, &deadline))
        return NULL;
    mask_t own, other, moves;
    const Geometry *geo = position_from(size, own_object, other_object, colour, &own, &other);
    if (!geo) return NULL;
    mask_t black = colour == BLACK ? own : other, white = colour == BLACK ? other : own;
    fill(geo, &black, &white, -1);
    own = colour == BLACK ? black : white;
    other = colour == BLACK ? white : black;
    int value = settle(geo, &module_scratch, own, other, colour, deadline, &moves);
    if (value == OUT_VALUE) Py_RETURN_NONE;
    PyObject *value_object = value < 0 ? Py_None : value ? Py_True : Py_False;
    PyObject *moves_object = mask_to(moves), *own_filled = NULL, *other_filled = NULL;
    if (moves_object) own_filled = mask_to(own);
    if (own_filled) other_filled = mask_to(other);
    if (!other_filled) {
        Py_XDECREF(moves_object);
        Py_XDECREF(own_filled);
        return NULL;
    }
    return Py_BuildValue("(ONNN)", value_object, moves_object, own_filled, other_filled);
}

typedef struct {
    PyObject_HEAD Prover prover;
    int busy;
} ProverObject;

static int prover_init(ProverObject *self, PyObject *args, PyObject *kwargs) {
    int size;
    static char *keywords[] = {"size", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "i", keywords, &size)) return -1;
    if (size < 1 || size > MAX_SIZE) {
        PyErr_Format(PyExc_ValueError, "size %d: 1 to %d", size, MAX_SIZE);
        return -1;
    }
    free(self->prover.table.slots);
    scratch_free(&self->prover.scratch);
    memset(&self->prover, 0, sizeof self->prover);
    self->prover.geo = geometry(size);
    return 0;
}

static void prover_dealloc(ProverObject *self) {
    free(self->prover.table.slots);
    scratch_free(&self->prover.scratch);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *prover_mover_wins(ProverObject *self, PyObject *args) {
    int colour;
    double deadline;
    long long node_limit;
    PyObject *own_object, *other_object;
    Prover *p = &self->prover;
    if (!PyArg_ParseTuple(args, "OOidL", &own_object, &other_object, &colour, &deadline,
                          &node_limit))
        return NULL;
    if (!p->geo) {
        PyErr_SetString(PyExc_RuntimeError, "Prover not initialised");
        return NULL;
    }
    mask_t own, other;
    if (!position_from(p->geo->size, own_object, other_object, colour, &own, &other)) return NULL;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Prover is searching in another thread");
        return NULL;
    }
    self->busy = 1;
    p->node_limit = node_limit < 0 ? -1 : node_limit;
    p->deadline = node_limit < 0 ? deadline : INFINITY;
    p->ticks = 0;
    int result;
    Py_BEGIN_ALLOW_THREADS
    result = prove(p, own, other, colour);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    PyObject *value = result < 0 ? Py_None : result ? Py_True : Py_False;
    return Py_BuildValue("(OL)", value, p->ticks);
}

static PyObject *prover_table_count(ProverObject *self, PyObject *unused) {
    return PyLong_FromSize_t(self->prover.table.used);
}

static PyMethodDef prover_methods[] = {
    {"mover_wins", (PyCFunction)prover_mover_wins, METH_VARARGS,
     "mover_wins(own, other, colour, deadline, node_limit) -> (True / False / None, nodes): "
     "HexProver.mover_wins, compiled; None: out of budget (deadline: time.monotonic(), "
     "ignored with a node limit; node_limit -1: none); nodes: the budget's ticks used."},
    {"table_count", (PyCFunction)prover_table_count, METH_NOARGS,
     "The number of positions in the table (settled, or with their must-play region)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ProverType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "engine._hexsolve.Prover",
    .tp_basicsize = sizeof(ProverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Prover(size): Hex's proof-number search with its table of settled positions.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)prover_init,
    .tp_dealloc = (destructor)prover_dealloc,
    .tp_methods = prover_methods,
};

static PyMethodDef methods[] = {
    {"fill", py_fill, METH_VARARGS,
     "fill(size, black, white, only=None) -> (black, white): FillIn.fill, compiled."},
    {"evaluate", py_evaluate, METH_VARARGS,
     "evaluate(size, own, other, colour, deadline) -> (True / False / None, must-play, own, "
     "other) after the fill-in, or None past the deadline: hexsolve.evaluate, compiled."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_hexsolve",
    "Hex's exact prover compiled (engine/ai/hexsolve.py's fill-in, H-search and "
    "proof-number search).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__hexsolve(void) {
    make_dead_rings();
    sixty_four = PyLong_FromLong(64);
    if (sixty_four == NULL || PyType_Ready(&ProverType) < 0) return NULL;
    PyObject *created = PyModule_Create(&module);
    if (created == NULL) return NULL;
    Py_INCREF(&ProverType);
    if (PyModule_AddObject(created, "Prover", (PyObject *)&ProverType) < 0 ||
        PyModule_AddIntConstant(created, "MAX_SIZE", MAX_SIZE) < 0) {
        Py_DECREF(&ProverType);
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
