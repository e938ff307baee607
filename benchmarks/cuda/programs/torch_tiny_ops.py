# An API-bound PyTorch loop: tiny in-place adds on a small CUDA tensor, one kernel launch each, so
# the host's cost per launch is what it measures. Prints the median microseconds per op over 7
# rounds of 5000 ops, and the tensor's final value (the same bare, under encore and profiled).
#   python3 torch_tiny_ops.py             bare, or under encore (benchmarks/cuda/run_gpu.sh)
#   python3 torch_tiny_ops.py --profile   the same loop inside torch.profiler (CPU and CUDA
#                                         activities: CUPTI activity records plus every CPU op)
import statistics
import sys
import time

import torch

ROUNDS, OPS = 7, 5000
x = torch.zeros(16, device="cuda")
x.add_(1.0)  # warm-up: the kernel is loaded, the allocator primed
torch.cuda.synchronize()
x.zero_()
torch.cuda.synchronize()


def rounds():
    per_op = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(OPS):
            x.add_(1.0)
        torch.cuda.synchronize()
        per_op.append((time.perf_counter() - t0) / OPS * 1e6)
    return per_op


if "--profile" in sys.argv:
    from torch.profiler import ProfilerActivity, profile

    # The rounds are timed inside the profiled region; the profiler's post-processing at its exit
    # is not (nor asked for: its event list of 70 000 entries takes long to build).
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        per_op = rounds()
else:
    per_op = rounds()
print(f"torch_tiny_ops: median={statistics.median(per_op):.3f} us per op (min {min(per_op):.3f} "
      f"max {max(per_op):.3f}); value={x[0].item():.1f} expected={ROUNDS * OPS:.1f}")
