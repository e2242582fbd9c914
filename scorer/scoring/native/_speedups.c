/* scoring.native._speedups: steps of the compact reader in C.
 *
 * `split_document(block, pos, number)` does what `scoring.readers.compact.split_document`
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
 *
 * `entity_mentions(annotated, row_lines, names, unescape, exact_ua)` does what
 * `_DocumentBuilder.annotate` does for the Entity= annotations of a document's nodes (see
 * the function), and returns None for the same kinds of reason.
 *
 * `mention_markables(found, attribute_names, markable_type[, positions, empty_count])` makes
 * what `_DocumentBuilder.markable` makes of each of those mentions, with None in the place of
 * one that is not plain (the Python reading makes that one).
 *
 * `special_nodes(rows, row_lines, sizes)` makes what `_DocumentBuilder.special_rows` makes of
 * the rows of a document with empty nodes or multiword tokens (see the function).
 */
#include "text.h"

#define COLUMNS 10


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

/* The "\n" ending the one-byte token line whose ID ends at tabs[0], with its other eight
 * tabs put in tabs[1..8] in one pass; -1 for another number of columns or no "\n". */
static Py_ssize_t tab_cells(const Text *t, Py_ssize_t *tabs) {
    const Py_UCS1 *s = (const Py_UCS1 *)t->data;
    int n = 1;
    for (Py_ssize_t j = tabs[0] + 1; j < t->length; j++) {
        Py_UCS1 c = s[j];
        if (c == '\t') {
            if (n == COLUMNS - 1) return -1;
            tabs[n++] = j;
        } else if (c == '\n') {
            return n == COLUMNS - 1 ? j : -1;
        }
    }
    return -1;
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
        Py_UCS4 first = at(t, i);
        Py_ssize_t tabs[COLUMNS - 1], end;
        if (t->kind == PyUnicode_1BYTE_KIND && first != '\n' && first != '#') {
            /* a token line of one-byte text: its tabs and its end found in one pass */
            int row_special = 0;
            tabs[0] = plain_id(t, i, t->length, &row_special);
            if (tabs[0] < 0) goto finish;
            end = tab_cells(t, tabs);
            if (end < 0) goto finish;  /* not ten columns, or no "\n" */
            *special |= row_special;
        } else {
            end = PyUnicode_FindChar(block, '\n', i, t->length, 1);
            if (end == -2) { status = -1; goto finish; }
            if (end == -1) goto finish;  /* every line ends with "\n" */
        }
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
            if (t->kind != PyUnicode_1BYTE_KIND) {
                int row_special = 0;
                tabs[0] = plain_id(t, i, end, &row_special);
                if (tabs[0] < 0) goto finish;
                if (!find_tabs(t, tabs, end)) goto finish;
                *special |= row_special;
            }
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

/* --- special_nodes: the nodes of a document with empty nodes or multiword tokens ---------- */

/* scoring.model.LEADING_RANK: the ranks of empty nodes before a sentence's first word start
 * there (tests/scoring/test_speedups.py checks that both are the same) */
#define LEADING_RANK 1000

static PyObject *special_nodes(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *rows, *row_lines, *sizes;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyList_Type, &rows, &PyList_Type, &row_lines,
                          &PyList_Type, &sizes))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(rows);
    if (PyList_GET_SIZE(row_lines) != n) {
        PyErr_SetString(PyExc_ValueError, "special_nodes: one line per row expected");
        return NULL;
    }
    enum { TOKENS, TOKEN_LINES, POSITIONS, EMPTY_COUNT, RANKS, IDS, DEPS, SENTENCES,
           NODE_LINES, ANNOTATED, LISTS };
    PyObject *out[LISTS] = {NULL};
    for (int k = 0; k < LISTS; k++)
        if ((out[k] = PyList_New(0)) == NULL) goto failed;
    Py_ssize_t sentence = 0, left = 0;  /* rows left in the sentence */
    Py_ssize_t words = 0, empty = 0, rank = 0;  /* rank: of the last node, 0 for a word */
    int first = 0;  /* the next node is its sentence's first */
    for (Py_ssize_t r = 0; r < n; r++) {
        while (left == 0) {  /* the next sentence */
            if (sentence >= PyList_GET_SIZE(sizes)) {
                PyErr_SetString(PyExc_ValueError, "special_nodes: sizes shorter than the rows");
                goto failed;
            }
            left = PyLong_AsSsize_t(PyList_GET_ITEM(sizes, sentence++));
            if (left == -1 && PyErr_Occurred()) goto failed;
            if (left < 0) left = 0;
            first = 1;
        }
        left--;
        PyObject *cells = PyList_GET_ITEM(rows, r);
        if (!PyTuple_Check(cells) || PyTuple_GET_SIZE(cells) != 4 ||
                !PyUnicode_Check(PyTuple_GET_ITEM(cells, 0))) {
            PyErr_SetString(PyExc_TypeError, "special_nodes: expected (ID, FORM, DEPS, MISC) rows");
            goto failed;
        }
        PyObject *id = PyTuple_GET_ITEM(cells, 0), *line = PyList_GET_ITEM(row_lines, r);
        Py_ssize_t length = PyUnicode_GET_LENGTH(id);
        int range = PyUnicode_FindChar(id, '-', 0, length, 1) >= 0;
        int is_empty = !range && PyUnicode_FindChar(id, '.', 0, length, 1) >= 0;
        if (range) continue;  /* a multiword token: its words follow on their own rows */
        int first_node = first;
        first = 0;
        Py_ssize_t node = PyList_GET_SIZE(out[IDS]);
        if (is_empty) {
            if (first_node) rank = LEADING_RANK;  /* before the sentence's first word */
            empty++;
            rank++;
        } else {
            rank = 0;
            if (PyList_Append(out[TOKENS], PyTuple_GET_ITEM(cells, 1)) ||
                    PyList_Append(out[TOKEN_LINES], line))
                goto failed;
        }
        if (append_new(out[POSITIONS], PyLong_FromSsize_t(words)) ||
                append_new(out[EMPTY_COUNT], PyLong_FromSsize_t(empty)) ||
                append_new(out[RANKS], PyLong_FromSsize_t(rank)) ||
                PyList_Append(out[IDS], id) ||
                PyList_Append(out[DEPS], PyTuple_GET_ITEM(cells, 2)) ||
                append_new(out[SENTENCES], PyLong_FromSsize_t(sentence - 1)) ||
                PyList_Append(out[NODE_LINES], line))
            goto failed;
        if (!is_empty) words++;
        PyObject *misc = PyTuple_GET_ITEM(cells, 3);
        if (!PyUnicode_Check(misc)) {
            PyErr_SetString(PyExc_TypeError, "special_nodes: MISC must be a str");
            goto failed;
        }
        if (!(PyUnicode_GET_LENGTH(misc) == 1 && PyUnicode_READ_CHAR(misc, 0) == '_') &&
                append_new(out[ANNOTATED], Py_BuildValue("(nO)", node, misc)))
            goto failed;
    }
    PyObject *result = PyTuple_New(LISTS);
    if (result == NULL) goto failed;
    for (int k = 0; k < LISTS; k++) PyTuple_SET_ITEM(result, k, out[k]);
    return result;
failed:
    for (int k = 0; k < LISTS; k++) Py_XDECREF(out[k]);
    return NULL;
}

/* --- entity_mentions: the Entity= annotations of a document's nodes ---------------------- */
/* (`annotated` holds (node, MISC) pairs and `row_lines` each node's line: in a words-only
 * document a node is a row.) */



typedef struct {
    PyObject *names;     /* the header's field names (a tuple) */
    PyObject *empty;     /* "" */
    PyObject *dash;      /* "-" */
    PyObject *ua;        /* "ua": the one field kept escaped */
    PyObject *unescape;  /* the reader's unescape(text) */
    PyObject *entities, *fields, *lines;  /* per mention, in opening order */
    Py_ssize_t *first, *last, count, capacity;
    PyObject *open;      /* entity -> list of the indices of its open mentions */
} Mentions;

/* A mention opened on `row` (line `line`) by the bracket content t[start:end]; closed there
 * too when `single`. 1, 0 (not plain: the Python reading decides) or -1 (error set). */
static int open_mention(Mentions *m, PyObject *misc, const Text *t, Py_ssize_t start,
                        Py_ssize_t end, Py_ssize_t row, PyObject *line, int single) {
    int escaped = find_char(t, '%', start, end) >= 0;
    PyObject *content = PyUnicode_Substring(misc, start, end);
    if (content == NULL) return -1;
    PyObject *values = PyUnicode_Split(content, m->dash, -1);  /* content.split("-") */
    Py_DECREF(content);
    if (values == NULL) return -1;
    PyObject *raw_id = PyList_GET_ITEM(values, 0);
    Py_ssize_t id_length = PyUnicode_GET_LENGTH(raw_id);
    if (id_length == 0 || PyUnicode_FindChar(raw_id, '[', 0, id_length, 1) != -1) {
        Py_DECREF(values);  /* no entity id, or a discontinuous part */
        return 0;
    }
    PyObject *entity = NULL, *fields = PyDict_New();
    if (fields == NULL) { Py_DECREF(values); return -1; }
    /* fields[name] = value (unescaped but for ua) or "" past the values, name by name */
    Py_ssize_t n_names = PyTuple_GET_SIZE(m->names), n_values = PyList_GET_SIZE(values);
    for (Py_ssize_t i = 0; i < n_names; i++) {
        PyObject *name = PyTuple_GET_ITEM(m->names, i), *value;
        if (i >= n_values) {
            value = Py_NewRef(m->empty);
        } else if (escaped) {
            /* unescape(value) is value where it holds no '%' (most values): no call then */
            PyObject *raw = PyList_GET_ITEM(values, i);
            Py_ssize_t percent = PyUnicode_FindChar(raw, '%', 0, PyUnicode_GET_LENGTH(raw), 1);
            if (percent == -2) goto failed;
            int is_ua = percent >= 0 && PyUnicode_Compare(name, m->ua) == 0;
            if (PyErr_Occurred()) goto failed;
            value = percent < 0 || is_ua ? Py_NewRef(raw) : PyObject_CallOneArg(m->unescape, raw);
        } else {
            value = Py_NewRef(PyList_GET_ITEM(values, i));
        }
        if (value == NULL) goto failed;
        int failed = PyDict_SetItem(fields, name, value);
        Py_DECREF(value);
        if (failed) goto failed;
    }
    entity = escaped && PyUnicode_FindChar(raw_id, '%', 0, id_length, 1) != -1
        ? PyObject_CallOneArg(m->unescape, raw_id) : Py_NewRef(raw_id);
    if (entity == NULL) goto failed;
    if (!PyUnicode_Check(entity) || PyUnicode_GET_LENGTH(entity) == 0) {
        Py_DECREF(entity);
        Py_DECREF(fields);
        Py_DECREF(values);
        return 0;
    }
    if (m->count == m->capacity) {
        Py_ssize_t capacity = m->capacity ? 2 * m->capacity : 64;
        Py_ssize_t *first = PyMem_Realloc(m->first, capacity * sizeof(Py_ssize_t));
        if (first == NULL) { PyErr_NoMemory(); goto failed; }
        m->first = first;
        Py_ssize_t *last = PyMem_Realloc(m->last, capacity * sizeof(Py_ssize_t));
        if (last == NULL) { PyErr_NoMemory(); goto failed; }
        m->last = last;
        m->capacity = capacity;
    }
    if (PyList_Append(m->entities, entity) || PyList_Append(m->fields, fields) ||
            PyList_Append(m->lines, line))
        goto failed;
    Py_ssize_t index = m->count++;
    m->first[index] = m->last[index] = row;
    if (!single) {  /* on its entity's stack until a closing names it */
        PyObject *stack = PyDict_GetItemWithError(m->open, entity);
        if (stack == NULL) {
            if (PyErr_Occurred()) goto failed;
            stack = PyList_New(0);
            if (stack == NULL || PyDict_SetItem(m->open, entity, stack)) {
                Py_XDECREF(stack);
                goto failed;
            }
            Py_DECREF(stack);  /* the dict holds it */
        }
        PyObject *position = PyLong_FromSsize_t(index);
        if (append_new(stack, position)) goto failed;
    }
    Py_DECREF(entity);
    Py_DECREF(fields);
    Py_DECREF(values);
    return 1;
failed:
    Py_XDECREF(entity);
    Py_DECREF(fields);
    Py_DECREF(values);
    return -1;
}

/* The closing t[start:end] ("e5" of "e5)") on `row`: 1, 0 or -1 as open_mention. */
static int close_mention(Mentions *m, PyObject *misc, const Text *t, Py_ssize_t start,
                         Py_ssize_t end, Py_ssize_t row) {
    Py_ssize_t dash = find_char(t, '-', start, end);
    Py_ssize_t id_end = dash >= 0 ? dash : end;
    if (find_char(t, '[', start, id_end) >= 0) return 0;  /* a discontinuous part */
    PyObject *entity = PyUnicode_Substring(misc, start, id_end);
    if (entity != NULL && find_char(t, '%', start, id_end) >= 0)
        Py_SETREF(entity, PyObject_CallOneArg(m->unescape, entity));
    if (entity == NULL) return -1;
    PyObject *stack = PyDict_GetItemWithError(m->open, entity);
    Py_DECREF(entity);
    if (stack == NULL) return PyErr_Occurred() ? -1 : 0;  /* nothing open: an error */
    Py_ssize_t size = PyList_GET_SIZE(stack);
    if (size == 0) return 0;
    Py_ssize_t index = PyLong_AsSsize_t(PyList_GET_ITEM(stack, size - 1));
    if (index == -1 && PyErr_Occurred()) return -1;
    if (PyList_SetSlice(stack, size - 1, size, NULL)) return -1;
    m->last[index] = row;
    return 1;
}

/* The brackets of one Entity= value, t[start:end], in order: 1, 0 or -1. */
static int brackets(Mentions *m, PyObject *misc, const Text *t, Py_ssize_t start,
                    Py_ssize_t end, Py_ssize_t row, PyObject *line) {
    if (start == end) return 0;  /* an empty Entity= */
    Py_ssize_t p = start;
    while (p < end) {
        Py_UCS4 c = at(t, p);
        Py_ssize_t q = c == '(' ? p + 1 : p;
        while (q < end && at(t, q) != '(' && at(t, q) != ')') q++;
        int status;
        if (c == '(') {  /* "(content" or "(content)" */
            int single = q < end && at(t, q) == ')';
            status = open_mention(m, misc, t, p + 1, q, row, line, single);
            p = single ? q + 1 : q;
        } else {  /* "content)" */
            if (q == p || q == end || at(t, q) != ')') return 0;
            status = close_mention(m, misc, t, p, q, row);
            p = q + 1;
        }
        if (status <= 0) return status;
    }
    return 1;
}

static PyObject *entity_mentions(PyObject *self, PyObject *args) {
    PyObject *annotated, *row_lines, *names, *unescape;
    int exact_ua;
    if (!PyArg_ParseTuple(args, "O!O!O!Op", &PyList_Type, &annotated, &PyList_Type, &row_lines,
                          &PyTuple_Type, &names, &unescape, &exact_ua))
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(names, i))) {
            PyErr_SetString(PyExc_TypeError, "names: expected a tuple of str");
            return NULL;
        }
    Mentions m = {names, PyUnicode_New(0, 0), PyUnicode_FromString("-"),
                  PyUnicode_FromString("ua"), unescape, PyList_New(0), PyList_New(0),
                  PyList_New(0), NULL, NULL, 0, 0, PyDict_New()};
    PyObject *result = NULL;
    int status = 1;
    if (!m.empty || !m.dash || !m.ua || !m.entities || !m.fields || !m.lines || !m.open) {
        status = -1;
        goto done;
    }
    Py_ssize_t n = PyList_GET_SIZE(annotated);
    for (Py_ssize_t k = 0; k < n && status > 0; k++) {
        PyObject *pair = PyList_GET_ITEM(annotated, k);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "annotated: expected (row, misc) pairs");
            status = -1;
            break;
        }
        Py_ssize_t row = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 0));
        PyObject *misc = PyTuple_GET_ITEM(pair, 1);
        if ((row == -1 && PyErr_Occurred()) || !PyUnicode_Check(misc) || row < 0 ||
                row >= PyList_GET_SIZE(row_lines)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "annotated: a row outside the document");
            status = -1;
            break;
        }
        PyObject *line = PyList_GET_ITEM(row_lines, row);
        Text t = {PyUnicode_KIND(misc), PyUnicode_DATA(misc), PyUnicode_GET_LENGTH(misc)};
        if (find_char(&t, '=', 0, t.length) < 0) continue;  /* no annotation */
        Py_ssize_t item = 0;
        while (item <= t.length && status > 0) {  /* the |-separated items */
            Py_ssize_t bar = find_char(&t, '|', item, t.length);
            Py_ssize_t item_end = bar >= 0 ? bar : t.length;
            Py_ssize_t eq = find_char(&t, '=', item, item_end);
            Py_ssize_t key_end = eq >= 0 ? eq : item_end;
            if (equals(&t, item, key_end, "Entity")) {
                status = brackets(&m, misc, &t, eq >= 0 ? eq + 1 : item_end, item_end, row,
                                  line);
            } else if (equals(&t, item, key_end, "DiscourseDeixis") ||
                       (!exact_ua && (equals(&t, item, key_end, "SplitAnte") ||
                                      equals(&t, item, key_end, "Bridge")))) {
                status = 0;  /* another layer, or links: the Python reading */
            }  /* (with exact ua records, SplitAnte= and Bridge= only inform) */
            item = item_end + 1;
        }
    }
    if (status > 0) {  /* every mention closed */
        PyObject *entity, *stack;
        Py_ssize_t position = 0;
        while (PyDict_Next(m.open, &position, &entity, &stack))
            if (PyList_GET_SIZE(stack)) { status = 0; break; }
    }
    if (status > 0) {
        result = PyList_New(m.count);
        for (Py_ssize_t i = 0; result && i < m.count; i++) {
            PyObject *record = Py_BuildValue("(OOOnn)", PyList_GET_ITEM(m.entities, i),
                                             PyList_GET_ITEM(m.fields, i),
                                             PyList_GET_ITEM(m.lines, i), m.first[i], m.last[i]);
            if (record == NULL) Py_CLEAR(result);
            else PyList_SET_ITEM(result, i, record);
        }
    } else if (status == 0) {
        result = Py_NewRef(Py_None);
    }
done:
    Py_XDECREF(m.empty);
    Py_XDECREF(m.dash);
    Py_XDECREF(m.ua);
    Py_XDECREF(m.entities);
    Py_XDECREF(m.fields);
    Py_XDECREF(m.lines);
    Py_XDECREF(m.open);
    PyMem_Free(m.first);
    PyMem_Free(m.last);
    return result;
}

/* --- mention_markables: the markables of the mentions entity_mentions read --------------- */

/* The value of a plain number (ASCII digits only, at most nine), or -1. */
static long plain_number(PyObject *text, Py_ssize_t start, Py_ssize_t end) {
    if (end <= start || end - start > 9) return -1;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(text);
    long value = 0;
    for (Py_ssize_t i = start; i < end; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        value = value * 10 + (s[i] - '0');
    }
    return value;
}

/* fields[name] where it is a non-empty str, else NULL (borrowed; no error set). */
static PyObject *field(PyObject *fields, PyObject *name) {
    PyObject *value = PyDict_GetItemWithError(fields, name);
    if (value == NULL || !PyUnicode_Check(value) || PyUnicode_GET_LENGTH(value) == 0)
        return NULL;
    return value;
}

/* The pair (text[a:b], text[c:d]). */
static PyObject *text_pair(PyObject *text, Py_ssize_t a, Py_ssize_t b, Py_ssize_t c,
                           Py_ssize_t d) {
    PyObject *first = PyUnicode_Substring(text, a, b);
    PyObject *second = first ? PyUnicode_Substring(text, c, d) : NULL;
    PyObject *pair = second ? PyTuple_Pack(2, first, second) : NULL;
    Py_XDECREF(first);
    Py_XDECREF(second);
    return pair;
}

/* list[i] as a Py_ssize_t (an int list's item): 0, or -1 with an error set. */
static int item_at(PyObject *list, Py_ssize_t i, Py_ssize_t *out) {
    if (i < 0 || i >= PyList_GET_SIZE(list)) {
        PyErr_SetString(PyExc_IndexError, "mention_markables: a node outside the document");
        return -1;
    }
    *out = PyLong_AsSsize_t(PyList_GET_ITEM(list, i));
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* One mention's (markable, element_of, bridges), as `_DocumentBuilder.markable` gives them for
 * a mention of one part: 1, 0 (not plain: an empty node inside it, an escaped ua value, a head
 * or min that is not a plain number, a head outside it) or -1 (error set). `first` and `last`
 * are nodes; `positions` (node -> word position) and `empty_count` (empty nodes among nodes
 * 0..i) are NULL in a words-only document, where a node is its word position. */
static int mention_markable(PyObject *record, Py_ssize_t order, PyObject *names,
                            PyTypeObject *type, PyObject *keys[4], PyObject *positions,
                            PyObject *empty_count, PyObject **out) {
    PyObject *entity, *fields, *line;
    Py_ssize_t first, last;
    if (!PyArg_ParseTuple(record, "UO!Onn", &entity, &PyDict_Type, &fields, &line, &first,
                          &last))
        return -1;
    Py_ssize_t start = first, end = last;  /* its words' positions */
    if (empty_count != NULL) {  /* words only between its first and last node? */
        Py_ssize_t before = 0, through;
        if ((first > 0 && item_at(empty_count, first - 1, &before)) ||
                item_at(empty_count, last, &through))
            return -1;
        if (through != before) return 0;  /* an empty node inside: zeros, parts */
    }
    if (positions != NULL && (item_at(positions, first, &start) || item_at(positions, last, &end)))
        return -1;
    PyObject *head = Py_None, *min_span = NULL, *markable_id = NULL, *attributes = NULL;
    PyObject *element_of = NULL, *bridges = NULL, *result = NULL;
    int status = -1;
    PyObject *text = field(fields, keys[0]);  /* head */
    if (PyErr_Occurred()) return -1;
    if (text != NULL) {
        long h = PyUnicode_IS_ASCII(text)
            ? plain_number(text, 0, PyUnicode_GET_LENGTH(text)) : -1;
        if (h < 1 || h > last - first + 1) return 0;  /* not a plain number, or outside */
        Py_ssize_t word = first + h - 1;  /* its head node, a word */
        if (positions != NULL && item_at(positions, word, &word)) return -1;
        head = PyLong_FromSsize_t(word);
        if (head == NULL) return -1;
    } else {
        Py_INCREF(head);
    }
    text = field(fields, keys[1]);  /* min: "I" or "I,…,J" */
    if (PyErr_Occurred()) goto done;
    if (text != NULL) {
        if (!PyUnicode_IS_ASCII(text)) { status = 0; goto done; }
        Py_ssize_t n = PyUnicode_GET_LENGTH(text), start = 0;
        const Py_UCS1 *s = PyUnicode_1BYTE_DATA(text);
        long bound[2] = {-1, -1};
        for (Py_ssize_t i = 0; i <= n; i++) {
            if (i < n && s[i] != ',') continue;
            long value = plain_number(text, start, i);
            if (value < 0) { status = 0; goto done; }
            if (bound[0] < 0) bound[0] = value;
            bound[1] = value;
            start = i + 1;
        }
        min_span = int_pair(bound[0] - 1, bound[1] - 1);
    } else if (head != Py_None) {
        min_span = PyTuple_Pack(2, head, head);
    } else {
        min_span = Py_NewRef(Py_None);
    }
    if (min_span == NULL) goto done;
    attributes = PyList_New(0);
    if (attributes == NULL) goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i), *value = field(fields, name);
        if (PyErr_Occurred()) goto done;
        if (value != NULL && append_new(attributes, PyTuple_Pack(2, name, value))) goto done;
    }
    element_of = PyList_New(0);
    if (element_of == NULL) goto done;
    PyObject *ua = field(fields, keys[2]);
    if (PyErr_Occurred()) goto done;
    if (ua != NULL) {
        Text t = {PyUnicode_KIND(ua), PyUnicode_DATA(ua), PyUnicode_GET_LENGTH(ua)};
        if (find_char(&t, '%', 0, t.length) >= 0) { status = 0; goto done; }  /* escaped */
        bridges = PyList_New(0);
        if (bridges == NULL) goto done;
        for (Py_ssize_t start = 0; start <= t.length;) {  /* KEY:VALUE,KEY:VALUE */
            Py_ssize_t comma = find_char(&t, ',', start, t.length);
            Py_ssize_t end = comma >= 0 ? comma : t.length;
            Py_ssize_t colon = find_char(&t, ':', start, end);
            Py_ssize_t key_end = colon >= 0 ? colon : end, value = colon >= 0 ? colon + 1 : end;
            if (equals(&t, start, key_end, "ElementOf")) {
                if (append_new(element_of, PyUnicode_Substring(ua, value, end))) goto done;
            } else if (equals(&t, start, key_end, "Bridge")) {  /* ANCHOR/REL */
                Py_ssize_t slash = find_char(&t, '/', value, end);
                if (append_new(bridges, text_pair(ua, value, slash >= 0 ? slash : end,
                                                  slash >= 0 ? slash + 1 : end, end)))
                    goto done;
            } else if (key_end > start) {
                if (append_new(attributes, text_pair(ua, start, key_end, value, end)))
                    goto done;
            }
            if (comma < 0) break;
            start = comma + 1;
        }
    } else {
        bridges = PyTuple_New(0);
        if (bridges == NULL) goto done;
    }
    markable_id = field(fields, keys[3]);  /* mid, else m<order + 1> */
    if (PyErr_Occurred()) goto done;
    markable_id = markable_id != NULL ? Py_NewRef(markable_id)
                                      : PyUnicode_FromFormat("m%zd", order + 1);
    if (markable_id == NULL) goto done;
    PyObject *attribute_tuple = PyList_AsTuple(attributes);
    PyObject *markable = attribute_tuple == NULL ? NULL
        : plain_markable(type, markable_id, entity, start, end, line, min_span, head, NULL,
                         attribute_tuple);  /* element_of: filled later by the reader */
    Py_XDECREF(attribute_tuple);
    PyObject *element_tuple = markable ? PyList_AsTuple(element_of) : NULL;
    if (element_tuple == NULL) {
        Py_XDECREF(markable);
        goto done;
    }
    result = PyTuple_Pack(3, markable, element_tuple, bridges);
    Py_DECREF(markable);
    Py_DECREF(element_tuple);
    if (result == NULL) goto done;
    *out = result;
    status = 1;
done:
    Py_XDECREF(head);
    Py_XDECREF(min_span);
    Py_XDECREF(markable_id);
    Py_XDECREF(attributes);
    Py_XDECREF(element_of);
    Py_XDECREF(bridges);
    return status;
}

static PyObject *mention_markables(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *found, *names, *type_object, *positions = Py_None, *empty_count = Py_None;
    if (!PyArg_ParseTuple(args, "O!O!O|OO", &PyList_Type, &found, &PyTuple_Type, &names,
                          &type_object, &positions, &empty_count))
        return NULL;
    if (!is_record_type(type_object)) return NULL;
    if ((positions != Py_None && !PyList_Check(positions)) ||
            (empty_count != Py_None && !PyList_Check(empty_count))) {
        PyErr_SetString(PyExc_TypeError, "positions, empty_count: expected lists of int or None");
        return NULL;
    }
    PyObject *keys[4] = {PyUnicode_InternFromString("head"), PyUnicode_InternFromString("min"),
                         PyUnicode_InternFromString("ua"), PyUnicode_InternFromString("mid")};
    Py_ssize_t n = PyList_GET_SIZE(found);
    PyObject *result = keys[0] && keys[1] && keys[2] && keys[3] ? PyList_New(n) : NULL;
    for (Py_ssize_t i = 0; result != NULL && i < n; i++) {
        PyObject *made = NULL;
        int status = mention_markable(PyList_GET_ITEM(found, i), i, names,
                                      (PyTypeObject *)type_object, keys,
                                      positions == Py_None ? NULL : positions,
                                      empty_count == Py_None ? NULL : empty_count, &made);
        if (status < 0) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, i, status ? made : Py_NewRef(Py_None));  /* None: Python's */
    }
    for (int k = 0; k < 4; k++) Py_XDECREF(keys[k]);
    return result;
}

static inline int hex_value(Py_UCS4 c) {
    if (c >= '0' && c <= '9') return (int)(c - '0');
    if (c >= 'a' && c <= 'f') return (int)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return (int)(c - 'A' + 10);
    return -1;
}

/* unescape(value): compact.unescape in C, each "%XX" (two hex digits) made the character
 * U+00XX, left to right and not overlapping, as re.sub(r"%([0-9A-Fa-f]{2})", ...) does;
 * value itself where it holds no '%'. */
static PyObject *unescape(PyObject *Py_UNUSED(self), PyObject *value) {
    if (!PyUnicode_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "unescape: expected a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(value);
    Py_ssize_t first = PyUnicode_FindChar(value, '%', 0, n, 1);
    if (first == -2) return NULL;
    if (first == -1) return Py_NewRef(value);
    Text t = {PyUnicode_KIND(value), PyUnicode_DATA(value), n};
    Py_UCS4 *out = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(n ? n : 1));
    if (out == NULL) return PyErr_NoMemory();
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = at(&t, i);
        int high, low;
        if (c == '%' && i + 2 < n && (high = hex_value(at(&t, i + 1))) >= 0 &&
                (low = hex_value(at(&t, i + 2))) >= 0) {
            out[k++] = (Py_UCS4)(high * 16 + low);
            i += 2;
        } else {
            out[k++] = c;
        }
    }
    PyObject *result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, k);
    PyMem_Free(out);
    return result;
}

static PyMethodDef methods[] = {
    {"mention_markables", mention_markables, METH_VARARGS,
     "mention_markables(found, attribute_names, markable_type[, positions, empty_count]) -> "
     "[(markable, element_of, bridges) or None]: what `_DocumentBuilder.markable` makes of the "
     "mentions entity_mentions read (None: one that is not plain, left to it)."},
    {"split_document", split_document, METH_VARARGS,
     "split_document(block, pos, number) -> (comments, sizes, row_lines, words_only, first, "
     "second) or None: a CoNLL-U document's sentences and token rows (see the module)."},
    {"special_nodes", special_nodes, METH_VARARGS,
     "special_nodes(rows, row_lines, sizes) -> (tokens, token_lines, positions, empty_count, "
     "ranks, ids, deps, sentences, node_lines, annotated): what "
     "`_DocumentBuilder.special_rows` makes of a document's (ID, FORM, DEPS, MISC) rows, with "
     "each node's line and the (node, MISC) of its annotated nodes."},
    {"unescape", unescape, METH_O,
     "unescape(value) -> value with each %XX (two hex digits) made the character U+00XX."},
    {"entity_mentions", entity_mentions, METH_VARARGS,
     "entity_mentions(annotated, row_lines, names, unescape, exact_ua) -> [(entity, fields, "
     "line, first, last)] "
     "or None: the identity mentions of a document's Entity= annotations, on its nodes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "scoring.native._speedups",
    "Steps of the compact reader in C (optional; the Python path gives the same).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
