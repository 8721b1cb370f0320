"""_keytypes.py - which NumPy dtypes sort as which clsort_type, and the flags that set the order.

The rows mirror the library's key-type table (include/clsort.h: the clsort_type value and the
name clsort_type_name gives it); python/tests/test_keytypes.py checks every row against the
loaded library. Key types newer than the loaded library are refused with a TypeError saying so.
"""
import collections
import sys

import numpy as np

from ._lib import lib

# Flags of include/clsort.h.
DESCENDING = 1
STABLE = 2
NO_HOST_FALLBACK = 4
NAN_LARGEST = 8

# (clsort_type value, the library's name for it, the NumPy dtype's name). bfloat16 is the dtype
# of the ml_dtypes package, known only where that is installed (and imported by its user).
TABLE = (
    (0, "u32", "uint32"), (1, "i32", "int32"), (2, "f32", "float32"),
    (3, "u64", "uint64"), (4, "i64", "int64"), (5, "f64", "float64"),
    (6, "u8", "uint8"), (7, "i8", "int8"), (8, "u16", "uint16"), (9, "i16", "int16"),
    (10, "f16", "float16"), (11, "bf16", "bfloat16"),
)
# bool sorts as u8 (False < True) and comes back as bool.
KEY_DTYPES = tuple(row[2] for row in TABLE) + ("bool",)

KeyType = collections.namedtuple("KeyType", ["number", "name", "is_float", "work"])
KeyType.__doc__ = """A key dtype resolved: the clsort_type `number` and its `name`, whether it is
a float (NaN order applies), and `work`: the dtype the library reads, which is the input's own
in native byte order, and uint8 for bool."""

_BY_NUMPY = {name: (number, lib_name) for number, lib_name, name in TABLE}


def _bfloat16():
    """ml_dtypes.bfloat16 if its user has imported ml_dtypes, else None (never imports it)."""
    mod = sys.modules.get("ml_dtypes")
    return getattr(mod, "bfloat16", None) if mod is not None else None


def _refuse(dt, why=""):
    return TypeError("clsort sorts keys of dtype %s (bfloat16 from ml_dtypes); got %s%s"
                     % (", ".join(KEY_DTYPES[:-1]) + " or bool", dt, why))


def _library_names():
    """{clsort_type value: name} of the loaded library, read once per library."""
    L = lib()
    names = getattr(L, "_clsort_type_names", None)
    if names is None:
        names = {number: L.type_name(number).decode() for number, _, _ in TABLE}
        L._clsort_type_names = names
    return names


def library_has(lib_name):
    """Whether the loaded library knows the key type named `lib_name` ("f16")."""
    number = next(row[0] for row in TABLE if row[1] == lib_name)
    return _library_names()[number] == lib_name


def _row(dt):
    """(clsort_type value, library name, the dtype the library reads) of a NumPy dtype, or
    TypeError for one clsort does not sort."""
    if dt.kind == "b":
        name, work = "uint8", np.dtype(np.uint8)
    elif dt.kind in "uif" and not dt.fields and dt.subdtype is None:
        name, work = dt.name, dt.newbyteorder("=")
    elif _bfloat16() is not None and dt.type is _bfloat16():
        if not dt.isnative:
            raise _refuse(dt, " (bfloat16 in native byte order only)")
        name, work = "bfloat16", dt
    else:
        raise _refuse(dt)
    found = _BY_NUMPY.get(name)
    if found is None:
        raise _refuse(dt)
    return found[0], found[1], work


def key_type_name(dtype):
    """The library's name of the key type a NumPy dtype sorts as ("u8" for bool), whether or not
    the loaded library has it; TypeError for a dtype clsort does not sort."""
    return _row(np.dtype(dtype))[1]


def key_type(dtype):
    """The KeyType of a NumPy dtype, or TypeError: for a dtype clsort does not sort, and for one
    the loaded library predates."""
    dt = np.dtype(dtype)
    number, lib_name, work = _row(dt)
    if _library_names()[number] != lib_name:
        L = lib()
        raise TypeError("the loaded libclsort (%s, version %s) has no key type %s (for dtype %s); "
                        "it needs a newer library" % (L.path, L.version_string().decode(),
                                                      lib_name, dt))
    return KeyType(number, lib_name, dt.kind == "f" or lib_name == "bf16", work)


def order_flags(ctx, kt, descending, stable, total_order):
    """The flags of a sort of `kt` keys on Context `ctx`: NumPy's order (CLSORT_NAN_LARGEST) for
    floats unless total_order. NotImplementedError when the loaded library lacks that flag: the
    order is the library's to give, never emulated here."""
    flags = (DESCENDING if descending else 0) | (STABLE if stable else 0)
    if kt.is_float and not total_order:
        if not nan_largest_available(ctx):
            L = lib()
            raise NotImplementedError(
                "the loaded libclsort (%s, version %s) has no CLSORT_NAN_LARGEST: NumPy's order "
                "of float keys (NaNs last, -0.0 == +0.0) needs a newer library; total_order=True "
                "sorts by IEEE totalOrder" % (L.path, L.version_string().decode()))
        flags |= NAN_LARGEST
    return flags


def nan_largest_available(ctx):
    """Whether the loaded library takes CLSORT_NAN_LARGEST: asked once, by a sort of no keys
    (which checks its flags and does nothing else; unknown flag bits are refused)."""
    L = lib()
    known = getattr(L, "_clsort_nan_largest", None)
    if known is None:
        known = L._clsort_nan_largest = ctx._accepts_flags(NAN_LARGEST)
    return known
