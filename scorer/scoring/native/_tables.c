/* Two steps of scoring a document, compiled: the grouping of a layer's markables into
 * entities (layer_groups, and layer_groups_all for layers with empty nodes or heads in a
 * mention's identity: scoring.clusters._groups, the first loop of group_layer), and the
 * coreference metrics' counts of one contingency table: the compiled twin of building
 * `scoring.metrics.Contingency` and calling muc, b_cubed, lea, blanc_coref, blanc_noncoref,
 * ceafm and ceafe on it (scoring/metrics/coref.py). A table without accommodated sets gets
 * every count in one call (plain_counts); one with sets gets one metric's per call, with
 * that metric's alignment of the sets (set_counts). CEAF's components of more than one
 * entity per side are solved here too, by lsap.h (the compiled twin of scipy's solver).
 *
 * It follows the Python step by step, so that every count is the same double: the same
 * operations in the same order (true divisions of integer sums; every float sum added left to
 * right, one rounding per step, in cluster and row order: scoring.results.sum_in_order, never
 * Python's compensated sum()). It
 * returns None for anything it does not take (a cluster that is not a list or is empty, a
 * code that is not a small non-negative int), and the Python metrics decide. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "lsap.h"

#define MAX_CODE (1 << 24)

typedef struct {
    Py_ssize_t n;       /* clusters */
    Py_ssize_t *start;  /* cluster i's codes are codes[start[i]:start[i+1]] */
    Py_ssize_t *codes;
    char *set;          /* set[i]: cluster i has an accommodated set (NULL: none has) */
} Side;

typedef struct {        /* sparse rows: row i is (col, val)[start[i]:start[i+1]] */
    Py_ssize_t *start;
    Py_ssize_t *col;
    long long *val;
} Rows;

typedef struct {        /* a SplitMaps map: cluster i -> (j[i], s[i]); j[i] < 0 or j NULL: none */
    Py_ssize_t *j;
    double *s;
} Align;

static void side_free(Side *s) {
    PyMem_Free(s->start);
    PyMem_Free(s->codes);
    PyMem_Free(s->set);
}

static void rows_free(Rows *r) {
    PyMem_Free(r->start);
    PyMem_Free(r->col);
    PyMem_Free(r->val);
}

static void align_free(Align *a) {
    PyMem_Free(a->j);
    PyMem_Free(a->s);
}

/* The clusters (a list of lists of codes) of one side, with `sets` (None, or the Partition's
 * sets list: an item that is not None marks a cluster with an accommodated set, which may
 * then have no mention). 1: read, 0: not plain (no error set), -1: an error set. */
static int read_side(PyObject *clusters, PyObject *sets, Side *s, Py_ssize_t *max_code) {
    if (!PyList_Check(clusters)) return 0;
    Py_ssize_t n = PyList_GET_SIZE(clusters), total = 0;
    if (sets != Py_None && (!PyList_Check(sets) || PyList_GET_SIZE(sets) != n)) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(clusters, i);
        int has_set = sets != Py_None && PyList_GET_ITEM(sets, i) != Py_None;
        if (!PyList_Check(c) || (PyList_GET_SIZE(c) == 0 && !has_set)) return 0;
        total += PyList_GET_SIZE(c);
    }
    s->n = n;
    s->start = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    s->codes = PyMem_Malloc((total ? total : 1) * sizeof(Py_ssize_t));
    if (sets != Py_None) s->set = PyMem_Calloc(n ? n : 1, 1);
    if (s->start == NULL || s->codes == NULL || (sets != Py_None && s->set == NULL)) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(clusters, i);
        s->start[i] = k;
        if (s->set) s->set[i] = PyList_GET_ITEM(sets, i) != Py_None;
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

/* A cluster's size as Partition.sizes has it: its mentions, and its set as one more. */
static inline Py_ssize_t size_of(const Side *s, Py_ssize_t i) {
    return s->start[i + 1] - s->start[i] + (s->set ? s->set[i] : 0);
}

static inline int has_set(const Side *s, Py_ssize_t i) { return s->set && s->set[i]; }

/* A SplitMaps map {i: (j, score)} over `n` clusters whose partners lie in [0, other_n).
 * 1: read, 0: not as expected, -1: an error set. */
static int read_align(PyObject *map, Py_ssize_t n, Py_ssize_t other_n, Align *a) {
    if (!PyDict_Check(map)) return 0;
    if (PyDict_GET_SIZE(map) == 0) return 1;
    a->j = PyMem_Malloc((n ? n : 1) * sizeof(Py_ssize_t));
    a->s = PyMem_Malloc((n ? n : 1) * sizeof(double));
    if (a->j == NULL || a->s == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) a->j[i] = -1;
    Py_ssize_t position = 0;
    PyObject *key, *value;
    while (PyDict_Next(map, &position, &key, &value)) {
        if (!PyLong_CheckExact(key) || !PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 2 ||
                !PyLong_CheckExact(PyTuple_GET_ITEM(value, 0)) ||
                !PyFloat_CheckExact(PyTuple_GET_ITEM(value, 1)))
            return 0;
        Py_ssize_t i = PyLong_AsSsize_t(key), j = PyLong_AsSsize_t(PyTuple_GET_ITEM(value, 0));
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (i < 0 || i >= n || j < 0 || j >= other_n) return 0;
        a->j[i] = j;
        a->s[i] = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(value, 1));
    }
    return 1;
}

/* `Contingency.ident_r`/`ident_p`: per cluster the other side's cluster with an identical
 * set, or None (-1). 1: read, 0: not as expected. */
static int read_ident(PyObject *list, Py_ssize_t n, Py_ssize_t other_n, Py_ssize_t *out) {
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        if (item == Py_None) {
            out[i] = -1;
            continue;
        }
        if (!PyLong_CheckExact(item)) return 0;
        out[i] = PyLong_AsSsize_t(item);
        if (out[i] < 0 || out[i] >= other_n) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* _set_target: where the set of cluster i lands on the other side (-1: nowhere) and its
 * weight: the aligned set's cluster and score, else the identical set's cluster with 1. */
static inline Py_ssize_t set_target(const Side *s, Py_ssize_t i, const Align *a,
                                    const Py_ssize_t *ident, double *weight) {
    *weight = 0.0;
    if (!has_set(s, i)) return -1;
    if (a->j && a->j[i] >= 0) {
        *weight = a->s[i];
        return a->j[i];
    }
    if (ident && ident[i] >= 0) {
        *weight = 1.0;
        return ident[i];
    }
    return -1;
}

/* row.get(j, 0) */
static inline long long row_get(const Rows *r, Py_ssize_t i, Py_ssize_t j, int *found) {
    for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++)
        if (r->col[e] == j) {
            if (found) *found = 1;
            return r->val[e];
        }
    if (found) *found = 0;
    return 0;
}

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

static const Align NO_ALIGN = {NULL, NULL};

/* _muc_side */
static void muc_side(const Side *s, const Rows *r, const Py_ssize_t *unfound, const Side *o,
                     int inner, const Align *aligned, double *num_out, double *den_out) {
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
        Py_ssize_t tp = n - unfound[i] - linked;
        if (has_set(s, i)) {
            Py_ssize_t j = aligned->j ? aligned->j[i] : -1;
            int found = 0;
            if (j >= 0) row_get(r, i, j, &found);
            if (!found) {
                num += (double)(tp - 1);
            } else {
                num += (double)tp - (1.0 - aligned->s[i]);
            }
            continue;
        }
        num += (double)tp;
    }
    *num_out = num;
    *den_out = den;
}

/* _bcub_side: an aligned set adds its score to its partner's count (appended where the row
 * does not meet the partner), and the squares are summed in the row's order. */
static void bcub_side(const Side *s, const Rows *r, const Align *aligned, double *num_out,
                      double *den_out) {
    double num = 0.0;
    long long den = 0;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        long long n = size_of(s, i);
        Py_ssize_t j = has_set(s, i) && aligned->j ? aligned->j[i] : -1;
        if (j < 0) {
            long long squares = 0;
            for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++)
                squares += r->val[e] * r->val[e];
            num += (double)squares / (double)n;
        } else {
            double squares = 0.0, score = aligned->s[i];
            int met = 0;
            for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++) {
                if (r->col[e] == j) {
                    double v = (double)r->val[e] + score;
                    squares += v * v;
                    met = 1;
                } else {
                    squares += (double)(r->val[e] * r->val[e]);
                }
            }
            if (!met) squares += score * score;
            num += squares / (double)n;
        }
        den += n;
    }
    *num_out = num;
    *den_out = (double)den;
}

/* _lea_side */
static void lea_side(const Side *s, const Rows *r, const Side *o, const Align *aligned,
                     const Py_ssize_t *ident, double *num_out, double *den_out) {
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
        double common = (double)pairs / 2.0, weight;
        Py_ssize_t j = set_target(s, i, aligned, ident, &weight);
        if (j >= 0) common += weight * (double)row_get(r, i, j, NULL);
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

static long long mentions(const Side *s) {
    long long total = 0;
    for (Py_ssize_t i = 0; i < s->n; i++) total += size_of(s, i);
    return total;
}

/* blanc_coref */
static void blanc_coref(const Side *key, const Side *sys, const Rows *r, const Align *f,
                        const Py_ssize_t *ident_r, Counts *out) {
    double num = 0.0;
    for (Py_ssize_t i = 0; i < key->n; i++) {
        long long pairs = 0;
        for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++) pairs += r->val[e] * (r->val[e] - 1);
        num += (double)pairs / 2.0;
        if (has_set(key, i)) {
            double weight, half = 0.0;
            Py_ssize_t j1 = set_target(key, i, f, ident_r, &weight), j0 = ident_r[i];
            if (j1 >= 0) half += weight * (double)row_get(r, i, j1, NULL);
            if (j0 >= 0) half += (double)row_get(r, i, j0, NULL);
            num += half / 2.0;
        }
    }
    out->pn = out->rn = num;
    out->pd = links(sys);
    out->rd = links(key);
}

/* blanc_noncoref: `column` (one per response cluster) and `order` (the columns in the order
 * first met, as the dict of the Python twin sums them) are scratch. */
static void blanc_noncoref(const Side *key, const Side *sys, const Rows *r, const Align *f,
                           const Py_ssize_t *ident_r, double *column, char *met,
                           Py_ssize_t *order, Counts *out) {
    double total = 0.0, sq_w = 0.0, sq_v = 0.0;
    Py_ssize_t columns = 0;
    for (Py_ssize_t j = 0; j < sys->n; j++) met[j] = 0;
#define ADD(J, V) do { \
        double v_ = (V); \
        w += v_; \
        sq_v += v_ * v_; \
        if (!met[J]) { met[J] = 1; column[J] = 0.0; order[columns++] = (J); } \
        column[J] += v_; \
    } while (0)
    for (Py_ssize_t i = 0; i < key->n; i++) {
        double weight = 0.0, w = 0.0;
        Py_ssize_t j1 = has_set(key, i) ? set_target(key, i, f, ident_r, &weight) : -1;
        int found = 0;
        for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++) {
            Py_ssize_t j = r->col[e];
            if (j == j1) {
                found = 1;
                ADD(j, (double)r->val[e] + weight);
            } else {
                ADD(j, (double)r->val[e]);
            }
        }
        if (j1 >= 0 && !found) ADD(j1, weight);
        total += w;
        sq_w += w * w;
    }
#undef ADD
    double sq_col = 0.0;
    for (Py_ssize_t c = 0; c < columns; c++) sq_col += column[order[c]] * column[order[c]];
    double num = (total * total - sq_w - sq_col + sq_v) / 2.0;
    long long nk = mentions(key), ns = mentions(sys);
    out->pn = out->rn = num;
    out->rd = (double)(nk * (nk - 1)) / 2.0 - links(key);
    out->pd = (double)(ns * (ns - 1)) / 2.0 - links(sys);
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

/* The φ3 and φ4 of key cluster i and response cluster j, given their overlap v and whether
 * i's set is aligned to j (ceaf_phi: an aligned set adds its F score to the overlap). */
static inline void ceaf_phi(const Side *key, const Side *sys, const Align *f, Py_ssize_t i,
                            Py_ssize_t j, long long v, int hit, double *m, double *e) {
    double size = (double)(size_of(key, i) + size_of(sys, j));
    if (hit) {
        double with_set = (double)v + f->s[i];
        *m = with_set;
        *e = 2.0 * with_set / size;
    } else {
        *m = (double)v;
        *e = (double)(2 * v) / size;
    }
}

#define BATCH_CELLS 4096  /* scoring.metrics.coref._BATCH_CELLS */

/* One batch of CEAF's components of more than one cluster per side, solved as one
 * block-diagonal matrix (assigned_total's _assign): rows the batch's key clusters, columns
 * its response clusters, in the order the components were found; adds the assigned sum of φ3
 * to *total_m and of φ4 to *total_e (as `want` asks: 1 φ3, 2 φ4). `column` maps a response
 * cluster to its column and is left all -1. 0, or -1 with an exception set. */
static int ceaf_batch(const Side *key, const Side *sys, const Rows *r, const Align *f,
                      int want, const Py_ssize_t *rows, Py_ssize_t nr, const Py_ssize_t *cols,
                      Py_ssize_t nc, Py_ssize_t *column, double *total_m, double *total_e) {
    int status = -1;
    /* only the matrices `want` asks for (set_counts asks for one) */
    double *m = want & 1 ? PyMem_Calloc((size_t)(nr * nc), sizeof(double)) : NULL;
    double *e = want & 2 ? PyMem_Calloc((size_t)(nr * nc), sizeof(double)) : NULL;
    if ((want & 1 && m == NULL) || (want & 2 && e == NULL)) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t c = 0; c < nc; c++) column[cols[c]] = c;
    for (Py_ssize_t a = 0; a < nr; a++) {
        Py_ssize_t i = rows[a], hit = f->j ? f->j[i] : -1;
        double phi_m, phi_e;
        for (Py_ssize_t x = r->start[i]; x < r->start[i + 1]; x++) {  /* the overlap row */
            Py_ssize_t j = r->col[x], cell = a * nc + column[j];
            ceaf_phi(key, sys, f, i, j, r->val[x], 0, &phi_m, &phi_e);
            if (m) m[cell] = phi_m;
            if (e) e[cell] = phi_e;
        }
        if (hit >= 0) {  /* the set's partner, with the set's score (its cell may be above) */
            Py_ssize_t cell = a * nc + column[hit];
            ceaf_phi(key, sys, f, i, hit, row_get(r, i, hit, NULL), 1, &phi_m, &phi_e);
            if (m) m[cell] = phi_m;
            if (e) e[cell] = phi_e;
        }
    }
    for (Py_ssize_t c = 0; c < nc; c++) column[cols[c]] = -1;
    double sum;
    if (m) {
        if (lsap_assigned_sum(m, nr, nc, 1, &sum) < 0) goto done;
        *total_m += sum;
    }
    if (e) {
        if (lsap_assigned_sum(e, nr, nc, 1, &sum) < 0) goto done;
        *total_e += sum;
    }
    status = 0;
done:
    PyMem_Free(m);
    PyMem_Free(e);
    return status;
}

/* CEAF's similarities, Σ φ3 (*m_out) and Σ φ4 (*e_out) over the optimal one-to-one
 * alignment (_ceaf_similarity): over the components of the overlap graph, with an edge from
 * each key cluster to the partner of its set in the F map `f` (SplitMaps.f), in the order of
 * their first key row. The one-to-one ones are summed as found; the others are solved in
 * batches (assigned_total) and their sum added after. `want` as ceaf_batch's. */
static int components(const Side *key, const Side *sys, const Rows *r, const Align *f,
                      int want, double *m_out, double *e_out) {
    int failed = -1;
    Py_ssize_t nk = key->n, ns = sys->n, entries = r->start[nk] + (f->j ? nk : 0);
    Rows adj = {0};  /* the overlap rows, and the F map's edges they lack (val 0) */
    adj.start = PyMem_Malloc((nk + 1) * sizeof(Py_ssize_t));
    adj.col = PyMem_Malloc((entries ? entries : 1) * sizeof(Py_ssize_t));
    adj.val = PyMem_Malloc((entries ? entries : 1) * sizeof(long long));
    Py_ssize_t *by_col = PyMem_Calloc(ns + 1, sizeof(Py_ssize_t));
    Py_ssize_t *rows_of = PyMem_Malloc((entries ? entries : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *fill = PyMem_Malloc((ns ? ns : 1) * sizeof(Py_ssize_t));
    char *done = PyMem_Calloc(nk ? nk : 1, 1);
    char *seen = PyMem_Calloc(ns ? ns : 1, 1);
    Py_ssize_t *queue = PyMem_Malloc((nk ? nk : 1) * sizeof(Py_ssize_t));
    /* the batch: its key clusters, then its response clusters */
    Py_ssize_t *batch_rows = PyMem_Malloc((nk ? nk : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *batch_cols = PyMem_Malloc((ns ? ns : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *column = PyMem_Malloc((ns ? ns : 1) * sizeof(Py_ssize_t));
    Py_ssize_t n_rows = 0, n_cols = 0;
    double sum_m = 0.0, sum_e = 0.0, total_m = 0.0, total_e = 0.0;
    if (!adj.start || !adj.col || !adj.val || !by_col || !rows_of || !fill || !done || !seen ||
            !queue || !batch_rows || !batch_cols || !column) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < ns; j++) column[j] = -1;
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < nk; i++) {
        adj.start[i] = k;
        for (Py_ssize_t e = r->start[i]; e < r->start[i + 1]; e++) {
            adj.col[k] = r->col[e];
            adj.val[k++] = r->val[e];
        }
        int found = 1;
        if (f->j && f->j[i] >= 0) row_get(r, i, f->j[i], &found);
        if (!found) {
            adj.col[k] = f->j[i];
            adj.val[k++] = 0;
        }
    }
    adj.start[nk] = k;
    entries = k;
    for (Py_ssize_t e = 0; e < entries; e++) by_col[adj.col[e] + 1]++;
    for (Py_ssize_t j = 0; j < ns; j++) {
        by_col[j + 1] += by_col[j];
        fill[j] = by_col[j];
    }
    for (Py_ssize_t i = 0; i < nk; i++)
        for (Py_ssize_t e = adj.start[i]; e < adj.start[i + 1]; e++) rows_of[fill[adj.col[e]]++] = i;
    for (Py_ssize_t start = 0; start < nk; start++) {
        Py_ssize_t first = adj.start[start], stop = adj.start[start + 1];
        if (done[start] || first == stop) continue;
        done[start] = 1;
        Py_ssize_t j = adj.col[first];
        if (stop - first == 1 && by_col[j + 1] - by_col[j] == 1) {
            double m, e;
            ceaf_phi(key, sys, f, start, j, adj.val[first], f->j && f->j[start] == j, &m, &e);
            sum_m += m;
            sum_e += e;
            continue;
        }
        /* a component of more than one cluster on a side: its rows and columns, each in
         * increasing order, join the batch */
        Py_ssize_t *got_rows = batch_rows + n_rows, *got_cols = batch_cols + n_cols;
        Py_ssize_t rows_here = 0, cols_here = 0, n_queue = 0;
        got_rows[rows_here++] = start;
        queue[n_queue++] = start;
        while (n_queue) {
            Py_ssize_t i = queue[--n_queue];
            for (Py_ssize_t e = adj.start[i]; e < adj.start[i + 1]; e++) {
                Py_ssize_t c = adj.col[e];
                if (seen[c]) continue;
                seen[c] = 1;
                got_cols[cols_here++] = c;
                for (Py_ssize_t h = by_col[c]; h < by_col[c + 1]; h++) {
                    Py_ssize_t i2 = rows_of[h];
                    if (!done[i2]) {
                        done[i2] = 1;
                        got_rows[rows_here++] = i2;
                        queue[n_queue++] = i2;
                    }
                }
            }
        }
        qsort(got_rows, rows_here, sizeof(Py_ssize_t), compare_index);
        qsort(got_cols, cols_here, sizeof(Py_ssize_t), compare_index);
        n_rows += rows_here;
        n_cols += cols_here;
        if (n_rows * n_cols > BATCH_CELLS) {
            if (ceaf_batch(key, sys, r, f, want, batch_rows, n_rows, batch_cols, n_cols, column,
                           &total_m, &total_e) < 0)
                goto done;
            n_rows = n_cols = 0;
        }
    }
    if (n_rows && ceaf_batch(key, sys, r, f, want, batch_rows, n_rows, batch_cols, n_cols,
                             column, &total_m, &total_e) < 0)
        goto done;
    /* the one-to-one components' sum first, then the assigned ones' (assigned_total) */
    *m_out = sum_m + total_m;
    *e_out = sum_e + total_e;
    failed = 0;
done:
    rows_free(&adj);
    PyMem_Free(by_col);
    PyMem_Free(rows_of);
    PyMem_Free(fill);
    PyMem_Free(done);
    PyMem_Free(seen);
    PyMem_Free(queue);
    PyMem_Free(batch_rows);
    PyMem_Free(batch_cols);
    PyMem_Free(column);
    return failed;
}

static PyObject *counts_tuple(const Counts *c) {
    return Py_BuildValue("(dddd)", c->pn, c->pd, c->rn, c->rd);
}

/* What both entry points build from the two sides: the mention maps, the rows, CEAF's
 * overlap rows where they differ from the recall rows, and scratch. */
typedef struct {
    Side key, sys;
    Rows rrow, prow, over;
    Py_ssize_t *r_unfound, *p_unfound, *order;
    long long *scratch;
    double *column;
    char *met;
    int sys_multi;
} Table;

static void table_free(Table *t) {
    side_free(&t->key);
    side_free(&t->sys);
    rows_free(&t->rrow);
    rows_free(&t->prow);
    rows_free(&t->over);
    PyMem_Free(t->r_unfound);
    PyMem_Free(t->p_unfound);
    PyMem_Free(t->order);
    PyMem_Free(t->scratch);
    PyMem_Free(t->column);
    PyMem_Free(t->met);
}

/* 1: built, 0: not plain (no error set), -1: an error set. */
static int table_build(Table *t, PyObject *key_clusters, PyObject *key_sets,
                       PyObject *sys_clusters, PyObject *sys_sets) {
    Py_ssize_t max_code = -1;
    int read = read_side(key_clusters, key_sets, &t->key, &max_code);
    if (read == 1) read = read_side(sys_clusters, sys_sets, &t->sys, &max_code);
    if (read != 1) return read;
    Py_ssize_t codes = max_code + 1, width = (t->key.n > t->sys.n ? t->key.n : t->sys.n) + 1;
    Py_ssize_t *key_last = PyMem_Malloc((codes + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *sys_last = PyMem_Malloc((codes + 1) * sizeof(Py_ssize_t));
    t->r_unfound = PyMem_Malloc((t->key.n + 1) * sizeof(Py_ssize_t));
    t->p_unfound = PyMem_Malloc((t->sys.n + 1) * sizeof(Py_ssize_t));
    t->order = PyMem_Malloc(width * sizeof(Py_ssize_t));
    t->scratch = PyMem_Malloc(width * sizeof(long long));
    t->column = PyMem_Malloc(width * sizeof(double));
    t->met = PyMem_Malloc(width);
    int built = -1;
    if (!key_last || !sys_last || !t->r_unfound || !t->p_unfound || !t->order || !t->scratch ||
            !t->column || !t->met) {
        PyErr_NoMemory();
        goto done;
    }
    t->sys_multi = mention_map(&t->sys, sys_last, codes);
    mention_map(&t->key, key_last, codes);
    if (make_rows(&t->key, sys_last, t->sys.n, &t->rrow, t->r_unfound, t->scratch) < 0 ||
            make_rows(&t->sys, key_last, t->key.n, &t->prow, t->p_unfound, t->scratch) < 0)
        goto done;
    if (t->sys_multi && overlap_rows(&t->key, &t->sys, codes, &t->over, t->scratch) < 0)
        goto done;
    built = 1;
done:
    PyMem_Free(key_last);
    PyMem_Free(sys_last);
    return built;
}

/* ceafm's counts, PRCounts(Σφ3, Σ|S|, Σφ3, Σ|K|), and ceafe's, PRCounts(Σφ4, |S|, Σφ4, |K|),
 * as `want` asks (1 ceafm, 2 ceafe; the other is left as it is). 0, or -1 with an exception
 * set. */
static int ceaf_counts(Table *t, const Align *f, int want, Counts *m, Counts *e) {
    double sim_m, sim_e;
    if (components(&t->key, &t->sys, t->sys_multi ? &t->over : &t->rrow, f, want, &sim_m,
                   &sim_e) < 0)
        return -1;
    long long key_size = 0, sys_size = 0;
    for (Py_ssize_t i = 0; i < t->key.n; i++) key_size += size_of(&t->key, i);
    for (Py_ssize_t j = 0; j < t->sys.n; j++) sys_size += size_of(&t->sys, j);
    if (want & 1) *m = (Counts){sim_m, (double)sys_size, sim_m, (double)key_size};
    if (want & 2) *e = (Counts){sim_e, (double)t->sys.n, sim_e, (double)t->key.n};
    return 0;
}

static PyObject *plain_counts(PyObject *self, PyObject *args) {
    PyObject *key_clusters, *sys_clusters;
    int inner;
    if (!PyArg_ParseTuple(args, "OOp", &key_clusters, &sys_clusters, &inner)) return NULL;
    Table t = {0};
    PyObject *result = NULL;
    int built = table_build(&t, key_clusters, Py_None, sys_clusters, Py_None);
    if (built != 1) {
        if (built == 0) result = Py_NewRef(Py_None);
        goto done;
    }
    Counts muc, bcub, lea, coref, noncoref, ceafm, ceafe;
    muc_side(&t.key, &t.rrow, t.r_unfound, &t.sys, inner, &NO_ALIGN, &muc.rn, &muc.rd);
    muc_side(&t.sys, &t.prow, t.p_unfound, &t.key, inner, &NO_ALIGN, &muc.pn, &muc.pd);
    bcub_side(&t.key, &t.rrow, &NO_ALIGN, &bcub.rn, &bcub.rd);
    bcub_side(&t.sys, &t.prow, &NO_ALIGN, &bcub.pn, &bcub.pd);
    lea_side(&t.key, &t.rrow, &t.sys, &NO_ALIGN, NULL, &lea.rn, &lea.rd);
    lea_side(&t.sys, &t.prow, &t.key, &NO_ALIGN, NULL, &lea.pn, &lea.pd);
    blanc_coref(&t.key, &t.sys, &t.rrow, &NO_ALIGN, NULL, &coref);
    blanc_noncoref(&t.key, &t.sys, &t.rrow, &NO_ALIGN, NULL, t.column, t.met, t.order,
                   &noncoref);
    if (ceaf_counts(&t, &NO_ALIGN, 3, &ceafm, &ceafe) < 0) goto done;
    PyObject *parts[7] = {counts_tuple(&muc), counts_tuple(&bcub), counts_tuple(&lea),
                          counts_tuple(&coref), counts_tuple(&noncoref), counts_tuple(&ceafm),
                          counts_tuple(&ceafe)};
    if (parts[0] && parts[1] && parts[2] && parts[3] && parts[4] && parts[5] && parts[6])
        result = PyTuple_Pack(7, parts[0], parts[1], parts[2], parts[3], parts[4], parts[5],
                              parts[6]);
    for (int p = 0; p < 7; p++) Py_XDECREF(parts[p]);
done:
    table_free(&t);
    return result;
}

enum { MUC, BCUB, LEA, BLANC_COREF, BLANC_NONCOREF, CEAFM, CEAFE };

/* set_counts(which, key_clusters, response_clusters, key_sets, response_sets, ident_r,
 * ident_p, recall, precision, f): one metric's counts of a table with accommodated sets,
 * given its SplitMaps. None where the input is not as expected. */
static PyObject *set_counts(PyObject *self, PyObject *args) {
    int which;
    PyObject *key_clusters, *sys_clusters, *key_sets, *sys_sets, *ident_r_list, *ident_p_list;
    PyObject *recall_map, *precision_map, *f_map;
    if (!PyArg_ParseTuple(args, "iOOOOOOOOO", &which, &key_clusters, &sys_clusters, &key_sets,
                          &sys_sets, &ident_r_list, &ident_p_list, &recall_map, &precision_map,
                          &f_map))
        return NULL;
    Table t = {0};
    Align recall = {0}, precision = {0}, f = {0};
    Py_ssize_t *ident_r = NULL, *ident_p = NULL;
    PyObject *result = NULL;
    int ok = which >= MUC && which <= CEAFE && PyList_Check(key_sets) && PyList_Check(sys_sets);
    if (ok) ok = table_build(&t, key_clusters, key_sets, sys_clusters, sys_sets);
    if (ok == 1) {
        ident_r = PyMem_Malloc((t.key.n + 1) * sizeof(Py_ssize_t));
        ident_p = PyMem_Malloc((t.sys.n + 1) * sizeof(Py_ssize_t));
        if (ident_r == NULL || ident_p == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        ok = read_ident(ident_r_list, t.key.n, t.sys.n, ident_r) &&
             read_ident(ident_p_list, t.sys.n, t.key.n, ident_p);
    }
    if (ok == 1) ok = read_align(recall_map, t.key.n, t.sys.n, &recall);
    if (ok == 1) ok = read_align(precision_map, t.sys.n, t.key.n, &precision);
    if (ok == 1) ok = read_align(f_map, t.key.n, t.sys.n, &f);
    if (ok != 1) {
        if (ok == 0) result = Py_NewRef(Py_None);
        goto done;
    }
    Counts c;
    switch (which) {
    case MUC:
        muc_side(&t.key, &t.rrow, t.r_unfound, &t.sys, 0, &recall, &c.rn, &c.rd);
        muc_side(&t.sys, &t.prow, t.p_unfound, &t.key, 0, &precision, &c.pn, &c.pd);
        break;
    case BCUB:
        bcub_side(&t.key, &t.rrow, &recall, &c.rn, &c.rd);
        bcub_side(&t.sys, &t.prow, &precision, &c.pn, &c.pd);
        break;
    case LEA:
        lea_side(&t.key, &t.rrow, &t.sys, &recall, ident_r, &c.rn, &c.rd);
        lea_side(&t.sys, &t.prow, &t.key, &precision, ident_p, &c.pn, &c.pd);
        break;
    case BLANC_COREF:
        blanc_coref(&t.key, &t.sys, &t.rrow, &f, ident_r, &c);
        break;
    case BLANC_NONCOREF:
        blanc_noncoref(&t.key, &t.sys, &t.rrow, &f, ident_r, t.column, t.met, t.order, &c);
        break;
    default:
        if (ceaf_counts(&t, &f, which == CEAFM ? 1 : 2, &c, &c) < 0) goto done;
    }
    result = counts_tuple(&c);
done:
    table_free(&t);
    align_free(&recall);
    align_free(&precision);
    align_free(&f);
    PyMem_Free(ident_r);
    PyMem_Free(ident_p);
    return result;
}

/* --- Mode processing's first step (scoring.clusters.process_layer) ------------------------ */

/* Whether `value` is the int 0. */
static inline int is_zero(PyObject *value) {
    int overflow = 0;
    return PyLong_CheckExact(value) && PyLong_AsLongAndOverflow(value, &overflow) == 0 &&
           !overflow;
}

/* The code of a mention key (a new reference): the one it has in `codes`, else the next
 * number, recorded in `codes` and appended to `keys` (SpanCoder.code). NULL with an error. */
static PyObject *code_of(PyObject *codes, PyObject *keys, PyObject *key) {
    PyObject *code = PyDict_GetItemWithError(codes, key);
    if (code != NULL) return Py_NewRef(code);
    if (PyErr_Occurred()) return NULL;
    code = PyLong_FromSsize_t(PyList_GET_SIZE(keys));
    if (code == NULL) return NULL;
    if (PyDict_SetItem(codes, key, code) < 0 || PyList_Append(keys, key) < 0) {
        Py_DECREF(code);
        return NULL;
    }
    return code;
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

/* A markable `m` of entity `eid` coded `code`: the code added to its entity's group, `m`
 * kept as the entity's first where the group is new, and the entity added to the plural
 * entities its ElementOf names (`splits`). 0, or -1 with an error. */
static int file_mention(PyObject *groups, PyObject *first, PyObject *splits, PyObject *eid,
                        PyObject *code, PyObject *m) {
    PyObject *made = NULL;
    if (append_to(groups, eid, code, &made) < 0) return -1;
    if (made && PyDict_SetItem(first, eid, m) < 0) return -1;
    PyObject *element_of = PyTuple_GET_ITEM(m, 6);
    for (Py_ssize_t e = 0; e < PyTuple_GET_SIZE(element_of); e++)
        if (append_to(splits, PyTuple_GET_ITEM(element_of, e), eid, NULL) < 0) return -1;
    return 0;
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
        PyObject *code = code_of(codes, keys, key);
        if (code == NULL) goto done;
        Py_CLEAR(key);
        PyList_SET_ITEM(mcodes, k, code);
        if (file_mention(groups, first, splits, eid, code, m) < 0) goto done;
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


/* A small int of a Markable field: 1 and its value, or 0 where it is not an exact int that
 * fits a long long (then the Python loop decides). */
static inline int small_int(PyObject *value, long long *out) {
    int overflow = 0;
    if (!PyLong_CheckExact(value)) return 0;
    *out = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow || (*out == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* A (position, rank) pair of small ints. */
static inline int node_pair(PyObject *node, long long *position, long long *rank) {
    return PyTuple_CheckExact(node) && PyTuple_GET_SIZE(node) == 2 &&
           small_int(PyTuple_GET_ITEM(node, 0), position) &&
           small_int(PyTuple_GET_ITEM(node, 1), rank);
}

/* Whether markable `m` is one layer_groups_all takes: a Markable's tuple whose fields have
 * the types scoring.clusters._groups reads (attributes: pairs, where it reads them). */
static int groups_all_takes(PyObject *m) {
    long long a, b, value;
    if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) != 11 || !PyUnicode_Check(PyTuple_GET_ITEM(m, 1)))
        return 0;
    PyObject *parts = PyTuple_GET_ITEM(m, 2), *head = PyTuple_GET_ITEM(m, 5);
    PyObject *zeros = PyTuple_GET_ITEM(m, 9);
    if (!PyTuple_Check(parts) || PyTuple_GET_SIZE(parts) < 1 ||
            !node_pair(PyTuple_GET_ITEM(parts, 0), &a, &b))
        return 0;
    if (!PyTuple_Check(PyTuple_GET_ITEM(m, 6)) || !PyTuple_Check(zeros)) return 0;
    long long zero, head_zero;
    if (!small_int(PyTuple_GET_ITEM(m, 7), &zero) || !small_int(PyTuple_GET_ITEM(m, 10), &head_zero))
        return 0;
    if (head != Py_None && !small_int(head, &value)) return 0;
    for (Py_ssize_t z = 0; z < PyTuple_GET_SIZE(zeros); z++)
        if (!node_pair(PyTuple_GET_ITEM(zeros, z), &a, &b)) return 0;
    if (zero || head_zero) {
        PyObject *attributes = PyTuple_GET_ITEM(m, 8);
        if (!PyTuple_Check(attributes)) return 0;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(attributes); i++) {
            PyObject *pair = PyTuple_GET_ITEM(attributes, i);
            if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 ||
                    !PyUnicode_CheckExact(PyTuple_GET_ITEM(pair, 0)))
                return 0;
        }
    }
    return 1;
}

/* scoring.mention_codes.first_node: (start, zero) for a zero; else the least of (start, 0) and
 * the empty nodes inside in node_order ((p, r) -> (p - 1, r) where r), the first of equals. */
static PyObject *first_node_of(PyObject *m) {
    PyObject *start = PyTuple_GET_ITEM(PyTuple_GET_ITEM(PyTuple_GET_ITEM(m, 2), 0), 0);
    PyObject *zero = PyTuple_GET_ITEM(m, 7), *zeros = PyTuple_GET_ITEM(m, 9);
    long long z = 0, p, r;
    small_int(zero, &z);
    if (z) return PyTuple_Pack(2, start, zero);
    PyObject *best = NULL;
    long long best_p = 0, best_r = 0;
    small_int(start, &best_p);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(zeros); i++) {
        PyObject *node = PyTuple_GET_ITEM(zeros, i);
        node_pair(node, &p, &r);
        long long order = r ? p - 1 : p;
        if (order < best_p || (order == best_p && r < best_r)) {
            best = node;
            best_p = order;
            best_r = r;
        }
    }
    if (best != NULL) return Py_NewRef(best);
    PyObject *nought = PyLong_FromLong(0);
    if (nought == NULL) return NULL;
    PyObject *out = PyTuple_Pack(2, start, nought);
    Py_DECREF(nought);
    return out;
}

/* layer_groups_all(markables, codes, keys, head_identity, zero_codes, zero_heads, deps,
 * spans): scoring.clusters._groups compiled, step for step, for any layer (empty nodes, and
 * heads in a mention's identity, included): the same keys coded in the same order, the
 * zeros' codes, head nodes and DEPS into the three given, and with `spans` (a pair of dicts,
 * or None) the Min spans and heads. Returns (markable codes, groups, first markables, split
 * lists), or None, before anything is coded or filled, where a markable is not as expected. */
static PyObject *layer_groups_all(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *markables, *codes, *keys, *zero_codes, *zero_heads, *deps, *spans;
    int head_identity;
    if (!PyArg_ParseTuple(args, "OO!O!pO!O!O!O", &markables, &PyDict_Type, &codes, &PyList_Type,
                          &keys, &head_identity, &PySet_Type, &zero_codes, &PyDict_Type,
                          &zero_heads, &PyDict_Type, &deps, &spans))
        return NULL;
    PyObject *min_spans = NULL, *heads = NULL;
    if (spans != Py_None) {
        if (!PyTuple_Check(spans) || PyTuple_GET_SIZE(spans) != 2 ||
                !PyDict_Check(PyTuple_GET_ITEM(spans, 0)) || !PyDict_Check(PyTuple_GET_ITEM(spans, 1)))
            Py_RETURN_NONE;
        min_spans = PyTuple_GET_ITEM(spans, 0);
        heads = PyTuple_GET_ITEM(spans, 1);
    }
    PyObject *sequence = PySequence_Fast(markables, "markables: expected a sequence");
    if (sequence == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    for (Py_ssize_t k = 0; k < n; k++) {
        if (!groups_all_takes(items[k])) {
            Py_DECREF(sequence);
            Py_RETURN_NONE;
        }
    }
    PyObject *result = NULL, *key = NULL, *node = NULL;
    PyObject *mcodes = PyList_New(n), *groups = PyDict_New(), *first = PyDict_New();
    PyObject *splits = PyDict_New();
    if (mcodes == NULL || groups == NULL || first == NULL || splits == NULL) goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *m = items[k], *eid = PyTuple_GET_ITEM(m, 1), *parts = PyTuple_GET_ITEM(m, 2);
        PyObject *min_span = PyTuple_GET_ITEM(m, 4), *head = PyTuple_GET_ITEM(m, 5);
        PyObject *zero = PyTuple_GET_ITEM(m, 7), *zeros = PyTuple_GET_ITEM(m, 9);
        PyObject *head_zero = PyTuple_GET_ITEM(m, 10);
        long long zero_v = 0, head_zero_v = 0;
        small_int(zero, &zero_v);
        small_int(head_zero, &head_zero_v);
        if (head_identity) {
            node = head != Py_None ? PyTuple_Pack(2, head, head_zero) : first_node_of(m);
            if (node == NULL) goto done;
            key = PyTuple_Pack(4, parts, zero, zeros, node);
            Py_CLEAR(node);
        } else if (PyTuple_GET_SIZE(zeros)) {
            key = PyTuple_Pack(3, parts, zero, zeros);
        } else {
            key = PyTuple_Pack(2, parts, zero);
        }
        if (key == NULL) goto done;
        PyObject *code = code_of(codes, keys, key);
        if (code == NULL) goto done;
        Py_CLEAR(key);
        PyList_SET_ITEM(mcodes, k, code);
        if (min_spans != NULL && (min_span != Py_None || head != Py_None)) {
            if (min_span != Py_None) {
                int has = PyDict_Contains(min_spans, code);
                if (has < 0 || (!has && PyDict_SetItem(min_spans, code, min_span) < 0)) goto done;
            }
            if (head != Py_None && !head_zero_v) {
                int has = PyDict_Contains(heads, code);
                if (has < 0 || (!has && PyDict_SetItem(heads, code, head) < 0)) goto done;
            }
        }
        if (file_mention(groups, first, splits, eid, code, m) < 0) goto done;
        if (zero_v || head_zero_v) {
            if (PySet_Add(zero_codes, code) < 0) goto done;
            int has = PyDict_Contains(zero_heads, code);
            if (has < 0) goto done;
            if (!has) {
                /* head_zero > 0: the head is the zero of that rank at position `head` */
                if (head_zero_v && head != Py_None)
                    node = PyTuple_Pack(2, head, head_zero);
                else
                    node = PyTuple_Pack(
                        2, PyTuple_GET_ITEM(PyTuple_GET_ITEM(parts, 0), 0), zero);
                if (node == NULL || PyDict_SetItem(zero_heads, code, node) < 0) goto done;
                Py_CLEAR(node);
                /* dict(attributes).get("deps", ""): the last "deps" pair */
                PyObject *attributes = PyTuple_GET_ITEM(m, 8), *value = NULL;
                for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(attributes); i++) {
                    PyObject *pair = PyTuple_GET_ITEM(attributes, i);
                    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(pair, 0), "deps") == 0)
                        value = PyTuple_GET_ITEM(pair, 1);
                }
                if (value == NULL) {
                    value = PyUnicode_FromString("");
                    if (value == NULL) goto done;
                } else {
                    Py_INCREF(value);
                }
                int failed = PyDict_SetItem(deps, code, value) < 0;
                Py_DECREF(value);
                if (failed) goto done;
            }
        }
    }
    result = PyTuple_Pack(4, mcodes, groups, first, splits);
done:
    Py_XDECREF(key);
    Py_XDECREF(node);
    Py_XDECREF(mcodes);
    Py_XDECREF(groups);
    Py_XDECREF(first);
    Py_XDECREF(splits);
    Py_DECREF(sequence);
    return result;
}


/* layer_clusters(groups, split_lists, keep_split, keep_singletons, pseudo_non_referring,
 * accommodate, args): process_layer's second loop, for a layer without zeros whose entities
 * hold no code twice. For each entity in order: its accommodated set (accommodate(eid,
 * *args), where keep_split and split_lists names members of it), non-referring entities'
 * codes set aside (pseudo_non_referring and an id ending in "-Pseudo"), clusters of one
 * mention dropped without keep_singletons. Returns (clusters, sets, entity ids,
 * non-referring codes). */
static PyObject *layer_clusters(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *groups, *splits, *accommodate, *extra;
    int keep_split, keep_singletons, pseudo;
    if (!PyArg_ParseTuple(args, "O!O!pppOO!", &PyDict_Type, &groups, &PyDict_Type, &splits,
                          &keep_split, &keep_singletons, &pseudo, &accommodate, &PyTuple_Type,
                          &extra))
        return NULL;
    PyObject *clusters = PyList_New(0), *sets = PyList_New(0), *eids = PyList_New(0);
    PyObject *non_referring = PySet_New(NULL), *suffix = PyUnicode_FromString("-Pseudo");
    PyObject *result = NULL, *acc = NULL, *call_args = NULL;
    if (!clusters || !sets || !eids || !non_referring || !suffix) goto done;
    Py_ssize_t position = 0;
    PyObject *eid, *codes;
    while (PyDict_Next(groups, &position, &eid, &codes)) {
        if (!PyList_Check(codes) || !PyUnicode_Check(eid)) {
            PyErr_SetString(PyExc_TypeError, "layer_clusters: expected str -> list groups");
            goto done;
        }
        acc = Py_NewRef(Py_None);
        if (keep_split) {
            PyObject *members = PyDict_GetItemWithError(splits, eid);
            if (members == NULL && PyErr_Occurred()) goto done;
            if (members != NULL && PyObject_IsTrue(members)) {
                Py_ssize_t n = PyTuple_GET_SIZE(extra);
                call_args = PyTuple_New(n + 1);
                if (call_args == NULL) goto done;
                PyTuple_SET_ITEM(call_args, 0, Py_NewRef(eid));
                for (Py_ssize_t a = 0; a < n; a++)
                    PyTuple_SET_ITEM(call_args, a + 1, Py_NewRef(PyTuple_GET_ITEM(extra, a)));
                Py_SETREF(acc, PyObject_Call(accommodate, call_args, NULL));
                Py_CLEAR(call_args);
                if (acc == NULL) goto done;
            }
        }
        if (pseudo) {
            Py_ssize_t ends = PyUnicode_Tailmatch(eid, suffix, 0, PY_SSIZE_T_MAX, 1);
            if (ends < 0) goto done;
            if (ends) {
                for (Py_ssize_t e = 0; e < PyList_GET_SIZE(codes); e++)
                    if (PySet_Add(non_referring, PyList_GET_ITEM(codes, e)) < 0) goto done;
                Py_CLEAR(acc);
                continue;
            }
        }
        if (!keep_singletons && PyList_GET_SIZE(codes) + (acc != Py_None) == 1) {
            Py_CLEAR(acc);
            continue;
        }
        if (PyList_Append(clusters, codes) < 0 || PyList_Append(sets, acc) < 0 ||
                PyList_Append(eids, eid) < 0)
            goto done;
        Py_CLEAR(acc);
    }
    result = PyTuple_Pack(4, clusters, sets, eids, non_referring);
done:
    Py_XDECREF(acc);
    Py_XDECREF(call_args);
    Py_XDECREF(clusters);
    Py_XDECREF(sets);
    Py_XDECREF(eids);
    Py_XDECREF(non_referring);
    Py_XDECREF(suffix);
    return result;
}

static PyMethodDef methods[] = {
    {"plain_counts", plain_counts, METH_VARARGS,
     "plain_counts(key_clusters, response_clusters, inner) -> (muc, bcub, lea, blanc_coref, "
     "blanc_noncoref, ceafm, ceafe), each count a (pn, pd, rn, rd) tuple; or None where a "
     "table is not plain (see scoring/metrics/plain.py)"},
    {"set_counts", set_counts, METH_VARARGS,
     "set_counts(which, key_clusters, response_clusters, key_sets, response_sets, ident_r, "
     "ident_p, recall, precision, f) -> (pn, pd, rn, rd) of metric `which` (0 muc, 1 bcub, "
     "2 lea, 3 blanc_coref, 4 blanc_noncoref, 5 ceafm, 6 ceafe); None where the input is not "
     "as expected (see scoring/metrics/plain.py)"},
    {"layer_clusters", layer_clusters, METH_VARARGS,
     "layer_clusters(groups, split_lists, keep_split, keep_singletons, pseudo_non_referring, "
     "accommodate, args) -> (clusters, sets, entity ids, non-referring codes) "
     "(see scoring/clusters.py: process_layer)"},
    {"layer_groups_all", layer_groups_all, METH_VARARGS,
     "layer_groups_all(markables, codes, keys, head_identity, zero_codes, zero_heads, deps, "
     "spans) -> (markable codes, groups, first markables, split lists), or None where a "
     "markable is not as expected (see scoring/clusters.py: _groups)"},
    {"layer_groups", layer_groups, METH_VARARGS,
     "layer_groups(markables, codes, keys) -> (markable codes, groups, first markables, "
     "split lists, duplicated), or None where a markable has an empty node "
     "(see scoring/clusters.py: process_layer)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "scoring.native._tables",
    "The metrics' counts of a contingency table, and the first steps of a layer's clusters.",
    -1, methods,
};

PyMODINIT_FUNC PyInit__tables(void) {
    return PyModule_Create(&module);
}
