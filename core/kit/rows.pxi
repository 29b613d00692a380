# The engine kit's row buffer: RowBuffer (core/kit/types.pxd), rows of one fixed size that the batch
# loop appends without the GIL, turned into one numpy array when the batch is done. Paws in Peril's
# standings trace and Tales are Real's card table use it.
#
# Contract: the including module cimports malloc, realloc, free, memset and memcpy (libc), uintptr_t
# (libc.stdint), and imports numpy as np.

cdef int rows_init(RowBuffer* b, size_t row_size, size_t cap) except -1:
    """An empty buffer of ``row_size``-byte rows with room for ``cap`` of them to start with."""
    b.row_size = row_size
    b.n = 0
    b.cap = cap if cap > 0 else 1
    b.failed = 0
    b.data = <char*>malloc(b.cap * row_size)
    if b.data == NULL:
        raise MemoryError()
    return 0


cdef inline void* rows_push(RowBuffer* b) noexcept nogil:
    """A new zeroed row at the end, or NULL (and b.failed set) when the buffer cannot grow."""
    cdef char* grown
    cdef char* row
    if b.failed:
        return NULL
    if b.n == b.cap:
        grown = <char*>realloc(b.data, b.cap * 2 * b.row_size)
        if grown == NULL:
            b.failed = 1
            return NULL
        b.data = grown
        b.cap *= 2
    row = b.data + b.n * b.row_size
    memset(row, 0, b.row_size)
    b.n += 1
    return row


cdef object rows_array(RowBuffer* b, object dtype):
    """The rows as a new numpy array of ``dtype``, whose items must be the rows' size; raises
    MemoryError if a row was lost."""
    dtype = np.dtype(dtype)
    if b.failed:
        raise MemoryError("a row buffer could not grow")
    if <size_t>dtype.itemsize != b.row_size:
        raise ValueError(f"rows of {b.row_size} bytes read as a dtype of {dtype.itemsize}")
    out = np.empty(b.n, dtype)
    if b.n:
        memcpy(<void*><uintptr_t>out.ctypes.data, b.data, b.n * b.row_size)
    return out


cdef void rows_free(RowBuffer* b) noexcept nogil:
    free(b.data)
    b.data = NULL
    b.n = 0
    b.cap = 0
