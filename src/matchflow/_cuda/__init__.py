"""The shared GPU layer of matchflow (numba.cuda), used by every ``_gpu_*`` solver module.

Importing this package (or :mod:`._options`, :mod:`._env`, :mod:`._arrays`) never imports ``numba.cuda``: option
validation and the simulator check run on machines without a GPU. The submodules that do are
``_launch`` (grid sizing, launch/sync counting, the cooperative compile-and-occupancy cache, host
rounds), ``_device`` (warp/block reductions and grid-sync slot helpers shared by the kernels) and
``_graph`` (the device twin of :class:`~matchflow._graph.BipartiteGraph`). Nothing outside this
package and the ``_gpu_*`` modules imports ``numba.cuda``.
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
