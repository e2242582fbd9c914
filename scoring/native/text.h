/* What the compiled reader steps share: reading a str's characters by index, and a few
 * searches over them. Included by _speedups.c and _exploded.c (static: one copy each). */
#ifndef SCORING_NATIVE_TEXT_H
#define SCORING_NATIVE_TEXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

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

#endif
