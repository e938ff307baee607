# A small PyTorch training loop (LayerNorm, AdamW): prints its final loss, which must be the same
# bare, traced and replayed (benchmarks/cuda/real_programs.sh).
import torch

torch.manual_seed(0)
dev = "cuda"
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),
                            torch.nn.Linear(128, 10)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
x = torch.randn(256, 64, device=dev)
y = torch.randint(0, 10, (256,), device=dev)
for _ in range(6):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print(f"final_loss={loss.item():.9f}")
