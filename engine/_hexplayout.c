/* Hex's playouts compiled: engine/ai/hexai.py's _fill_hex_in_order step for step (the
 * same order gives the same filled board), a shuffle of the empty cells by the module's
 * own generator, and the winner read from the full board; and on the same tables, the
 * cells that would join a colour's edges (hexai._completing: the search's decisive moves
 * and threats). The Python code is the reference and the fallback where no C compiler
 * built this module; tests/test_hexplayout.py compares both on random positions.
 *
 * The board's geometry comes from Python (its neighbour table and the bridges of
 * hexai._bridges), so it is defined once. The generator is SplitMix64, seeded by the
 * caller for each playout (a seeded search stays deterministic); the shuffle is
 * Fisher-Yates with Lemire's unbiased bounded draws.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_SIZE 19 /* engine/hex.py's largest board */
#define MAX_CELLS (MAX_SIZE * MAX_SIZE)
#define MAX_NEIGHBOURS 6
#define MAX_BRIDGES 8 /* per carrier cell; hexai._bridges gives at most 6 */
#define EMPTY (-1)

typedef struct {
    int16_t other, p, q; /* the other carrier, a stone, a stone or -1 - colour (an edge) */
} Bridge;

typedef struct {
    PyObject_HEAD
    int size, cells;
    int16_t neighbours[MAX_CELLS][MAX_NEIGHBOURS];
    uint8_t neighbour_count[MAX_CELLS];
    Bridge bridges[MAX_CELLS][MAX_BRIDGES];
    uint8_t bridge_count[MAX_CELLS];
} PlayoutObject;

/* -- the generator ------------------------------------------------------------------- */

static inline uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9u;
    z = (z ^ z >> 27) * 0x94d049bb133111ebu;
    return z ^ z >> 31;
}

/* A uniform draw below `range` (0 < range < 2^32), without the bias of a modulo. */
static inline uint32_t below(uint64_t *state, uint32_t range) {
    uint64_t product = (next_random(state) >> 32) * range;
    uint32_t low = (uint32_t)product;
    if (low < range) {
        uint32_t threshold = (uint32_t)(-range) % range;
        while (low < threshold) {
            product = (next_random(state) >> 32) * range;
            low = (uint32_t)product;
        }
    }
    return (uint32_t)(product >> 32);
}

/* -- the playout ---------------------------------------------------------------------- */

/* _fill_hex_in_order: the empty cells in `order`, alternating colours from `colour`,
 * each intrusion into a bridge carrier answered in the other carrier. */
static void fill_in_order(const PlayoutObject *self, int8_t *board, int colour,
                          const int16_t *order, int count) {
    int reply = -1, position = 0, remaining = count;
    while (remaining) {
        int cell;
        if (reply >= 0) {
            cell = reply;
            reply = -1;
        } else {
            cell = order[position++];
            if (board[cell] != EMPTY) continue;
        }
        board[cell] = (int8_t)colour;
        remaining--;
        colour ^= 1;
        const Bridge *bridge = self->bridges[cell];
        for (int i = 0; i < self->bridge_count[cell]; i++, bridge++) {
            if (board[bridge->other] == EMPTY && board[bridge->p] == colour &&
                (bridge->q >= 0 ? board[bridge->q] == colour : bridge->q == -1 - colour)) {
                reply = bridge->other;
                break;
            }
        }
    }
}

/* _full_board_black_wins: whether Black's stones join the first row to the last. */
static int black_wins(const PlayoutObject *self, const int8_t *board) {
    int16_t stack[MAX_CELLS];
    uint8_t seen[MAX_CELLS];
    int top = 0, last_row = self->size * (self->size - 1);
    memset(seen, 0, (size_t)self->cells);
    for (int cell = 0; cell < self->size; cell++)
        if (board[cell] == 0) {
            seen[cell] = 1;
            stack[top++] = (int16_t)cell;
        }
    while (top) {
        int cell = stack[--top];
        if (cell >= last_row) return 1;
        for (int i = 0; i < self->neighbour_count[cell]; i++) {
            int other = self->neighbours[cell][i];
            if (!seen[other] && board[other] == 0) {
                seen[other] = 1;
                stack[top++] = (int16_t)other;
            }
        }
    }
    return 0;
}

/* The stones of a list (EMPTY, 0 or 1 per cell) into `board`; the empty cells into
 * `empty` in increasing order. Returns their count, or -1 with an exception set. */
static int read_stones(const PlayoutObject *self, PyObject *stones, int8_t *board,
                       int16_t *empty) {
    if (!PyList_Check(stones) || PyList_GET_SIZE(stones) != self->cells) {
        PyErr_SetString(PyExc_ValueError, "stones must be a list of one entry per cell");
        return -1;
    }
    int count = 0;
    for (int cell = 0; cell < self->cells; cell++) {
        long stone = PyLong_AsLong(PyList_GET_ITEM(stones, cell));
        if (stone == -1 && PyErr_Occurred()) return -1;
        if (stone < EMPTY || stone > 1) {
            PyErr_SetString(PyExc_ValueError, "a stone must be -1 (empty), 0 or 1");
            return -1;
        }
        board[cell] = (int8_t)stone;
        if (stone == EMPTY) empty[count++] = (int16_t)cell;
    }
    return count;
}

static int read_colour(int colour) {
    if (colour == 0 || colour == 1) return 0;
    PyErr_SetString(PyExc_ValueError, "the colour to move must be 0 or 1");
    return -1;
}

/* run(stones, colour, seed, moves) -> (black won, played) */
static PyObject *playout_run(PlayoutObject *self, PyObject *args) {
    PyObject *stones, *moves;
    int colour;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OiKO!", &stones, &colour, &seed, &PyTuple_Type, &moves))
        return NULL;
    if (read_colour(colour) < 0) return NULL;
    if (PyTuple_GET_SIZE(moves) != 2) {
        PyErr_SetString(PyExc_ValueError, "moves must hold one tuple per colour");
        return NULL;
    }
    PyObject *by_colour[2];
    for (int k = 0; k < 2; k++) {
        by_colour[k] = PyTuple_GET_ITEM(moves, k);
        if (!PyTuple_Check(by_colour[k]) || PyTuple_GET_SIZE(by_colour[k]) != self->cells) {
            PyErr_SetString(PyExc_ValueError, "moves must hold a tuple of one move per cell");
            return NULL;
        }
    }
    int8_t board[MAX_CELLS];
    int16_t empty[MAX_CELLS], order[MAX_CELLS];
    int count = read_stones(self, stones, board, empty);
    if (count < 0) return NULL;
    memcpy(order, empty, sizeof(int16_t) * (size_t)count);
    uint64_t state = seed;
    for (int i = count - 1; i > 0; i--) {
        int j = (int)below(&state, (uint32_t)i + 1);
        int16_t swapped = order[i];
        order[i] = order[j];
        order[j] = swapped;
    }
    fill_in_order(self, board, colour, order, count);
    PyObject *played = PyList_New(count);
    if (played == NULL) return NULL;
    for (int i = 0; i < count; i++) {
        PyObject *move = PyTuple_GET_ITEM(by_colour[board[empty[i]]], empty[i]);
        Py_INCREF(move);
        PyList_SET_ITEM(played, i, move);
    }
    return Py_BuildValue("(NN)", PyBool_FromLong(black_wins(self, board)), played);
}

/* fill(stones, colour, order): _fill_hex_in_order, the list filled in place */
static PyObject *playout_fill(PlayoutObject *self, PyObject *args) {
    PyObject *stones, *sequence;
    int colour;
    if (!PyArg_ParseTuple(args, "OiO", &stones, &colour, &sequence)) return NULL;
    if (read_colour(colour) < 0) return NULL;
    int8_t board[MAX_CELLS];
    int16_t empty[MAX_CELLS], order[MAX_CELLS];
    int count = read_stones(self, stones, board, empty);
    if (count < 0) return NULL;
    PyObject *items = PySequence_Fast(sequence, "the order must be a sequence of cells");
    if (items == NULL) return NULL;
    /* The order must be the empty cells, each once: the loop reads no further. */
    int valid = PySequence_Fast_GET_SIZE(items) == count;
    uint8_t listed[MAX_CELLS];
    memset(listed, 0, sizeof listed);
    for (int i = 0; valid && i < count; i++) {
        long cell = PyLong_AsLong(PySequence_Fast_GET_ITEM(items, i));
        valid = cell >= 0 && cell < self->cells && board[cell] == EMPTY && !listed[cell];
        if (valid) listed[cell] = 1, order[i] = (int16_t)cell;
    }
    Py_DECREF(items);
    if (PyErr_Occurred()) return NULL;
    if (!valid) {
        PyErr_SetString(PyExc_ValueError, "the order must list each empty cell once");
        return NULL;
    }
    fill_in_order(self, board, colour, order, count);
    for (int i = 0; i < count; i++) {
        PyObject *stone = PyLong_FromLong(board[empty[i]]);
        if (stone == NULL || PyList_SetItem(stones, empty[i], stone) < 0) return NULL;
    }
    Py_RETURN_NONE;
}

/* completing(stones, colour) -> hexai._completing: the empty cells where a stone of
 * `colour` would join its two edges (Black's the first and last rows, White's the
 * first and last columns). */
static PyObject *playout_completing(PlayoutObject *self, PyObject *args) {
    PyObject *stones;
    int colour;
    if (!PyArg_ParseTuple(args, "Oi", &stones, &colour)) return NULL;
    if (read_colour(colour) < 0) return NULL;
    int8_t board[MAX_CELLS];
    int16_t empty[MAX_CELLS], stack[MAX_CELLS];
    if (read_stones(self, stones, board, empty) < 0) return NULL;
    int size = self->size;
    uint8_t reach[2][MAX_CELLS]; /* per edge: empty cells on it or next to its groups */
    memset(reach, 0, sizeof reach);
    for (int edge = 0; edge < 2; edge++) {
        uint8_t seen[MAX_CELLS];
        memset(seen, 0, (size_t)self->cells);
        int top = 0, line = edge ? size - 1 : 0;
        for (int k = 0; k < size; k++) {
            int cell = colour == 0 ? line * size + k : k * size + line;
            if (board[cell] == EMPTY) {
                reach[edge][cell] = 1;
            } else if (board[cell] == colour) {
                seen[cell] = 1;
                stack[top++] = (int16_t)cell;
            }
        }
        while (top) {
            int cell = stack[--top];
            for (int i = 0; i < self->neighbour_count[cell]; i++) {
                int other = self->neighbours[cell][i];
                if (board[other] == colour && !seen[other]) {
                    seen[other] = 1;
                    stack[top++] = (int16_t)other;
                } else if (board[other] == EMPTY) {
                    reach[edge][other] = 1;
                }
            }
        }
    }
    PyObject *found = PySet_New(NULL);
    for (int cell = 0; found != NULL && cell < self->cells; cell++) {
        if (!(reach[0][cell] && reach[1][cell])) continue;
        PyObject *number = PyLong_FromLong(cell);
        if (number == NULL || PySet_Add(found, number) < 0) Py_CLEAR(found);
        Py_XDECREF(number);
    }
    return found;
}

/* Playout(size, neighbours, bridges): the tables, checked, from hexai's. */
static int playout_init(PlayoutObject *self, PyObject *args, PyObject *kwargs) {
    int size;
    PyObject *neighbours, *bridges;
    static char *keywords[] = {"size", "neighbours", "bridges", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iO!O!", keywords, &size, &PyTuple_Type,
                                     &neighbours, &PyTuple_Type, &bridges))
        return -1;
    if (size < 2 || size > MAX_SIZE) {
        PyErr_SetString(PyExc_ValueError, "a board size beyond the compiled ones");
        return -1;
    }
    int cells = size * size;
    if (PyTuple_GET_SIZE(neighbours) != cells || PyTuple_GET_SIZE(bridges) != cells) {
        PyErr_SetString(PyExc_ValueError, "one entry per cell in each table");
        return -1;
    }
    self->size = size;
    self->cells = cells;
    for (int cell = 0; cell < cells; cell++) {
        PyObject *around = PyTuple_GET_ITEM(neighbours, cell);
        PyObject *carried = PyTuple_GET_ITEM(bridges, cell);
        if (!PyTuple_Check(around) || PyTuple_GET_SIZE(around) > MAX_NEIGHBOURS ||
            !PyTuple_Check(carried) || PyTuple_GET_SIZE(carried) > MAX_BRIDGES) {
            PyErr_SetString(PyExc_ValueError, "a cell's entry is not a tuple of the board's");
            return -1;
        }
        self->neighbour_count[cell] = (uint8_t)PyTuple_GET_SIZE(around);
        for (int i = 0; i < self->neighbour_count[cell]; i++) {
            long other = PyLong_AsLong(PyTuple_GET_ITEM(around, i));
            if (other < 0 || other >= cells) goto out_of_board;
            self->neighbours[cell][i] = (int16_t)other;
        }
        self->bridge_count[cell] = (uint8_t)PyTuple_GET_SIZE(carried);
        for (int i = 0; i < self->bridge_count[cell]; i++) {
            int other, p, q;
            if (!PyArg_ParseTuple(PyTuple_GET_ITEM(carried, i), "iii", &other, &p, &q))
                return -1;
            if (other < 0 || other >= cells || p < 0 || p >= cells || q < -2 || q >= cells)
                goto out_of_board;
            self->bridges[cell][i] = (Bridge){(int16_t)other, (int16_t)p, (int16_t)q};
        }
    }
    return 0;
out_of_board:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a cell off the board");
    return -1;
}

static PyMethodDef playout_methods[] = {
    {"run", (PyCFunction)playout_run, METH_VARARGS,
     "run(stones, colour, seed, moves) -> (black won, played): a playout from the position "
     "(stones: -1, 0 or 1 per cell; colour: to move), the empty cells shuffled by a "
     "generator seeded with `seed`; played lists moves[colour][cell] for each cell it "
     "filled, by cell."},
    {"fill", (PyCFunction)playout_fill, METH_VARARGS,
     "fill(stones, colour, order): hexai._fill_hex_in_order, compiled (stones in place)."},
    {"completing", (PyCFunction)playout_completing, METH_VARARGS,
     "completing(stones, colour) -> the empty cells where a stone of `colour` joins its "
     "edges: hexai._completing, compiled."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PlayoutType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "engine._hexplayout.Playout",
    .tp_basicsize = sizeof(PlayoutObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Playout(size, neighbours, bridges): Hex's playouts (and the cells that "
              "complete a chain) on one board size.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)playout_init,
    .tp_methods = playout_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_hexplayout",
    "Hex's playouts compiled (engine/ai/hexai.py's bridge-saving fill and winner, and "
    "the cells that complete a chain).",
    -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__hexplayout(void) {
    if (PyType_Ready(&PlayoutType) < 0) return NULL;
    PyObject *created = PyModule_Create(&module);
    if (created == NULL) return NULL;
    Py_INCREF(&PlayoutType);
    if (PyModule_AddObject(created, "Playout", (PyObject *)&PlayoutType) < 0 ||
        PyModule_AddIntConstant(created, "MAX_SIZE", MAX_SIZE) < 0) {
        Py_DECREF(&PlayoutType);
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
