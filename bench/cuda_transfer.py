"""Host-to-device copies from textfeed's pinned ring, and a training step overlapped with loading.

  python3 bench/cuda_transfer.py --dataset DIR_OR_CACHE [--batch-size 8] [--threads N] [--rounds 5]
      [--copies 10] [--steps 20] [--profile upstage]

Needs a CUDA device; without one it says so and exits 0. Two measurements:

1. Copy bandwidth. One batch is taken from an in-process Loader(pin_memory=True): its tensors are
   views of the ring's slot, which the Loader page-locked with cudaHostRegister. Each round copies
   that batch to the device --copies times with `.cuda(non_blocking=True)` (what a training loop
   does), and the same shapes from torch's own pinned tensors (`pin_memory=True`) and from ordinary
   pageable tensors, alternately. GB/s come from CUDA events around the copies; "enqueue" is the host
   time the `.cuda()` calls took before the synchronize, which shows whether they were asynchronous.
   Prints per round, then min/median, and the ring's median as a share of torch's pinned median.

2. Overlap. A convolutional model (ResNet-50 body when torchvision is there, else a plain stack)
   with a per-pixel loss on the score and geometry maps, in bf16 autocast. Per batch: the step alone
   on a batch already on the device (compute), the Loader alone (load), and the training loop that
   takes batches from the Loader, copies them with non_blocking and steps (train). Overlap hides the
   shorter of compute and load when train ~= max(compute, load); serial would be compute + load.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

try:
    import torch
except ImportError:  # nothing to measure without torch either
    torch = None

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "build" / "python"))


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def copy_round(tensors, copies):
    """GB/s of `copies` rounds of .cuda(non_blocking=True) of every tensor, and the host ms the
    calls took before the synchronize."""
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    keep = []
    t0 = time.perf_counter()
    start.record()
    for _ in range(copies):
        keep.append([t.cuda(non_blocking=True) for t in tensors])
    end.record()
    enqueue_ms = (time.perf_counter() - t0) * 1e3
    end.synchronize()
    nbytes = copies * sum(t.numel() * t.element_size() for t in tensors)
    # The copies must have carried the bytes: the last round equals its source.
    for got, want in zip(keep[-1], tensors):
        if not torch.equal(got.cpu(), want):
            raise SystemExit("a copy to the device differs from its source")
    del keep
    return gbps(nbytes, start.elapsed_time(end)), enqueue_ms


def measure_copies(textfeed, args):
    loader = textfeed.Loader(dataset=args.dataset, batch_size=args.batch_size, profile=args.profile,
                             threads=args.threads, prefetch=2, pin_memory=True, seed=0)
    try:
        batch = next(iter(loader))
        ring = [t for t in batch]
        pinned = [torch.empty(t.shape, dtype=t.dtype, pin_memory=True).copy_(t) for t in ring]
        pageable = [t.clone() for t in ring]
        nbytes = sum(t.numel() * t.element_size() for t in ring)
        print(f"batch: {len(ring)} tensors, {nbytes / 2**20:.1f} MiB "
              f"({', '.join(f'{tuple(t.shape)} {t.dtype}' for t in ring)}); "
              f"ring tensors is_pinned: {all(t.is_pinned() for t in ring)}")
        kinds = {"ring": ring, "torch pinned": pinned, "pageable": pageable}
        for tensors in kinds.values():  # warm the allocator and the copy engines
            copy_round(tensors, 2)
        results = {k: [] for k in kinds}
        for r in range(args.rounds):
            line = []
            for name, tensors in kinds.items():
                rate, enqueue = copy_round(tensors, args.copies)
                results[name].append((rate, enqueue))
                line.append(f"{name} {rate:.1f} GB/s (enqueue {enqueue:.1f} ms)")
            print(f"round {r + 1}: " + "; ".join(line))
        med = {}
        for name, rows in results.items():
            rates = [x for x, _ in rows]
            med[name] = statistics.median(rates)
            print(f"{name}: min {min(rates):.1f} median {med[name]:.1f} GB/s, "
                  f"median enqueue {statistics.median(e for _, e in rows):.1f} ms "
                  f"for {args.copies} batch copies")
        print(f"ring / torch pinned (medians): {med['ring'] / med['torch pinned']:.3f}; "
              f"pageable / torch pinned: {med['pageable'] / med['torch pinned']:.3f}")
        del batch, ring, kinds, pinned, pageable
    finally:
        loader.close()


def make_model():
    try:
        import torchvision
        body = torchvision.models.resnet50(weights=None)
        trunk = torch.nn.Sequential(*list(body.children())[:-2])  # stride 32, 2048 channels
        channels, name = 2048, "resnet50 body"
    except ImportError:
        layers, c = [], 3
        for out in (32, 64, 128, 256, 256):
            layers += [torch.nn.Conv2d(c, out, 3, stride=2, padding=1), torch.nn.BatchNorm2d(out),
                       torch.nn.ReLU(inplace=True)]
            c = out
        trunk, channels, name = torch.nn.Sequential(*layers), 256, "5-layer conv stack"
    head = torch.nn.Conv2d(channels, 6, 1)  # score + 4 distances + angle
    return torch.nn.Sequential(trunk, head), name


def step(model, opt, img, score, geo, mask):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(img)
        out = torch.nn.functional.interpolate(out.float(), size=score.shape[-2:], mode="bilinear",
                                              align_corners=False)
        loss = ((out[:, :1].sigmoid() - score).abs() * mask).mean() + \
               ((out[:, 1:] - geo).abs() * score).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


def measure_overlap(textfeed, args):
    model, name = make_model()
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

    def loader():
        return textfeed.Loader(dataset=args.dataset, batch_size=args.batch_size, profile=args.profile,
                               threads=args.threads, prefetch=4, pin_memory=True, seed=1, drop_last=True)

    def to_device(batch):
        img, score, geo, mask = (t.cuda(non_blocking=True) for t in batch)
        return img.contiguous(memory_format=torch.channels_last), score, geo, mask

    # compute: the step on one batch already on the device
    feed = loader()
    try:
        resident = to_device(next(iter(feed)))
    finally:
        feed.close()
    for _ in range(3):
        step(model, opt, *resident)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step(model, opt, *resident)
    torch.cuda.synchronize()
    compute = (time.perf_counter() - t0) * 1e3 / args.steps

    def run(train):
        feed = loader()

        def epochs():  # as many epochs as the steps need
            while True:
                yield from feed

        try:
            it = epochs()
            for _ in range(2):  # the ring filling
                b = next(it)
                if train:
                    step(model, opt, *to_device(b))
                del b
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            n = 0
            for b in it:
                if train:
                    step(model, opt, *to_device(b))
                del b
                n += 1
                if n == args.steps:
                    break
            torch.cuda.synchronize()
            return (time.perf_counter() - t0) * 1e3 / n
        finally:
            feed.close()

    rows = []
    for r in range(args.rounds):
        load, train = run(False), run(True)
        rows.append((load, train))
        print(f"round {r + 1}: compute {compute:.1f} ms/batch, load {load:.1f}, train {train:.1f} "
              f"(serial would be {compute + load:.1f}, full overlap {max(compute, load):.1f})")
    load = statistics.median(x for x, _ in rows)
    train = statistics.median(x for _, x in rows)
    hidden = (compute + load - train) / min(compute, load)
    print(f"model: {name}, batch {args.batch_size}, bf16 autocast; medians: compute {compute:.1f}, "
          f"load {load:.1f}, train {train:.1f} ms/batch; share of the shorter hidden by overlap "
          f"{hidden:.2f}; GPU busy {compute / train:.2f} of the training loop")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--profile", default="upstage")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=0, help="worker threads, 0 = one per core")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--copies", type=int, default=10, help="batch copies per round")
    parser.add_argument("--steps", type=int, default=20, help="timed batches per overlap measurement")
    parser.add_argument("--skip-overlap", action="store_true")
    args = parser.parse_args()
    if min(args.batch_size, args.rounds, args.copies, args.steps) < 1 or args.threads < 0:
        parser.error("--batch-size, --rounds, --copies and --steps must be at least 1, --threads at least 0")
    if torch is None or not torch.cuda.is_available():
        print("torch with CUDA is not available: nothing to measure")
        return
    import textfeed
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    measure_copies(textfeed, args)
    if not args.skip_overlap:
        measure_overlap(textfeed, args)


if __name__ == "__main__":
    main()
