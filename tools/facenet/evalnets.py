#!/usr/bin/env python3
"""Held-out figures of dicewatch's face nets on an export of TestFaceNetExport.

Each byler die is read by the fold net that never saw its image (image i
is in fold i % 5), on its face rectangle's patch and on the square of the
frame's die size, each as given and mirrored-and-turned (as the reader's
two turns). Printed: accuracy over every die and over the dice the pip
reader left unread; how many of those the net reads right and wrong
leading its second face by 0.7 and 0.8 on both patches; the dice
netLook's cue gate could take (flat, not shrunk or weak, layout and
template agreeing on 2..6, no more blobs than that) and how many of them
pass its net gate right and wrong; the 1s and 2s at margin 0.8 on both
patches; the net alone at margin 0.9 and 0.95 (reject under 0.3, flat
dice). With a third argument (a net file) the same for the exported
evaluation stills.

  python3 tools/facenet/evalnets.py EXPORT_DIR NET_DIR [SHIPPED_NET]

NET_DIR holds net0.bin..net4.bin (train.py's names) or byler_fold0..4.bin;
FOLDS=02 (say) limits the figures to those folds.
"""
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train as T  # noqa: E402


def loadnet(path):
    b = open(path, "rb").read()
    if b[:6] != b"DWFN3\n":
        raise ValueError(f"{path}: not a DWFN3 net")
    _, c1, c2, hid, nout = struct.unpack("<5I", b[6:26])
    net = T.Net(c1, c2, hid, nout)
    w = np.frombuffer(b[26:], dtype="<f4")
    o = 0
    for p in [net.c1.weight, net.c1.bias, net.c2.weight, net.c2.bias, net.f3.weight, net.f3.bias, net.f4.weight, net.f4.bias]:
        p.data = torch.from_numpy(w[o:o + p.numel()].copy()).reshape(p.shape)
        o += p.numel()
    if o != len(w):
        raise ValueError(f"{path}: {len(w) - o} values left over")
    net.eval()
    return net


def probs(net, x):
    """The face (1..6), its margin over the second face and the reject
    probability, the softmax averaged over two turns of each patch."""
    with torch.no_grad():
        x = torch.from_numpy(x)
        p = F.softmax(net(x), 1) + F.softmax(net(torch.rot90(torch.flip(x, (3,)), 1, (2, 3))), 1)
        p = (p / 2).numpy()
    six = p[:, :6]
    rej = p[:, 6] if p.shape[1] > 6 else np.zeros(len(p))
    s = np.sort(six, 1)
    return six.argmax(1) + 1, s[:, -1] - s[:, -2], rej


def report(name, m, vr, mr, rr, vs, ms, rs):
    col = lambda k: m[:, T.FIELDS.index(k)]  # noqa: E731
    truth, lv, tmpl, blobs = col("truth"), col("lv"), col("tmpl"), col("blobs")
    flat = col("flat") == 1
    un = col("read") == 0
    ok = vr == truth
    same = vr == vs
    out = f"{name}: {len(m)} dice, acc {ok.mean() * 100:.2f}%; unread {un.sum()}: right {ok[un].sum()}"
    for thr in (0.7, 0.8):
        c = same & (mr >= thr) & (ms >= thr)
        out += f" | margin {thr}: right {(c & ok & un).sum()} wrong {(c & ~ok & un).sum()}"
    elig = un & flat & (col("shrunk") == 0) & (col("weak") == 0) & (lv >= 2) & (lv == tmpl) & (blobs <= lv)
    look = elig & same & (mr >= 0.7) & (ms >= 0.7) & (vr == lv) & (rr < 0.3) & (rs < 0.3)
    out += f"\n  netLook cue gate {elig.sum()} (cues right {(elig & (lv == truth)).sum()}): net gate right {(look & ok).sum()} wrong {(look & ~ok).sum()}"
    small = un & flat & same & (vr <= 2) & (mr >= 0.8) & (ms >= 0.8)
    out += f" | 1s/2s at 0.8: right {(small & ok).sum()} wrong {(small & ~ok).sum()}"
    for thr in (0.9, 0.95):
        solo = same & (mr >= thr) & (ms >= thr) & (rr < 0.3) & (rs < 0.3) & flat
        out += f" | alone at {thr}: unread right {(solo & ok & un).sum()} wrong {(solo & ~ok & un).sum()}, every die wrong {(solo & ~ok).sum()}"
    print(out, flush=True)
    return ok, un


def main():
    exp, netdir = sys.argv[1], sys.argv[2]
    bm, bx, _ = T.load(exp, "byler")
    first = np.concatenate([[0], np.cumsum(bm[:, T.FIELDS.index("patches")])[:-1]])
    img = bm[:, T.FIELDS.index("image")]
    n = len(bm)
    vr, mr, rr = np.zeros(n, int), np.zeros(n), np.zeros(n)
    vs, ms, rs = np.zeros(n, int), np.zeros(n), np.zeros(n)
    have = np.zeros(n, bool)
    folds = os.environ.get("FOLDS", "01234")
    for f in range(5):
        p = os.path.join(netdir, f"net{f}.bin")
        if not os.path.exists(p):
            p = os.path.join(netdir, f"byler_fold{f}.bin")
        if str(f) not in folds or not os.path.exists(p):
            continue
        net = loadnet(p)
        h = img % 5 == f
        have |= h
        vr[h], mr[h], rr[h] = probs(net, bx[first[h]])
        vs[h], ms[h], rs[h] = probs(net, bx[first[h] + 1])
    bm, img, vr, mr, rr, vs, ms, rs = (t[have] for t in (bm, img, vr, mr, rr, vs, ms, rs))
    ok, un = report("byler held-out", bm, vr, mr, rr, vs, ms, rs)
    for name, h in [(f"fold {f}", img % 5 == f) for f in range(5)] + [("even images", img % 2 == 0), ("odd images", img % 2 == 1)]:
        if h.any():
            print(f"  {name}: acc {ok[h].mean() * 100:.2f}%, unread right {ok[h & un].sum()}/{(h & un).sum()}")
    truth = bm[:, T.FIELDS.index("truth")]
    print("  unread right by face:", " ".join(f"{v}:{(ok & un & (truth == v)).sum()}/{(un & (truth == v)).sum()}" for v in range(1, 7)))
    if len(sys.argv) > 3:
        net = loadnet(sys.argv[3])
        em, ex, _ = T.load(exp, "eval")
        ef = np.concatenate([[0], np.cumsum(em[:, T.FIELDS.index("patches")])[:-1]])
        a, b = probs(net, ex[ef]), probs(net, ex[ef + 1])
        report("eval stills, every group", em, *a, *b)
        clean = em[:, T.FIELDS.index("group")] == T.CLEAN
        report("eval stills, clean dice", em[clean], *(t[clean] for t in a), *(t[clean] for t in b))


if __name__ == "__main__":
    main()
