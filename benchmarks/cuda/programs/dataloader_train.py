# A small training loop fed by a PyTorch DataLoader with worker processes (fork), and, with
# --torchrun, the same as torchrun's worker: for benchmarks/cuda/trace_multiproc.sh. The workers
# make no CUDA calls; the main process (rank 0) trains an MLP for a fixed number of batches.
#   python3 dataloader_train.py [--batches N] [--workers W] [--profile]
# Prints final_loss=, and with --profile profiler_kernels= (the GPU kernels torch.profiler saw in
# the whole loop), and pid= (this process).
import argparse
import os

import torch

p = argparse.ArgumentParser()
p.add_argument("--batches", type=int, default=40)
p.add_argument("--workers", type=int, default=2)
p.add_argument("--profile", action="store_true")
a = p.parse_args()

torch.manual_seed(0)
torch.use_deterministic_algorithms(True)
x = torch.randn(a.batches * 64, 256)
y = torch.randint(0, 10, (a.batches * 64,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=64, shuffle=False,
                                     num_workers=a.workers, multiprocessing_context="fork")
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)


def loop():
    loss = None
    for xb, yb in loader:
        xb, yb = xb.cuda(), yb.cuda()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    return loss


import time  # noqa: E402

# The loop's window on CLOCK_BOOTTIME (encore's clock): the kernels encore recorded in it are
# counted against torch.profiler's, which sees only the loop.
torch.cuda.synchronize()
start = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
if a.profile:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        loss = loop()
    # Kernels only, as gpt2_train.py counts them: the profiler's CUDA events include copies and
    # memsets (encore's copies are MEMORY_COPY records, not kernels) and GPU-side annotations.
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                  and not e.name.startswith(("Memcpy", "Memset")) and not getattr(e, "is_user_annotation", False))
    print(f"profiler_kernels={kernels}")
else:
    loss = loop()
print(f"window_ns={start},{time.clock_gettime_ns(time.CLOCK_BOOTTIME)}")
print(f"final_loss={loss.item():.9f}")
print(f"pid={os.getpid()} rank={os.environ.get('RANK', '-')}")
