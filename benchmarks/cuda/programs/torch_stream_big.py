# A program holding several GiB of device memory (BALLAST_GIB, default 8, written once so its
# pages exist) that launches a Triton kernel streaming a known buffer, STEPS times (default 12):
# dst = src * 2 + dst over STREAM_MIB MiB of fp32 (default 256: five times an H200's L2), so each
# launch reads 2 x STREAM_MIB MiB and writes STREAM_MIB MiB from and to DRAM
# (benchmarks/cuda/metrics_vs_ncu.sh: dram bytes against the buffer's size, and the wall time of
# encore-replay --metrics against Nsight Compute's, whose save/restore covers the whole footprint).
# Every launch reads what the last one wrote. Prints a digest of dst's bytes.
import hashlib
import os

import torch
import triton
import triton.language as tl


@triton.jit
def stream_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask) * 2 + tl.load(dst_ptr + offs, mask=mask), mask=mask)


ballast_gib = float(os.environ.get("BALLAST_GIB", "8"))
steps = int(os.environ.get("STEPS", "12"))
n = int(os.environ.get("STREAM_MIB", "256")) * (1 << 20) // 4
ballast = torch.ones(int(ballast_gib * (1 << 30)) // 4, dtype=torch.float32, device="cuda")
torch.manual_seed(0)
src = torch.rand(n, device="cuda")
dst = torch.zeros(n, device="cuda")
torch.cuda.synchronize()
for _ in range(steps):
    stream_kernel[(triton.cdiv(n, 4096),)](src, dst, n, BLOCK=4096)
    src, dst = dst, src
torch.cuda.synchronize()
print(f"stream_bytes={n * 4} ballast_bytes={ballast.numel() * 4}")
print(f"digest={hashlib.sha256(dst.cpu().numpy().tobytes()).hexdigest()[:32]}")
