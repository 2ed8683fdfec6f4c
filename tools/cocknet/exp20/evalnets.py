#!/usr/bin/python3
"""Session 19 (cocknet20): cocked nets on exported rows, offline.

    /usr/bin/python3 tools/cocknet/exp20/evalnets.py --rows A.bin [B.bin ...] --tilts T [T2 ...] \\
        [--seeds LO-HI,...] --ref vision/cocknet.bin vision/cocknet_up.bin --new X.bin [Y.bin]

Rows are TestCockNetExport's (DICEWATCH_COCK_EXPORT_VIEW=1: the calibrated read with the view given);
--tilts the files the export wrote beside them. Clean (group 0) and cocked (group 1) rows of the chosen
seeds are scored by the reference nets (the lower of theirs, with cockCutAt's cuts by the camera's tilt)
and by the new nets (the lower of theirs, given the tilt as a third scalar when the file is DWCK3), and
cocked recall is printed at the reference's false rate, overall and by tilt band, and at fixed cuts.
"""
import argparse
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import train as T  # noqa: E402


def load_bin(path):
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"DWCK2\n"):
        sh = struct.unpack("<8I", data[6:38])
        extra, off = 2, 38
    elif data.startswith(b"DWCK3\n"):
        sh9 = struct.unpack("<9I", data[6:42])
        sh, extra, off = sh9[:8], sh9[8], 42
    else:
        raise SystemExit(path + ": bad magic")
    side, ch, span, core, c1, c2, c3, hid = sh
    net = T.Net(ch, side, c1, c2, c3, hid, extra)
    w = np.frombuffer(data[off:], dtype="<f4")
    ts = [net.c1.weight, net.c1.bias, net.c2.weight, net.c2.bias]
    if net.c3 is not None:
        ts += [net.c3.weight, net.c3.bias]
    ts += [net.f1.weight, net.f1.bias, net.f2.weight, net.f2.bias]
    k = 0
    with torch.no_grad():
        for t in ts:
            n = t.numel()
            t.copy_(torch.from_numpy(w[k:k + n].reshape(t.shape).copy()))
            k += n
    assert k == len(w), path
    net.eval()
    return net, extra


def cut_at(tilt):
    """vision/cocknet.go's cockCutAt."""
    return np.where(tilt < 3, 0.40, np.where(tilt < 20, 0.45, np.where(tilt < 30, 0.60, 0.65)))


BANDS = [(0, 3), (3, 20), (20, 30), (30, 90)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", nargs="+", required=True)
    ap.add_argument("--tilts", nargs="+", required=True)
    ap.add_argument("--seeds", default="")
    ap.add_argument("--ref", nargs="+", default=["vision/cocknet.bin", "vision/cocknet_up.bin"])
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--cuts", default="0.35,0.40,0.45,0.50,0.55,0.60")
    a = ap.parse_args()
    torch.set_num_threads(1)
    x, s, m = T.load(a.rows, 16, 2, 2)
    tilt = {}
    for p in a.tilts:
        tilt.update(T.read_tilts(p))
    seed = m[:, T.SEED]
    keep = (m[:, T.GROUP] <= 1) & (m[:, T.MODE] == 1)
    if a.seeds:
        sel = np.zeros(len(seed), bool)
        for r in a.seeds.split(","):
            lo, hi = r.split("-")
            sel |= (seed >= float(lo)) & (seed < float(hi))
        keep &= sel
    x, s, m = x[keep], s[keep], m[keep]
    cam = np.array([tilt[int(v)] for v in m[:, T.SEED]], np.float32)
    s3 = np.c_[s, cam / T.TILT_SCALE].astype(np.float32)
    clean, cocked = m[:, T.GROUP] == 0, m[:, T.GROUP] == 1
    print("rows: %d clean, %d cocked" % (clean.sum(), cocked.sum()))

    def score(paths):
        p = np.ones(len(x))
        for path in paths:
            net, extra = load_bin(path)
            p = np.minimum(p, T.probs(net, x, s3 if extra == 3 else s))
        return p

    ref = score(a.ref)
    new = score(a.new)
    refcut = cut_at(cam)
    refcall = ref >= refcut
    print("reference (cockCutAt): recall %.2f%% (%d/%d), false %.2f%% (%d/%d)" % (
        100 * refcall[cocked].mean(), refcall[cocked].sum(), cocked.sum(),
        100 * refcall[clean].mean(), refcall[clean].sum(), clean.sum()))
    # the new nets' cut with the reference's false count overall
    pc = np.sort(new[clean])[::-1]
    nf = int(refcall[clean].sum())
    c = pc[nf] if nf < len(pc) else 0
    call = new > c
    print("new at the reference's false count (cut %.3f): recall %.2f%% (%d), false %.2f%% (%d)" % (
        c, 100 * call[cocked].mean(), call[cocked].sum(), 100 * call[clean].mean(), call[clean].sum()))
    for cut in [float(v) for v in a.cuts.split(",")]:
        call = new >= cut
        line = "new @%.2f: recall %.2f%% (%d), false %.2f%% (%d) |" % (
            cut, 100 * call[cocked].mean(), call[cocked].sum(), 100 * call[clean].mean(), call[clean].sum())
        for lo, hi in BANDS:
            b = (cam >= lo) & (cam < hi)
            line += " [%d,%d) %d/%d %d/%d" % (lo, hi, call[cocked & b].sum(), (cocked & b).sum(),
                                              call[clean & b].sum(), (clean & b).sum())
        print(line)
    line = "ref by band:"
    for lo, hi in BANDS:
        b = (cam >= lo) & (cam < hi)
        line += " [%d,%d) %d/%d %d/%d" % (lo, hi, refcall[cocked & b].sum(), (cocked & b).sum(),
                                          refcall[clean & b].sum(), (clean & b).sum())
    print(line)
    # per band: the new nets' recall at the reference's false count in that band
    line = "new at the reference's false count by band:"
    for lo, hi in BANDS:
        b = (cam >= lo) & (cam < hi)
        pcb = np.sort(new[clean & b])[::-1]
        nf = int(refcall[clean & b].sum())
        if len(pcb) == 0:
            continue
        cb = pcb[nf] if nf < len(pcb) else 0
        line += " [%d,%d) cut %.3f %d/%d" % (lo, hi, cb, (new[cocked & b] > cb).sum(), (cocked & b).sum())
    print(line)


if __name__ == "__main__":
    main()
