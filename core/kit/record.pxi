# The engine kit's record buffer: a batch's game records are one numpy structured array whose rows are
# the module's GameRecord struct, so that the batch loop writes each game's whole record without the
# GIL and shared code builds the Arrow table from the array (sim/record_schema.py). The dtype is derived
# from the game's record declaration (sim/<game>/record.py); new_records refuses one whose rows are not
# GameRecord's size, and tests/test_core_declarations.py checks every field against the .pxd.
#
# Contract: the including module defines ``GameRecord``, cimports uintptr_t (libc.stdint) and imports
# numpy as np.

RECORD_SIZE = sizeof(GameRecord)  # bytes of one record: the derived dtype's itemsize must be this


cdef object new_records(object dtype, int64_t count):
    """``count`` zeroed game records of ``dtype`` (a numpy structured dtype laid out like GameRecord)."""
    dtype = np.dtype(dtype)
    if <size_t>dtype.itemsize != sizeof(GameRecord) or not dtype.isalignedstruct:
        raise ValueError(f"a record dtype of {dtype.itemsize} bytes (aligned: {dtype.isalignedstruct}) for the "
                         f"core's GameRecord of {sizeof(GameRecord)}: the record declaration and the .pxd "
                         "differ; tests/test_core_declarations.py says where")
    return np.zeros(count, dtype)


cdef inline GameRecord* record_rows(object records):
    """The C array of GameRecord behind an array from new_records (valid while ``records`` lives)."""
    return <GameRecord*><uintptr_t>records.ctypes.data
