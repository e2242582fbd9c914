/* What the compiled reader steps share: reading a str's characters by index, and a few
 * searches over them. Included by _speedups.c and _exploded.c (static: one copy each). */
#ifndef SCORING_NATIVE_TEXT_H
#define SCORING_NATIVE_TEXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t length;
} Text;

static inline Py_UCS4 at(const Text *t, Py_ssize_t i) { return PyUnicode_READ(t->kind, t->data, i); }

/* Whether t[start:end] equals the ASCII text `word`. */
static inline int equals(const Text *t, Py_ssize_t start, Py_ssize_t end, const char *word) {
    Py_ssize_t n = (Py_ssize_t)strlen(word);
    if (end - start != n) return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (at(t, start + i) != (Py_UCS4)(unsigned char)word[i]) return 0;
    return 1;
}

/* The first `ch` in t[start:end], or -1 (memchr on one-byte text). */
static inline Py_ssize_t find_char(const Text *t, Py_UCS4 ch, Py_ssize_t start, Py_ssize_t end) {
    if (t->kind == PyUnicode_1BYTE_KIND) {
        if (ch > 255 || start >= end) return -1;
        const char *s = (const char *)t->data;
        const char *found = memchr(s + start, (int)ch, end - start);
        return found ? found - s : -1;
    }
    for (Py_ssize_t i = start; i < end; i++)
        if (at(t, i) == ch) return i;
    return -1;
}

/* list.append(item), taking the new reference `item` (NULL: an error already set). */
static inline int append_new(PyObject *list, PyObject *item) {
    if (item == NULL) return -1;
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

/* The "\n" bytes in [p, stop). Sixteen bytes per step with SSE2 (every x86-64 processor has
 * it): each step's matches are subtracted from byte counters (a match compares as -1), which
 * are added up every 255 steps, before one can overflow; 1.3 ms against memchr's 4.6 ms per
 * line for a 22 MB file. memchr per line elsewhere, and for the last few bytes. */
static inline Py_ssize_t count_line_ends(const char *p, const char *stop) {
    Py_ssize_t count = 0;
#ifdef __SSE2__
    const __m128i newline = _mm_set1_epi8('\n');
    while (stop - p >= 16) {
        Py_ssize_t blocks = (stop - p) / 16;
        if (blocks > 255) blocks = 255;
        __m128i counters = _mm_setzero_si128();
        for (Py_ssize_t b = 0; b < blocks; b++, p += 16)
            counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p),
                                                             newline));
        __m128i sums = _mm_sad_epu8(counters, _mm_setzero_si128());
        count += _mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4);
    }
#endif
    while (p < stop && (p = memchr(p, '\n', stop - p)) != NULL) {
        count++;
        p++;
    }
    return count;
}

/* The first occurrence of needle[0:m] in hay[0:n], or NULL: memmem's answer. With SSE2, 16
 * positions per step are tested for the needle's first and last bytes together, and only
 * those that have both are compared whole; memmem takes the last few positions. Twice as
 * fast as glibc's memmem on the readers' searches ("newdoc", "global." in a CoNLL file:
 * 1.9 ms against 3.9 ms per 22 MB). */
static inline const char *find_needle(const char *hay, Py_ssize_t n, const char *needle,
                                      Py_ssize_t m) {
#ifdef __SSE2__
    if (m >= 2 && n >= m) {
        const __m128i first = _mm_set1_epi8(needle[0]), last = _mm_set1_epi8(needle[m - 1]);
        Py_ssize_t i = 0;
        for (; i + (m - 1) + 16 <= n; i += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(hay + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(hay + i + m - 1));
            unsigned mask = (unsigned)_mm_movemask_epi8(
                _mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
            while (mask) {
                int bit = __builtin_ctz(mask);
                if (memcmp(hay + i + bit + 1, needle + 1, (size_t)(m - 2)) == 0)
                    return hay + i + bit;
                mask &= mask - 1;
            }
        }
        return memmem(hay + i, (size_t)(n - i), needle, (size_t)m);
    }
#endif
    return memmem(hay, (size_t)n, needle, (size_t)m);
}

/* Whether `type` can be built as a plain tuple of its fields (a named tuple class such as
 * Markable); sets TypeError if not. */
static inline int is_record_type(PyObject *type) {
    if (PyType_Check(type) && PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type) &&
            ((PyTypeObject *)type)->tp_basicsize == PyTuple_Type.tp_basicsize)
        return 1;
    PyErr_SetString(PyExc_TypeError, "markable_type: expected a named tuple class");
    return 0;
}

/* The tuple (a, b) of two ints. */
static inline PyObject *int_pair(Py_ssize_t a, Py_ssize_t b) {
    PyObject *first = PyLong_FromSsize_t(a), *second = PyLong_FromSsize_t(b);
    PyObject *pair = first && second ? PyTuple_Pack(2, first, second) : NULL;
    Py_XDECREF(first);
    Py_XDECREF(second);
    return pair;
}

/* A `type` record (scoring.model.Markable, whose field order this follows) of one contiguous
 * part [first, last] of words, no zero in it: a new reference, or NULL with an error set.
 * The objects are borrowed; element_of and attributes NULL stand for (). */
static inline PyObject *plain_markable(PyTypeObject *type, PyObject *markable_id,
                                       PyObject *entity_id, Py_ssize_t first, Py_ssize_t last,
                                       PyObject *line, PyObject *min_span, PyObject *head,
                                       PyObject *element_of, PyObject *attributes) {
    PyObject *span = int_pair(first, last);
    PyObject *parts = span ? PyTuple_Pack(1, span) : NULL;
    PyObject *empty = PyTuple_New(0), *zero = PyLong_FromLong(0);
    PyObject *record = parts && empty && zero ? type->tp_alloc(type, 11) : NULL;
    Py_XDECREF(span);
    if (record == NULL) {
        Py_XDECREF(parts);
        Py_XDECREF(empty);
        Py_XDECREF(zero);
        return NULL;
    }
    /* markable_id, entity_id, parts, line, min_span, head, element_of, zero, attributes,
     * zeros, head_zero */
    PyTuple_SET_ITEM(record, 0, Py_NewRef(markable_id));
    PyTuple_SET_ITEM(record, 1, Py_NewRef(entity_id));
    PyTuple_SET_ITEM(record, 2, parts);
    PyTuple_SET_ITEM(record, 3, Py_NewRef(line));
    PyTuple_SET_ITEM(record, 4, Py_NewRef(min_span));
    PyTuple_SET_ITEM(record, 5, Py_NewRef(head));
    PyTuple_SET_ITEM(record, 6, Py_NewRef(element_of ? element_of : empty));
    PyTuple_SET_ITEM(record, 7, Py_NewRef(zero));
    PyTuple_SET_ITEM(record, 8, Py_NewRef(attributes ? attributes : empty));
    PyTuple_SET_ITEM(record, 9, empty);
    PyTuple_SET_ITEM(record, 10, zero);
    return record;
}

#endif
