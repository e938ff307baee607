# A small deterministic PyTorch training loop (Linear, LayerNorm, GELU, AdamW; cuBLAS underneath)
# with the loop inside an NVTX range "train_loop" (benchmarks/cuda/trace_frameworks.sh). Prints
# its final loss. With --profile the loop runs under torch.profiler (CUPTI) instead and the
# number of GPU kernels it saw is printed too (profiler_kernels=N), to compare with encore's
# dispatch count inside the same range.
import os
import sys

import torch

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
torch.use_deterministic_algorithms(True)
torch.manual_seed(0)
dev = "cuda"
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),
                            torch.nn.Linear(128, 10)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
x = torch.randn(256, 64, device=dev)
y = torch.randint(0, 10, (256,), device=dev)


def train(steps):
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return loss


train(2)  # warm-up: cuBLAS handles, allocator pools, lazy module loading
torch.cuda.synchronize()
if "--profile" in sys.argv:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        loss = train(6)
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
               and not e.name.startswith(("Memcpy", "Memset"))]
    print(f"profiler_kernels={len(kernels)}")
else:
    torch.cuda.nvtx.range_push("train_loop")
    loss = train(6)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
print(f"final_loss={loss.item():.9f}")
