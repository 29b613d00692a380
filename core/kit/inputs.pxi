# The engine kit's guard on a batch's inputs. A module fills its Rules and Weights structs from
# {name: int} dicts; converting a dict to a C struct raises on a missing field but silently drops an
# extra one, so a rule parameter or bot weight added on the Python side without its struct field would
# be ignored by the core. The module derives each struct's field names from the struct itself (convert
# a zeroed struct to a dict) and refuses any other key with refuse_unknown.


cdef refuse_unknown(str what, object given, tuple known):
    """Raise ValueError naming the keys of ``given`` that are not in ``known`` (a struct's fields)."""
    unknown = [k for k in given if k not in known]
    if unknown:
        raise ValueError(f"the core has no {what} {', '.join(map(str, unknown))}: its struct has only "
                         f"{', '.join(known)} (add the field to the .pxd, or play with the reference engine)")
