/* The search's inner loops compiled: engine/ai/mcts.py's Search._select, and of
 * Search._back_up the sets of moves a playout played and the AMAF update, over the same
 * Python lists of a node's statistics. The Python code is the reference and the fallback
 * where no C compiler built this module; tests/test_mcts_compiled.py runs seeded searches
 * with both and compares the trees.
 *
 * The arithmetic is Python's, operation for operation, in doubles (Python's floats), so
 * every value and every choice is the same: setup.py builds this file without fused
 * multiply-adds, which would round differently.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

static PyObject *proven_name; /* "proven", a Node's attribute */

static int is_list_of(PyObject *list, Py_ssize_t count) {
    return PyList_Check(list) && PyList_GET_SIZE(list) == count;
}

/* select(children, visits, wins, rave_visits, rave_wins, mover, log_total, exploration,
 * equivalence) -> the index Search._select returns */
static PyObject *py_select(PyObject *module, PyObject *args) {
    PyObject *children, *visits, *wins, *rave_visits, *rave_wins;
    long mover;
    double log_total, exploration, equivalence;
    if (!PyArg_ParseTuple(args, "O!OOOOlddd", &PyList_Type, &children, &visits, &wins,
                          &rave_visits, &rave_wins, &mover, &log_total, &exploration,
                          &equivalence))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(children);
    if (!is_list_of(visits, count) || !is_list_of(wins, count) ||
        !is_list_of(rave_visits, count) || !is_list_of(rave_wins, count)) {
        PyErr_SetString(PyExc_ValueError, "a node's statistics: one list entry per move");
        return NULL;
    }
    Py_ssize_t best = 0;
    double best_value = -INFINITY;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *child = PyList_GET_ITEM(children, i);
        double value;
        if (child != Py_None) {
            PyObject *proven = PyObject_GetAttr(child, proven_name);
            if (proven == NULL) return NULL;
            if (proven != Py_None) {
                long seat = PyLong_AsLong(proven);
                Py_DECREF(proven);
                if (seat == -1 && PyErr_Occurred()) return NULL;
                if (seat == mover) return PyLong_FromSsize_t(i);
                value = -1.0; /* a proven loss: only when nothing else is left */
                goto compare;
            }
            Py_DECREF(proven);
        }
        long long n = PyLong_AsLongLong(PyList_GET_ITEM(visits, i));
        long long rn = PyLong_AsLongLong(PyList_GET_ITEM(rave_visits, i));
        if ((n == -1 || rn == -1) && PyErr_Occurred()) return NULL;
        if (n == 0) {
            double amaf = 1.0;
            if (rn) {
                amaf = PyFloat_AsDouble(PyList_GET_ITEM(rave_wins, i));
                if (amaf == -1.0 && PyErr_Occurred()) return NULL;
                amaf /= (double)rn;
            }
            value = amaf + 0.5;
        } else {
            double q = PyFloat_AsDouble(PyList_GET_ITEM(wins, i));
            if (q == -1.0 && PyErr_Occurred()) return NULL;
            q /= (double)n;
            if (equivalence != 0.0 && rn) {
                double amaf = PyFloat_AsDouble(PyList_GET_ITEM(rave_wins, i));
                if (amaf == -1.0 && PyErr_Occurred()) return NULL;
                /* Python's integer sums and product, then its int-to-float divisions */
                double beta = (double)rn / ((double)(rn + n) + (double)(n * rn) / equivalence);
                q = (1.0 - beta) * q + beta * amaf / (double)rn;
            }
            value = q + exploration * sqrt(log_total / (double)n);
        }
    compare:
        if (value > best_value) {
            best = i;
            best_value = value;
        }
    }
    return PyLong_FromSsize_t(best);
}

/* Adds `amount` to the number in list[i], as `list[i] += amount` does. */
static int add_to(PyObject *list, Py_ssize_t i, PyObject *amount) {
    PyObject *sum = PyNumber_Add(PyList_GET_ITEM(list, i), amount);
    return sum == NULL ? -1 : PyList_SetItem(list, i, sum);
}

/* amaf(index, played, rave_visits, rave_wins, reward): for each move of `played` that
 * the node has (index: move -> i), one more AMAF visit and `reward` more AMAF reward */
static PyObject *py_amaf(PyObject *module, PyObject *args) {
    PyObject *index, *played, *rave_visits, *rave_wins, *reward;
    if (!PyArg_ParseTuple(args, "O!OO!O!O", &PyDict_Type, &index, &played, &PyList_Type,
                          &rave_visits, &PyList_Type, &rave_wins, &reward))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(rave_visits);
    if (PyList_GET_SIZE(rave_wins) != count) {
        PyErr_SetString(PyExc_ValueError, "a node's statistics: one list entry per move");
        return NULL;
    }
    /* Adding a zero reward to a sum of rewards (never -0.0) leaves it as it is. */
    int rewarded = PyObject_IsTrue(reward);
    if (rewarded < 0) return NULL;
    PyObject *one = PyLong_FromLong(1);
    PyObject *moves = PyObject_GetIter(played);
    if (one == NULL || moves == NULL) goto failed;
    PyObject *move;
    while ((move = PyIter_Next(moves)) != NULL) {
        PyObject *found = PyDict_GetItemWithError(index, move); /* borrowed */
        Py_DECREF(move);
        if (found == NULL) {
            if (PyErr_Occurred()) goto failed;
            continue;
        }
        Py_ssize_t i = PyLong_AsSsize_t(found);
        if (i == -1 && PyErr_Occurred()) goto failed;
        if (i < 0 || i >= count) {
            PyErr_SetString(PyExc_IndexError, "a move's index beyond its node's statistics");
            goto failed;
        }
        if (add_to(rave_visits, i, one) < 0 || (rewarded && add_to(rave_wins, i, reward) < 0))
            goto failed;
    }
    if (PyErr_Occurred()) goto failed;
    Py_DECREF(moves);
    Py_DECREF(one);
    Py_RETURN_NONE;
failed:
    Py_XDECREF(moves);
    Py_XDECREF(one);
    return NULL;
}

/* later(tail, players) -> one set per seat of the moves that seat played in `tail`, a
 * list of (seat, move) pairs: Search._back_up's first step */
static PyObject *py_later(PyObject *module, PyObject *args) {
    PyObject *tail;
    Py_ssize_t players;
    if (!PyArg_ParseTuple(args, "O!n", &PyList_Type, &tail, &players)) return NULL;
    PyObject *later = PyList_New(players);
    if (later == NULL) return NULL;
    for (Py_ssize_t seat = 0; seat < players; seat++) {
        PyObject *moves = PySet_New(NULL);
        if (moves == NULL) goto failed;
        PyList_SET_ITEM(later, seat, moves);
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(tail); k++) {
        PyObject *pair = PyList_GET_ITEM(tail, k);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "a playout's tail: (seat, move) pairs");
            goto failed;
        }
        Py_ssize_t seat = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 0));
        if (seat == -1 && PyErr_Occurred()) goto failed;
        if (seat < 0 || seat >= players) {
            PyErr_SetString(PyExc_IndexError, "a seat beyond the game's players");
            goto failed;
        }
        if (PySet_Add(PyList_GET_ITEM(later, seat), PyTuple_GET_ITEM(pair, 1)) < 0) goto failed;
    }
    return later;
failed:
    Py_DECREF(later);
    return NULL;
}

static PyMethodDef methods[] = {
    {"select", py_select, METH_VARARGS,
     "select(children, visits, wins, rave_visits, rave_wins, mover, log_total, exploration, "
     "equivalence) -> the move's index: Search._select, compiled."},
    {"amaf", py_amaf, METH_VARARGS,
     "amaf(index, played, rave_visits, rave_wins, reward): Search._back_up's AMAF update of "
     "one node, compiled."},
    {"later", py_later, METH_VARARGS,
     "later(tail, players) -> per seat, the set of moves it played in the tail: "
     "Search._back_up's first step, compiled."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_mcts",
    "The search's inner loops compiled (engine/ai/mcts.py's selection and AMAF update).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__mcts(void) {
    proven_name = PyUnicode_InternFromString("proven");
    if (proven_name == NULL) return NULL;
    return PyModule_Create(&module);
}
