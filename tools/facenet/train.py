#!/usr/bin/env python3
"""Trains dicewatch's face nets (vision/facenet.go) with PyTorch, on CPU.

Training only: the reader runs the nets in Go. Input: the directory
TestFaceNetExport writes (byler.meta/.x, train.meta/.x). Output: the five
byler fold nets (net0.bin..net4.bin: fold f learns from every byler image
i with i % 5 != f, and the training stills) and the shipped net
(net5.bin: every byler image and the training stills), in the DWFN3
format unmarshalFaceNet reads. See testdata/facenet/SOURCE.md.

  python3 tools/facenet/train.py EXPORT_DIR OUT_DIR [--epochs N] [--nets 0,1,2,3,4,5]
"""
import argparse
import os
import struct

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SIDE, CHANS = 24, 2
NIN = SIDE * SIDE * CHANS
FIELDS = ["image", "cal", "group", "truth", "read", "flat", "shrunk", "weak", "lv", "tmpl", "blobs", "patches"]
# The still groups (stillGroups in accuracy_still_test.go).
CLEAN, COCKED, STACKED, UNDER, BLURRED = 0, 1, 2, 3, 4
REJECT = 6  # the seventh class: not a clean top face


def load(d, name):
    meta = np.fromfile(os.path.join(d, name + ".meta"), dtype="<i4").reshape(-1, len(FIELDS))
    x = np.fromfile(os.path.join(d, name + ".x"), dtype="<f4").reshape(-1, CHANS, SIDE, SIDE)
    owner = np.repeat(np.arange(len(meta)), meta[:, FIELDS.index("patches")])
    assert len(owner) == len(x), (len(owner), len(x))
    return meta, x, owner


class Net(nn.Module):
    def __init__(self, c1, c2, hid, nout):
        super().__init__()
        self.c1 = nn.Conv2d(CHANS, c1, 3, padding=1)
        self.c2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.f3 = nn.Linear(c2 * (SIDE // 4) ** 2, hid)
        self.f4 = nn.Linear(hid, nout)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.relu(self.f3(x.flatten(1)))
        return self.f4(x)


def save(net, path, nout):
    with open(path, "wb") as f:
        f.write(b"DWFN3\n")
        f.write(struct.pack("<5I", NIN, net.c1.out_channels, net.c2.out_channels, net.f3.out_features, nout))
        for p in [net.c1.weight, net.c1.bias, net.c2.weight, net.c2.bias, net.f3.weight, net.f3.bias, net.f4.weight, net.f4.bias]:
            f.write(p.detach().numpy().astype("<f4").tobytes())


def augment(x, g):
    # Any of the eight turns and mirror images keeps a face's value.
    k = int(torch.randint(0, 4, (1,), generator=g))
    x = torch.rot90(x, k, (2, 3))
    if torch.rand(1, generator=g) < 0.5:
        x = torch.flip(x, (3,))
    n = x.shape[0]
    # Contrast of each channel, a small offset of the luminance, noise.
    s = 1 + 0.15 * torch.randn(n, CHANS, 1, 1, generator=g)
    x = x * s
    x[:, 1:2] += 0.2 * torch.randn(n, 1, 1, 1, generator=g)
    x = x + 0.05 * torch.randn(x.shape, generator=g)
    # A shift of up to one sample.
    dx, dy = [int(v) for v in torch.randint(-1, 2, (2,), generator=g)]
    x = torch.roll(x, (dy, dx), (2, 3))
    return x


def warp(x, g):
    """Scales, turns and shifts each patch a little, as a face rectangle
    off by part of a pip row would (bilinear; the border repeats)."""
    n = x.shape[0]
    sc = 1 + 0.08 * torch.randn(n, generator=g)
    an = 0.12 * torch.randn(n, generator=g)
    tx = 0.06 * torch.randn(n, 2, generator=g)
    c, s = torch.cos(an) * sc, torch.sin(an) * sc
    theta = torch.stack([torch.stack([c, -s, tx[:, 0]], 1), torch.stack([s, c, tx[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


def augment_hard(x, g, geometric):
    """augment, and what byler's unread dice show: soft focus and pips of
    low contrast against their body (the colour distance channel
    weakened, the luminance's pip swing shrunk under its noise); with
    geometric, also the warp above."""
    n = x.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=g))
    x = torch.rot90(x, k, (2, 3))
    if torch.rand(1, generator=g) < 0.5:
        x = torch.flip(x, (3,))
    if geometric:
        x = warp(x, g)
    # Soft focus on a third of the patches.
    blur = torch.rand(n, 1, 1, 1, generator=g) < 0.33
    k3 = torch.tensor([0.25, 0.5, 0.25])
    kk = (k3[:, None] * k3[None, :]).expand(CHANS, 1, 3, 3)
    xb = F.conv2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), kk, groups=CHANS)
    x = torch.where(blur, xb, x)
    # Low pip contrast on a third.
    low = (torch.rand(n, 1, 1, 1, generator=g) < 0.33).float()
    gd = 1 - low * 0.6 * torch.rand(n, 1, 1, 1, generator=g)
    gl = 1 - low * 0.5 * torch.rand(n, 1, 1, 1, generator=g)
    x = torch.cat([x[:, :1] * gd, x[:, 1:] * gl], 1)
    s = 1 + 0.15 * torch.randn(n, CHANS, 1, 1, generator=g)
    x = x * s
    x[:, 1:2] += 0.2 * torch.randn(n, 1, 1, 1, generator=g)
    x = x + (0.03 + 0.05 * torch.rand(n, 1, 1, 1, generator=g)) * torch.randn(x.shape, generator=g)
    if not geometric:
        dx, dy = [int(v) for v in torch.randint(-1, 2, (2,), generator=g)]
        x = torch.roll(x, (dy, dx), (2, 3))
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("export")
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--nets", default="0,1,2,3,4,5")
    ap.add_argument("--c1", type=int, default=16)
    ap.add_argument("--c2", type=int, default=32)
    ap.add_argument("--hid", type=int, default=64)
    ap.add_argument("--reject", type=int, default=1, help="1: a seventh class for cocked and stacked dice")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--aug", default="plain", help="plain: turns, contrast, offset, noise, shift; soft: also blur and low pip contrast; hard: soft and a small scale and turn")
    ap.add_argument("--byler-weight", type=int, default=1, help="how many times each byler patch is seen an epoch")
    ap.add_argument("--extra", default="", help="more exports' training stills to learn from (directories, comma-separated)")
    ap.add_argument("--unread-weight", type=int, default=0, help="how many more times a byler die the pip reader left unread is seen an epoch")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    bm, bx, bo = load(a.export, "byler")
    tm, tx, to = load(a.export, "train")
    for d in [v for v in a.extra.split(",") if v]:
        em, ex, eo = load(d, "train")
        to = np.concatenate([to, eo + len(tm)])
        tm = np.concatenate([tm, em])
        tx = np.concatenate([tx, ex])
    G = FIELDS.index("group")
    T = FIELDS.index("truth")
    # Stills: clean dice learn their face; cocked, stacked and
    # under-stack dice the reject class (or nothing, without it);
    # blurred dice are left out.
    tg = tm[to, G]
    ty = tm[to, T] - 1
    keep = tg == CLEAN
    if a.reject:
        rej = (tg == COCKED) | (tg == STACKED) | (tg == UNDER)
        ty = np.where(rej, REJECT, ty)
        keep |= rej
    tx, ty = tx[keep], ty[keep]
    nout = 7 if a.reject else 6
    by = bm[bo, T] - 1
    bimg = bm[bo, FIELDS.index("image")]
    print(f"byler {len(bm)} dice {len(bx)} patches; stills {len(tx)} patches ({int((ty == REJECT).sum())} reject)", flush=True)
    os.makedirs(a.out, exist_ok=True)
    for f in [int(v) for v in a.nets.split(",")]:
        sel = bimg % 5 != f if f < 5 else np.ones(len(bx), bool)
        # byler's dice may count more than once (--byler-weight), and the
        # ones the pip reader left unread, the faces the net is for, more
        # again (--unread-weight).
        hard = sel & (bm[bo, FIELDS.index("read")] == 0)
        X = torch.from_numpy(np.concatenate([bx[sel]] * a.byler_weight + [bx[hard]] * a.unread_weight + [tx]))
        Y = torch.from_numpy(np.concatenate([by[sel]] * a.byler_weight + [by[hard]] * a.unread_weight + [ty]).astype(np.int64))
        g = torch.Generator().manual_seed(1000 + f)
        torch.manual_seed(f + 1)
        net = Net(a.c1, a.c2, a.hid, nout)
        opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-3)
        steps = a.epochs * ((len(X) + 127) // 128)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
        for ep in range(a.epochs):
            perm = torch.randperm(len(X), generator=g)
            tot, right = 0.0, 0
            net.train()
            for b in range(0, len(X), 128):
                idx = perm[b:b + 128]
                xb = augment(X[idx].clone(), g) if a.aug == "plain" else augment_hard(X[idx].clone(), g, a.aug == "hard")
                out = net(xb)
                loss = F.cross_entropy(out, Y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                tot += float(loss) * len(idx)
                right += int((out.argmax(1) == Y[idx]).sum())
            msg = f"net {f} epoch {ep}: loss {tot / len(X):.4f} train acc {right / len(X):.4f}"
            if f < 5:
                net.eval()
                with torch.no_grad():
                    hm = bm[:, FIELDS.index("image")] % 5 == f
                    first = np.concatenate([[0], np.cumsum(bm[:, FIELDS.index("patches")])[:-1]])
                    rect = torch.from_numpy(bx[first[hm]])
                    p = net(rect).argmax(1).numpy()
                    msg += f"; held-out byler rect acc {(p == bm[hm, T] - 1).mean():.4f}"
                    un = bm[hm, FIELDS.index("read")] == 0
                    msg += f", unread {(p[un] == bm[hm, T][un] - 1).sum()}/{un.sum()}"
            print(msg, flush=True)
        save(net, os.path.join(a.out, f"net{f}.bin"), nout)


if __name__ == "__main__":
    main()
