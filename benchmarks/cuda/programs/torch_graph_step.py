# A whole training step (forward, backward, SGD) captured into a CUDA graph by PyTorch
# (torch.cuda.CUDAGraph, as its documentation's whole-network capture does), then replayed 4
# times on new static inputs: each g.replay() is one cuGraphLaunch. Prints a digest of the
# parameters and the last loss (benchmarks/cuda/range_replay.sh).
import hashlib
import os

import torch

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
torch.use_deterministic_algorithms(True)
torch.manual_seed(0)
dev = "cuda"
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
static_x = torch.randn(256, 64, device=dev)
static_y = torch.randint(0, 10, (256,), device=dev)

# Warm-up on a side stream (PyTorch's requirement before capture).
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(static_x), static_y).backward()
        opt.step()
torch.cuda.current_stream().wait_stream(s)

g = torch.cuda.CUDAGraph()
opt.zero_grad(set_to_none=True)
with torch.cuda.graph(g):
    static_loss = torch.nn.functional.cross_entropy(model(static_x), static_y)
    static_loss.backward()
    opt.step()

gen = torch.Generator(device=dev).manual_seed(1)
for _ in range(4):
    static_x.copy_(torch.randn(256, 64, device=dev, generator=gen))
    g.replay()
torch.cuda.synchronize()
h = hashlib.sha256()
for p in model.parameters():
    h.update(p.detach().cpu().numpy().tobytes())
h.update(static_loss.detach().cpu().numpy().tobytes())
print(f"digest={h.hexdigest()}")
