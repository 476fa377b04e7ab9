"""The decorator of the kernel's functions: compiled once and cached on disk.

Kernel functions never allocate: their work arrays come with the rule tables
(:mod:`.nb_rules`), so a step costs no allocation.
"""

from __future__ import annotations

import numba

#: A kernel function.
kernel = numba.njit(cache=True)
#: A batch loop, called from Python; it releases the GIL, so parts of a batch can run in
#: several threads at once (:mod:`.threads`).
batch = numba.njit(cache=True, nogil=True)
