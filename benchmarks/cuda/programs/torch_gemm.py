# A cuBLAS GEMM loop (torch.matmul on 1024x1024 fp32, TF32 off), deterministic, each step reading
# the last one's result (benchmarks/cuda/replay_frameworks.sh): prints a digest of the result's
# bytes, which must be the same bare, replayed and under Nsight Compute.
import hashlib
import os

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402  (after the cuBLAS setting)

torch.use_deterministic_algorithms(True)
torch.backends.cuda.matmul.allow_tf32 = False
torch.manual_seed(0)
a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(1024, 1024, device="cuda") / 32
for _ in range(8):
    a = torch.matmul(a, b) + a
    a = a / a.abs().max()
torch.cuda.synchronize()
print(f"digest={hashlib.sha256(a.cpu().numpy().tobytes()).hexdigest()[:32]}")
