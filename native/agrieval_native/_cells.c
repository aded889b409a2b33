/* The compiled twins of the numpy cell comparisons of scoring/runtime/reading/ (cell_keys.py and
 * submission.py's CheckedIds): cells are byte spans raw[starts[i]:ends[i]] of a file, compared as bytes.
 *
 *   distinct_cells    cell_keys.cell_codes: a code per cell, equal exactly for equal bytes
 *   cells_in_classes  CheckedIds._bytes_in_classes: every cell one byte of a set, then bytes of another
 *   cells_equal       CheckedIds.same_column: two columns hold the same cells, row for row
 *   cells_order       CheckedIds.order_in: where each cell of one column is in another
 *
 * The numpy twins compare 64-bit hashes and then the bytes, and decline on a hash collision; these keep a
 * hash table whose hits are confirmed with memcmp, so they never need to. Starts and ends are int64
 * buffers; every span is checked to lie within its buffer (else -1: declined).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define ABI_VERSION 1

typedef struct {
    const unsigned char *raw;
    const int64_t *st, *en;
    Py_ssize_t n;
} Cells;

static int
cells_valid(const Cells *c, Py_ssize_t raw_len)
{
    for (Py_ssize_t i = 0; i < c->n; i++)
        if (c->st[i] < 0 || c->en[i] < c->st[i] || c->en[i] > raw_len) return 0;
    return 1;
}

static uint64_t
hash_bytes(const unsigned char *p, int64_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
        p += 8;
        len -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, (size_t)len);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 29;
    return h;
}

static int
same_bytes(const Cells *a, Py_ssize_t i, const Cells *b, Py_ssize_t j)
{
    const int64_t la = a->en[i] - a->st[i];
    return la == b->en[j] - b->st[j] && memcmp(a->raw + a->st[i], b->raw + b->st[j], (size_t)la) == 0;
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

/* How far ahead the slots (and bytes) of later cells are asked for: a table of 200,000 cells is larger
 * than the CPU caches, so each lookup would otherwise wait for memory. */
#define AHEAD 16

/* An open-addressing table of cells by hash: slot -> (hash, row + 1; 0: empty). */
typedef struct {
    uint64_t hash;
    int64_t row;
} Slot;

typedef struct {
    Slot *slots;
    uint64_t mask;
} Table;

static int
table_init(Table *t, Py_ssize_t n)
{
    uint64_t size = 16;
    while (size < 2 * (uint64_t)n) size <<= 1;
    t->slots = (Slot *)PyMem_RawCalloc(size, sizeof(Slot));
    t->mask = size - 1;
    return t->slots != NULL;
}

/* The hash of every cell (malloc'ed; NULL when out of memory). */
static uint64_t *
cell_hashes(const Cells *c)
{
    uint64_t *h = (uint64_t *)PyMem_RawMalloc((size_t)(c->n > 0 ? c->n : 1) * sizeof(uint64_t));
    if (h != NULL)
        for (Py_ssize_t i = 0; i < c->n; i++) h[i] = hash_bytes(c->raw + c->st[i], c->en[i] - c->st[i]);
    return h;
}

/* The slot of the first entry with hash h, or the empty slot where it would go. */
static uint64_t
table_slot(const Table *t, uint64_t h)
{
    uint64_t slot = h & t->mask;
    while (t->slots[slot].row != 0 && t->slots[slot].hash != h) slot = (slot + 1) & t->mask;
    return slot;
}

static int
parse_cells(Py_buffer *raw, Py_buffer *st, Py_buffer *en, Cells *c)
{
    c->raw = (const unsigned char *)raw->buf;
    c->st = (const int64_t *)st->buf;
    c->en = (const int64_t *)en->buf;
    c->n = st->len / 8;
    return en->len / 8 == c->n && cells_valid(c, raw->len);
}

/* distinct_cells(raw, starts, ends, codes, first_rows) -> number of distinct cells | -1
 * codes[i]: 0, 1, ... in order of first appearance; first_rows[k]: the first row of code k (int64). */
static PyObject *
distinct_cells(PyObject *self, PyObject *args)
{
    Py_buffer raw_b, st_b, en_b, co_b, fr_b;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*", &raw_b, &st_b, &en_b, &co_b, &fr_b)) return NULL;
    Cells c;
    int64_t *codes = (int64_t *)co_b.buf, *first_rows = (int64_t *)fr_b.buf;
    Py_ssize_t found = -1;
    int ok = parse_cells(&raw_b, &st_b, &en_b, &c) && co_b.len / 8 >= c.n && fr_b.len / 8 >= c.n;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        Table t = {NULL, 0};
        uint64_t *h = cell_hashes(&c);
        if (h != NULL && table_init(&t, c.n)) {
            found = 0;
            for (Py_ssize_t i = 0; i < c.n; i++) {
                if (i + AHEAD < c.n) PREFETCH(&t.slots[h[i + AHEAD] & t.mask]);
                if (i > 0 && h[i] == h[i - 1] && same_bytes(&c, i - 1, &c, i)) {  /* runs: a transect's rows */
                    codes[i] = codes[i - 1];
                    continue;
                }
                uint64_t slot = table_slot(&t, h[i]);
                /* an equal hash: the same bytes, or (never seen in practice) another cell: then the next
                 * slot with that hash, until the same bytes or an empty slot */
                while (t.slots[slot].row != 0 && !same_bytes(&c, t.slots[slot].row - 1, &c, i)) {
                    slot = (slot + 1) & t.mask;
                    while (t.slots[slot].row != 0 && t.slots[slot].hash != h[i]) slot = (slot + 1) & t.mask;
                }
                if (t.slots[slot].row == 0) {
                    t.slots[slot].hash = h[i];
                    t.slots[slot].row = i + 1;
                    first_rows[found] = i;
                    codes[i] = found++;
                } else {
                    codes[i] = codes[t.slots[slot].row - 1];
                }
            }
        }
        PyMem_RawFree(t.slots);
        PyMem_RawFree(h);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&raw_b);
    PyBuffer_Release(&st_b);
    PyBuffer_Release(&en_b);
    PyBuffer_Release(&co_b);
    PyBuffer_Release(&fr_b);
    return PyLong_FromSsize_t(found);
}

/* cells_in_classes(raw, starts, ends, first, rest) -> 1 | 0 | -1
 * 1: every cell is non-empty, its first byte one of the bytes of `first`, every other byte one of `rest`. */
static PyObject *
cells_in_classes(PyObject *self, PyObject *args)
{
    Py_buffer raw_b, st_b, en_b, fi_b, re_b;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*", &raw_b, &st_b, &en_b, &fi_b, &re_b)) return NULL;
    Cells c;
    int result = -1;
    if (parse_cells(&raw_b, &st_b, &en_b, &c)) {
        unsigned char first[256] = {0}, rest[256] = {0};
        for (Py_ssize_t k = 0; k < fi_b.len; k++) first[((const unsigned char *)fi_b.buf)[k]] = 1;
        for (Py_ssize_t k = 0; k < re_b.len; k++) rest[((const unsigned char *)re_b.buf)[k]] = 1;
        Py_BEGIN_ALLOW_THREADS
        result = c.n > 0;
        for (Py_ssize_t i = 0; i < c.n && result; i++) {
            const int64_t s = c.st[i], e = c.en[i];
            if (e == s || !first[c.raw[s]]) { result = 0; break; }
            for (int64_t p = s + 1; p < e; p++)
                if (!rest[c.raw[p]]) { result = 0; break; }
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&raw_b);
    PyBuffer_Release(&st_b);
    PyBuffer_Release(&en_b);
    PyBuffer_Release(&fi_b);
    PyBuffer_Release(&re_b);
    return PyLong_FromLong(result);
}

/* cells_equal(raw_a, starts_a, ends_a, raw_b, starts_b, ends_b) -> 1 | 0 | -1: the same cells row for row. */
static PyObject *
cells_equal(PyObject *self, PyObject *args)
{
    Py_buffer ra, sa, ea, rb, sb, eb;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*", &ra, &sa, &ea, &rb, &sb, &eb)) return NULL;
    Cells a, b;
    int result = -1;
    if (parse_cells(&ra, &sa, &ea, &a) && parse_cells(&rb, &sb, &eb, &b)) {
        Py_BEGIN_ALLOW_THREADS
        result = a.n == b.n;
        for (Py_ssize_t i = 0; i < a.n && result; i++) result = same_bytes(&a, i, &b, i);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ra);
    PyBuffer_Release(&sa);
    PyBuffer_Release(&ea);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&eb);
    return PyLong_FromLong(result);
}

/* cells_order(raw_a, starts_a, ends_a, raw_b, starts_b, ends_b, order) -> 1 | 0 | -1
 * 1: column b holds exactly the cells of column a (whose cells are distinct), in some order; order[i] is
 * then the row of b holding a's cell i. 0: it does not (a cell of b not in a, or one of a twice in b). */
static PyObject *
cells_order(PyObject *self, PyObject *args)
{
    Py_buffer ra, sa, ea, rb, sb, eb, ob;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*w*", &ra, &sa, &ea, &rb, &sb, &eb, &ob)) return NULL;
    Cells a, b;
    int64_t *order = (int64_t *)ob.buf;
    int result = -1;
    if (parse_cells(&ra, &sa, &ea, &a) && parse_cells(&rb, &sb, &eb, &b) && ob.len / 8 >= a.n) {
        Py_BEGIN_ALLOW_THREADS
        Table t = {NULL, 0};
        uint64_t *ha = NULL, *hb = NULL;
        if (a.n != b.n) {
            result = 0;
        } else if ((ha = cell_hashes(&a)) != NULL && (hb = cell_hashes(&b)) != NULL && table_init(&t, a.n)) {
            result = 1;
            /* a's cells by hash; two with one hash (the same bytes, or a collision): declined */
            for (Py_ssize_t i = 0; i < a.n && result == 1; i++) {
                if (i + AHEAD < a.n) PREFETCH(&t.slots[ha[i + AHEAD] & t.mask]);
                const uint64_t slot = table_slot(&t, ha[i]);
                if (t.slots[slot].row != 0) result = -1;
                t.slots[slot].hash = ha[i];
                t.slots[slot].row = i + 1;
                order[i] = -1;
            }
            /* each cell of b at the one cell of a with its hash, if any */
            for (Py_ssize_t j = 0; j < b.n && result == 1; j++) {
                if (j + AHEAD < b.n) PREFETCH(&t.slots[hb[j + AHEAD] & t.mask]);
                const int64_t i = t.slots[table_slot(&t, hb[j])].row - 1;
                if (i < 0 || order[i] >= 0) result = 0;
                else order[i] = j;
            }
            /* then the bytes: equal hashes of unequal bytes mean b's cell is not one of a's */
            for (Py_ssize_t i = 0; i < a.n && result == 1; i++) {
                if (i + AHEAD < a.n) PREFETCH(b.raw + b.st[order[i + AHEAD]]);
                if (!same_bytes(&a, i, &b, order[i])) result = 0;
            }
        }
        PyMem_RawFree(t.slots);
        PyMem_RawFree(ha);
        PyMem_RawFree(hb);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ra);
    PyBuffer_Release(&sa);
    PyBuffer_Release(&ea);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&eb);
    PyBuffer_Release(&ob);
    return PyLong_FromLong(result);
}

static PyMethodDef methods[] = {
    {"distinct_cells", distinct_cells, METH_VARARGS, "A code per cell by first appearance; the number of codes."},
    {"cells_in_classes", cells_in_classes, METH_VARARGS, "Every cell: one byte of first, then bytes of rest."},
    {"cells_equal", cells_equal, METH_VARARGS, "Two columns hold the same cells, row for row."},
    {"cells_order", cells_order, METH_VARARGS, "The row in b of each cell of a, when b is a reordering of a."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cells", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__cells(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "ABI", ABI_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
