#!/usr/bin/env python3
# workload_torch.py: a team's reference run for `envparity --workload`, to
# copy and adapt (docs/workloads.md).  A small PyTorch model on the CPU
# with fixed seeds, a fixed input and deterministic algorithms; it writes
# the bytes of its output tensors to the file envparity names in
# ENVPARITY_WORKLOAD_OUTPUT (standard output when run by hand), so that
# envparity can hash them:
#
#   envparity check --workload 'model=python3 docs/examples/workload_torch.py'
#
# Bit for bit, the same stack must give the same bytes on every run and
# every node.  Two ways to see it fail:
#   --no-seed        the weights come from an unseeded generator: every
#                    run differs ("5 distinct outputs in 5 runs");
#   OMP_NUM_THREADS  a different thread count splits the reduction
#                    differently: the same stack gives other bits, and
#                    env.OMP_NUM_THREADS is named as the likely cause.
#                    (The model splits its long sum into one part per
#                    thread itself, as an OpenMP reduction does, so that
#                    the effect shows on any machine; how a library's own
#                    kernels split their work is theirs.)
import os
import sys

import torch


def model():
    return torch.nn.Sequential(
        torch.nn.Conv1d(4, 8, kernel_size=5, padding=2),
        torch.nn.GELU(),
        torch.nn.Flatten(),
        torch.nn.Linear(8 * 256, 64),
        torch.nn.Tanh(),
        torch.nn.Linear(64, 10),
    )


def main():
    seeded = "--no-seed" not in sys.argv[1:]
    torch.use_deterministic_algorithms(True)
    if seeded:
        torch.manual_seed(1234)
    else:
        torch.seed()
    net = model().eval()
    # A fixed input, made from a generator of its own.
    gen = torch.Generator().manual_seed(42)
    x = torch.randn(16, 4, 256, generator=gen)
    big = torch.randn(1 << 20, generator=gen)
    with torch.no_grad():
        y = net(x)
        # A long reduction, one partial sum per thread: its float
        # rounding follows how the work is split among threads.
        parts = (big * 1e-3).exp().chunk(torch.get_num_threads())
        s = torch.stack([p.sum() for p in parts]).sum().reshape(1)
    data = y.contiguous().numpy().tobytes() + s.numpy().tobytes()
    out = os.environ.get("ENVPARITY_WORKLOAD_OUTPUT")
    if out:
        with open(out, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)


if __name__ == "__main__":
    main()
