/* Two steps of scoring a document, compiled: the grouping of a layer's markables into
 * entities (layer_groups, the first loop of scoring.clusters.process_layer), and every
 * coreference metric's counts of one contingency table without accommodated sets, in
 * one pass (plain_counts): the compiled twin of building `scoring.metrics.Contingency` and calling muc,
 * b_cubed, lea, blanc_coref, blanc_noncoref and the one-to-one components of ceafm/ceafe on
 * it (scoring/metrics/coref.py). `scoring.metrics.plain` calls it and finishes CEAF's
 * components of more than one entity per side with the assignment solver, in Python.
 *
 * It follows the Python step by step, so that every count is the same double: the same
 * operations in the same order (true divisions of integer sums, sums in cluster order). It
 * returns None for anything it does not take (a cluster that is not a list or is empty, a
 * code that is not a small non-negative int), and the Python metrics decide. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_CODE (1 << 24)

typedef struct {
    Py_ssize_t n;       /* clusters */
    Py_ssize_t *start;  /* cluster i's codes are codes[start[i]:start[i+1]] */
    Py_ssize_t *codes;
} Side;

typedef struct {        /* sparse rows: row i is (col, val)[start[i]:start[i+1]] */
    Py_ssize_t *start;
    Py_ssize_t *col;
    long long *val;
} Rows;

static void side_free(Side *s) {
    PyMem_Free(s->start);
    PyMem_Free(s->codes);
}

static void rows_free(Rows *r) {
    PyMem_Free(r->start);
    PyMem_Free(r->col);
    PyMem_Free(r->val);
}

/* 1: read, 0: not plain (no error set), -1: an error set. */
static int read_side(PyObject *clusters, Side *s, Py_ssize_t *max_code) {
    if (!PyList_Check(clusters)) return 0;
    Py_ssize_t n = PyList_GET_SIZE(clusters), total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(clusters, i);
        if (!PyList_Check(c) || PyList_GET_SIZE(c) == 0) return 0;
        total += PyList_GET_SIZE(c);
    }
    s->n = n;
    s->start = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    s->codes = PyMem_Malloc((total ? total : 1) * sizeof(Py_ssize_t));
    if (s->start == NULL || s->codes == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(clusters, i);
        s->start[i] = k;
        for (Py_ssize_t m = 0; m < PyList_GET_SIZE(c); m++) {
            PyObject *code = PyList_GET_ITEM(c, m);
            if (!PyLong_CheckExact(code)) return 0;
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(code, &overflow);
            if (overflow || v < 0 || v >= MAX_CODE) return 0;
            s->codes[k++] = (Py_ssize_t)v;
            if (v > *max_code) *max_code = (Py_ssize_t)v;
        }
    }
    s->start[n] = k;
    return 1;
}

static inline Py_ssize_t size_of(const Side *s, Py_ssize_t i) { return s->start[i + 1] - s->start[i]; }

/* mention code -> index of the last cluster holding it (-1: none), as _mention_map; returns
 * whether a code is held more than once. */
static int mention_map(const Side *s, Py_ssize_t *last, Py_ssize_t codes) {
    Py_ssize_t distinct = 0;
    for (Py_ssize_t m = 0; m < codes; m++) last[m] = -1;
    for (Py_ssize_t i = 0; i < s->n; i++)
        for (Py_ssize_t k = s->start[i]; k < s->start[i + 1]; k++) {
            if (last[s->codes[k]] < 0) distinct++;
            last[s->codes[k]] = i;
        }
    return distinct != s->start[s->n];
}

/* The rows of `s` against the other side's mention map (_rows): for each cluster the other
 * clusters it meets, in the order met, with their counts; and the mentions not found. */
static int make_rows(const Side *s, const Py_ssize_t *other_last, Py_ssize_t other_n,
                     Rows *rows, Py_ssize_t *unfound, long long *count) {
    Py_ssize_t total = s->start[s->n];
    rows->start = PyMem_Malloc((s->n + 1) * sizeof(Py_ssize_t));
    rows->col = PyMem_Malloc((total ? total : 1) * sizeof(Py_ssize_t));
    rows->val = PyMem_Malloc((total ? total : 1) * sizeof(long long));
    if (rows->start == NULL || rows->col == NULL || rows->val == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < other_n; j++) count[j] = 0;
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        rows->start[i] = k;
        Py_ssize_t missing = 0;
        for (Py_ssize_t e = s->start[i]; e < s->start[i + 1]; e++) {
            Py_ssize_t j = other_last[s->codes[e]];
            if (j < 0) {
                missing++;
            } else if (count[j]++ == 0) {
                rows->col[k++] = j;
            }
        }
        for (Py_ssize_t e = rows->start[i]; e < k; e++) {
            rows->val[e] = count[rows->col[e]];
            count[rows->col[e]] = 0;
        }
        unfound[i] = missing;
    }
    rows->start[s->n] = k;
    return 0;
}

typedef struct { double pn, pd, rn, rd; } Counts;

static void muc_side(const Side *s, const Rows *r, const Py_ssize_t *unfound, const Side *o,
                     int inner, double *num_out, double *den_out) {
    double num = 0.0, den = 0.0;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        Py_ssize_t n = size_of(s, i), linked = r->start[i + 1] - r->start[i];
        if (n == 1 && inner) {
            den += 1;
            if (linked && size_of(o, r->col[r->start[i]]) == 1) num += 1;
            continue;
        }
        if (n <= 1) continue;
        den += (double)(n - 1);
        num += (double)(n - unfound[i] - linked);
    }
    *num_out = num;
    *den_out = den;
}

static void bcub_side(const Side *s, const Rows *r, double *num_out, double *den_out) {
    double num = 0.0;
    long long den = 0;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        long long squares = 0, n = size_of(s, i);
        for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++) squares += r->val[e] * r->val[e];
        num += (double)squares / (double)n;
        den += n;
    }
    *num_out = num;
    *den_out = (double)den;
}

static void lea_side(const Side *s, const Rows *r, const Side *o, double *num_out,
                     double *den_out) {
    double num = 0.0, den = 0.0;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        long long n = size_of(s, i);
        Py_ssize_t linked = r->start[i + 1] - r->start[i];
        den += (double)n;
        if (n == 1) {
            if (linked && size_of(o, r->col[r->start[i]]) == 1) num += 1;
            continue;
        }
        long long pairs = 0;
        for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++) pairs += r->val[e] * (r->val[e] - 1);
        double common = (double)pairs / 2.0;
        num += (double)n * common / ((double)(n * (n - 1)) / 2.0);
    }
    *num_out = num;
    *den_out = den;
}

static double links(const Side *s) {
    long long total = 0;
    for (Py_ssize_t i = 0; i < s->n; i++) total += (long long)size_of(s, i) * (size_of(s, i) - 1);
    return (double)total / 2.0;
}

static void blanc(const Side *key, const Side *sys, const Rows *r, long long *column,
                  Counts *coref, Counts *noncoref) {
    double num = 0.0, total = 0.0, sq_w = 0.0, sq_v = 0.0;
    for (Py_ssize_t j = 0; j < sys->n; j++) column[j] = 0;
    for (Py_ssize_t i = 0; i < key->n; i++) {
        long long pairs = 0;
        double w = 0.0;
        for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++) {
            long long v = r->val[e];
            pairs += v * (v - 1);
            w += (double)v;
            sq_v += (double)(v * v);
            column[r->col[e]] += v;
        }
        num += (double)pairs / 2.0;
        total += w;
        sq_w += w * w;
    }
    long long sq_col = 0;
    for (Py_ssize_t j = 0; j < sys->n; j++) sq_col += column[j] * column[j];
    double key_links = links(key), sys_links = links(sys);
    coref->pn = coref->rn = num;
    coref->pd = sys_links;
    coref->rd = key_links;
    double non = (total * total - sq_w - (double)sq_col + sq_v) / 2.0;
    long long nk = key->start[key->n], ns = sys->start[sys->n];
    noncoref->pn = noncoref->rn = non;
    noncoref->rd = (double)(nk * (nk - 1)) / 2.0 - key_links;
    noncoref->pd = (double)(ns * (ns - 1)) / 2.0 - sys_links;
}

/* CEAF's overlap rows where a response code sits in several clusters (_overlap_rows): key
 * cluster i against every response cluster holding each of its mentions. */
static int overlap_rows(const Side *key, const Side *sys, Py_ssize_t codes, Rows *rows,
                        long long *count) {
    int failed = -1;
    Py_ssize_t *held = PyMem_Calloc(codes + 1, sizeof(Py_ssize_t));
    Py_ssize_t *holders = PyMem_Malloc((sys->start[sys->n] + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *fill = PyMem_Malloc((codes + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *previous = PyMem_Malloc((codes + 1) * sizeof(Py_ssize_t));
    if (held == NULL || holders == NULL || fill == NULL || previous == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t m = 0; m < codes; m++) previous[m] = -1;
    /* held[m + 1]: how many clusters hold m (one per cluster, as holders[-1] != j) */
    for (Py_ssize_t j = 0; j < sys->n; j++)
        for (Py_ssize_t e = sys->start[j]; e < sys->start[j + 1]; e++) {
            Py_ssize_t m = sys->codes[e];
            if (previous[m] != j) {
                previous[m] = j;
                held[m + 1]++;
            }
        }
    for (Py_ssize_t m = 0; m < codes; m++) {
        held[m + 1] += held[m];
        fill[m] = held[m];
        previous[m] = -1;
    }
    for (Py_ssize_t j = 0; j < sys->n; j++)
        for (Py_ssize_t e = sys->start[j]; e < sys->start[j + 1]; e++) {
            Py_ssize_t m = sys->codes[e];
            if (previous[m] != j) {
                previous[m] = j;
                holders[fill[m]++] = j;
            }
        }
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < key->n; i++)
        for (Py_ssize_t e = key->start[i]; e < key->start[i + 1]; e++)
            total += held[key->codes[e] + 1] - held[key->codes[e]];
    rows->start = PyMem_Malloc((key->n + 1) * sizeof(Py_ssize_t));
    rows->col = PyMem_Malloc((total ? total : 1) * sizeof(Py_ssize_t));
    rows->val = PyMem_Malloc((total ? total : 1) * sizeof(long long));
    if (rows->start == NULL || rows->col == NULL || rows->val == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < sys->n; j++) count[j] = 0;
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < key->n; i++) {
        rows->start[i] = k;
        for (Py_ssize_t e = key->start[i]; e < key->start[i + 1]; e++) {
            Py_ssize_t m = key->codes[e];
            for (Py_ssize_t h = held[m]; h < held[m + 1]; h++)
                if (count[holders[h]]++ == 0) rows->col[k++] = holders[h];
        }
        for (Py_ssize_t e = rows->start[i]; e < k; e++) {
            rows->val[e] = count[rows->col[e]];
            count[rows->col[e]] = 0;
        }
    }
    rows->start[key->n] = k;
    failed = 0;
done:
    PyMem_Free(held);
    PyMem_Free(holders);
    PyMem_Free(fill);
    PyMem_Free(previous);
    return failed;
}

static int compare_index(const void *a, const void *b) {
    Py_ssize_t x = *(const Py_ssize_t *)a, y = *(const Py_ssize_t *)b;
    return (x > y) - (x < y);
}

static PyObject *index_list(const Py_ssize_t *items, Py_ssize_t n) {
    PyObject *list = PyList_New(n);
    if (list == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyLong_FromSsize_t(items[i]);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

/* The row {col: val} of the overlap, as a dict in the order met. */
static PyObject *row_dict(const Rows *r, Py_ssize_t i) {
    PyObject *row = PyDict_New();
    for (Py_ssize_t e = r->start[i]; row && e < r->start[i + 1]; e++) {
        PyObject *col = PyLong_FromSsize_t(r->col[e]), *val = PyLong_FromLongLong(r->val[e]);
        if (col == NULL || val == NULL || PyDict_SetItem(row, col, val) < 0) Py_CLEAR(row);
        Py_XDECREF(col);
        Py_XDECREF(val);
    }
    return row;
}

/* CEAF's components of the overlap graph (_components), in the order of their first key
 * row: the one-to-one ones summed here (phi3 and phi4), the others listed as (rows, cols)
 * with their overlap rows in `overlap`. */
static int components(const Side *key, const Side *sys, const Rows *r, double *m_out,
                      double *e_out, PyObject *multi, PyObject *overlap) {
    int failed = -1;
    Py_ssize_t nk = key->n, ns = sys->n, entries = r->start[nk];
    Py_ssize_t *by_col = PyMem_Calloc(ns + 1, sizeof(Py_ssize_t));
    Py_ssize_t *rows_of = PyMem_Malloc((entries ? entries : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *fill = PyMem_Malloc((ns ? ns : 1) * sizeof(Py_ssize_t));
    char *done = PyMem_Calloc(nk ? nk : 1, 1);
    char *seen = PyMem_Calloc(ns ? ns : 1, 1);
    Py_ssize_t *queue = PyMem_Malloc((nk ? nk : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *got_rows = PyMem_Malloc((nk ? nk : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *got_cols = PyMem_Malloc((ns ? ns : 1) * sizeof(Py_ssize_t));
    double sum_m = 0.0, sum_e = 0.0;
    if (!by_col || !rows_of || !fill || !done || !seen || !queue || !got_rows || !got_cols) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t e = 0; e < entries; e++) by_col[r->col[e] + 1]++;
    for (Py_ssize_t j = 0; j < ns; j++) {
        by_col[j + 1] += by_col[j];
        fill[j] = by_col[j];
    }
    for (Py_ssize_t i = 0; i < nk; i++)
        for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++) rows_of[fill[r->col[e]]++] = i;
    for (Py_ssize_t start = 0; start < nk; start++) {
        Py_ssize_t first = r->start[start], stop = r->start[start + 1];
        if (done[start] || first == stop) continue;
        done[start] = 1;
        if (stop - first == 1 && by_col[r->col[first] + 1] - by_col[r->col[first]] == 1) {
            long long v = r->val[first];
            sum_m += (double)v;
            sum_e += (double)(2 * v) / (double)(size_of(key, start) + size_of(sys, r->col[first]));
            continue;
        }
        Py_ssize_t n_rows = 0, n_cols = 0, n_queue = 0;
        got_rows[n_rows++] = start;
        queue[n_queue++] = start;
        while (n_queue) {
            Py_ssize_t i = queue[--n_queue];
            for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++) {
                Py_ssize_t j = r->col[e];
                if (seen[j]) continue;
                seen[j] = 1;
                got_cols[n_cols++] = j;
                for (Py_ssize_t h = by_col[j]; h < by_col[j + 1]; h++) {
                    Py_ssize_t i2 = rows_of[h];
                    if (!done[i2]) {
                        done[i2] = 1;
                        got_rows[n_rows++] = i2;
                        queue[n_queue++] = i2;
                    }
                }
            }
        }
        qsort(got_rows, n_rows, sizeof(Py_ssize_t), compare_index);
        qsort(got_cols, n_cols, sizeof(Py_ssize_t), compare_index);
        PyObject *rows_list = index_list(got_rows, n_rows), *cols_list = index_list(got_cols, n_cols);
        PyObject *pair = rows_list && cols_list ? PyTuple_Pack(2, rows_list, cols_list) : NULL;
        Py_XDECREF(rows_list);
        Py_XDECREF(cols_list);
        if (pair == NULL) goto done;
        int appended = PyList_Append(multi, pair);
        Py_DECREF(pair);
        if (appended < 0) goto done;
        for (Py_ssize_t a = 0; a < n_rows; a++) {
            PyObject *index = PyLong_FromSsize_t(got_rows[a]), *row = row_dict(r, got_rows[a]);
            int stored = index && row ? PyDict_SetItem(overlap, index, row) : -1;
            Py_XDECREF(index);
            Py_XDECREF(row);
            if (stored < 0) goto done;
        }
    }
    *m_out = sum_m;
    *e_out = sum_e;
    failed = 0;
done:
    PyMem_Free(by_col);
    PyMem_Free(rows_of);
    PyMem_Free(fill);
    PyMem_Free(done);
    PyMem_Free(seen);
    PyMem_Free(queue);
    PyMem_Free(got_rows);
    PyMem_Free(got_cols);
    return failed;
}

static PyObject *counts_tuple(const Counts *c) {
    return Py_BuildValue("(dddd)", c->pn, c->pd, c->rn, c->rd);
}

static PyObject *plain_counts(PyObject *self, PyObject *args) {
    PyObject *key_clusters, *sys_clusters;
    int inner;
    if (!PyArg_ParseTuple(args, "OOp", &key_clusters, &sys_clusters, &inner)) return NULL;
    Side key = {0}, sys = {0};
    Rows rrow = {0}, prow = {0}, over = {0};
    Py_ssize_t *key_last = NULL, *sys_last = NULL, *r_unfound = NULL, *p_unfound = NULL;
    long long *scratch = NULL;
    PyObject *result = NULL, *multi = NULL, *overlap = NULL;
    Py_ssize_t max_code = -1;
    int read = read_side(key_clusters, &key, &max_code);
    if (read == 1) read = read_side(sys_clusters, &sys, &max_code);
    if (read != 1) {
        if (read == 0) result = Py_NewRef(Py_None);
        goto done;
    }
    Py_ssize_t codes = max_code + 1, width = (key.n > sys.n ? key.n : sys.n) + 1;
    key_last = PyMem_Malloc((codes + 1) * sizeof(Py_ssize_t));
    sys_last = PyMem_Malloc((codes + 1) * sizeof(Py_ssize_t));
    r_unfound = PyMem_Malloc((key.n + 1) * sizeof(Py_ssize_t));
    p_unfound = PyMem_Malloc((sys.n + 1) * sizeof(Py_ssize_t));
    scratch = PyMem_Malloc(width * sizeof(long long));
    if (!key_last || !sys_last || !r_unfound || !p_unfound || !scratch) {
        PyErr_NoMemory();
        goto done;
    }
    int sys_multi = mention_map(&sys, sys_last, codes);
    mention_map(&key, key_last, codes);
    if (make_rows(&key, sys_last, sys.n, &rrow, r_unfound, scratch) < 0 ||
            make_rows(&sys, key_last, key.n, &prow, p_unfound, scratch) < 0)
        goto done;
    Counts muc, bcub, lea, coref, noncoref;
    muc_side(&key, &rrow, r_unfound, &sys, inner, &muc.rn, &muc.rd);
    muc_side(&sys, &prow, p_unfound, &key, inner, &muc.pn, &muc.pd);
    bcub_side(&key, &rrow, &bcub.rn, &bcub.rd);
    bcub_side(&sys, &prow, &bcub.pn, &bcub.pd);
    lea_side(&key, &rrow, &sys, &lea.rn, &lea.rd);
    lea_side(&sys, &prow, &key, &lea.pn, &lea.pd);
    blanc(&key, &sys, &rrow, scratch, &coref, &noncoref);
    if (sys_multi && overlap_rows(&key, &sys, codes, &over, scratch) < 0) goto done;
    multi = PyList_New(0);
    overlap = PyDict_New();
    double singles_m = 0.0, singles_e = 0.0;
    if (multi == NULL || overlap == NULL ||
            components(&key, &sys, sys_multi ? &over : &rrow, &singles_m, &singles_e, multi,
                       overlap) < 0)
        goto done;
    PyObject *parts[5] = {counts_tuple(&muc), counts_tuple(&bcub), counts_tuple(&lea),
                          counts_tuple(&coref), counts_tuple(&noncoref)};
    if (parts[0] && parts[1] && parts[2] && parts[3] && parts[4])
        result = Py_BuildValue("(OOOOOddOOnnnn)", parts[0], parts[1], parts[2], parts[3],
                               parts[4], singles_m, singles_e, multi, overlap,
                               key.start[key.n], sys.start[sys.n], key.n, sys.n);
    for (int p = 0; p < 5; p++) Py_XDECREF(parts[p]);
done:
    Py_XDECREF(multi);
    Py_XDECREF(overlap);
    side_free(&key);
    side_free(&sys);
    rows_free(&rrow);
    rows_free(&prow);
    rows_free(&over);
    PyMem_Free(key_last);
    PyMem_Free(sys_last);
    PyMem_Free(r_unfound);
    PyMem_Free(p_unfound);
    PyMem_Free(scratch);
    return result;
}


/* --- Mode processing's first step (scoring.clusters.process_layer) ------------------------ */

/* Whether `value` is the int 0. */
static inline int is_zero(PyObject *value) {
    int overflow = 0;
    return PyLong_CheckExact(value) && PyLong_AsLongAndOverflow(value, &overflow) == 0 &&
           !overflow;
}

/* Append `item` to the list at dict[key], the list made on first use (dict.setdefault). */
static int append_to(PyObject *dict, PyObject *key, PyObject *item, PyObject **made) {
    PyObject *list = PyDict_GetItemWithError(dict, key);
    if (list == NULL) {
        if (PyErr_Occurred()) return -1;
        list = PyList_New(0);
        if (list == NULL || PyDict_SetItem(dict, key, list) < 0) {
            Py_XDECREF(list);
            return -1;
        }
        Py_DECREF(list);
        if (made) *made = list;
    }
    return PyList_Append(list, item);
}

/* layer_groups(markables, codes, keys): process_layer's loop over markables without empty
 * nodes. Each markable's mention key (parts, zero) gets its code from `codes` (a new one is
 * len(keys), its key appended to `keys`, as SpanCoder.code); returns (codes of the markables
 * in order, entity id -> its codes, entity id -> its first markable, plural entity id -> the
 * entity ids whose ElementOf names it, whether an entity holds a code twice). None (nothing
 * coded) where a markable has an empty node, or is not a Markable's tuple. */
static PyObject *layer_groups(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *markables, *codes, *keys;
    if (!PyArg_ParseTuple(args, "OO!O!", &markables, &PyDict_Type, &codes, &PyList_Type, &keys))
        return NULL;
    PyObject *sequence = PySequence_Fast(markables, "markables: expected a sequence");
    if (sequence == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *m = items[k];
        if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) != 11 || !PyUnicode_Check(PyTuple_GET_ITEM(m, 1))
                || !PyTuple_Check(PyTuple_GET_ITEM(m, 6)) || !is_zero(PyTuple_GET_ITEM(m, 7))
                || !PyTuple_Check(PyTuple_GET_ITEM(m, 9)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(m, 9))
                || !is_zero(PyTuple_GET_ITEM(m, 10))) {
            Py_DECREF(sequence);
            Py_RETURN_NONE;
        }
    }
    PyObject *result = NULL, *key = NULL;
    PyObject *mcodes = PyList_New(n), *groups = PyDict_New(), *first = PyDict_New();
    PyObject *splits = PyDict_New();
    Py_ssize_t *stamp = NULL;
    if (mcodes == NULL || groups == NULL || first == NULL || splits == NULL) goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *m = items[k], *eid = PyTuple_GET_ITEM(m, 1);
        key = PyTuple_Pack(2, PyTuple_GET_ITEM(m, 2), PyTuple_GET_ITEM(m, 7));
        if (key == NULL) goto done;
        PyObject *code = PyDict_GetItemWithError(codes, key);
        if (code == NULL) {
            if (PyErr_Occurred()) goto done;
            code = PyLong_FromSsize_t(PyList_GET_SIZE(keys));
            if (code == NULL) goto done;
            if (PyDict_SetItem(codes, key, code) < 0 || PyList_Append(keys, key) < 0) {
                Py_DECREF(code);
                goto done;
            }
        } else {
            Py_INCREF(code);
        }
        Py_CLEAR(key);
        PyList_SET_ITEM(mcodes, k, code);
        PyObject *made = NULL;
        if (append_to(groups, eid, code, &made) < 0) goto done;
        if (made && PyDict_SetItem(first, eid, m) < 0) goto done;
        PyObject *element_of = PyTuple_GET_ITEM(m, 6);
        for (Py_ssize_t e = 0; e < PyTuple_GET_SIZE(element_of); e++)
            if (append_to(splits, PyTuple_GET_ITEM(element_of, e), eid, NULL) < 0) goto done;
    }
    /* an entity holding one code twice: stamp each code with the entity that last held it */
    Py_ssize_t width = PyList_GET_SIZE(keys);
    stamp = PyMem_Malloc((width ? width : 1) * sizeof(Py_ssize_t));
    if (stamp == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t c = 0; c < width; c++) stamp[c] = -1;
    int duplicated = 0;
    Py_ssize_t position = 0, g = 0;
    PyObject *eid, *list;
    while (!duplicated && PyDict_Next(groups, &position, &eid, &list)) {
        for (Py_ssize_t e = 0; e < PyList_GET_SIZE(list); e++) {
            Py_ssize_t c = PyLong_AsSsize_t(PyList_GET_ITEM(list, e));
            if (c < 0 || c >= width) {
                if (PyErr_Occurred()) goto done;
                duplicated = 1;  /* a code not given here: let Python look */
                break;
            }
            if (stamp[c] == g) {
                duplicated = 1;
                break;
            }
            stamp[c] = g;
        }
        g++;
    }
    result = Py_BuildValue("(OOOOO)", mcodes, groups, first, splits,
                           duplicated ? Py_True : Py_False);
done:
    Py_XDECREF(key);
    Py_XDECREF(mcodes);
    Py_XDECREF(groups);
    Py_XDECREF(first);
    Py_XDECREF(splits);
    Py_DECREF(sequence);
    PyMem_Free(stamp);
    return result;
}

static PyMethodDef methods[] = {
    {"plain_counts", plain_counts, METH_VARARGS,
     "plain_counts(key_clusters, response_clusters, inner) -> (muc, bcub, lea, blanc_coref, "
     "blanc_noncoref, ceafm_singles, ceafe_singles, components, overlap, key_mentions, "
     "response_mentions, key_entities, response_entities), each count a (pn, pd, rn, rd) "
     "tuple; or None where a table is not plain (see scoring/metrics/plain.py)"},
    {"layer_groups", layer_groups, METH_VARARGS,
     "layer_groups(markables, codes, keys) -> (markable codes, groups, first markables, "
     "split lists, duplicated), or None where a markable has an empty node "
     "(see scoring/clusters.py: process_layer)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "scoring.native._tables",
    "Every metric's counts of a contingency table without accommodated sets, in one pass.",
    -1, methods,
};

PyMODINIT_FUNC PyInit__tables(void) {
    return PyModule_Create(&module);
}
