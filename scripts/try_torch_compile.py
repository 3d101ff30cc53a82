"""Issue 23's question, tried on a GPU: can the batched call sit inside ``torch.compile`` and a CUDA-graph capture?

    python3 scripts/try_torch_compile.py        (needs PyTorch with CUDA)

1. ``torch.compile(fullgraph=True)`` of a DETR-like matcher whose cost matrix is torch code and whose matching is
   ``batch_linear_sum_assignment`` wrapped as an opaque ``torch.library.custom_op`` (a fake implementation gives the
   output's shape): does it compile without a graph break and give the eager answer?
2. The same call inside ``torch.cuda.graph`` capture: what happens (the door reads each item's status back).
Prints one line per experiment; exit 0 whatever the outcome (this is a probe, not a test).
"""

import time

import numpy as np
import torch

from matchflow import batch_linear_sum_assignment


@torch.library.custom_op("matchflow_probe::batch_lsa", mutates_args=())
def batch_lsa(costs: torch.Tensor) -> torch.Tensor:
    return batch_linear_sum_assignment(costs, backend="gpu")


@batch_lsa.register_fake
def _(costs):
    return costs.new_empty(costs.shape[:2], dtype=torch.long)


def matcher(logits, boxes, tgt_boxes):
    cost = -logits.softmax(-1)[..., :1] + torch.cdist(boxes, tgt_boxes, p=1)
    return batch_lsa(cost.float())


def main():
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)
    B, Q, T = 64, 300, 40
    logits = torch.randn(B, Q, 2, device=dev, generator=g)
    boxes = torch.rand(B, Q, 4, device=dev, generator=g)
    tgt = torch.rand(B, T, 4, device=dev, generator=g)
    eager = matcher(logits, boxes, tgt)
    try:
        compiled = torch.compile(matcher, fullgraph=True)
        t0 = time.perf_counter()
        got = compiled(logits, boxes, tgt)
        torch.cuda.synchronize()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(10):
            got = compiled(logits, boxes, tgt)
        torch.cuda.synchronize()
        print(f"torch.compile fullgraph: ok, equal to eager: {bool(torch.equal(got, eager))}, first call {first:.2f} s, "
              f"then {(time.perf_counter() - t0) / 10 * 1e3:.2f} ms per call")
    except Exception as exc:  # a probe: report what happened
        print(f"torch.compile fullgraph: FAILED: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
    cost = (-logits.softmax(-1)[..., :1] + torch.cdist(boxes, tgt, p=1)).float()
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            out = batch_linear_sum_assignment(cost, backend="gpu")
        graph.replay()
        torch.cuda.synchronize()
        print(f"CUDA graph capture: captured; replay equal to eager: {bool(torch.equal(out, eager))}")
    except Exception as exc:
        print(f"CUDA graph capture: FAILED: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
    x = np.asarray(eager.cpu())
    print("answer shape", x.shape, "matched per item", int((x >= 0).sum(1).min()), "..", int((x >= 0).sum(1).max()))


if __name__ == "__main__":
    main()
