"""The GPU work a callable launches, from the PyTorch profiler: shared by the device scripts
(torch_decode_step.py's kernel counts and kernel times, moe_layer_kernels.py's per-component
kernels) so that every kernel table here is tallied the same way."""


def kernel_tally(fn, iters=1):
    """{kernel name: [calls, device us]} of `iters` calls of fn under the PyTorch profiler (the
    CUDA device events: kernels, memsets and copies), after the device has drained the work
    queued before it. torch is imported here, so scripts that guard their torch import (for
    --help on a machine without it) can import this module."""
    from collections import defaultdict

    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    tally = defaultdict(lambda: [0, 0.0])
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            tally[ev.name][0] += 1
            tally[ev.name][1] += ev.time_range.elapsed_us()
    return tally
