/* The compiled twin of two numpy readers of scoring/runtime/reading/:
 *
 *   field_spans  csv_spans.field_spans: every field's byte span in a regular CSV file
 *   int_lists    digit_lists.int_lists: cells written as [1, 22, 333] read into integers
 *
 * Each takes the same bytes and gives the same answer as its numpy twin, or
 * declines (returns None / -1): the caller then takes the numpy path, which
 * itself declines to the strict per-cell reader. The numpy path does a dozen
 * passes over fresh arrays; these do one pass over the bytes, without the
 * interpreter lock, so the solution's thread and the upload's thread both run.
 *
 * Only the CPython C API and the buffer protocol: no numpy headers. The caller
 * allocates the int64 output arrays (numpy) and passes them as writable buffers.
 * Every index read from a buffer is bounds-checked: a wrong argument declines,
 * it never reads or writes outside a buffer.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define ABI_VERSION 1

enum { C_QUOTE = 1, C_DELIM = 2, C_LF = 3, C_CR = 4 };

/* field_spans(raw, delimiter, n_fields, starts, ends) -> (n_records, crlf_records) | None
 *
 * raw: the clean UTF-8 bytes (no BOM). starts, ends: writable int64 buffers of
 * capacity * n_fields items, record-major (record 0 is the header). (The numpy
 * twin also counts the delimiters inside quoted fields, for its own reading of
 * lists; int_lists here needs no such count.)
 * Declines (None) exactly where csv_spans.field_spans returns None:
 *   - an empty file, fewer than two fields, a last byte CR;
 *   - a line end inside quotes; a record with another number of fields;
 *   - a field whose quotes are neither none nor exactly its first and last byte;
 *   - a CR anywhere but just before a LF;
 * and when the records outnumber the capacity (the caller sizes it from the line count).
 */
static PyObject *
field_spans(PyObject *self, PyObject *args)
{
    Py_buffer raw_b, st_b, en_b;
    int delimiter;
    Py_ssize_t n_fields;
    if (!PyArg_ParseTuple(args, "y*inw*w*", &raw_b, &delimiter, &n_fields, &st_b, &en_b))
        return NULL;
    const unsigned char *a = (const unsigned char *)raw_b.buf;
    const Py_ssize_t n = raw_b.len;
    int64_t *st = (int64_t *)st_b.buf, *en = (int64_t *)en_b.buf;
    Py_ssize_t cap_items = st_b.len / 8;
    if (en_b.len / 8 < cap_items) cap_items = en_b.len / 8;
    int ok = n > 0 && n_fields >= 2 && delimiter >= 0 && delimiter < 256 && delimiter != '"'
             && delimiter != '\n' && delimiter != '\r';
    Py_ssize_t n_records = 0, n_crlf = 0;

    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        unsigned char cls[256];
        memset(cls, 0, sizeof cls);
        cls['"'] = C_QUOTE;
        cls[(unsigned char)delimiter] = C_DELIM;
        cls['\n'] = C_LF;
        cls['\r'] = C_CR;
        Py_ssize_t n_cr = 0;
        Py_ssize_t field = 0;        /* fields ended so far in this record */
        Py_ssize_t fstart = 0;       /* first byte of the current field */
        Py_ssize_t nq = 0;           /* its quotes */
        int inq = 0;
        Py_ssize_t item = 0;         /* record * n_fields + field */
        if (a[n - 1] == '\r') ok = 0;  /* a last line ended by a lone CR */
        Py_ssize_t i = 0;
        /* a LF past the data when the last line has none: the loop runs to n inclusive */
        const int pseudo_lf = ok && a[n - 1] != '\n';
        const Py_ssize_t last = pseudo_lf ? n : n - 1;
        while (ok && i <= last) {
            int c;
            if (i == n) {
                c = C_LF;
            } else {
                while (i < n && !cls[a[i]]) i++;  /* skip plain bytes */
                if (i == n) {
                    if (!pseudo_lf) break;
                    c = C_LF;
                } else {
                    c = cls[a[i]];
                }
            }
            if (c == C_QUOTE) {
                inq ^= 1;
                nq++;
            } else if (c == C_CR) {
                n_cr++;
            } else if (c == C_DELIM && inq) {
                /* a delimiter inside quotes: part of the field */
            } else {  /* a field ends: an unquoted delimiter, or a line end */
                if (c == C_LF && inq) { ok = 0; break; }  /* a field spans lines */
                Py_ssize_t fend = i;
                if (c == C_LF) {
                    if (field != n_fields - 1) { ok = 0; break; }  /* ragged */
                    if (i > 0 && i < n && a[i - 1] == '\r') {  /* CRLF: the CR is not part of the field */
                        n_crlf++;
                        fend = i - 1;
                    }
                } else if (field >= n_fields - 1) {
                    ok = 0;  /* ragged: more delimiters than fields */
                    break;
                }
                if (item >= cap_items) { ok = 0; break; }
                if (nq == 2) {
                    /* quoted: exactly its first and last byte */
                    if (fend - fstart < 2 || a[fstart] != '"' || a[fend - 1] != '"') { ok = 0; break; }
                    st[item] = fstart + 1;
                    en[item] = fend - 1;
                } else if (nq == 0) {
                    st[item] = fstart;
                    en[item] = fend;
                } else {
                    ok = 0;
                    break;
                }
                item++;
                nq = 0;
                fstart = i + 1;
                if (c == C_LF) {
                    n_records++;
                    field = 0;
                } else {
                    field++;
                }
            }
            i++;
        }
        if (ok && n_crlf != n_cr) ok = 0;  /* a CR elsewhere than at a line end */
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&raw_b);
    PyBuffer_Release(&st_b);
    PyBuffer_Release(&en_b);
    if (!ok) Py_RETURN_NONE;
    return Py_BuildValue("(nn)", n_records, n_crlf);
}

/* int_lists(raw, starts, ends, sizes, values) -> number of values | -1
 *
 * starts, ends: int64 buffers, one cell each (contiguous); sizes: writable int64,
 * one per cell; values: writable int64, its capacity the most items the cells can
 * hold (a cell of L bytes holds at most (L - 1) / 2).
 * A cell is '[' ']' or '[' ITEM (',' ITEM)* ']' where ITEM is one optional space,
 * then 1 to 18 ASCII digits with no leading zero (a lone "0" is fine): what the
 * general reading of digit_lists.int_lists accepts. Anything else declines (-1).
 */
static PyObject *
int_lists(PyObject *self, PyObject *args)
{
    Py_buffer raw_b, st_b, en_b, sz_b, va_b;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*", &raw_b, &st_b, &en_b, &sz_b, &va_b))
        return NULL;
    const unsigned char *a = (const unsigned char *)raw_b.buf;
    const Py_ssize_t n = raw_b.len;
    const int64_t *st = (const int64_t *)st_b.buf, *en = (const int64_t *)en_b.buf;
    int64_t *sizes = (int64_t *)sz_b.buf, *values = (int64_t *)va_b.buf;
    Py_ssize_t n_cells = st_b.len / 8;
    const Py_ssize_t cap = va_b.len / 8;
    int ok = en_b.len / 8 == n_cells && sz_b.len / 8 >= n_cells;
    Py_ssize_t total = 0;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t r = 0; r < n_cells && ok; r++) {
            const int64_t s = st[r], e = en[r];
            if (s < 0 || e > n || e - s < 2 || a[s] != '[' || a[e - 1] != ']') { ok = 0; break; }
            if (e - s == 2) { sizes[r] = 0; continue; }
            Py_ssize_t p = s + 1;
            const Py_ssize_t stop = e - 1;  /* the ']' */
            int64_t k = 0;
            for (;;) {
                if (a[p] == ' ') p++;  /* the space of ", " (or after '[') */
                Py_ssize_t q = p;
                uint64_t v = 0;  /* (19 digits fit: the 19th is read, then refused) */
                while (q < stop && q - p < 19 && (unsigned)(a[q] - '0') < 10u) {
                    v = v * 10 + (a[q] - '0');
                    q++;
                }
                const Py_ssize_t len = q - p;
                if (len < 1 || len > 18 || (len > 1 && a[p] == '0') || total >= cap) { ok = 0; break; }
                values[total++] = (int64_t)v;
                k++;
                if (q == stop) break;
                if (a[q] != ',') { ok = 0; break; }
                p = q + 1;
            }
            sizes[r] = k;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&raw_b);
    PyBuffer_Release(&st_b);
    PyBuffer_Release(&en_b);
    PyBuffer_Release(&sz_b);
    PyBuffer_Release(&va_b);
    return PyLong_FromSsize_t(ok ? total : -1);
}

static PyMethodDef methods[] = {
    {"field_spans", field_spans, METH_VARARGS, "Byte spans of every field of a regular CSV file, or None."},
    {"int_lists", int_lists, METH_VARARGS, "Cells written as [1, 22, 333] read into int64, or -1."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_reader", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__reader(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "ABI", ABI_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
