#!/usr/bin/python3
"""Train one of dicewatch's cocked nets (vision/cocknet.go) on rows written by
TestCockNetExport, and write its weights in the DWCK2 format.

    /usr/bin/python3 tools/cocknet/train.py --train A.bin [B.bin ...] --bin OUT.bin [--aug d8|up]

Rows of generated stills' clean dice (label 0) and cocked dice (label 1)
are learnt; every other row is left out. Rows of the --val seed ranges are
kept aside to report on. --aug d8 shows each batch in one of the eight
quarter turns and mirrors (vision/cocknet.bin); --aug up only mirrored left
to right, so that the net may learn which side of a die a side face shows
(vision/cocknet_up.bin). Training only: the reader runs the nets in Go.
"""
import argparse
import struct

import numpy as np
import torch
import torch.nn as nn

# the hidden layer's slope below zero (vision/cocknet.go's cockLeak)
LEAK = 0.05
EXTRA = 2
# meta columns after the input
LABEL, MODE, GROUP, SEED, IDX, TILT, FLAT, VALUE, TVALUE, CONF = range(10)


def load(paths, side, chans_file, use_ch):
    nin = side * side * chans_file
    row = nin + EXTRA + 10
    xs, ss, ms = [], [], []
    for p in paths:
        a = np.fromfile(p, dtype="<f4").reshape(-1, row)
        xs.append(a[:, :nin].reshape(-1, chans_file, side, side)[:, :use_ch].copy())
        ss.append(a[:, nin:nin + EXTRA].copy())
        ms.append(a[:, nin + EXTRA:].copy())
    return np.concatenate(xs), np.concatenate(ss), np.concatenate(ms)


class Net(nn.Module):
    def __init__(self, chans, side, c1, c2, c3, hid, extra=EXTRA):
        super().__init__()
        self.c1 = nn.Conv2d(chans, c1, 3, padding=1)
        self.c2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.c3 = nn.Conv2d(c2, c3, 3, padding=1) if c3 else None
        g, last = side // 4, c2
        if c3:
            g, last = g // 2, c3
        self.f1 = nn.Linear(last * g * g + extra, hid)
        self.f2 = nn.Linear(hid, 1)

    def forward(self, x, s):
        x = torch.max_pool2d(torch.relu(self.c1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.c2(x)), 2)
        if self.c3 is not None:
            x = torch.max_pool2d(torch.relu(self.c3(x)), 2)
        x = torch.cat([x.flatten(1), s], 1)
        return self.f2(nn.functional.leaky_relu(self.f1(x), LEAK)).squeeze(1)


# the view's tilt is given to a net trained with --tilts as tilt/TILT_SCALE
# (vision/cocknet.go's cockTiltScale)
TILT_SCALE = 30.0


def read_tilts(path):
    """The camera's tilt of each still, from lines 'seed tilt_deg'."""
    t = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                k, v = line.split()
                t[int(k)] = float(v)
    return t


def turn(x, k):
    """One of the eight quarter turns and mirrors of a batch of grids."""
    if k >= 4:
        x = torch.flip(x, [3])
    return torch.rot90(x, k % 4, [2, 3])


def probs(net, x, s):
    out = []
    with torch.no_grad():
        for i in range(0, len(x), 4096):
            out.append(torch.sigmoid(net(torch.from_numpy(x[i:i + 4096]), torch.from_numpy(s[i:i + 4096]))).numpy())
    return np.concatenate(out) if out else np.zeros(0)


def report(name, p, m, cuts):
    """Cocked recall at several false-cocked rates and at the given cuts."""
    for mode in (1, 0):
        sel = m[:, MODE] == mode
        clean = sel & (m[:, GROUP] == 0)
        cocked = sel & (m[:, GROUP] == 1)
        if clean.sum() == 0:
            continue
        pc = np.sort(p[clean])
        line = []
        for fr in (0.005, 0.01, 0.02, 0.035, 0.05):
            cut = pc[min(len(pc) - 1, int((1 - fr) * len(pc)))]
            line.append("false %.1f%%: %.1f%% (cut %.2f)" % (100 * fr, 100 * (p[cocked] > cut).mean(), cut))
        at = " ".join("@%.2f %.1f/%.2f" % (c, 100 * (p[cocked] >= c).mean(), 100 * (p[clean] >= c).mean()) for c in cuts)
        print("%s %s: %d clean %d cocked; %s | %s" % (name, "cal" if mode else "uncal", clean.sum(), cocked.sum(), "; ".join(line), at))


def write(net, path, a):
    with open(path, "wb") as f:
        sh = [a.side, a.ch, int(round(a.span * 1000)), a.core, a.c1, a.c2, a.c3, a.hid]
        if a.tilts:
            # DWCK3: a ninth number, the scalars the net takes (the
            # third is the view's tilt)
            f.write(b"DWCK3\n")
            f.write(struct.pack("<9I", *sh, EXTRA + 1))
        else:
            f.write(b"DWCK2\n")
            f.write(struct.pack("<8I", *sh))
        ts = [net.c1.weight, net.c1.bias, net.c2.weight, net.c2.bias]
        if net.c3 is not None:
            ts += [net.c3.weight, net.c3.bias]
        ts += [net.f1.weight, net.f1.bias, net.f2.weight, net.f2.bias]
        for t in ts:
            f.write(t.detach().numpy().astype("<f4").tobytes())


def read_init(net, path, extra):
    """Load a DWCK2 weight file of the same shape into net; with extra
    scalars beyond the file's two, their weights in the hidden layer start
    at zero, so the net starts as the file's net whatever they are."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"DWCK2\n"):
        raise SystemExit("%s: not a DWCK2 file" % path)
    sh = struct.unpack("<8I", data[6:38])
    w = np.frombuffer(data[38:], dtype="<f4")
    ts = [net.c1.weight, net.c1.bias, net.c2.weight, net.c2.bias]
    if net.c3 is not None:
        ts += [net.c3.weight, net.c3.bias]
    f1w = net.f1.weight
    k = 0
    with torch.no_grad():
        for t in ts + [None, net.f1.bias, net.f2.weight, net.f2.bias]:
            if t is None:
                rows, cols = f1w.shape
                cols0 = cols - (extra - EXTRA)
                n = rows * cols0
                f1w.zero_()
                f1w[:, :cols0].copy_(torch.from_numpy(w[k:k + n].reshape(rows, cols0).copy()))
                k += n
                continue
            n = t.numel()
            t.copy_(torch.from_numpy(w[k:k + n].reshape(t.shape).copy()))
            k += n
    if k != len(w):
        raise SystemExit("%s: shape %s does not match the net's (%d weights, %d read)" % (path, sh, len(w), k))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", nargs="+", required=True)
    ap.add_argument("--bin", default="", help="write the weights here (DWCK2)")
    ap.add_argument("--parity", default="", help="write twelve validation rows and their outputs here")
    ap.add_argument("--aug", default="d8", choices=["d8", "up"])
    ap.add_argument("--side", type=int, default=16)
    ap.add_argument("--span", type=float, default=2.0)
    ap.add_argument("--core", type=int, default=6)
    ap.add_argument("--fch", type=int, default=2, help="channels in the export's rows")
    ap.add_argument("--ch", type=int, default=2, help="channels the net takes (the first of the rows')")
    ap.add_argument("--c1", type=int, default=4)
    ap.add_argument("--c2", type=int, default=8)
    ap.add_argument("--c3", type=int, default=0)
    ap.add_argument("--hid", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--val", default="23800-24000,24900-25000,27700-28000")
    ap.add_argument("--cuts", default="0.35,0.45")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", default="", help="start from this DWCK2 weight file of the same shape (the tilt's "
                    "weights at zero) rather than from random weights")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--tilts", default="", help="a file of 'seed tilt' lines (the stills' camera tilt, degrees): "
                    "the net takes the view's tilt over TILT_SCALE degrees as a third scalar")
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    x, s, m = load(a.train, a.side, a.fch, a.ch)
    extra = EXTRA
    if a.tilts:
        tilt = read_tilts(a.tilts)
        s = np.concatenate([s, np.array([[tilt[int(v)] / TILT_SCALE] for v in m[:, SEED]], np.float32)], 1)
        extra += 1
    seed = m[:, SEED]
    va = np.zeros(len(seed), bool)
    for r in a.val.split(","):
        lo, hi = r.split("-")
        va |= (seed >= float(lo)) & (seed < float(hi))
    use = (m[:, GROUP] == 0) | (m[:, GROUP] == 1)
    tr = use & ~va
    xt, st, yt = torch.from_numpy(x[tr]), torch.from_numpy(s[tr]), torch.from_numpy(m[tr, LABEL])
    print("train rows %d (cocked %d), validation rows %d" % (tr.sum(), int(yt.sum()), va.sum()))
    cuts = [float(c) for c in a.cuts.split(",")]
    net = Net(a.ch, a.side, a.c1, a.c2, a.c3, a.hid, extra)
    if a.init:
        read_init(net, a.init, extra)
        net.eval()
        report("validation at the start", probs(net, x[va], s[va]), m[va], cuts)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, a.epochs)
    lossf = nn.BCEWithLogitsLoss()
    n = len(yt)
    for ep in range(a.epochs):
        net.train()
        perm = torch.from_numpy(rng.permutation(n))
        tot = 0.0
        for i in range(0, n, 128):
            b = perm[i:i + 128]
            if a.aug == "d8":
                xb = turn(xt[b], int(rng.integers(8)))
            else:
                xb = xt[b]
                if rng.integers(2):
                    xb = torch.flip(xb, [3])
            loss = lossf(net(xb, st[b]), yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(b)
        sched.step()
        if ep % 5 == 4 or ep == a.epochs - 1:
            print("epoch %d loss %.4f" % (ep + 1, tot / n))
    net.eval()
    report("validation", probs(net, x[va], s[va]), m[va], cuts)
    if a.bin:
        write(net, a.bin, a)
    if a.parity:
        g = m[:, GROUP]
        pick = list(np.where(va & (g == 0))[0][:5]) + list(np.where(va & (g == 1))[0][:5]) + list(np.where(va & (g >= 2))[0][:2])
        pp = probs(net, x[pick], s[pick])
        with open(a.parity, "wb") as f:
            for k, i in enumerate(pick):
                f.write(np.concatenate([x[i].ravel(), s[i], [pp[k]]]).astype("<f4").tobytes())


if __name__ == "__main__":
    main()
