#!/usr/bin/python3
"""Train dicewatch's cocked net (vision/cocknet.go) on rows written by
TestCockNetExport, and write its weights in the DWCK1 format.

    /usr/bin/python3 tools/cocknet/train.py TRAIN.bin OUT.bin [--eval EVAL.bin ...]

Rows of generated stills' clean dice (label 0) and cocked dice (label 1)
are learnt; every other row is left out. Rows of seeds at or past
--val-from are kept aside to report on. Training only: the reader runs
the net in Go.
"""
import argparse
import struct

import numpy as np
import torch
import torch.nn as nn

SIDE, CHANS, EXTRA = 16, 2, 2
# the hidden layer's slope below zero (vision/cocknet.go's cockLeak)
LEAK = 0.05
NIN = SIDE * SIDE * CHANS
ROW = NIN + EXTRA + 10
# meta columns after the input
LABEL, MODE, GROUP, SEED, IDX, TILT, FLAT, VALUE, TVALUE, CONF = range(10)


def load(path):
    a = np.fromfile(path, dtype="<f4")
    a = a.reshape(-1, ROW)
    return a[:, :NIN].reshape(-1, CHANS, SIDE, SIDE), a[:, NIN:NIN + EXTRA], a[:, NIN + EXTRA:]


class Net(nn.Module):
    def __init__(self, c1, c2, hid):
        super().__init__()
        self.c1 = nn.Conv2d(CHANS, c1, 3, padding=1)
        self.c2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.f1 = nn.Linear(c2 * (SIDE // 4) ** 2 + EXTRA, hid)
        self.f2 = nn.Linear(hid, 1)

    def forward(self, x, s):
        x = torch.max_pool2d(torch.relu(self.c1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.c2(x)), 2)
        x = torch.cat([x.flatten(1), s], 1)
        return self.f2(nn.functional.leaky_relu(self.f1(x), LEAK)).squeeze(1)


def turn(x, k):
    """One of the eight quarter turns and mirrors of a batch of grids."""
    if k >= 4:
        x = torch.flip(x, [3])
    return torch.rot90(x, k % 4, [2, 3])


def probs(net, x, s):
    with torch.no_grad():
        return torch.sigmoid(net(torch.from_numpy(x), torch.from_numpy(s))).numpy()


def report(name, p, m):
    """Cocked recall at several false-cocked rates, and the reader's own."""
    for mode in (1, 0):
        sel = m[:, MODE] == mode
        clean = sel & (m[:, GROUP] == 0)
        cocked = sel & (m[:, GROUP] == 1)
        if clean.sum() == 0:
            continue
        pc = np.sort(p[clean])
        line = []
        for fr in (0.005, 0.01, 0.02, 0.05, 0.12):
            cut = pc[min(len(pc) - 1, int((1 - fr) * len(pc)))]
            line.append("false %.1f%%: cut %.3f recall %.1f%%" % (100 * fr, cut, 100 * (p[cocked] > cut).mean()))
        own_rec = 100 * (m[cocked, FLAT] == 0).mean()
        own_false = 100 * (m[clean, FLAT] == 0).mean()
        print("%s mode %s: %d clean, %d cocked; reader's own: recall %.1f%% false %.1f%%" % (
            name, "cal" if mode else "uncal", clean.sum(), cocked.sum(), own_rec, own_false))
        print("   " + "\n   ".join(line))
    real = m[:, GROUP] == 5
    if real.sum():
        pr = p[real]
        print("%s real photo dice %d: p>0.5 %d, p>0.7 %d, p>0.9 %d, max %.3f; reader's not flat %d" % (
            name, real.sum(), (pr > 0.5).sum(), (pr > 0.7).sum(), (pr > 0.9).sum(), pr.max(), (m[real, FLAT] == 0).sum()))


def write(net, path, c1, c2, hid):
    with open(path, "wb") as f:
        f.write(b"DWCK1\n")
        f.write(struct.pack("<4I", NIN, c1, c2, hid))
        for t in (net.c1.weight, net.c1.bias, net.c2.weight, net.c2.bias,
                  net.f1.weight, net.f1.bias, net.f2.weight, net.f2.bias):
            f.write(t.detach().numpy().astype("<f4").tobytes())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("train")
    ap.add_argument("out")
    ap.add_argument("--eval", nargs="*", default=[])
    ap.add_argument("--c1", type=int, default=4)
    ap.add_argument("--c2", type=int, default=8)
    ap.add_argument("--hid", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--val-from", type=float, default=23800)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    x, s, m = load(a.train)
    use = (m[:, GROUP] == 0) | (m[:, GROUP] == 1)
    tr = use & (m[:, SEED] < a.val_from)
    va = m[:, SEED] >= a.val_from
    xt, st, yt = torch.from_numpy(x[tr]), torch.from_numpy(s[tr]), torch.from_numpy(m[tr, LABEL])
    print("train rows %d (cocked %d), val rows %d" % (tr.sum(), int(yt.sum()), va.sum()))
    net = Net(a.c1, a.c2, a.hid)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, a.epochs)
    lossf = nn.BCEWithLogitsLoss()
    n = len(yt)
    for ep in range(a.epochs):
        perm = torch.from_numpy(rng.permutation(n))
        tot = 0.0
        for i in range(0, n, 128):
            b = perm[i:i + 128]
            xb = turn(xt[b], int(rng.integers(8)))
            loss = lossf(net(xb, st[b]), yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(b)
        sched.step()
        if ep % 5 == 4 or ep == a.epochs - 1:
            print("epoch %d loss %.4f" % (ep + 1, tot / n))
    net.eval()
    report("val", probs(net, x[va], s[va]), m[va])
    for path in a.eval:
        ex, es, em = load(path)
        report(path, probs(net, ex, es), em)
    write(net, a.out, a.c1, a.c2, a.hid)


if __name__ == "__main__":
    main()
