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
#define WIDTH_PERCENT 25 /* a node's disproof number counts 1 + this share of its children */
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

#include "_hexsolve_board.h"
#include "_hexsolve_hsearch.h"
#include "_hexsolve_table.h"

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
    int known = table_get(&p->table, &key, &node->moves, geo->cells);
    if (known == ABSENT) {
        known = settle(geo, &p->scratch, own, other, colour, p->deadline, &node->moves);
        if (known == OUT_VALUE) return OUT;
        if (known == UNSETTLED) table_put(&p->table, &key, UNSETTLED, node->moves, geo->cells);
    }
    if (known != UNSETTLED) {
        table_put(&p->table, &key, known, 0, geo->cells);
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

/* HexProver._update. The disproof number sums the proof numbers of only the open
 * children (not yet lost: pn > 0) most likely to win, the smallest disproof numbers
 * first (then the order of trial): 1 + WIDTH_PERCENT% of them. */
static void update(Prover *p, Node *node) {
    if (node->children == NULL || node->child_count == 0) return;
    const Node *children = node->children;
    int n = node->child_count, open = 0;
    uint32_t pn = INFINITE;
    for (int i = 0; i < n; i++) {
        if (children[i].dn < pn) pn = children[i].dn;
        open += children[i].pn > 0;
    }
    uint64_t dn = pn == 0 ? INFINITE : 0; /* a winning move: a child at pn INFINITE */
    int width = 1 + open * WIDTH_PERCENT / 100;
    for (int i = 0; i < n && pn > 0; i++) {
        const Node *child = &children[i];
        if (!child->pn) continue;
        int ahead = 0; /* open children before this one in (dn, order of trial) */
        for (int j = 0; j < n && ahead < width; j++)
            ahead += children[j].pn > 0 &&
                     (children[j].dn < child->dn || (children[j].dn == child->dn && j < i));
        if (ahead < width) dn += child->pn;
    }
    node->pn = pn;
    node->dn = dn < INFINITE ? (uint32_t)dn : INFINITE;
    if (node->pn == 0 || node->dn == 0) {
        Key key = key_of(p->geo, node->own, node->other, node->colour);
        table_put(&p->table, &key, node->pn == 0 ? WINS : LOSES, 0, p->geo->cells);
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

static PyObject *prover_known(ProverObject *self, PyObject *args) {
    int colour;
    PyObject *own_object, *other_object;
    Prover *p = &self->prover;
    if (!PyArg_ParseTuple(args, "OOi", &own_object, &other_object, &colour)) return NULL;
    if (!p->geo) {
        PyErr_SetString(PyExc_RuntimeError, "Prover not initialised");
        return NULL;
    }
    mask_t own, other, moves;
    if (!position_from(p->geo->size, own_object, other_object, colour, &own, &other)) return NULL;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Prover is searching in another thread");
        return NULL;
    }
    mask_t black = colour == BLACK ? own : other, white = colour == BLACK ? other : own;
    fill(p->geo, &black, &white, -1);
    Key key = key_of(p->geo, colour == BLACK ? black : white, colour == BLACK ? white : black,
                     colour);
    int known = table_get(&p->table, &key, &moves, p->geo->cells);
    if (known == WINS) Py_RETURN_TRUE;
    if (known == LOSES) Py_RETURN_FALSE;
    Py_RETURN_NONE;
}

static PyObject *prover_table_count(ProverObject *self, PyObject *unused) {
    return PyLong_FromSize_t(self->prover.table.used);
}

static PyMethodDef prover_methods[] = {
    {"mover_wins", (PyCFunction)prover_mover_wins, METH_VARARGS,
     "mover_wins(own, other, colour, deadline, node_limit) -> (True / False / None, nodes): "
     "HexProver.mover_wins, compiled; None: out of budget (deadline: time.monotonic(), "
     "ignored with a node limit; node_limit -1: none); nodes: the budget's ticks used."},
    {"known", (PyCFunction)prover_known, METH_VARARGS,
     "known(own, other, colour) -> True / False / None: HexProver.known, compiled."},
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
