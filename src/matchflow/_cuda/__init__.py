"""The shared GPU layer of matchflow (numba.cuda), used by every ``_gpu_*`` solver module.

Importing this package (or :mod:`._options`, :mod:`._env`, :mod:`._arrays`, :mod:`._launch`, :mod:`._graph`)
never imports ``numba.cuda``: option validation, the simulator check and the device-input tests run on machines
without a GPU. ``_arrays`` reads the caller's device arrays and hands answers back in their library;
``_launch`` sizes grids, counts launches and reads, caches cooperative kernels and runs host rounds; ``_graph``
holds the device containers (``DeviceCSR``, ``DeviceBipartite``) and the one reader of device graphs; the
kernels' modules ``_device`` (warp/block reductions, grid-sync slots) and ``_csc`` (counting sorts) import
``numba.cuda`` at import time. Nothing outside this package and the ``_gpu_*`` modules imports ``numba.cuda``.
"""

from ._arrays import (
           as_numba,
           c_contiguous_device,
           device_library,
           hand_back,
           host_copy,
           is_device_array,
           is_device_graph,
           is_device_sparse,
)
from ._env import is_simulator, quiet
from ._options import BLOCK_MAX, GPU_LOOPS, GPU_OPTIONS, check_block_size, validate_gpu_options

__all__ = ["BLOCK_MAX", "GPU_LOOPS", "GPU_OPTIONS", "as_numba", "c_contiguous_device", "check_block_size", "device_library",
           "hand_back", "host_copy", "is_device_array", "is_device_graph", "is_device_sparse", "is_simulator", "quiet",
           "validate_gpu_options"]
