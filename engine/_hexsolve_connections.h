/* H-search (hexsolve.Connections) on masks of type HMASK, its names made by H(name):
 * engine/_hexsolve.c includes this twice, on 64-bit masks for boards up to 8x8 (a word
 * holds the board: half the memory, and each step a single instruction) and on 128-bit
 * masks beyond. The records of a pair are apart, its fulls and its semis: the AND rule
 * reads one kind at a time. */

/* A pair's carriers of one kind; `listed`: the Python dict holds the pair (an entry's
 * place in a node's order is where it was first made). */
typedef struct {
    HMASK carriers[FULL_LIMIT];
    unsigned char count, listed;
} H(Fulls);

typedef struct {
    HMASK carriers[SEMI_LIMIT + 1];
    unsigned char count, listed;
} H(Semis);

typedef struct {
    HMASK carrier;
    short x, y;
    int is_full;
} H(Queued);

typedef struct {
    Scratch *s;
    H(Fulls) *fulls;  /* by pair */
    H(Semis) *semis;
    H(Queued) *queue;
    int queue_cap, cells, first, second, nodes, stop_on_semi, done, pairs_used, head, tail;
    long steps;
    double deadline;
    HMASK must_play;
} H(Search);

static inline HMASK H(bit)(int cell) { return (HMASK)1 << cell; }

/* The pair of x and y, made (with no connection) on first use. */
static inline int H(pair_of)(H(Search) *h, int x, int y) {
    int *at = &h->s->pair_index[x * h->nodes + y];
    if (*at < 0) {
        int pair = h->pairs_used++;
        h->fulls[pair].count = h->fulls[pair].listed = 0;
        h->semis[pair].count = h->semis[pair].listed = 0;
        *at = h->s->pair_index[y * h->nodes + x] = pair;
    }
    return *at;
}

/* 0 when the queue is at its cap. */
static int H(enqueue)(H(Search) *h, int is_full, int x, int y, HMASK carrier) {
    if (h->tail == h->queue_cap) {
        if (h->queue_cap >= QUEUE_CAP) return 0;
        size_t bytes = (size_t)h->queue_cap * 2 * sizeof(H(Queued));
        H(Queued) *wider = realloc(h->queue, bytes);
        if (!wider) return 0;
        h->s->queue = h->queue = wider;
        h->s->queue_bytes = bytes;
        h->queue_cap *= 2;
    }
    H(Queued) *item = &h->queue[h->tail++];
    item->carrier = carrier;
    item->x = (short)x;
    item->y = (short)y;
    item->is_full = is_full;
    return 1;
}

static int H(add_full)(H(Search) *h, int x, int y, HMASK carrier) {
    int pair = H(pair_of)(h, x, y);
    H(Fulls) *known = &h->fulls[pair];
    if (!known->listed) {
        known->listed = 1;
        order_append(h->s, h->nodes, h->s->full_order, h->s->full_len, x, y, pair);
    } else if (known->count >= FULL_LIMIT) {
        return OK;
    }
    int n = known->count, kept = 0;
    for (int i = 0; i < n; i++)
        if (!(known->carriers[i] & ~carrier)) return OK; /* a carrier inside this one is known */
    for (int i = 0; i < n; i++)
        if (carrier & ~known->carriers[i]) known->carriers[kept++] = known->carriers[i];
    known->carriers[kept++] = carrier;
    known->count = (unsigned char)kept;
    if (kept >= FULL_LIMIT) close_pair(h->s, h->nodes, x, y, FULL_CLOSED);
    if (!carrier) close_pair(h->s, h->nodes, x, y, FULL_CLOSED | SEMI_CLOSED);
    if (!H(enqueue)(h, 1, x, y, carrier)) return OUT;
    if ((x == h->first && y == h->second) || (x == h->second && y == h->first)) h->done = 1;
    return OK;
}

static int H(or_rule)(H(Search) *h, int x, int y, const HMASK *known, int n, const HMASK *rest,
                      HMASK common, HMASK joined, int start, int depth) {
    for (int index = start; index < n; index++) {
        if (common & rest[index]) return OK;
        HMASK carrier = known[index], narrower = common & carrier;
        if (narrower == common) continue;
        if (!narrower) {
            if (H(add_full)(h, x, y, joined | carrier) == OUT) return OUT;
            if (h->done) return OK;
        } else if (depth + 1 < OR_DEPTH && !(narrower & rest[index + 1])) {
            if (H(or_rule)(h, x, y, known, n, rest, narrower, joined | carrier, index + 1,
                           depth + 1) == OUT)
                return OUT;
        }
    }
    return OK;
}

static int H(add_semi)(H(Search) *h, int x, int y, HMASK carrier) {
    int first = h->first;
    int edges = x >= first && y >= first && x + y == first + first + 1;
    int pair = H(pair_of)(h, x, y);
    H(Semis) *known = &h->semis[pair];
    if (!known->listed) {
        known->listed = 1;
        order_append(h->s, h->nodes, h->s->semi_order, h->s->semi_len, x, y, pair);
    } else if (known->count >= SEMI_LIMIT && !edges) {
        return OK;
    }
    const H(Fulls) *fulls = &h->fulls[pair];
    for (int i = 0; i < fulls->count; i++)
        if (!(fulls->carriers[i] & ~carrier)) return OK; /* joined with fewer cells */
    int n = known->count;
    for (int i = 0; i < n; i++)
        if (!(known->carriers[i] & ~carrier)) return OK;
    if (edges) {
        h->must_play &= carrier;
        if (h->stop_on_semi || !h->must_play) {
            known->carriers[known->count++] = carrier;
            h->done = 1;
            return OK;
        }
    }
    if (n >= SEMI_LIMIT) return OK;
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (carrier & ~known->carriers[i]) known->carriers[kept++] = known->carriers[i];
    n = known->count = (unsigned char)kept;
    /* rest[i]: the cells common to carriers[i:] */
    HMASK rest[SEMI_LIMIT + 1];
    rest[n] = ~(HMASK)0;
    for (int i = n - 1; i >= 0; i--) rest[i] = rest[i + 1] & known->carriers[i];
    if (!(carrier & rest[0]) &&
        H(or_rule)(h, x, y, known->carriers, n, rest, carrier, carrier, 0, 1) == OUT)
        return OUT;
    known->carriers[known->count++] = carrier;
    if (known->count >= SEMI_LIMIT && !edges) close_pair(h->s, h->nodes, x, y, SEMI_CLOSED);
    if ((x >= first || y >= first) && !H(enqueue)(h, 0, x, y, carrier)) return OUT;
    return OK;
}

static int H(search_rules)(H(Search) *h) {
    Scratch *s = h->s;
    int cells = h->cells, nodes = h->nodes;
    while (h->head < h->tail && !h->done) {
        h->steps++;
        if (!(h->steps & 63) && now() >= h->deadline) return OUT;
        H(Queued) item = h->queue[h->head++];
        int is_full = item.is_full;
        HMASK carrier = item.carrier;
        for (int side = 0; side < 2; side++) {
            int middle = side ? item.y : item.x, end = side ? item.x : item.y;
            int through_cell = middle < cells;
            if (through_cell && !is_full) continue;
            HMASK clash = carrier | (end < cells ? H(bit)(end) : 0);
            HMASK middle_bit = through_cell ? H(bit)(middle) : 0;
            /* pairs (end, far), closed to a kind: no carrier of theirs is tried */
            const unsigned char *closed = &s->closed[end * nodes];
            /* middle's lists do not change below: additions are at end and far */
            if (is_full && !through_cell) {
                const Link *links = &s->full_order[middle * nodes];
                for (int k = 0, len = s->full_len[middle]; k < len; k++) {
                    int far = links[k].far;
                    if (far == end || (far < cells && (carrier >> far & 1)) ||
                        closed[far] & FULL_CLOSED)
                        continue;
                    const H(Fulls) *seconds = &h->fulls[links[k].pair];
                    for (int i = 0; i < seconds->count && !(closed[far] & FULL_CLOSED); i++) {
                        HMASK second = seconds->carriers[i];
                        if (second & clash) continue;
                        if (H(add_full)(h, end, far, carrier | second) == OUT) return OUT;
                        if (h->done) return OK;
                    }
                }
                /* a full and a semi connection meeting at a group make a semi one */
                const Link *semi_links = &s->semi_order[middle * nodes];
                for (int k = 0, len = s->semi_len[middle]; k < len; k++) {
                    int far = semi_links[k].far;
                    if (far == end || (far < cells && (carrier >> far & 1)) ||
                        closed[far] & SEMI_CLOSED)
                        continue;
                    const H(Semis) *seconds = &h->semis[semi_links[k].pair];
                    for (int i = 0; i < seconds->count && !(closed[far] & SEMI_CLOSED); i++) {
                        HMASK second = seconds->carriers[i];
                        if (second & clash) continue;
                        if (H(add_semi)(h, end, far, carrier | second) == OUT) return OUT;
                        if (h->done) return OK;
                    }
                }
                continue;
            }
            const Link *links = &s->full_order[middle * nodes];
            for (int k = 0, len = s->full_len[middle]; k < len; k++) {
                int far = links[k].far;
                if (far == end || (far < cells && (carrier >> far & 1)) ||
                    closed[far] & SEMI_CLOSED)
                    continue;
                const H(Fulls) *seconds = &h->fulls[links[k].pair];
                for (int i = 0; i < seconds->count && !(closed[far] & SEMI_CLOSED); i++) {
                    HMASK second = seconds->carriers[i];
                    if (second & clash) continue;
                    if (H(add_semi)(h, end, far, carrier | second | middle_bit) == OUT) return OUT;
                    if (h->done) return OK;
                }
            }
        }
    }
    return OK;
}

/* Connections(geo, own, other, colour, stop_on_semi, deadline): OUT past the deadline
 * or a cap; else *done and *must_play hold the answer. */
static int H(connections)(const Geometry *geo, Scratch *s, mask_t own, mask_t other, int colour,
                          int stop_on_semi, double deadline, int *done, mask_t *must_play) {
    int cells = geo->cells;
    mask_t empty = geo->full & ~(own | other);
    mask_t first_row = geo->edges[colour][0], second_row = geo->edges[colour][1];
    mask_t groups[MAX_CELLS + 2], adjacent[MAX_CELLS + 2];
    groups[0] = flood(geo, own & first_row, own);
    groups[1] = flood(geo, own & second_row, own);
    adjacent[0] = (first_row & empty) | (dilate_cells(geo, groups[0]) & empty);
    adjacent[1] = (second_row & empty) | (dilate_cells(geo, groups[1]) & empty);
    int group_count = 2;
    for (mask_t rest = own & ~(groups[0] | groups[1]); rest;) {
        mask_t group = flood(geo, rest & (~rest + 1), own);
        rest &= ~group;
        groups[group_count] = group;
        adjacent[group_count++] = dilate_cells(geo, group) & empty;
    }
    int nodes = cells + group_count;
    if (!scratch_reserve(s, nodes)) return OUT;
    H(Search) search = {
        .s = s,
        .fulls = s->fulls,
        .semis = s->semis,
        .queue = s->queue,
        .queue_cap = (int)(s->queue_bytes / sizeof(H(Queued))),
        .cells = cells,
        .first = cells,
        .second = cells + 1,
        .nodes = nodes,
        .stop_on_semi = stop_on_semi,
        .deadline = deadline,
        .must_play = (HMASK)empty,
    };
    H(Search) *h = &search;
    memset(s->pair_index, 0xff, (size_t)nodes * nodes * sizeof(int));
    memset(s->closed, 0, (size_t)nodes * nodes);
    memset(s->full_len, 0, nodes * sizeof(int));
    memset(s->semi_len, 0, nodes * sizeof(int));
    int status = OK;
    for (int index = 0; index < group_count && status == OK; index++)
        for (mask_t around = adjacent[index]; around && status == OK; around &= around - 1)
            status = H(add_full)(h, cells + index, lowest(around), 0);
    for (mask_t rest = empty; rest && status == OK; rest &= rest - 1) {
        int cell = lowest(rest);
        for (mask_t around = geo->neighbours[cell] & empty; around && status == OK;
             around &= around - 1) {
            int neighbour = lowest(around);
            if (neighbour > cell) status = H(add_full)(h, cell, neighbour, 0);
        }
    }
    if (status == OK && !h->done) status = H(search_rules)(h);
    *done = h->done;
    *must_play = (mask_t)h->must_play;
    return status;
}
