/* Hex's board for engine/_hexsolve.c: geometry and fill-in (dead cells, captured
 * pairs). Included once, after the masks and limits are defined. */

/* -- geometry (hexconnections.geometry) ------------------------------------------- */

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

/* a ring position's value beyond BLACK, WHITE and EMPTY: nothing (past an acute corner) */
#define NOTHING 3
static unsigned char dead_ring[4096]; /* by ring code: sum of value_i * 4^i */

static int useless_for(const int ring[6], int colour) {
    int usable[6], n = 0;
    for (int i = 0; i < 6; i++)
        if (ring[i] == colour || ring[i] == EMPTY) usable[n++] = i;
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
    for (int code = 0; code < 4096; code++) {
        int ring[6], rest = code;
        for (int i = 0; i < 6; i++) {
            ring[i] = rest % 4;
            rest /= 4;
        }
        dead_ring[code] = useless_for(ring, BLACK) && useless_for(ring, WHITE);
    }
}

static int is_dead(const Geometry *geo, int cell, mask_t black, mask_t white) {
    int code = 0, scale = 1;
    for (int i = 0; i < 6; i++, scale *= 4) {
        int other = geo->rings[cell][i], value;
        if (other >= 0)
            value = test(black, other) ? BLACK : test(white, other) ? WHITE : EMPTY;
        else if (other == -3)
            value = NOTHING;
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
