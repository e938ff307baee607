# A Hugging Face GPT-2 training loop with random weights (nothing downloaded): 4 layers, AdamW,
# deterministic algorithms, for benchmarks/cuda/trace_gpt2.sh. Prints the median step time of
# the timed steps, their window on CLOCK_BOOTTIME (encore's clock: the kernels encore recorded
# in it are counted against torch.profiler's), and the final loss (identical traced and bare).
#   python3 gpt2_train.py [--steps N] [--profile] [--serve]
# --profile: the timed steps run under torch.profiler (CPU and CUDA activities, as a user runs
# it) and the number of GPU kernels it saw in them is printed (profiler_kernels=N).
# --serve: after the warm-up, prints "ready" and runs timed steps when told on stdin, for
# interleave.py, which takes turns between several such processes (bare, traced) so that the
# host's drift falls on all of them alike: "steps K" runs K steps and prints "times T1,...,TK"
# (ms); "end" prints what a plain run prints (over every step run) and exits. The window then
# spans the first to the last step run; the process is idle (blocked on stdin) in between.
import argparse
import os
import statistics
import sys
import time

import torch

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20)
p.add_argument("--profile", action="store_true")
p.add_argument("--serve", action="store_true")
a = p.parse_args()

torch.use_deterministic_algorithms(True)
torch.manual_seed(0)
dev = "cuda"
cfg = GPT2Config(n_layer=4, n_head=8, n_embd=512, n_positions=256, vocab_size=8192)
model = GPT2LMHeadModel(cfg).to(dev)
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
ids = torch.randint(0, cfg.vocab_size, (8, 256), device=dev)


def step():
    opt.zero_grad(set_to_none=True)
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    return loss


for _ in range(3):  # warm-up: cuBLAS handles, allocator pools, lazy module loading
    step()
torch.cuda.synchronize()


def timed(n):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        loss = step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return loss, times


def served():
    """Runs steps when told on stdin until "end": the loss of the last step and every step's time."""
    print("ready", flush=True)
    loss, times = None, []
    for line in sys.stdin:
        words = line.split()
        if words == ["end"]:
            break
        if len(words) != 2 or words[0] != "steps" or not words[1].isdigit():
            sys.exit(f"gpt2_train: unknown command {line.strip()!r}")
        loss, block = timed(int(words[1]))
        times += block
        print("times " + ",".join(f"{t:.4f}" for t in block), flush=True)
    if loss is None:
        sys.exit("gpt2_train: no step was run")
    return loss, times


run = served if a.serve else lambda: timed(a.steps)
start = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
if a.profile:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        loss, times = run()
    # GPU-side events that are kernels: not copies, memsets, or torch's own annotations on the
    # GPU timeline (AdamW's "Optimizer.step#AdamW.step", one per step).
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
               and not e.name.startswith(("Memcpy", "Memset")) and not getattr(e, "is_user_annotation", False)
               and not ("#" in e.name and "(" not in e.name)]  # kernels' lambdas have '#' too, and a signature
    print(f"profiler_kernels={len(kernels)}")
else:
    loss, times = run()
end = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
print(f"window_ns={start},{end}")
print(f"median_step_ms={statistics.median(times):.3f}")
print(f"final_loss={loss.item():.9f}", flush=True)
