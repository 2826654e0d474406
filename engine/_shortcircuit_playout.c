/* Short Circuit's random playouts compiled: engine/shortcircuitplayout.py's RandomPlayout.run
 * step for step (the same draws from the same generator give the same actions), on
 * fixed-size bitboards. The Python code is the reference and the fallback where no C
 * compiler built this module; tests/test_shortcircuit.py plays both side by side.
 *
 * The board's geometry comes from Python (its mask, shifts and centre), so the bit
 * layout is defined once. The rare question whether a connector can still be placed
 * after further pops is asked back to Python's _connector_reachable.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define WORDS 7 /* 448 bits: side 10's layout uses bits below 400 */
#define BITS (64 * WORDS)
#define MAX_SIDE 10

typedef struct {
    uint64_t w[WORDS];
} bits;

enum { POP = 0, CONNECTOR = 1, CAPACITOR = 2 };
enum { GOES_ON = 0, LOOP = 1, NO_CONNECTORS = 2, PASSES = 3, TURN_LIMIT = 4 };
#define SETUP_TURNS 2
#define LOOP_CELLS 6 /* the fewest connectors in a loop (shortcircuitplayout.py's _LOOP_CELLS) */

static inline bits b_and(bits a, bits b) {
    for (int i = 0; i < WORDS; i++) a.w[i] &= b.w[i];
    return a;
}
static inline bits b_or(bits a, bits b) {
    for (int i = 0; i < WORDS; i++) a.w[i] |= b.w[i];
    return a;
}
static inline bits b_andnot(bits a, bits b) { /* a & ~b */
    for (int i = 0; i < WORDS; i++) a.w[i] &= ~b.w[i];
    return a;
}
static inline int b_any(bits a) {
    uint64_t any = 0;
    for (int i = 0; i < WORDS; i++) any |= a.w[i];
    return any != 0;
}
/* Set bits of a word without the library call a build for any x86-64 makes of
 * __builtin_popcountll (no popcnt instruction assumed). */
static inline long popcount(uint64_t x) {
    x -= x >> 1 & 0x5555555555555555u;
    x = (x & 0x3333333333333333u) + (x >> 2 & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (long)(x * 0x0101010101010101u >> 56);
}
static inline long b_count(bits a) {
    long count = 0;
    for (int i = 0; i < WORDS; i++)
        if (a.w[i]) count += popcount(a.w[i]);
    return count;
}
static inline bits b_single(int bit) {
    bits a;
    memset(&a, 0, sizeof a);
    a.w[bit >> 6] = (uint64_t)1 << (bit & 63);
    return a;
}
static inline int b_has(bits a, int bit) { return (int)(a.w[bit >> 6] >> (bit & 63) & 1); }
static inline int b_lowest(bits a) { /* -1 for none */
    for (int i = 0; i < WORDS; i++)
        if (a.w[i]) return 64 * i + __builtin_ctzll(a.w[i]);
    return -1;
}
static inline int b_nth(bits a, long n) { /* the n-th lowest set bit, from 0 */
    for (int i = 0; i < WORDS; i++) {
        long here = popcount(a.w[i]);
        if (n < here) {
            uint64_t word = a.w[i];
            while (n--) word &= word - 1;
            return 64 * i + __builtin_ctzll(word);
        }
        n -= here;
    }
    return -1;
}
static inline bits b_shl(bits a, int k) { /* 0 < k < 64 */
    for (int i = WORDS - 1; i > 0; i--) a.w[i] = a.w[i] << k | a.w[i - 1] >> (64 - k);
    a.w[0] <<= k;
    return a;
}
static inline bits b_shr(bits a, int k) {
    for (int i = 0; i < WORDS - 1; i++) a.w[i] = a.w[i] >> k | a.w[i + 1] << (64 - k);
    a.w[WORDS - 1] >>= k;
    return a;
}

typedef struct {
    int built;
    bits mask;
    int shifts[3];
    int centre;
    bits near[BITS];   /* a cell's neighbours */
    bits closed[BITS]; /* a cell and its neighbours */
    unsigned short around[BITS][7]; /* the cells of closed[], the cell itself last */
    unsigned char around_count[BITS];
} Board;

static Board boards[MAX_SIDE + 1];

static inline bits adjacent(const Board *board, bits cells) {
    bits out = b_or(b_shl(cells, board->shifts[0]), b_shr(cells, board->shifts[0]));
    out = b_or(out, b_or(b_shl(cells, board->shifts[1]), b_shr(cells, board->shifts[1])));
    out = b_or(out, b_or(b_shl(cells, board->shifts[2]), b_shr(cells, board->shifts[2])));
    return b_and(out, board->mask);
}

static PyObject *sixty_four; /* the shift between a Python int's 64-bit words */

static int to_bits(PyObject *value, bits *out) {
    memset(out, 0, sizeof *out);
    Py_INCREF(value);
    for (int i = 0; i < WORDS; i++) {
        int zero = PyObject_Not(value);
        if (zero) {
            Py_DECREF(value);
            return zero < 0 ? -1 : 0;
        }
        out->w[i] = PyLong_AsUnsignedLongLongMask(value);
        PyObject *rest = PyNumber_Rshift(value, sixty_four);
        Py_DECREF(value);
        if (rest == NULL || (out->w[i] == (unsigned long long)-1 && PyErr_Occurred())) {
            Py_XDECREF(rest);
            return -1;
        }
        value = rest;
    }
    int zero = PyObject_Not(value);
    Py_DECREF(value);
    if (zero == 0) PyErr_SetString(PyExc_ValueError, "a bitboard beyond the compiled size");
    return zero == 1 ? 0 : -1;
}

static PyObject *from_bits(bits a) {
    PyObject *value = PyLong_FromLong(0);
    for (int i = WORDS - 1; i >= 0 && value != NULL; i--) {
        PyObject *shifted = PyNumber_Lshift(value, sixty_four);
        Py_DECREF(value);
        if (shifted == NULL) return NULL;
        PyObject *word = PyLong_FromUnsignedLongLong(a.w[i]);
        if (word == NULL) {
            Py_DECREF(shifted);
            return NULL;
        }
        value = PyNumber_Or(shifted, word);
        Py_DECREF(shifted);
        Py_DECREF(word);
    }
    return value;
}

/* The board of (side, mask, shifts..., centre), its tables built on first use. */
static const Board *board_for(PyObject *spec) {
    long side;
    PyObject *mask;
    int one, two, three, centre;
    if (!PyArg_ParseTuple(spec, "lOiiii", &side, &mask, &one, &two, &three, &centre)) return NULL;
    if (side < 1 || side > MAX_SIDE) {
        PyErr_SetString(PyExc_ValueError, "a board side beyond the compiled size");
        return NULL;
    }
    Board *board = &boards[side];
    if (board->built) return board;
    if (to_bits(mask, &board->mask) < 0) return NULL;
    board->shifts[0] = one, board->shifts[1] = two, board->shifts[2] = three;
    board->centre = centre;
    for (int cell = 0; cell < BITS; cell++) {
        int count = 0;
        if (b_has(board->mask, cell)) {
            board->near[cell] = adjacent(board, b_single(cell));
            board->closed[cell] = b_or(board->near[cell], b_single(cell));
            for (int other = 0; other < BITS; other++)
                if (b_has(board->near[cell], other)) board->around[cell][count++] = (unsigned short)other;
            board->around[cell][count++] = (unsigned short)cell;
        } else {
            memset(&board->near[cell], 0, sizeof(bits));
            memset(&board->closed[cell], 0, sizeof(bits));
        }
        board->around_count[cell] = (unsigned char)count;
    }
    board->built = 1;
    return board;
}

/* Whether two cells of `ends` are joined through `rest` (shortcircuitplayout.py's _joined). */
static int joined(const Board *board, bits ends, bits rest) {
    while (b_count(ends) >= 2) {
        bits seen = b_single(b_lowest(ends)), frontier = seen;
        ends = b_andnot(ends, seen);
        while (b_any(frontier)) {
            frontier = b_andnot(b_and(adjacent(board, frontier), rest), seen);
            if (b_any(b_and(frontier, ends))) return 1;
            seen = b_or(seen, frontier);
        }
    }
    return 0;
}

/* The cells of `candidates` next to two connectors of `own` that are joined through
 * `own`: a connector there closes a loop (shortcircuitplayout.py's _closing). */
/* The cells (some off the board) next to two or more of `cells` (_beside_two). */
static bits beside_two(const Board *board, bits cells) {
    bits once, twice;
    memset(&once, 0, sizeof once);
    memset(&twice, 0, sizeof twice);
    for (int k = 0; k < 3; k++) {
        bits up = b_shl(cells, board->shifts[k]), down = b_shr(cells, board->shifts[k]);
        twice = b_or(twice, b_and(once, up));
        once = b_or(once, up);
        twice = b_or(twice, b_and(once, down));
        once = b_or(once, down);
    }
    return twice;
}

static bits closing(const Board *board, bits own, bits candidates) {
    bits result;
    memset(&result, 0, sizeof result);
    candidates = b_and(candidates, beside_two(board, own));
    bits rest = b_and(own, adjacent(board, candidates)); /* the parts that matter */
    while (b_any(rest)) {
        bits part = b_single(b_lowest(rest)), grown;
        for (;;) {
            grown = b_or(part, b_and(adjacent(board, part), own));
            if (!memcmp(&grown, &part, sizeof part)) break;
            part = grown;
        }
        rest = b_andnot(rest, part);
        result = b_or(result, b_and(beside_two(board, part), candidates));
    }
    return result;
}

/* Python's reachable(mover, colours, caps): 1, 0, or -1 with an exception set. */
static int ask_reachable(PyObject *reachable, int mover, const bits colours[4], bits caps) {
    PyObject *list = PyList_New(4), *caps_int = from_bits(caps), *answer = NULL;
    int result = -1;
    if (list == NULL || caps_int == NULL) goto done;
    for (int colour = 0; colour < 4; colour++) {
        PyObject *mask = from_bits(colours[colour]);
        if (mask == NULL) goto done;
        PyList_SET_ITEM(list, colour, mask);
    }
    answer = PyObject_CallFunction(reachable, "iOO", mover, list, caps_int);
    if (answer != NULL) result = PyObject_IsTrue(answer);
done:
    Py_XDECREF(list);
    Py_XDECREF(caps_int);
    Py_XDECREF(answer);
    return result;
}

/* played.append((mover, (kind, first, second))) */
static int record(PyObject *played, int mover, int kind, int first, int second) {
    PyObject *action = PyTuple_New(3), *entry = PyTuple_New(2);
    int result = -1;
    if (action != NULL && entry != NULL) {
        PyTuple_SET_ITEM(action, 0, PyLong_FromLong(kind));
        PyTuple_SET_ITEM(action, 1, PyLong_FromLong(first));
        PyTuple_SET_ITEM(action, 2, PyLong_FromLong(second));
        PyTuple_SET_ITEM(entry, 0, PyLong_FromLong(mover));
        PyTuple_SET_ITEM(entry, 1, action);
        action = NULL;
        if (!PyErr_Occurred()) result = PyList_Append(played, entry);
    }
    Py_XDECREF(action);
    Py_XDECREF(entry);
    return result;
}

static int draw_float(PyObject *draw, double *out) {
    PyObject *value = PyObject_CallNoArgs(draw);
    if (value == NULL) return -1;
    *out = PyFloat_AsDouble(value);
    Py_DECREF(value);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* Indices into the state list that run() reads and writes back. */
enum {
    S_COLOURS = 0, S_CAPS = 4, S_LEFT = 5, S_MOVER = 7, S_TURNS, S_PASSES, S_POPPED,
    S_MAX_TURNS, S_END, S_WINNER, S_SIZE
};

static PyObject *run(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *spec, *state, *draw, *reachable, *played;
    long limit;
    int take_wins;
    if (!PyArg_ParseTuple(args, "O!O!OOlO!p", &PyTuple_Type, &spec, &PyList_Type, &state, &draw,
                          &reachable, &limit, &PyList_Type, &played, &take_wins))
        return NULL;
    if (PyList_GET_SIZE(state) != S_SIZE) {
        PyErr_SetString(PyExc_ValueError, "the state list has the wrong length");
        return NULL;
    }
    const Board *board = board_for(spec);
    if (board == NULL) return NULL;
    bits colours[4], adj[4], caps, occupied;
    long numbers[S_SIZE];
    for (int i = 0; i < S_SIZE; i++) {
        PyObject *item = PyList_GET_ITEM(state, i);
        if (i < S_LEFT) {
            if (to_bits(item, i < S_CAPS ? &colours[i] : &caps) < 0) return NULL;
        } else if ((numbers[i] = PyLong_AsLong(item)) == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    long left[2] = {numbers[S_LEFT], numbers[S_LEFT + 1]};
    int mover = (int)numbers[S_MOVER], popped = numbers[S_POPPED] != 0;
    long turns = numbers[S_TURNS], passes = numbers[S_PASSES], max_turns = numbers[S_MAX_TURNS];
    int end = (int)numbers[S_END], winner = (int)numbers[S_WINNER];

    /* per cell: the capacitors on or next to it, the connectors next to it */
    unsigned char caps_around[BITS], pieces_around[BITS];
    memset(caps_around, 0, sizeof caps_around);
    memset(pieces_around, 0, sizeof pieces_around);
    memset(&occupied, 0, sizeof occupied);
    for (int colour = 0; colour < 4; colour++) {
        adj[colour] = adjacent(board, colours[colour]);
        occupied = b_or(occupied, colours[colour]);
    }
    for (int cell = 0; cell < BITS; cell++) {
        for (int k = 0; k < board->around_count[cell]; k++) {
            int other = board->around[cell][k];
            caps_around[cell] += (unsigned char)b_has(caps, other);
            if (other != cell) pieces_around[cell] += (unsigned char)b_has(occupied, other);
        }
    }

    long actions = 0;
    while (end == GOES_ON && actions < limit) {
        int kind, first, second;
        double x;
        bits bit;
        if (turns < SETUP_TURNS) {
            /* setup: a connector of either colour on the centre, then next to it */
            bits cells = turns == 0 ? b_single(board->centre)
                                    : b_andnot(board->near[board->centre], occupied);
            if (draw_float(draw, &x) < 0) return NULL;
            long index = (long)(x * 2 * (double)b_count(cells));
            kind = CONNECTOR, first = 2 * mover + (int)(index & 1);
            second = b_nth(cells, index >> 1);
        } else {
            int a = 2 * mover;
            bits empty = b_andnot(board->mask, occupied);
            bits place_a = b_andnot(b_and(empty, adj[a + 1]), adj[a]);
            bits place_b = b_andnot(b_and(empty, adj[a]), adj[a + 1]);
            bits own = b_or(colours[a], colours[a + 1]), free;
            memset(&free, 0, sizeof free);
            if (!popped && left[mover])
                free = b_andnot(b_or(own, b_or(adj[a], adj[a + 1])), caps);
            long count_a = b_count(place_a), count_b = b_count(place_b), count_free = b_count(free);
            long total = count_a + count_b + count_free;
            if (!(total || popped)) {
                int can = ask_reachable(reachable, mover, colours, caps);
                if (can < 0) return NULL;
                if (!can) {
                    turns++; /* a forced pass */
                    passes++;
                    if (passes >= 2)
                        end = PASSES;
                    else if (turns >= max_turns)
                        end = TURN_LIMIT;
                    mover = 1 - mover;
                    continue;
                }
            }
            bits wins;
            long count_wins = 0;
            if (take_wins && b_count(own) >= LOOP_CELLS - 1) {
                wins = closing(board, own, b_or(place_a, place_b));
                count_wins = b_count(wins);
            }
            if (count_wins) { /* a loop closed wins: the mover takes it */
                if (draw_float(draw, &x) < 0) return NULL;
                second = b_nth(wins, (long)(x * (double)count_wins));
                kind = CONNECTOR, first = b_has(place_a, second) ? a : a + 1;
                goto chosen;
            }
            for (int i = 0; i < WORDS; i++)
                for (uint64_t rest = own.w[i]; rest; rest &= rest - 1) {
                    int cell = 64 * i + __builtin_ctzll(rest);
                    total += (long)caps_around[cell] * pieces_around[cell];
                }
            for (;;) {
                if (draw_float(draw, &x) < 0) return NULL;
                long index = (long)(x * (double)total);
                if (index < count_a) {
                    kind = CONNECTOR, first = a, second = b_nth(place_a, index);
                    break;
                }
                index -= count_a;
                if (index < count_b) {
                    kind = CONNECTOR, first = a + 1, second = b_nth(place_b, index);
                    break;
                }
                index -= count_b;
                if (index < count_free) {
                    kind = CAPACITOR, first = b_nth(free, index), second = 0;
                    break;
                }
                index -= count_free;
                int linker = -1;
                long per_cap = 0;
                for (int i = 0; i < WORDS && linker < 0; i++)
                    for (uint64_t rest = own.w[i]; rest; rest &= rest - 1) {
                        int cell = 64 * i + __builtin_ctzll(rest);
                        long count = (long)caps_around[cell] * pieces_around[cell];
                        if (index < count) {
                            linker = cell, per_cap = pieces_around[cell];
                            break;
                        }
                        index -= count;
                    }
                if (linker < 0) continue; /* x * total rounded up to total */
                first = b_nth(b_and(caps, board->closed[linker]), index / per_cap);
                second = b_nth(b_and(occupied, board->near[linker]), index % per_cap);
                bits linkers = b_and(own, b_and(board->closed[first], board->near[second]));
                if (b_lowest(linkers) != linker) continue; /* a pop is drawn through its lowest linker only */
                bit = b_single(second);
                /* the turn can still be completed: a placement is kept, or found after more pops */
                int kept;
                if (b_has(colours[a], second))
                    kept = b_any(place_a);
                else if (b_has(colours[a + 1], second))
                    kept = b_any(place_b);
                else
                    kept = b_any(place_a) || b_any(place_b);
                if (!kept) {
                    bits after[4];
                    for (int colour = 0; colour < 4; colour++) after[colour] = b_andnot(colours[colour], bit);
                    kept = ask_reachable(reachable, mover, after, b_andnot(caps, b_single(first)));
                    if (kept < 0) return NULL;
                }
                if (kept) {
                    kind = POP;
                    break;
                }
            }
        }
    chosen:
        actions++;
        if (record(played, mover, kind, first, second) < 0) return NULL;
        if (kind == POP) {
            caps = b_andnot(caps, b_single(first));
            for (int k = 0; k < board->around_count[first]; k++) caps_around[board->around[first][k]]--;
            for (int k = 0; k < board->around_count[second] - 1; k++) pieces_around[board->around[second][k]]--;
            int hit = 0;
            while (!b_has(colours[hit], second)) hit++;
            colours[hit] = b_andnot(colours[hit], bit);
            adj[hit] = adjacent(board, colours[hit]);
            occupied = b_andnot(occupied, bit);
            popped = 1;
            continue;
        }
        if (kind == CONNECTOR) {
            bit = b_single(second);
            colours[first] = b_or(colours[first], bit);
            adj[first] = b_or(adj[first], board->near[second]);
            occupied = b_or(occupied, bit);
            for (int k = 0; k < board->around_count[second] - 1; k++) pieces_around[board->around[second][k]]++;
            bits own = b_or(colours[2 * mover], colours[2 * mover + 1]);
            bits ends = b_and(board->near[second], own);
            if (b_count(ends) >= 2 && joined(board, ends, b_andnot(own, bit))) {
                end = LOOP, winner = mover;
                break;
            }
        } else {
            caps = b_or(caps, b_single(first));
            for (int k = 0; k < board->around_count[first]; k++) caps_around[board->around[first][k]]++;
            if (left[mover] > 0) left[mover]--;
        }
        turns++;
        passes = 0;
        int opponent = 1 - mover;
        if (popped && !b_any(b_or(colours[2 * opponent], colours[2 * opponent + 1])))
            end = NO_CONNECTORS, winner = mover;
        else if (turns >= max_turns)
            end = TURN_LIMIT;
        popped = 0;
        mover = turns == SETUP_TURNS ? 0 : opponent;
    }

    numbers[S_LEFT] = left[0], numbers[S_LEFT + 1] = left[1];
    numbers[S_MOVER] = mover, numbers[S_TURNS] = turns, numbers[S_PASSES] = passes;
    numbers[S_POPPED] = popped, numbers[S_END] = end, numbers[S_WINNER] = winner;
    for (int i = 0; i < S_SIZE; i++) {
        PyObject *item = i < S_CAPS ? from_bits(colours[i])
                         : i == S_CAPS ? from_bits(caps)
                                       : PyLong_FromLong(numbers[i]);
        if (item == NULL || PyList_SetItem(state, i, item) < 0) return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS,
     "run(board, state, draw, reachable, limit, played, take_wins): RandomPlayout.run's loop, "
     "compiled."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_shortcircuit_playout",
    "Short Circuit's random playouts compiled (engine/shortcircuitplayout.py's RandomPlayout).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__shortcircuit_playout(void) {
    sixty_four = PyLong_FromLong(64);
    if (sixty_four == NULL) return NULL;
    PyObject *created = PyModule_Create(&module);
    if (created != NULL && PyModule_AddIntConstant(created, "BITS", BITS) < 0) {
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
