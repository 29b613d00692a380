"""playtest's rules, data, bots, reference engines, batch API and CLI."""

import os

# The engines use numpy only to hand column buffers to Arrow, never for linear algebra; OpenBLAS's idle
# worker threads would otherwise spin beside every engine process and steal a core from a parallel sweep.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
