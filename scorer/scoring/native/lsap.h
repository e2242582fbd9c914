/* The assignment problem (Kuhn–Munkres) for the compiled steps: scipy's
 * linear_sum_assignment step for step, and numpy's order of adding the chosen cells. Shared
 * by _assign.c (the solver the scorer calls from Python) and _tables.c (CEAF's components,
 * solved where they are found). See _assign.c for why it follows scipy's steps. */
#ifndef SCORING_NATIVE_LSAP_H
#define SCORING_NATIVE_LSAP_H

#include <Python.h>
#include <math.h>
#include <string.h>

/* One Dijkstra search from row `i` for the shortest augmenting path; returns its sink
 * column (-1: no path, the matrix is infeasible) and the path's length in *p_min. */
static Py_ssize_t lsap_augmenting_path(Py_ssize_t nc, const double *cost, const double *u,
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
static int lsap_solve(const double *cost, Py_ssize_t nr, Py_ssize_t nc, Py_ssize_t *col4row) {
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
        Py_ssize_t sink = lsap_augmenting_path(nc, cost, u, v, path, row4col, shortest, row, sr,
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

/* numpy's pairwise summation of a float64 array (`np.add.reduce`): below eight values one
 * after the other; up to 128 in eight interleaved sums added as a tree, then the rest; above
 * that the two halves (the first a multiple of eight long) each summed so. */
static double lsap_pairwise_sum(const double *a, Py_ssize_t n) {
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
    return lsap_pairwise_sum(a, n2) + lsap_pairwise_sum(a + n2, n - n2);
}


/* The optimum of a nr x nc matrix (row-major doubles) as (row, column) pairs, rows
 * increasing: rows[k], cols[k] for k < min(nr, nc). Solved as scipy solves it: as the
 * minimisation of the negated values when maximising, transposed when there are more rows
 * than columns. 0, or -1 with an exception set (a NaN, a value that would be -inf, no
 * feasible assignment). */
static int lsap_optimum(const double *values, Py_ssize_t nr, Py_ssize_t nc, int maximize,
                        Py_ssize_t *rows, Py_ssize_t *cols) {
    if (nr == 0 || nc == 0)
        return 0;
    int transpose = nc < nr;
    Py_ssize_t tr = transpose ? nc : nr, tc = transpose ? nr : nc;
    double *cost = PyMem_Malloc(sizeof(double) * (size_t)(nr * nc));
    Py_ssize_t *col4row = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)tr);
    char *taken = transpose ? PyMem_Calloc((size_t)nr, 1) : NULL;
    Py_ssize_t *column_of = transpose ? PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)nr) : NULL;
    int status = -1;
    if (cost == NULL || col4row == NULL || (transpose && (taken == NULL || column_of == NULL))) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nr; i++) {
        for (Py_ssize_t j = 0; j < nc; j++) {
            double x = values[i * nc + j];
            if (maximize)
                x = -x;
            if (isnan(x) || x == -INFINITY) {
                PyErr_SetString(PyExc_ValueError, "matrix contains invalid numeric entries");
                goto done;
            }
            cost[transpose ? j * nr + i : i * nc + j] = x;
        }
    }
    if (lsap_solve(cost, tr, tc, col4row) < 0)
        goto done;
    if (transpose) {
        /* transposed row t (an original column) took original row col4row[t]: the pairs in
         * the order of those rows, which are distinct */
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
    } else {
        for (Py_ssize_t i = 0; i < nr; i++) {
            rows[i] = i;
            cols[i] = col4row[i];
        }
    }
    status = 0;
done:
    PyMem_Free(cost);
    PyMem_Free(col4row);
    PyMem_Free(taken);
    PyMem_Free(column_of);
    return status;
}

/* The sum of the values lsap_optimum chooses, added as numpy's `matrix[rows, cols].sum()`
 * adds them, in *total. 0, or -1 with an exception set. */
static int lsap_assigned_sum(const double *values, Py_ssize_t nr, Py_ssize_t nc, int maximize,
                             double *total) {
    Py_ssize_t k = nr < nc ? nr : nc;
    *total = 0.0;
    if (k == 0)
        return 0;
    Py_ssize_t *rows = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)k);
    Py_ssize_t *cols = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)k);
    double *chosen = PyMem_Malloc(sizeof(double) * (size_t)k);
    int status = -1;
    if (rows == NULL || cols == NULL || chosen == NULL)
        PyErr_NoMemory();
    else if (lsap_optimum(values, nr, nc, maximize, rows, cols) == 0) {
        for (Py_ssize_t n = 0; n < k; n++)
            chosen[n] = values[rows[n] * nc + cols[n]];
        *total = lsap_pairwise_sum(chosen, k);
        status = 0;
    }
    PyMem_Free(rows);
    PyMem_Free(cols);
    PyMem_Free(chosen);
    return status;
}

#endif
