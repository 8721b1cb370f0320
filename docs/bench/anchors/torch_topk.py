# torch.topk and torch.sort device times (CUDA events, median of 21) on clsort-bench --topk's cells.
import torch
cells = [(1, 1 << 24), (1 << 6, 1 << 18), (1 << 10, 1 << 14), (1 << 14, 1 << 10), (1 << 16, 1 << 8)]
ks = [1, 8, 32, 128, 1024]
def t(fn, reps=21):
    fn(); torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize(); out.append(a.elapsed_time(b))
    out.sort(); return out[len(out) // 2]
for dt in (torch.float32, torch.int32):
    print("# torch", torch.__version__, dt, torch.cuda.get_device_name())
    for rows, n in cells:
        x = (torch.rand(rows, n, device="cuda") * 2**31).to(dt)
        row = [f"{rows}x{n}"]
        for k in ks:
            row.append(f"{t(lambda: torch.topk(x, k, dim=-1, largest=True, sorted=True)):.3f}" if k <= n else "-")
        row.append(f"{t(lambda: torch.sort(x, dim=-1)):.3f}")
        print(" | ".join(row))
