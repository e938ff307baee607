# A Triton kernel (@triton.jit vector add) launched in place, x += y, six times
# (benchmarks/cuda/replay_frameworks.sh): every launch reads what the last one wrote, so a pass
# that did not start from the launch's inputs changes the result. Prints a digest of x's bytes.
import hashlib

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


torch.manual_seed(0)
n = 1 << 22
x = torch.rand(n, device="cuda")
y = torch.rand(n, device="cuda")
for _ in range(6):
    add_kernel[(triton.cdiv(n, 1024),)](x, y, x, n, BLOCK=1024)
torch.cuda.synchronize()
print(f"digest={hashlib.sha256(x.cpu().numpy().tobytes()).hexdigest()[:32]}")
