/* The table of positions for engine/_hexsolve.c (settled ones, and the must-play region
 * of unsettled ones). Included once, after _hexsolve_hsearch.h. */

/* -- the table of positions ------------------------------------------------------ */

/* What the table says of a position: the mover wins or loses, or it is not settled and
 * its must-play region is known (a position reached again in the tree by another order
 * of moves, 40% of the evaluations on 7x7, needs no H-search), or nothing. */
enum { LOSES = 0, WINS = 1, UNSETTLED = -1, ABSENT = -2 };

typedef struct {
    uint64_t key[4];   /* black low, high, white low, high: the smaller of the two turns */
    uint64_t moves[2]; /* the must-play region of an unsettled position, as the key lies */
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
    int turned; /* the key is the position turned: so are the masks kept with it */
} Key;

/* HexProver.key: a position and its 180-degree turn share one. */
static Key key_of(const Geometry *geo, mask_t own, mask_t other, int colour) {
    mask_t black = colour == BLACK ? own : other, white = colour == BLACK ? other : own;
    mask_t turned_black = turn(black, geo->cells), turned_white = turn(white, geo->cells);
    Key key = {black, white, colour, 0};
    if (turned_black < black || (turned_black == black && turned_white < white)) {
        key.black = turned_black;
        key.white = turned_white;
        key.turned = 1;
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
static int table_get(const Table *table, const Key *key, mask_t *moves, int cells) {
    if (!table->capacity) return ABSENT;
    size_t mask = table->capacity - 1;
    for (size_t at = key_hash(key) & mask;; at = (at + 1) & mask) {
        const Entry *entry = &table->slots[at];
        if (!(entry->meta & 1)) return ABSENT;
        if (entry_is(entry, key)) {
            *moves = (mask_t)entry->moves[1] << 64 | entry->moves[0];
            if (key->turned) *moves = turn(*moves, cells);
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
static void table_put(Table *table, const Key *key, int value, mask_t moves, int cells) {
    mask_t unused;
    if (key->turned) moves = turn(moves, cells);
    if (4 * (table->used + 1) > 3 * table->capacity) {
        if (table->capacity >= TABLE_SLOTS_CAP) {
            if (table_get(table, key, &unused, cells) == ABSENT) return;
        } else {
            size_t capacity = table->capacity ? table->capacity * 2 : 1024;
            Entry *slots = calloc(capacity, sizeof(Entry));
            if (!slots) {
                if (table_get(table, key, &unused, cells) == ABSENT) return;
            } else {
                Table wider = {slots, capacity, 0};
                for (size_t i = 0; i < table->capacity; i++) {
                    const Entry *old = &table->slots[i];
                    if (!(old->meta & 1)) continue;
                    Key moved = {(mask_t)old->key[1] << 64 | old->key[0],
                                 (mask_t)old->key[3] << 64 | old->key[2], (int)(old->meta >> 1 & 1),
                                 0};
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
