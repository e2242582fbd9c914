/* The assignment problem (Kuhn–Munkres), compiled: the scorer's twin of
 * scipy.optimize.linear_sum_assignment, so that a run that solves assignments (CEAF's
 * components of more than one entity per side, the split-antecedent alignment, partial and
 * head matching) loads neither numpy nor scipy.
 *
 * The algorithm is the shortest augmenting path one that scipy uses (Crouse, "On
 * implementing 2D rectangular assignment algorithms", IEEE TAES 52(4), 2016): rows are added
 * one at a time, each by a Dijkstra search over reduced costs, then the dual variables are
 * updated and the path augmented. It is written to take the same steps in the same order:
 * a wide matrix is solved transposed, a maximisation as the minimisation of the negated
 * costs, the columns are scanned from the last, and of equally short paths the first found
 * that ends at a free column wins. So it returns the same optimum as scipy, not merely an
 * optimum of the same total (tests/scoring/test_assign_native.py checks both on random
 * matrices full of ties).
 *
 * assigned_sum adds the chosen cells as numpy's `matrix[rows, cols].sum()` does (pairwise
 * summation with eight accumulators), so that CEAF's similarity is the same double. The
 * steps themselves are in lsap.h, which _tables.c shares. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "lsap.h"

/* The matrix given as a flat list or tuple of nr * nc numbers, as a new array of doubles
 * (NULL with an exception set). */
static double *read_values(PyObject *values, Py_ssize_t nr, Py_ssize_t nc) {
    PyObject *seq = PySequence_Fast(values, "the matrix must be a list of floats");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = nr * nc;
    double *out = NULL;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "expected %zd costs (%zd rows of %zd), got %zd", n, nr,
                     nc, PySequence_Fast_GET_SIZE(seq));
        goto done;
    }
    out = PyMem_Malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t k = 0; k < n; k++) {
        out[k] = PyFloat_AsDouble(items[k]);
        if (out[k] == -1.0 && PyErr_Occurred()) {
            PyMem_Free(out);
            out = NULL;
            goto done;
        }
    }
done:
    Py_DECREF(seq);
    return out;
}

/* (values, n_rows, n_cols[, maximize]) read, or NULL with an exception set. */
static double *parse(PyObject *args, Py_ssize_t *nr, Py_ssize_t *nc, int *maximize) {
    PyObject *values;
    *maximize = 0;
    if (!PyArg_ParseTuple(args, "Onn|p", &values, nr, nc, maximize))
        return NULL;
    if (*nr < 0 || *nc < 0) {
        PyErr_SetString(PyExc_ValueError, "a matrix has no negative size");
        return NULL;
    }
    return read_values(values, *nr, *nc);
}

static PyObject *solve(PyObject *self, PyObject *args) {
    Py_ssize_t nr, nc;
    int maximize;
    double *values = parse(args, &nr, &nc, &maximize);
    if (values == NULL)
        return NULL;
    Py_ssize_t k = nr < nc ? nr : nc;
    Py_ssize_t *rows = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(k ? k : 1));
    Py_ssize_t *cols = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(k ? k : 1));
    PyObject *row_list = NULL, *col_list = NULL, *result = NULL;
    if (rows == NULL || cols == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (lsap_optimum(values, nr, nc, maximize, rows, cols) < 0)
        goto done;
    row_list = PyList_New(k);
    col_list = PyList_New(k);
    if (row_list == NULL || col_list == NULL)
        goto done;
    for (Py_ssize_t n = 0; n < k; n++) {
        PyObject *r = PyLong_FromSsize_t(rows[n]), *c = PyLong_FromSsize_t(cols[n]);
        if (r == NULL || c == NULL) {
            Py_XDECREF(r);
            Py_XDECREF(c);
            goto done;
        }
        PyList_SET_ITEM(row_list, n, r);
        PyList_SET_ITEM(col_list, n, c);
    }
    result = PyTuple_Pack(2, row_list, col_list);
done:
    Py_XDECREF(row_list);
    Py_XDECREF(col_list);
    PyMem_Free(rows);
    PyMem_Free(cols);
    PyMem_Free(values);
    return result;
}

static PyObject *assigned_sum(PyObject *self, PyObject *args) {
    Py_ssize_t nr, nc;
    int maximize;
    double *values = parse(args, &nr, &nc, &maximize), total;
    if (values == NULL)
        return NULL;
    int status = lsap_assigned_sum(values, nr, nc, maximize, &total);
    PyMem_Free(values);
    return status < 0 ? NULL : PyFloat_FromDouble(total);
}

static PyMethodDef methods[] = {
    {"solve", solve, METH_VARARGS,
     "solve(values, n_rows, n_cols, maximize=False) -> (rows, cols): the optimal one-to-one "
     "assignment of a matrix given row by row as a flat list of floats, rows increasing; "
     "the same as scipy.optimize.linear_sum_assignment"},
    {"assigned_sum", assigned_sum, METH_VARARGS,
     "assigned_sum(values, n_rows, n_cols, maximize=False) -> float: the sum of the cells "
     "solve() chooses, added as numpy's sum adds them"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "scoring.native._assign",
    "The assignment problem: scipy's linear_sum_assignment, step for step.", -1, methods,
};

PyMODINIT_FUNC PyInit__assign(void) {
    return PyModule_Create(&module);
}
