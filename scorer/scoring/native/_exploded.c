/* scoring.native._exploded: the exploded (CONLL-UA) reader's token lines in C, and the
 * line count of its byte scans (`newlines`).
 *
 * `read_document(text, pos, number, settings)` reads what `Reader.lines` in
 * scoring/readers/exploded/reader.py reads, line by line in Python, for the rest of one document:
 * the lines of `text` from offset `pos` (line `number`) to its end, which the reader has cut
 * before the next `# newdoc` line. `settings` is
 *
 *     (low, high, check1, check2, check3, identity, dd, bridging, guard, mirror, read_min,
 *      check_min, markable_type)
 *
 * as `Doc` decides them: a token line is a plain word when it has between `low` and `high`
 * whitespace-separated cells, '_' in the columns `check1..3` and a number as its ID; the
 * annotation columns are `identity`, `dd` (discourse deixis) and `bridging`, -1 where not read;
 * `guard` is the column before the first annotation column (-1: none); `mirror` the first
 * declared column after them (-1: none), which must be '_' on a plain line that has fewer
 * than `high` cells (`Doc.unopened`). It returns
 *
 *     (tokens, token_lines, identity, discourse_deixis, bridging)
 *
 *   tokens            the word forms (interned), a list
 *   token_lines       the file line of each word, a list
 *   identity, discourse_deixis
 *                     the layer's markables as `markable_type` records, in opening order, as
 *                     `Layer.markables` builds them (min_span from Min= when `read_min`)
 *   bridging          (line, cell) of every BRIDGING cell that is not '_', for the Python
 *                     reading to parse
 *
 * or None where the document holds anything that is not plain: a comment line the reader
 * acts on (`newdoc`, `global.`, `#begin`), a token line with another number of cells, a zero
 * (an ID with '.'), an annotation cell in the guard column, a line that leaves out trailing
 * columns with anything from the mirror column on, a line that leaves out trailing columns
 * where another writes them all with '_' in the last, a named or unmatched closing, a
 * malformed opening, a MarkableID opened twice, a markable never closed, a Min= the Python
 * reading would report or that is not ASCII, a NUL character or a line over `MAX_LINE`
 * characters. The Python reading then reads the document, decides, and words every error, so
 * this code holds no message and is never more lenient than it. Cells are split on what
 * `str.split()` splits on, so both readings see the same cells
 * (tests/scoring/test_speedups.py checks the two give the same documents).
 */
#define _GNU_SOURCE  /* memmem */
#include "text.h"

#define MAX_LINE 100000  /* exploded.MAX_LINE_CHARACTERS */
#define MAX_CELLS 64     /* cells remembered per line; the columns read must come before */


/* str.split()'s whitespace */
static inline int is_space(Py_UCS4 c) {
    return c < 128 ? (c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f))
                   : Py_UNICODE_ISSPACE(c);
}

/* What a one-byte character is to split_cells: SPACE (as str.split() reads it), NUL, or 0. */
enum { SPACE = 1, NUL = 2 };
static unsigned char latin1[256];

static int is_blank(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    return end - start == 1 && at(t, start) == '_';
}

/* str.isdigit() of a non-empty cell */
static int all_digits(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = at(t, i);
        if (c < 128 ? !(c >= '0' && c <= '9') : !Py_UNICODE_ISDIGIT(c)) return 0;
    }
    return end > start;
}


static int contains(const Text *t, Py_ssize_t start, Py_ssize_t end, const char *word) {
    Py_ssize_t n = (Py_ssize_t)strlen(word);
    if (t->kind == PyUnicode_1BYTE_KIND)
        return memmem((const char *)t->data + start, end - start, word, n) != NULL;
    for (Py_ssize_t i = start; i + n <= end; i++) {
        Py_ssize_t k = 0;
        while (k < n && at(t, i + k) == (Py_UCS4)(unsigned char)word[k]) k++;
        if (k == n) return 1;
    }
    return 0;
}


/* One markable being read. */
typedef struct {
    PyObject *markable_id, *entity_id, *line, *min_text, *element_of;
    Py_ssize_t start, end;  /* end -1 while open */
} Open;

typedef struct {
    Open *open;
    Py_ssize_t count, capacity;
    Py_ssize_t *stack;  /* indices of the open markables, innermost last */
    Py_ssize_t depth, stack_capacity;
    PyObject *ids;      /* MarkableID -> anything: the ids opened so far */
} Layer;

typedef struct {
    const Text *t;
    PyObject *text;
    int read_min;
} Reading;

static void layer_clear(Layer *layer) {
    for (Py_ssize_t i = 0; i < layer->count; i++) {
        Open *o = &layer->open[i];
        Py_XDECREF(o->markable_id);
        Py_XDECREF(o->entity_id);
        Py_XDECREF(o->line);
        Py_XDECREF(o->min_text);
        Py_XDECREF(o->element_of);
    }
    PyMem_Free(layer->open);
    PyMem_Free(layer->stack);
    Py_XDECREF(layer->ids);
}

/* `element_of.split(",")` without its empty pieces, as a tuple ("" gives ()). */
static PyObject *element_of_tuple(PyObject *value) {
    if (PyUnicode_GET_LENGTH(value) == 0) return PyTuple_New(0);
    PyObject *comma = PyUnicode_FromString(",");
    if (comma == NULL) return NULL;
    PyObject *pieces = PyUnicode_Split(value, comma, -1);
    Py_DECREF(comma);
    if (pieces == NULL) return NULL;
    PyObject *kept = PyList_New(0);
    for (Py_ssize_t i = 0; kept && i < PyList_GET_SIZE(pieces); i++) {
        PyObject *piece = PyList_GET_ITEM(pieces, i);
        if (PyUnicode_GET_LENGTH(piece) && PyList_Append(kept, piece)) Py_CLEAR(kept);
    }
    Py_DECREF(pieces);
    if (kept == NULL) return NULL;
    PyObject *result = PyList_AsTuple(kept);
    Py_DECREF(kept);
    return result;
}

/* The opening body t[start:end] ("EntityID=1|MarkableID=m_1|…") at `position`, on line
 * `line`: 1, 0 (not plain: the Python reading decides) or -1 (error set). As
 * `Layer.open`: a later NAME= of the same name wins. */
static int open_markable(Reading *r, Layer *layer, Py_ssize_t start, Py_ssize_t end,
                         Py_ssize_t position, PyObject *line, int single) {
    const Text *t = r->t;
    Py_ssize_t value[4][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
    static const char *const scored[4] = {"MarkableID", "EntityID", "Min", "ElementOf"};
    Py_ssize_t part = start;
    for (;;) {  /* the |-separated NAME=VALUE parts */
        Py_ssize_t bar = find_char(t, '|', part, end);
        Py_ssize_t part_end = bar >= 0 ? bar : end;
        Py_ssize_t eq = find_char(t, '=', part, part_end);
        if (eq <= part) return 0;  /* no '=', or no name */
        for (int k = 0; k < 4; k++)
            if (equals(t, part, eq, scored[k])) {
                value[k][0] = eq + 1;
                value[k][1] = part_end;
            }
        if (bar < 0) break;
        part = bar + 1;
    }
    if (value[0][0] < 0 || value[0][0] == value[0][1]) return 0;  /* no MarkableID */
    if (value[1][0] < 0 || value[1][0] == value[1][1]) return 0;  /* no EntityID */
    PyObject *markable_id = PyUnicode_Substring(r->text, value[0][0], value[0][1]);
    if (markable_id == NULL) return -1;
    int seen = PyDict_Contains(layer->ids, markable_id);
    if (seen != 0) {  /* opened before: a discontinuous part or an error */
        Py_DECREF(markable_id);
        return seen < 0 ? -1 : 0;
    }
    if (PyDict_SetItem(layer->ids, markable_id, Py_None)) {
        Py_DECREF(markable_id);
        return -1;
    }
    if (layer->count == layer->capacity) {
        Py_ssize_t capacity = layer->capacity ? 2 * layer->capacity : 64;
        Open *grown = PyMem_Realloc(layer->open, capacity * sizeof(Open));
        if (grown == NULL) {
            Py_DECREF(markable_id);
            PyErr_NoMemory();
            return -1;
        }
        layer->open = grown;
        layer->capacity = capacity;
    }
    Open *o = &layer->open[layer->count++];
    memset(o, 0, sizeof(Open));
    o->markable_id = markable_id;
    o->line = Py_NewRef(line);
    o->start = position;
    o->end = single ? position : -1;
    o->entity_id = PyUnicode_Substring(r->text, value[1][0], value[1][1]);
    if (o->entity_id == NULL) return -1;
    if (r->read_min && value[2][0] >= 0) {
        o->min_text = PyUnicode_Substring(r->text, value[2][0], value[2][1]);
        if (o->min_text == NULL) return -1;
    }
    if (value[3][0] >= 0) {
        PyObject *text = PyUnicode_Substring(r->text, value[3][0], value[3][1]);
        if (text == NULL) return -1;
        o->element_of = element_of_tuple(text);
        Py_DECREF(text);
    } else {
        o->element_of = PyTuple_New(0);
    }
    if (o->element_of == NULL) return -1;
    if (!single) {
        if (layer->depth == layer->stack_capacity) {
            Py_ssize_t capacity = layer->stack_capacity ? 2 * layer->stack_capacity : 16;
            Py_ssize_t *grown = PyMem_Realloc(layer->stack, capacity * sizeof(Py_ssize_t));
            if (grown == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            layer->stack = grown;
            layer->stack_capacity = capacity;
        }
        layer->stack[layer->depth++] = layer->count - 1;
    }
    return 1;
}

/* One bracket cell t[start:end] of a layer at `position`: 1, 0 or -1. As `Layer.cell` for a
 * word: closings ')' first, each closing the innermost open markable, then openings '(…'
 * or '(…)'. */
static int cell(Reading *r, Layer *layer, Py_ssize_t start, Py_ssize_t end,
                Py_ssize_t position, PyObject *line) {
    const Text *t = r->t;
    Py_ssize_t p = start;
    while (p < end && at(t, p) == ')') {
        if (layer->depth == 0) return 0;  /* nothing open */
        layer->open[layer->stack[--layer->depth]].end = position;
        p++;
    }
    if (p == end) return 1;
    if (at(t, p) != '(') return 0;  /* a named closing, or not a bracket */
    while (p < end) {  /* p at a '(' */
        Py_ssize_t next = find_char(t, '(', p + 1, end);
        Py_ssize_t piece_end = next >= 0 ? next : end;
        int single = at(t, piece_end - 1) == ')' && piece_end - 1 > p;
        Py_ssize_t body_end = single ? piece_end - 1 : piece_end;
        if (find_char(t, ')', p + 1, body_end) >= 0) return 0;
        int status = open_markable(r, layer, p + 1, body_end, position, line, single);
        if (status <= 0) return status;
        p = piece_end;
    }
    return 1;
}

/* Min=TEXT as `Layer.min_span` reads it for a document of `words` words: 1 with *span set (or
 * Py_None), 0 where the Python reading decides (non-ASCII text; a bad Min when it is checked),
 * -1 on error. */
static int min_span(PyObject *text, Py_ssize_t words, int check_min, PyObject **out) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (!PyUnicode_IS_ASCII(text)) return 0;
    const char *s = (const char *)PyUnicode_DATA(text);
    long long bound[2] = {0, 0};
    int parts = 0, ok = 1;
    Py_ssize_t i = 0;
    for (; parts < 2; parts++) {  /* "I" or "I,J" */
        Py_ssize_t digits = 0;
        while (i < n && s[i] != ',') {
            if (s[i] < '0' || s[i] > '9') ok = 0;
            else if (bound[parts] < 1000000000000LL) bound[parts] = bound[parts] * 10 + (s[i] - '0');
            digits++;
            i++;
        }
        if (digits == 0) ok = 0;
        if (i == n) { parts++; break; }
        i++;  /* the comma */
        if (parts == 1) ok = 0;  /* a second comma: "1,2,3" */
    }
    if (parts == 1) bound[1] = bound[0];
    if (ok && 1 <= bound[0] && bound[0] <= bound[1] && bound[1] <= words) {
        *out = int_pair((Py_ssize_t)(bound[0] - 1), (Py_ssize_t)(bound[1] - 1));
        return *out == NULL ? -1 : 1;
    }
    if (check_min) return 0;
    *out = Py_NewRef(Py_None);
    return 1;
}

/* The layer's markables as `Layer.markables` builds them: 1 with *out set, 0, or -1. */
static int markables(Layer *layer, PyTypeObject *type, Py_ssize_t words, int check_min,
                     PyObject **out) {
    PyObject *built = PyTuple_New(layer->count);
    if (built == NULL) return -1;
    for (Py_ssize_t i = 0; i < layer->count; i++) {
        Open *o = &layer->open[i];
        PyObject *minimum;
        if (o->end < 0) {  /* never closed */
            Py_DECREF(built);
            return 0;
        }
        if (o->min_text == NULL) {
            minimum = Py_NewRef(Py_None);
        } else {
            int status = min_span(o->min_text, words, check_min, &minimum);
            if (status <= 0) {
                Py_DECREF(built);
                return status;
            }
        }
        PyObject *record = plain_markable(type, o->markable_id, o->entity_id, o->start, o->end,
                                          o->line, minimum, Py_None, o->element_of, NULL);
        Py_DECREF(minimum);
        if (record == NULL) {
            Py_DECREF(built);
            return -1;
        }
        PyTuple_SET_ITEM(built, i, record);
    }
    *out = built;
    return 1;
}

/* The cells of the line t[start:end]: their bounds (the first MAX_CELLS) and their number,
 * or -1 where the line holds a NUL character. */
static Py_ssize_t split_cells(const Text *t, Py_ssize_t start, Py_ssize_t end,
                              Py_ssize_t (*cells)[2]) {
    Py_ssize_t n = 0, i = start;
    if (t->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *s = (const Py_UCS1 *)t->data;
        /* the usual line: cells between single tabs, no other white space */
        Py_ssize_t cell_start = i;
        for (; i < end; i++) {
            Py_UCS1 c = s[i];
            if (c == '\t') {
                if (i == cell_start) break;  /* an empty cell: two tabs, or a leading one */
                if (n < MAX_CELLS) {
                    cells[n][0] = cell_start;
                    cells[n][1] = i;
                }
                n++;
                cell_start = i + 1;
            } else if (latin1[c]) {
                break;  /* another space, or a NUL */
            }
        }
        if (i == end) {
            if (end > cell_start) {
                if (n < MAX_CELLS) {
                    cells[n][0] = cell_start;
                    cells[n][1] = end;
                }
                n++;
            }
            return n;
        }
        n = 0;  /* not the usual line: split it as str.split() does */
        i = start;
        while (i < end) {
            while (i < end && latin1[s[i]] == SPACE) i++;
            if (i == end) break;
            Py_ssize_t cell_start = i;
            /* s[end] is the line's '\n' or the text's terminating NUL: no bound needed */
            while (!latin1[s[i]]) i++;
            if (i < end && latin1[s[i]] == NUL) return -1;
            if (n < MAX_CELLS) {
                cells[n][0] = cell_start;
                cells[n][1] = i;
            }
            n++;
        }
        return n;
    }
    while (i < end) {
        while (i < end && is_space(at(t, i))) i++;
        if (i == end) break;
        Py_ssize_t cell_start = i;
        while (i < end && !is_space(at(t, i))) {
            if (at(t, i) == 0) return -1;
            i++;
        }
        if (n < MAX_CELLS) {
            cells[n][0] = cell_start;
            cells[n][1] = i;
        }
        n++;
    }
    return n;
}

static Py_ssize_t line_end(const Text *t, Py_ssize_t start) {
    if (t->kind == PyUnicode_1BYTE_KIND) {
        const char *s = (const char *)t->data;
        const char *nl = memchr(s + start, '\n', t->length - start);
        return nl ? nl - s : t->length;
    }
    Py_ssize_t found = find_char(t, '\n', start, t->length);
    return found >= 0 ? found : t->length;
}

/* The word forms of one document, each made (and interned) once: an open-addressing table
 * over the text's bytes (one-byte text; other text makes every form anew). */
typedef struct {
    Py_ssize_t start, length;
    Py_hash_t hash;
    PyObject *form;
} Form;

typedef struct {
    Form *slots;
    Py_ssize_t capacity, count;  /* capacity: a power of two, or 0 for no table */
} Forms;

static void forms_clear(Forms *f) {
    for (Py_ssize_t i = 0; i < f->capacity; i++) Py_XDECREF(f->slots[i].form);
    PyMem_Free(f->slots);
}

static PyObject *new_form(PyObject *text, Py_ssize_t start, Py_ssize_t end) {
    PyObject *form = PyUnicode_Substring(text, start, end);
    if (form != NULL) PyUnicode_InternInPlace(&form);
    return form;
}

static int forms_grow(Forms *f) {
    Py_ssize_t capacity = f->capacity ? 2 * f->capacity : 256;
    Form *slots = PyMem_Calloc(capacity, sizeof(Form));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < f->capacity; i++) {
        Form *old = &f->slots[i];
        if (old->form == NULL) continue;
        Py_ssize_t k = (Py_ssize_t)((size_t)old->hash & (size_t)(capacity - 1));
        while (slots[k].form != NULL) k = (k + 1) & (capacity - 1);
        slots[k] = *old;
    }
    PyMem_Free(f->slots);
    f->slots = slots;
    f->capacity = capacity;
    return 0;
}

/* A new reference to the interned form t[start:end]. */
static PyObject *form_at(Forms *f, PyObject *text, const Text *t, Py_ssize_t start,
                         Py_ssize_t end) {
    if (t->kind != PyUnicode_1BYTE_KIND) return new_form(text, start, end);
    const unsigned char *s = (const unsigned char *)t->data;
    size_t hash = 14695981039346656037ULL;  /* FNV-1a */
    for (Py_ssize_t i = start; i < end; i++) hash = (hash ^ s[i]) * 1099511628211ULL;
    if (2 * (f->count + 1) > f->capacity && forms_grow(f)) return NULL;
    Py_ssize_t length = end - start, mask = f->capacity - 1;
    Py_ssize_t k = (Py_ssize_t)(hash & (size_t)mask);
    for (;; k = (k + 1) & mask) {
        Form *slot = &f->slots[k];
        if (slot->form == NULL) break;
        if (slot->hash == (Py_hash_t)hash && slot->length == length &&
                memcmp(s + slot->start, s + start, length) == 0)
            return Py_NewRef(slot->form);
    }
    PyObject *form = new_form(text, start, end);
    if (form == NULL) return NULL;
    f->slots[k] = (Form){start, length, (Py_hash_t)hash, Py_NewRef(form)};
    f->count++;
    return form;
}


static PyObject *read_document(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text;
    Py_ssize_t pos, number;
    Py_ssize_t low, high, check[3], identity, dd, bridging, guard, mirror;
    int read_min, check_min;
    PyObject *type_object;
    if (!PyArg_ParseTuple(args, "Unn(nnnnnnnnnnppO)", &text, &pos, &number, &low, &high,
                          &check[0], &check[1], &check[2], &identity, &dd, &bridging, &guard,
                          &mirror, &read_min, &check_min, &type_object))
        return NULL;
    if (!is_record_type(type_object)) return NULL;
    Py_ssize_t columns[7] = {check[0], check[1], check[2], identity, dd, bridging, guard};
    for (int k = 0; k < 7; k++)
        if (columns[k] >= MAX_CELLS || columns[k] >= low || (k < 3 && columns[k] < 0)) {
            PyErr_SetString(PyExc_ValueError, "settings: a column outside the cells read");
            return NULL;
        }
    if (mirror >= MAX_CELLS || (mirror >= 0 && mirror < low)) {
        PyErr_SetString(PyExc_ValueError, "settings: the mirror column among the cells read");
        return NULL;
    }
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    if (pos < 0 || pos > t.length) {
        PyErr_SetString(PyExc_ValueError, "pos: outside the text");
        return NULL;
    }
    Reading r = {&t, text, read_min};
    Layer layers[2];
    memset(layers, 0, sizeof(layers));
    Forms forms = {NULL, 0, 0};
    PyObject *tokens = PyList_New(0), *lines = PyList_New(0), *bridges = PyList_New(0);
    PyObject *result = NULL, *built[2] = {NULL, NULL};
    layers[0].ids = PyDict_New();
    layers[1].ids = PyDict_New();
    int status = tokens && lines && bridges && layers[0].ids && layers[1].ids ? 1 : -1;
    Py_ssize_t cells[MAX_CELLS][2];
    Py_ssize_t layer_column[2] = {identity, dd};
    /* the first line that leaves out trailing columns and the first that writes them all
     * with '_' in the last: both in one document is the Python reading's to report
     * (`Doc.check_shape`) */
    Py_ssize_t short_line = 0, padded_line = 0;
    for (Py_ssize_t start = pos; status > 0 && start < t.length; number++) {
        Py_ssize_t end = line_end(&t, start), next = end + 1;
        Py_ssize_t n = end - start > MAX_LINE ? -1 : split_cells(&t, start, end, cells);
        if (n < 0) {  /* too long, or a NUL character */
            status = 0;
            break;
        }
        if (n == 0) {  /* a blank line: the end of a sentence */
            start = next;
            continue;
        }
        if (at(&t, cells[0][0]) == '#') {  /* a comment the reader only keeps for the layout */
            if (contains(&t, start, end, "newdoc") || contains(&t, start, end, "global.") ||
                    contains(&t, start, end, "#begin"))
                status = 0;
            start = next;
            continue;
        }
        int in_range = low <= n && n <= high;
        if (n < high) {
            if (!short_line) short_line = number;
        } else if (n == high && !padded_line &&
                   (n > MAX_CELLS || is_blank(&t, cells[n - 1][0], cells[n - 1][1]))) {
            padded_line = number;  /* (beyond the cells kept: the Python reading decides) */
        }
        /* a line that leaves out trailing columns and keeps the mirror column */
        int short_mirrored = mirror >= 0 && n < high && n > mirror;
        int plain = in_range && is_blank(&t, cells[check[0]][0], cells[check[0]][1])
            && is_blank(&t, cells[check[1]][0], cells[check[1]][1])
            && is_blank(&t, cells[check[2]][0], cells[check[2]][1])
            && all_digits(&t, cells[0][0], cells[0][1])
            && (!short_mirrored || is_blank(&t, cells[mirror][0], cells[mirror][1]));
        if (!plain) {
            if (!in_range || (guard >= 0 && !is_blank(&t, cells[guard][0], cells[guard][1]))
                    || find_char(&t, '.', cells[0][0], cells[0][1]) >= 0) {
                status = 0;  /* a short or long line, a shifted column, a zero */
                break;
            }
            if (short_mirrored) {  /* anything from the mirror column on: Python decides */
                for (Py_ssize_t k = mirror; k < n && status > 0; k++)
                    if (k >= MAX_CELLS || !is_blank(&t, cells[k][0], cells[k][1])) status = 0;
                if (status == 0) break;
            }
            PyObject *line = PyLong_FromSsize_t(number);
            if (line == NULL) {
                status = -1;
                break;
            }
            Py_ssize_t position = PyList_GET_SIZE(tokens);
            for (int k = 0; k < 2 && status > 0; k++) {
                Py_ssize_t column = layer_column[k];
                if (column >= 0 && !is_blank(&t, cells[column][0], cells[column][1]))
                    status = cell(&r, &layers[k], cells[column][0], cells[column][1], position,
                                  line);
            }
            if (status > 0 && bridging >= 0 &&
                    !is_blank(&t, cells[bridging][0], cells[bridging][1])) {
                PyObject *value = PyUnicode_Substring(text, cells[bridging][0],
                                                      cells[bridging][1]);
                PyObject *pair = value ? PyTuple_Pack(2, line, value) : NULL;
                Py_XDECREF(value);
                if (append_new(bridges, pair)) status = -1;
            }
            Py_DECREF(line);
            if (status <= 0) break;
        }
        PyObject *form = form_at(&forms, text, &t, cells[1][0], cells[1][1]);
        if (append_new(tokens, form) || append_new(lines, PyLong_FromSsize_t(number))) {
            status = -1;
            break;
        }
        start = next;
    }
    if (status > 0 && short_line && padded_line) status = 0;
    Py_ssize_t words = tokens ? PyList_GET_SIZE(tokens) : 0;
    for (int k = 0; k < 2 && status > 0; k++) {
        if (layer_column[k] < 0) built[k] = PyTuple_New(0);
        else status = markables(&layers[k], (PyTypeObject *)type_object, words, check_min,
                                &built[k]);
        if (status > 0 && built[k] == NULL) status = -1;
    }
    if (status > 0) {
        result = PyTuple_Pack(5, tokens, lines, built[0], built[1], bridges);
    } else if (status == 0) {
        result = Py_NewRef(Py_None);
    }
    Py_XDECREF(built[0]);
    Py_XDECREF(built[1]);
    Py_XDECREF(tokens);
    Py_XDECREF(lines);
    Py_XDECREF(bridges);
    layer_clear(&layers[0]);
    layer_clear(&layers[1]);
    forms_clear(&forms);
    return result;
}

static PyObject *newline;  /* "\n" */

/* newlines(data, start, end): data.count("\n", start, end) for bytes or str, with
 * count_line_ends (text.h: SSE2) where the data is bytes or one-byte text. */
static PyObject *newlines(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *data;
    Py_ssize_t start = 0, end = PY_SSIZE_T_MAX;
    if (!PyArg_ParseTuple(args, "O|nn", &data, &start, &end)) return NULL;
    if (PyUnicode_Check(data)) {
        PySlice_AdjustIndices(PyUnicode_GET_LENGTH(data), &start, &end, 1);
        if (PyUnicode_KIND(data) != PyUnicode_1BYTE_KIND) {
            Py_ssize_t found = end > start ? PyUnicode_Count(data, newline, start, end) : 0;
            return found < 0 ? NULL : PyLong_FromSsize_t(found);
        }
        const char *s = (const char *)PyUnicode_DATA(data);
        return PyLong_FromSsize_t(count_line_ends(s + start, s + end));
    }
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)) return NULL;
    PySlice_AdjustIndices(view.len, &start, &end, 1);  /* as data[start:end] reads them */
    const char *s = (const char *)view.buf;
    Py_ssize_t count = count_line_ends(s + start, s + end);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(count);
}


/* The offset of needle[0:m] in base[start:end] (indices as a slice reads them), or -1. */
static Py_ssize_t find_in(const char *base, Py_ssize_t length, Py_ssize_t start,
                          Py_ssize_t end, const char *needle, Py_ssize_t m) {
    PySlice_AdjustIndices(length, &start, &end, 1);
    if (end - start < m) return -1;
    const char *at = find_needle(base + start, end - start, needle, m);
    return at == NULL ? -1 : at - base;
}

/* find(data, needle, start=0, end=len(data)): data.find(needle, start, end) for bytes and a
 * non-empty bytes needle, or for str and a non-empty str needle, with find_needle (text.h:
 * twice as fast as memmem, which was 2.5 times as fast as bytes.find on the readers'
 * searches for "newdoc") where both are bytes or one-byte text (str.find elsewhere). */
static PyObject *find(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *data_object, *needle_object;
    Py_ssize_t start = 0, end = PY_SSIZE_T_MAX;
    if (!PyArg_ParseTuple(args, "OO|nn", &data_object, &needle_object, &start, &end))
        return NULL;
    if (PyUnicode_Check(data_object)) {
        if (!PyUnicode_Check(needle_object) || PyUnicode_GET_LENGTH(needle_object) == 0) {
            PyErr_SetString(PyExc_ValueError, "find: expected a non-empty str needle");
            return NULL;
        }
        Py_ssize_t found;
        if (PyUnicode_KIND(data_object) == PyUnicode_1BYTE_KIND &&
                PyUnicode_KIND(needle_object) == PyUnicode_1BYTE_KIND)
            found = find_in((const char *)PyUnicode_DATA(data_object),
                            PyUnicode_GET_LENGTH(data_object), start, end,
                            (const char *)PyUnicode_DATA(needle_object),
                            PyUnicode_GET_LENGTH(needle_object));
        else
            found = PyUnicode_Find(data_object, needle_object, start, end, 1);
        return found == -2 ? NULL : PyLong_FromSsize_t(found);
    }
    Py_buffer data, needle;
    if (PyObject_GetBuffer(data_object, &data, PyBUF_SIMPLE)) return NULL;
    if (PyObject_GetBuffer(needle_object, &needle, PyBUF_SIMPLE)) {
        PyBuffer_Release(&data);
        return NULL;
    }
    Py_ssize_t found = -2;
    if (needle.len == 0)
        PyErr_SetString(PyExc_ValueError, "find: expected a non-empty needle");
    else
        found = find_in(data.buf, data.len, start, end, needle.buf, needle.len);
    PyBuffer_Release(&data);
    PyBuffer_Release(&needle);
    return found == -2 ? NULL : PyLong_FromSsize_t(found);
}

static PyMethodDef methods[] = {
    {"find", find, METH_VARARGS,
     "find(data, needle, start=0, end=len(data)) -> data.find(needle, start, end), for bytes "
     "or str and a non-empty needle of the same type (SSE2, memmem)"},
    {"newlines", newlines, METH_VARARGS,
     "newlines(data, start=0, end=len(data)) -> data.count('\\n' or b'\\n', start, end), "
     "for str or bytes"},
    {"read_document", read_document, METH_VARARGS,
     "read_document(text, pos, number, settings) -> (tokens, token_lines, identity, "
     "discourse_deixis, bridging) or None: the rest of one exploded CONLL-UA document "
     "(see the module)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "scoring.native._exploded",
    "The exploded reader's token lines in C (optional; the Python path gives the same).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__exploded(void) {
    for (int c = 0; c < 256; c++) latin1[c] = is_space((Py_UCS4)c) ? SPACE : 0;
    latin1[0] = NUL;
    newline = PyUnicode_InternFromString("\n");
    return newline == NULL ? NULL : PyModule_Create(&module);
}
