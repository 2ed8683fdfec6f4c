#!/usr/bin/python3
"""Class the cocked dice a single-photo read misses, and the flat dice it calls cocked.

Two inputs, each one generated-stills diagnosis file:

  the calibrated read given the camera's tilt and the view's vertical
  (what the stills harness reads with DICEWATCH_STILL_VIEW=tilt):

    DICEWATCH_COCKGEO_DIAG=/tmp/cg.tsv DICEWATCH_STILLS=2000 DICEWATCH_STILL_FIRST=0 \\
        go test -count=1 -run 'TestCockGeoDiag$' -v -timeout 170m ./vision/
    /usr/bin/python3 tools/cocknet/classes.py /tmp/cg.tsv

  the read without a calibration (the harness's plain mode):

    DICEWATCH_COCK_DIAG=/tmp/cd.tsv DICEWATCH_STILL_MODE=unc DICEWATCH_STILLS=2000 \\
        DICEWATCH_STILL_FIRST=0 go test -count=1 -run 'TestCockDiag$' -v -timeout 170m ./vision/
    /usr/bin/python3 tools/cocknet/classes.py /tmp/cd.tsv

The kind of file is told by its header. A cocked die is "missed" when it
was detected and called flat (the harness's cocked recall is over the
detected ones); with TestCockGeoDiag's file the call is its flatUp
column (the read given the view's vertical too), with TestCockDiag's its
flat column in mode unc. Each table gives, by one class, the cocked dice,
how many were detected, how many of those were missed, the share caught
and the class's share of all misses. Classes: the generator's drawn cock
angle (5-degree bins from 0; the generator draws 10 to 40), what the die
leans on (stillLean: chips, a wall, another die, or nothing in the
picture, "seam"), the colour scheme, the camera (straight down or
tilted 8 to 35 degrees), the side face's width in pixels (sin(angle)
times the die's edge there), what the reader made of the die (not
detected, unread, read right, read wrong), the true and the read value,
and with TestCockGeoDiag's file the face rectangle's squareness with the
view undone (its "square" cue under 0.06: as square as a flat die's,
which cos 20 degrees is not); with TestCockDiag's file whether a side
band was seen (its b0 column, faceBands' widest band past the top face,
0.15 edge or more). The flat dice called cocked are classed by
the camera's tilt, colour, a detection within 1.6 edges, what the reader
made of them and, with TestCockGeoDiag's file, the rule that called them
(the nets or the footprint with the tilt alone, or the lattice rule
viewCocked, or the steeper nets' cut only the vertical's read has).
Standard library only.
"""
import collections
import csv
import math
import sys


def load(path):
    with open(path) as f:
        r = csv.reader(f, delimiter="\t")
        head = next(r)
        geo = "flatUp" in head
        rows = []
        for x in r:
            if len(x) < 8:
                continue
            d = dict(zip(head, x))
            if geo:
                d["det"] = d["matched"] == "1"
                if d["det"] and len(x) < len(head):
                    continue  # a line cut short (a file still being written)
                if d["det"]:
                    d["called_flat"] = d["flatUp"] == "true"
            else:
                if d["mode"] != "unc" or len(x) < len(head):
                    continue
                d["det"] = d["p"] != "-"
                if d["det"]:
                    d["called_flat"] = d["flat"] == "true"
            if d["group"] in ("cocked", "clean"):
                rows.append(d)
    return rows, geo


def num(d, k):
    try:
        return float(d[k])
    except (KeyError, ValueError):
        return math.nan


def angle_bin(d):
    t = num(d, "tilt")
    lo = int(t // 5 * 5)
    return "%02d-%02d" % (lo, lo + 5)


def camera(d):
    return "straight" if num(d, "cam") < 3 else "tilted"


def cam_band(d):
    c = num(d, "cam")
    if c < 3:
        return "a straight"
    return "b 08-20" if c < 20 else ("c 20-30" if c < 30 else "d 30-35")


def side_px(d, geo):
    if geo:
        s = math.sin(num(d, "tilt") * math.pi / 180) * num(d, "edge")
    else:
        s = num(d, "side")
    return "a <8px" if s < 8 else ("b 8-12px" if s < 12 else ("c 12-16px" if s < 16 else "d 16+px"))


def saw(d):
    if not d["det"]:
        return "a not detected"
    v = int(d["val"])
    if v == 0:
        return "b unread"
    return "c read right" if v == int(d["tval"]) else "d read wrong"


def squareness(d):
    if not d["det"]:
        return "a not detected"
    s = num(d, "square")
    if math.isnan(s):
        return "b no face"
    return "c square (<0.06)" if s < 0.06 else "d not square"


def cocked_table(rows, name, key, n_missed):
    n, det, miss = collections.Counter(), collections.Counter(), collections.Counter()
    for d in rows:
        k = key(d)
        n[k] += 1
        if d["det"]:
            det[k] += 1
            miss[k] += d["called_flat"]
    print("\n%s                 cocked  detected  missed  caught%%  of-misses%%" % name)
    for k in sorted(n):
        c = det[k] - miss[k]
        rate = "%6.1f" % (100 * c / det[k]) if det[k] else "     -"
        print("  %-20s %6d %8d %7d %s %9.1f" % (k, n[k], det[k], miss[k], rate, 100 * miss[k] / max(n_missed, 1)))


def false_table(rows, name, key, n_false):
    n, f = collections.Counter(), collections.Counter()
    for d in rows:
        k = key(d)
        n[k] += 1
        f[k] += not d["called_flat"]
    print("\n%s                 detected-clean  called-cocked  rate%%  of-false%%" % name)
    for k in sorted(n):
        print("  %-20s %8d %8d %9.2f %8.1f" % (k, n[k], f[k], 100 * f[k] / n[k], 100 * f[k] / max(n_false, 1)))


def band(d):
    if not d["det"]:
        return "a not detected"
    b = num(d, "b0")
    if math.isnan(b):
        return "b not measured"
    return "c none (<0.15 edge)" if b < 0.15 else "d seen (>=0.15 edge)"


def rule(d):
    if d["called_flat"]:
        return "- flat"
    if d["flat"] == "false":
        return "nets/footprint"
    if d["geo"] == "true":
        return "lattice (viewCocked)"
    return "nets (steeper cut)"


def main():
    rows, geo = load(sys.argv[1])
    cocked = [d for d in rows if d["group"] == "cocked"]
    clean = [d for d in rows if d["group"] == "clean" and d["det"]]
    det = [d for d in cocked if d["det"]]
    missed = [d for d in det if d["called_flat"]]
    false = [d for d in clean if not d["called_flat"]]
    print("%s: cocked %d, detected %d, caught %d (%.2f%%), missed %d; clean detected %d, called cocked %d (%.2f%%)" % (
        "calibrated, tilt and vertical given" if geo else "uncalibrated",
        len(cocked), len(det), len(det) - len(missed), 100 * (len(det) - len(missed)) / max(len(det), 1),
        len(missed), len(clean), len(false), 100 * len(false) / max(len(clean), 1)))
    nm = len(missed)
    cocked_table(cocked, "cock angle", angle_bin, nm)
    for lim in (5, 10, 15, 20):
        under = [d for d in cocked if num(d, "tilt") < lim]
        ud = [d for d in under if d["det"]]
        print("  under %2d degrees: %d cocked, %d detected, %d missed" % (lim, len(under), len(ud), sum(d["called_flat"] for d in ud)))
    cocked_table(cocked, "leans on  ", lambda d: d["lean"], nm)
    cocked_table(cocked, "camera    ", camera, nm)
    cocked_table(cocked, "lean/camera", lambda d: d["lean"] + "/" + camera(d), nm)
    cocked_table(cocked, "colour    ", lambda d: d["style"], nm)
    cocked_table(cocked, "side face ", lambda d: side_px(d, geo), nm)
    cocked_table(cocked, "reader saw", saw, nm)
    cocked_table(cocked, "true value", lambda d: d["tval"] if d["det"] else "-", nm)
    cocked_table(cocked, "read value", lambda d: d["val"] if d["det"] else "-", nm)
    if geo:
        cocked_table(cocked, "face rect ", squareness, nm)
    else:
        cocked_table(cocked, "side band ", band, nm)
    nf = len(false)
    false_table(clean, "camera    ", cam_band, nf)
    false_table(clean, "colour    ", lambda d: d["style"], nf)
    false_table(clean, "neighbour ", lambda d: "a within 1.6 edges" if num(d, "near") < 1.6 else "b alone", nf)
    false_table(clean, "reader saw", saw, nf)
    if geo:
        false_table(clean, "rule      ", rule, nf)
    else:
        false_table(clean, "side band ", band, nf)


if __name__ == "__main__":
    main()
