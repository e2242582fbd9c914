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
 * summation with eight accumulators), so that CEAF's similarity is the same double. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>

/* Reads a flat list or tuple of nr * nc floats into a new array, negated when maximising
 * and transposed when the matrix has more rows than columns. */
static double *read_costs(PyObject *values, Py_ssize_t nr, Py_ssize_t nc, int maximize,
                          int transpose) {
    PyObject *seq = PySequence_Fast(values, "the costs must be a list of floats");
    if (seq == NULL)
        return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != nr * nc) {
        PyErr_Format(PyExc_ValueError, "expected %zd costs (%zd rows of %zd), got %zd",
                     nr * nc, nr, nc, PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return NULL;
    }
    double *cost = PyMem_Malloc(sizeof(double) * (size_t)(nr * nc));
    if (cost == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < nr; i++) {
        for (Py_ssize_t j = 0; j < nc; j++) {
            double x = PyFloat_AsDouble(items[i * nc + j]);
            if (x == -1.0 && PyErr_Occurred()) {
                PyMem_Free(cost);
                Py_DECREF(seq);
                return NULL;
            }
            if (maximize)
                x = -x;
            if (isnan(x) || x == -INFINITY) {
                PyErr_SetString(PyExc_ValueError, "matrix contains invalid numeric entries");
                PyMem_Free(cost);
                Py_DECREF(seq);
                return NULL;
            }
            if (transpose)
                cost[j * nr + i] = x;
            else
                cost[i * nc + j] = x;
        }
    }
    Py_DECREF(seq);
    return cost;
}

/* One Dijkstra search from row `i` for the shortest augmenting path; returns its sink
 * column (-1: no path, the matrix is infeasible) and the path's length in *p_min. */
static Py_ssize_t augmenting_path(Py_ssize_t nc, const double *cost, const double *u,
                                  const double *v, Py_ssize_t *path,
                                  const Py_ssize_t *row4col, double *shortest, Py_ssize_t i,
                                  char *sr, char *sc, Py_ssize_t *remaining, double *p_min) {
    double min_val = 0;
    Py_ssize_t n_remaining = nc;
    for (Py_ssize_t it = 0; it < nc; it++) {
        /* from the last column: a constant matrix then gets the identity */
        remaining[it] = nc - it - 1;
        sc[it] = 0;
        shortest[it] = INFINITY;
    }
    Py_ssize_t sink = -1;
    while (sink == -1) {
        Py_ssize_t index = -1;
        double lowest = INFINITY;
        sr[i] = 1;
        for (Py_ssize_t it = 0; it < n_remaining; it++) {
            Py_ssize_t j = remaining[it];
            double r = min_val + cost[i * nc + j] - u[i] - v[j];
            if (r < shortest[j]) {
                path[j] = i;
                shortest[j] = r;
            }
            /* of equally short paths, one that ends at a free column */
            if (shortest[j] < lowest || (shortest[j] == lowest && row4col[j] == -1)) {
                lowest = shortest[j];
                index = it;
            }
        }
        min_val = lowest;
        if (min_val == INFINITY)
            return -1;
        Py_ssize_t j = remaining[index];
        if (row4col[j] == -1)
            sink = j;
        else
            i = row4col[j];
        sc[j] = 1;
        remaining[index] = remaining[--n_remaining];
    }
    *p_min = min_val;
    return sink;
}

/* Solves a nr x nc cost matrix with nr <= nc: col4row[i] is row i's column. 0, or -1 with
 * an exception set. */
static int solve_costs(const double *cost, Py_ssize_t nr, Py_ssize_t nc, Py_ssize_t *col4row) {
    size_t n = (size_t)nc;
    double *u = PyMem_Calloc((size_t)nr, sizeof(double));
    double *v = PyMem_Calloc(n, sizeof(double));
    double *shortest = PyMem_Malloc(n * sizeof(double));
    Py_ssize_t *path = PyMem_Malloc(n * sizeof(Py_ssize_t));
    Py_ssize_t *row4col = PyMem_Malloc(n * sizeof(Py_ssize_t));
    Py_ssize_t *remaining = PyMem_Malloc(n * sizeof(Py_ssize_t));
    char *sr = PyMem_Malloc((size_t)nr);
    char *sc = PyMem_Malloc(n);
    int status = 0;
    if (!u || !v || !shortest || !path || !row4col || !remaining || !sr || !sc) {
        PyErr_NoMemory();
        status = -1;
        goto done;
    }
    for (Py_ssize_t j = 0; j < nc; j++) {
        path[j] = -1;
        row4col[j] = -1;
    }
    for (Py_ssize_t i = 0; i < nr; i++)
        col4row[i] = -1;

    for (Py_ssize_t row = 0; row < nr; row++) {
        double min_val;
        memset(sr, 0, (size_t)nr);
        Py_ssize_t sink = augmenting_path(nc, cost, u, v, path, row4col, shortest, row, sr,
                                          sc, remaining, &min_val);
        if (sink < 0) {
            PyErr_SetString(PyExc_ValueError, "cost matrix is infeasible");
            status = -1;
            goto done;
        }
        /* the dual variables */
        u[row] += min_val;
        for (Py_ssize_t i = 0; i < nr; i++)
            if (sr[i] && i != row)
                u[i] += min_val - shortest[col4row[i]];
        for (Py_ssize_t j = 0; j < nc; j++)
            if (sc[j])
                v[j] -= min_val - shortest[j];
        /* the augmentation, back from the sink */
        Py_ssize_t j = sink;
        for (;;) {
            Py_ssize_t i = path[j];
            row4col[j] = i;
            Py_ssize_t previous = col4row[i];
            col4row[i] = j;
            j = previous;
            if (i == row)
                break;
        }
    }
done:
    PyMem_Free(u);
    PyMem_Free(v);
    PyMem_Free(shortest);
    PyMem_Free(path);
    PyMem_Free(row4col);
    PyMem_Free(remaining);
    PyMem_Free(sr);
    PyMem_Free(sc);
    return status;
}

/* The optimum of a nr x nc matrix as (row, column) pairs, rows increasing: rows[k], cols[k]
 * for k < min(nr, nc). 0, or -1 with an exception set. */
static int optimum(PyObject *values, Py_ssize_t nr, Py_ssize_t nc, int maximize,
                   Py_ssize_t *rows, Py_ssize_t *cols) {
    int transpose = nc < nr;
    double *cost = read_costs(values, nr, nc, maximize, transpose);
    if (cost == NULL)
        return -1;
    Py_ssize_t tr = transpose ? nc : nr, tc = transpose ? nr : nc;
    Py_ssize_t *col4row = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(tr ? tr : 1));
    if (col4row == NULL) {
        PyMem_Free(cost);
        PyErr_NoMemory();
        return -1;
    }
    int status = solve_costs(cost, tr, tc, col4row);
    if (status == 0) {
        if (transpose) {
            /* transposed row t (an original column) took original row col4row[t]: order
             * the pairs by that row, which are distinct */
            char *taken = PyMem_Calloc((size_t)nr, 1);
            Py_ssize_t *column_of = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)nr);
            if (taken == NULL || column_of == NULL) {
                PyErr_NoMemory();
                status = -1;
            } else {
                for (Py_ssize_t t = 0; t < tr; t++) {
                    taken[col4row[t]] = 1;
                    column_of[col4row[t]] = t;
                }
                Py_ssize_t k = 0;
                for (Py_ssize_t i = 0; i < nr; i++)
                    if (taken[i]) {
                        rows[k] = i;
                        cols[k] = column_of[i];
                        k++;
                    }
            }
            PyMem_Free(taken);
            PyMem_Free(column_of);
        } else {
            for (Py_ssize_t i = 0; i < nr; i++) {
                rows[i] = i;
                cols[i] = col4row[i];
            }
        }
    }
    PyMem_Free(col4row);
    PyMem_Free(cost);
    return status;
}

static int parse(PyObject *args, PyObject **values, Py_ssize_t *nr, Py_ssize_t *nc,
                 int *maximize) {
    *maximize = 0;
    if (!PyArg_ParseTuple(args, "Onn|p", values, nr, nc, maximize))
        return -1;
    if (*nr < 0 || *nc < 0) {
        PyErr_SetString(PyExc_ValueError, "a matrix has no negative size");
        return -1;
    }
    return 0;
}

static PyObject *solve(PyObject *self, PyObject *args) {
    PyObject *values;
    Py_ssize_t nr, nc;
    int maximize;
    if (parse(args, &values, &nr, &nc, &maximize) < 0)
        return NULL;
    Py_ssize_t k = nr < nc ? nr : nc;
    Py_ssize_t *rows = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(k ? k : 1));
    Py_ssize_t *cols = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(k ? k : 1));
    PyObject *row_list = NULL, *col_list = NULL, *result = NULL;
    if (rows == NULL || cols == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (k > 0 && optimum(values, nr, nc, maximize, rows, cols) < 0)
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
    return result;
}

/* numpy's pairwise summation of a float64 array (`np.add.reduce`): below eight values one
 * after the other; up to 128 in eight interleaved sums added as a tree, then the rest; above
 * that the two halves (the first a multiple of eight long) each summed so. */
static double pairwise_sum(const double *a, Py_ssize_t n) {
    if (n < 8) {
        double res = 0.;
        for (Py_ssize_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        Py_ssize_t i;
        for (int k = 0; k < 8; k++)
            r[k] = a[k];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++)
                r[k] += a[i + k];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

static PyObject *assigned_sum(PyObject *self, PyObject *args) {
    PyObject *values;
    Py_ssize_t nr, nc;
    int maximize;
    if (parse(args, &values, &nr, &nc, &maximize) < 0)
        return NULL;
    Py_ssize_t k = nr < nc ? nr : nc;
    if (k == 0)
        return PyFloat_FromDouble(0.0);
    Py_ssize_t *rows = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)k);
    Py_ssize_t *cols = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)k);
    double *chosen = PyMem_Malloc(sizeof(double) * (size_t)k);
    PyObject *result = NULL;
    if (rows == NULL || cols == NULL || chosen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (optimum(values, nr, nc, maximize, rows, cols) < 0)
        goto done;
    /* optimum() read every value as a float: these cannot fail */
    PyObject *seq = PySequence_Fast(values, "the costs must be a list of floats");
    if (seq == NULL)
        goto done;
    for (Py_ssize_t n = 0; n < k; n++)
        chosen[n] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, rows[n] * nc + cols[n]));
    Py_DECREF(seq);
    result = PyFloat_FromDouble(pairwise_sum(chosen, k));
done:
    PyMem_Free(rows);
    PyMem_Free(cols);
    PyMem_Free(chosen);
    return result;
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
