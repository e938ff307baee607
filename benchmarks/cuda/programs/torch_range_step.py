# A deterministic PyTorch training step (Linear, LayerNorm, GELU, SGD with momentum: state that
# every step reads and writes) run 3 times, each inside an NVTX range "step", after 2 warm-up
# steps outside it (cuBLAS handles, allocator pools, lazy module loading). Nothing inside a step
# reads the GPU from the host (the loss is read after the last one). Prints a digest of the
# parameters, the momentum buffers and the last loss (benchmarks/cuda/range_replay.sh).
import hashlib
import os

import torch

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
torch.use_deterministic_algorithms(True)
torch.manual_seed(0)
dev = "cuda"
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),
                            torch.nn.Linear(128, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
x = torch.randn(256, 64, device=dev)
y = torch.randint(0, 10, (256,), device=dev)


def step():
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


for _ in range(2):
    step()
torch.cuda.synchronize()
for _ in range(3):
    torch.cuda.nvtx.range_push("step")
    loss = step()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
h = hashlib.sha256()
for p in model.parameters():
    h.update(p.detach().cpu().numpy().tobytes())
    h.update(opt.state[p]["momentum_buffer"].cpu().numpy().tobytes())
h.update(loss.detach().cpu().numpy().tobytes())
print(f"digest={h.hexdigest()}")
