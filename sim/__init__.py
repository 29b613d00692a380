"""playtest's bottom layer: the game registry and interface, rule parameters, card data, bots, files and one
package per game (its rules, reference engine and record). Imports nothing of cluster, queries, regress or cli."""

import os

# The engines use numpy only to hand column buffers to Arrow, never for linear algebra; OpenBLAS's idle
# worker threads would otherwise spin beside every engine process and steal a core from a parallel sweep.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
