/* The compiled twins of two numpy steps on label sets (scoring/runtime/reading/labelsets.py and
 * scoring/runtime/metrics/multilabel.py):
 *
 *   sort_rows     LabelSets.from_flat: each row's labels sorted
 *   take_rows     LabelSets.take: rows in another order
 *   match_rows    multilabel._Matches: which (row, label) pairs of a prediction are in the truth
 *   class_counts  multilabel._per_class_by_split: labels (and true positives) per split and class
 *
 * Same answers as the numpy code, or a decline (-1) that leaves the work to it. No numpy headers: the
 * caller allocates the int64 / uint8 arrays and passes them as buffers. Every index read from a buffer is
 * checked; a wrong argument declines.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

#define ABI_VERSION 1

/* sort_rows(sizes, labels, sorted) -> 0 | 1 | -1
 *
 * sorted: each row's labels (sizes: int64 per row; labels: int64, any order within a row) sorted ascending;
 * it may be labels itself (sorted in place: each label is read before its place is written).
 * 0: no row repeats a label; 1: some row does (the caller's numpy code removes the repeats); -1: declined
 * (a negative label, or sizes that do not add up to the labels).
 */
static PyObject *
sort_rows(PyObject *self, PyObject *args)
{
    Py_buffer sz_b, la_b, so_b;
    if (!PyArg_ParseTuple(args, "y*y*w*", &sz_b, &la_b, &so_b))
        return NULL;
    const int64_t *sizes = (const int64_t *)sz_b.buf, *labels = (const int64_t *)la_b.buf;
    int64_t *out = (int64_t *)so_b.buf;
    const Py_ssize_t n_rows = sz_b.len / 8, n = la_b.len / 8;
    int result = so_b.len / 8 >= n ? 0 : -1;
    if (result == 0) {
        Py_BEGIN_ALLOW_THREADS
        Py_ssize_t at = 0;
        for (Py_ssize_t r = 0; r < n_rows && result >= 0; r++) {
            const int64_t size = sizes[r];
            if (size < 0 || size > n - at) { result = -1; break; }
            for (int64_t j = 0; j < size; j++) {  /* insertion sort: a row holds a few dozen labels */
                const int64_t label = labels[at + j];
                if (label < 0) { result = -1; break; }
                Py_ssize_t i = at + j;
                while (i > at && out[i - 1] > label) {
                    out[i] = out[i - 1];
                    i--;
                }
                if (i > at && out[i - 1] == label) result = 1;
                out[i] = label;
            }
            at += size;
        }
        if (result >= 0 && at != n) result = -1;
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&sz_b);
    PyBuffer_Release(&la_b);
    PyBuffer_Release(&so_b);
    return PyLong_FromLong(result);
}

/* take_rows(indptr, labels, index, new_indptr, out) -> 0 | -1
 *
 * out[new_indptr[r]:new_indptr[r + 1]] = labels[indptr[index[r]]:indptr[index[r] + 1]] for each r: the rows of
 * index, in its order (all int64; new_indptr made by the caller from the rows' sizes). -1: declined (an
 * index out of range, or a row's size other than new_indptr says).
 */
static PyObject *
take_rows(PyObject *self, PyObject *args)
{
    Py_buffer ip_b, la_b, ix_b, ni_b, ou_b;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*", &ip_b, &la_b, &ix_b, &ni_b, &ou_b))
        return NULL;
    const int64_t *indptr = (const int64_t *)ip_b.buf, *labels = (const int64_t *)la_b.buf;
    const int64_t *index = (const int64_t *)ix_b.buf, *new_indptr = (const int64_t *)ni_b.buf;
    int64_t *out = (int64_t *)ou_b.buf;
    const Py_ssize_t n_rows = ip_b.len / 8 - 1, n = la_b.len / 8, n_new = ix_b.len / 8, n_out = ou_b.len / 8;
    int ok = n_rows >= 0 && ni_b.len / 8 == n_new + 1 && new_indptr[0] == 0 && new_indptr[n_new] <= n_out;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t r = 0; r < n_new; r++) {
            const int64_t i = index[r];
            if (i < 0 || i >= n_rows) { ok = 0; break; }
            const int64_t lo = indptr[i], hi = indptr[i + 1], at = new_indptr[r];
            if (lo < 0 || hi < lo || hi > n || new_indptr[r + 1] - at != hi - lo || at < 0) { ok = 0; break; }
            if (r + 8 < n_new && index[r + 8] >= 0 && index[r + 8] < n_rows) {
                const int64_t ahead = indptr[index[r + 8]];
                if (ahead >= 0 && ahead < n) PREFETCH(labels + ahead);  /* rows far apart: ask early */
            }
            memcpy(out + at, labels + lo, (size_t)(hi - lo) * sizeof(int64_t));
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ip_b);
    PyBuffer_Release(&la_b);
    PyBuffer_Release(&ix_b);
    PyBuffer_Release(&ni_b);
    PyBuffer_Release(&ou_b);
    return PyLong_FromLong(ok ? 0 : -1);
}

/* match_rows(true_indptr, true_labels, pred_indptr, pred_labels, matched, tp) -> pairs matched | -1
 *
 * Both sides row-aligned (indptr: int64, n_rows + 1), each row's labels sorted and unique. matched: one
 * uint8 per predicted label, set to 1 where the same row of the truth holds that label, else 0: a merge
 * of the two sorted lists of each row; tp: int64 per row, how many of its labels matched.
 * -1: declined (indptr not from 0 to the labels, or decreasing).
 */
static PyObject *
match_rows(PyObject *self, PyObject *args)
{
    Py_buffer ti_b, tl_b, pi_b, pl_b, ma_b, tp_b;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*", &ti_b, &tl_b, &pi_b, &pl_b, &ma_b, &tp_b))
        return NULL;
    const int64_t *ti = (const int64_t *)ti_b.buf, *tl = (const int64_t *)tl_b.buf;
    const int64_t *pi = (const int64_t *)pi_b.buf, *pl = (const int64_t *)pl_b.buf;
    uint8_t *matched = (uint8_t *)ma_b.buf;
    int64_t *tp = (int64_t *)tp_b.buf;
    const Py_ssize_t n_rows = ti_b.len / 8 - 1, n_true = tl_b.len / 8, n_pred = pl_b.len / 8;
    Py_ssize_t found = 0;
    int ok = n_rows >= 0 && pi_b.len / 8 - 1 == n_rows && ma_b.len >= n_pred && ti[0] == 0 && pi[0] == 0
             && ti[n_rows] == n_true && pi[n_rows] == n_pred && tp_b.len / 8 >= n_rows;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t r = 0; r < n_rows; r++) {
            int64_t t = ti[r], t_end = ti[r + 1], p = pi[r], p_end = pi[r + 1];
            if (t_end < t || t_end > n_true || p_end < p || p_end > n_pred) { ok = 0; break; }
            int64_t hits = 0;
            while (p < p_end) {
                while (t < t_end && tl[t] < pl[p]) t++;
                const uint8_t hit = t < t_end && tl[t] == pl[p];
                matched[p] = hit;
                hits += hit;
                p++;
            }
            tp[r] = hits;
            found += hits;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ti_b);
    PyBuffer_Release(&tl_b);
    PyBuffer_Release(&pi_b);
    PyBuffer_Release(&pl_b);
    PyBuffer_Release(&ma_b);
    PyBuffer_Release(&tp_b);
    return PyLong_FromSsize_t(ok ? found : -1);
}

/* class_counts(indptr, labels, split_of_row, class_codes, n_codes, counts, matched, tp_counts) -> 0 | -1
 *
 * counts[s * n_codes + class_codes[label]] += 1 for every label of every row, s = split_of_row[row];
 * with matched (one uint8 per label, possibly empty: then tp_counts is not touched), the same into
 * tp_counts for the matched labels only. counts and tp_counts: int64, zeroed by the caller, of
 * (max split + 1) * n_codes items. indptr: int64, n_rows + 1; labels, split_of_row: int64; class_codes:
 * int32 indexed by label. -1: declined (a label past the table or without a code, a split out of range).
 */
static PyObject *
class_counts(PyObject *self, PyObject *args)
{
    Py_buffer ip_b, la_b, sp_b, cc_b, co_b, ma_b, tp_b;
    Py_ssize_t n_codes;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nw*y*w*", &ip_b, &la_b, &sp_b, &cc_b, &n_codes, &co_b, &ma_b, &tp_b))
        return NULL;
    const int64_t *indptr = (const int64_t *)ip_b.buf, *labels = (const int64_t *)la_b.buf;
    const int64_t *split = (const int64_t *)sp_b.buf;
    const int32_t *codes = (const int32_t *)cc_b.buf;
    const uint8_t *matched = (const uint8_t *)ma_b.buf;
    int64_t *counts = (int64_t *)co_b.buf, *tp = (int64_t *)tp_b.buf;
    const Py_ssize_t n_rows = ip_b.len / 8 - 1, n = la_b.len / 8, n_table = cc_b.len / 4;
    const Py_ssize_t n_slots = co_b.len / 8;
    const int with_tp = ma_b.len > 0;
    int ok = n_rows >= 0 && sp_b.len / 8 >= n_rows && n_codes > 0 && indptr[0] == 0 && indptr[n_rows] == n
             && (!with_tp || (ma_b.len >= n && tp_b.len / 8 >= n_slots));
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t r = 0; r < n_rows && ok; r++) {
            const int64_t lo = indptr[r], hi = indptr[r + 1];
            const int64_t s = split[r];
            if (hi < lo || hi > n || s < 0 || (s + 1) * n_codes > n_slots) { ok = 0; break; }
            int64_t *row_counts = counts + s * n_codes, *row_tp = with_tp ? tp + s * n_codes : NULL;
            for (int64_t k = lo; k < hi; k++) {
                const int64_t label = labels[k];
                const int32_t c = (label >= 0 && label < n_table) ? codes[label] : -1;
                if (c < 0 || c >= n_codes) { ok = 0; break; }
                row_counts[c]++;
                if (with_tp && matched[k]) row_tp[c]++;
            }
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ip_b);
    PyBuffer_Release(&la_b);
    PyBuffer_Release(&sp_b);
    PyBuffer_Release(&cc_b);
    PyBuffer_Release(&co_b);
    PyBuffer_Release(&ma_b);
    PyBuffer_Release(&tp_b);
    return PyLong_FromLong(ok ? 0 : -1);
}

static PyMethodDef methods[] = {
    {"sort_rows", sort_rows, METH_VARARGS, "Each row's labels sorted: 0, 1 (a row repeats a label) or -1."},
    {"take_rows", take_rows, METH_VARARGS, "The rows of index, in its order: 0 or -1."},
    {"match_rows", match_rows, METH_VARARGS, "Flags the predicted labels found in the same row of the truth."},
    {"class_counts", class_counts, METH_VARARGS, "Labels and true positives per split and class, or -1."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_labelsets", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__labelsets(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "ABI", ABI_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
