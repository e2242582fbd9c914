/* scoring._speedups: the compact reader's token-line scan in C.
 *
 * `split_document(block, pos, number)` does what `scoring.readers.compact._split_document`
 * does in Python (compiled expressions over a document's text): it cuts a CoNLL-U document,
 * from offset `pos` of `block` (whose line there is `number`), into sentences of comment lines
 * then token lines of ten tab-separated columns with a plain ID (5, 5.1, 5-6), and returns
 *
 *     (comments, sizes, row_lines, words_only, first, second)
 *
 *   comments   one list per sentence: its comment lines, stripped
 *   sizes      the number of token lines of each sentence
 *   row_lines  the line number of every token line
 *   words_only no ID of the form 5.1 or 5-6
 *   first      words_only: the FORM of every row; otherwise (ID, FORM, DEPS, MISC) of every row
 *   second     words_only: (row, MISC) of every row whose MISC is not "_"; otherwise None
 *
 * or None where the document is not that plain (a comment among token lines, a sentence of
 * comments only, a blank line that does not end a sentence, a line with another number of
 * columns, an ID that is not plain, no token line at all): the Python reading decides those,
 * and reports what is wrong. Both paths must give the same documents
 * (tests/scoring/test_speedups.py). The module is optional: without it the Python path runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define COLUMNS 10

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t length;
} Text;

static inline Py_UCS4 at(const Text *t, Py_ssize_t i) { return PyUnicode_READ(t->kind, t->data, i); }

static inline int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }

/* The end of the plain ID at `i` ([0-9]+([.-][0-9]+)?) followed by a tab, or -1; *special
 * is set when the ID has a '.' or '-'. */
static Py_ssize_t plain_id(const Text *t, Py_ssize_t i, Py_ssize_t end, int *special) {
    Py_ssize_t j = i;
    while (j < end && is_digit(at(t, j))) j++;
    if (j == i || j >= end) return -1;
    Py_UCS4 c = at(t, j);
    if (c == '.' || c == '-') {
        Py_ssize_t k = ++j;
        while (j < end && is_digit(at(t, j))) j++;
        if (j == k || j >= end) return -1;
        c = at(t, j);
        *special = 1;
    }
    return c == '\t' ? j : -1;
}

static int append_new(PyObject *list, PyObject *item) {
    if (item == NULL) return -1;
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

/* The other eight tabs of a token line after the ID's (tabs[0]), exactly eight before `end`:
 * 1, or 0 for another number of columns. One-byte text (the usual case) is searched with
 * memchr. */
static int find_tabs(const Text *t, Py_ssize_t *tabs, Py_ssize_t end) {
    int n = 1;
    if (t->kind == PyUnicode_1BYTE_KIND) {
        const char *data = (const char *)t->data;
        const char *p = data + tabs[0] + 1, *stop = data + end;
        while (p < stop && (p = memchr(p, '\t', stop - p)) != NULL) {
            if (n == COLUMNS - 1) return 0;
            tabs[n++] = p - data;
            p++;
        }
        return n == COLUMNS - 1;
    }
    for (Py_ssize_t j = tabs[0] + 1; j < end; j++) {
        if (at(t, j) == '\t') {
            if (n == COLUMNS - 1) return 0;
            tabs[n++] = j;
        }
    }
    return n == COLUMNS - 1;
}

/* One pass over the document's lines. With `out` NULL it only checks the shape and finds
 * whether an ID is special (returns 1 for a plain document, 0 otherwise); with `out` it builds
 * the lists (returns 1, or -1 with a Python error set). */
typedef struct {
    PyObject *comments, *sizes, *row_lines, *first, *second;
} Lists;

static int scan(PyObject *block, const Text *t, Py_ssize_t pos, Py_ssize_t number, int *special,
                Lists *out) {
    PyObject *sentence = NULL;
    Py_ssize_t size = 0;  /* token lines of the current sentence */
    Py_ssize_t line = number, row = 0, i = pos;
    int has_comments = 0, status = 0;
    while (i < t->length) {
        Py_ssize_t end = PyUnicode_FindChar(block, '\n', i, t->length, 1);
        if (end == -2) { status = -1; goto finish; }
        if (end == -1) goto finish;  /* every line ends with "\n" */
        Py_UCS4 first = i < end ? at(t, i) : '\n';
        if (first == '\n') {  /* a blank line ends a sentence: only after its token lines */
            if (!size) goto finish;
            if (out && append_new(out->sizes, PyLong_FromSsize_t(size))) { status = -1; goto finish; }
            Py_CLEAR(sentence);
            size = 0;
            has_comments = 0;
        } else if (first == '#') {  /* a comment: only before a sentence's token lines */
            if (size) goto finish;
            has_comments = 1;
            if (out) {
                if (sentence == NULL && (sentence = PyList_New(0)) == NULL) { status = -1; goto finish; }
                PyObject *raw = PyUnicode_Substring(block, i, end);
                if (raw == NULL) { status = -1; goto finish; }
                PyObject *stripped = PyObject_CallMethod(raw, "strip", NULL);
                Py_DECREF(raw);
                if (append_new(sentence, stripped)) { status = -1; goto finish; }
            }
        } else {
            int row_special = 0;
            Py_ssize_t tabs[COLUMNS - 1];
            tabs[0] = plain_id(t, i, end, &row_special);
            if (tabs[0] < 0) goto finish;
            if (!find_tabs(t, tabs, end)) goto finish;
            *special |= row_special;
            if (out) {
                if (!size) {  /* a sentence's first token line */
                    if (sentence == NULL && (sentence = PyList_New(0)) == NULL) { status = -1; goto finish; }
                    if (PyList_Append(out->comments, sentence)) { status = -1; goto finish; }
                }
                if (append_new(out->row_lines, PyLong_FromSsize_t(line))) { status = -1; goto finish; }
                PyObject *form = PyUnicode_Substring(block, tabs[0] + 1, tabs[1]);
                if (*special) {  /* (ID, FORM, DEPS, MISC) */
                    PyObject *id = PyUnicode_Substring(block, i, tabs[0]);
                    PyObject *deps = PyUnicode_Substring(block, tabs[7] + 1, tabs[8]);
                    PyObject *misc = PyUnicode_Substring(block, tabs[8] + 1, end);
                    PyObject *cells = (id && form && deps && misc)
                        ? PyTuple_Pack(4, id, form, deps, misc) : NULL;
                    Py_XDECREF(id);
                    Py_XDECREF(form);
                    Py_XDECREF(deps);
                    Py_XDECREF(misc);
                    if (append_new(out->first, cells)) { status = -1; goto finish; }
                } else {  /* FORM, and (row, MISC) where MISC is not "_" */
                    if (append_new(out->first, form)) { status = -1; goto finish; }
                    if (!(end - tabs[8] == 2 && at(t, tabs[8] + 1) == '_')) {
                        PyObject *misc = PyUnicode_Substring(block, tabs[8] + 1, end);
                        PyObject *pair = misc ? Py_BuildValue("(nN)", row, misc) : NULL;
                        if (append_new(out->second, pair)) { status = -1; goto finish; }
                    }
                }
            }
            size++;
            row++;
        }
        line++;
        i = end + 1;
    }
    if (has_comments && !size) goto finish;  /* comments after the last sentence */
    if (!row) goto finish;  /* no token line */
    if (out && size && append_new(out->sizes, PyLong_FromSsize_t(size))) { status = -1; goto finish; }
    status = 1;
finish:
    Py_XDECREF(sentence);
    return status;
}

static PyObject *split_document(PyObject *self, PyObject *args) {
    PyObject *block;
    Py_ssize_t pos, number;
    if (!PyArg_ParseTuple(args, "Unn", &block, &pos, &number)) return NULL;
    Text t = {PyUnicode_KIND(block), PyUnicode_DATA(block), PyUnicode_GET_LENGTH(block)};
    if (pos < 0 || pos > t.length) {
        PyErr_SetString(PyExc_ValueError, "pos is outside the text");
        return NULL;
    }
    int special = 0;
    int status = scan(block, &t, pos, number, &special, NULL);
    if (status <= 0) return status < 0 ? NULL : Py_NewRef(Py_None);
    Lists out = {PyList_New(0), PyList_New(0), PyList_New(0), PyList_New(0),
                 special ? Py_NewRef(Py_None) : PyList_New(0)};
    PyObject *result = NULL;
    if (out.comments && out.sizes && out.row_lines && out.first && out.second) {
        status = scan(block, &t, pos, number, &special, &out);
        if (status > 0)
            result = Py_BuildValue("(OOOOOO)", out.comments, out.sizes, out.row_lines,
                                   special ? Py_False : Py_True, out.first, out.second);
        else if (status == 0)  /* cannot happen: the first pass accepted the same text */
            PyErr_SetString(PyExc_RuntimeError, "the document changed between passes");
    }
    Py_XDECREF(out.comments);
    Py_XDECREF(out.sizes);
    Py_XDECREF(out.row_lines);
    Py_XDECREF(out.first);
    Py_XDECREF(out.second);
    return result;
}

static PyMethodDef methods[] = {
    {"split_document", split_document, METH_VARARGS,
     "split_document(block, pos, number) -> (comments, sizes, row_lines, words_only, first, "
     "second) or None: a CoNLL-U document's sentences and token rows (see the module)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "scoring._speedups",
    "The compact reader's token-line scan in C (optional; the Python path gives the same).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
