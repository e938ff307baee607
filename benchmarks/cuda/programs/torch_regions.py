# torch.cuda.profiler.start()/stop() around a known number of launches, for
# benchmarks/cuda/regions_check.sh: PyTorch's region calls go through the CUDA runtime's
# cudaProfilerStart/Stop to the driver's cuProfilerStart/Stop, which encore-trace
# --selected-regions takes as a region (docs/cuda.md). The launches before and after the region
# (x.mul_) must not be recorded; the ones inside (x.add_) all must.
import argparse

import torch

p = argparse.ArgumentParser()
p.add_argument("--inside", type=int, default=100)
p.add_argument("--outside", type=int, default=50)
a = p.parse_args()
x = torch.zeros(1 << 20, device="cuda")
for _ in range(a.outside):
    x.mul_(2)
torch.cuda.synchronize()
torch.cuda.profiler.start()
for _ in range(a.inside):
    x.add_(1)
torch.cuda.synchronize()
torch.cuda.profiler.stop()
for _ in range(a.outside):
    x.mul_(2)
torch.cuda.synchronize()
print(f"inside={a.inside} outside={2 * a.outside} sum={x.sum().item():.1f}", flush=True)
