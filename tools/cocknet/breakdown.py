#!/usr/bin/python3
"""Break the cocked call down on generated stills, from TestCockDiag's file.

    DICEWATCH_COCK_DIAG=/tmp/cd.tsv DICEWATCH_STILLS=2000 DICEWATCH_STILL_FIRST=0 \\
        go test -count=1 -run 'TestCockDiag$' -v -timeout 170m ./vision/
    /usr/bin/python3 tools/cocknet/breakdown.py /tmp/cd.tsv [--mode cal|unc]
        [--crops LIST --pick missed|false|caught [--cam straight|tilted] [--lean L] [--min-side PX] [--n N]]

For the cocked dice it prints, by what the die leans on, its tilt, the
camera's tilt, the side face's width in pixels, the die's edge, its style
and the nets' probability: how many there are, how many the reader
detected and how many of those it called not flat (the recall the stills
harness reports is the last over the detected); for the clean dice the
same by camera tilt, style and edge (false cocked calls). "Not flat" is
the reader's final call (the Flat column), whatever rule made it.

--crops writes a list of dice for TestCockCrops (seed, offset, edge and
a tag naming the nets' probability, the die's tilt and the camera's):
a random sample (seeded) of the missed cocked dice, the clean dice
called cocked, or the cocked dice caught, filtered as asked.
Standard library only.
"""
import argparse
import collections
import csv
import random


def load(path, mode):
    rows = []
    with open(path) as f:
        r = csv.reader(f, delimiter="\t")
        head = next(r)
        for x in r:
            if len(x) < len(head):
                continue
            d = dict(zip(head, x))
            if d["mode"] == mode:
                rows.append(d)
    return rows


def detected(d):
    return d["p"] != "-"


def not_flat(d):
    return d["flat"] == "false"


def five(v):
    lo = int(float(v) // 5 * 5)
    return "%02d-%02d" % (lo, lo + 5)


def cam_band(d):
    c = float(d["cam"])
    if c < 3:
        return "straight"
    return "08-20" if c < 20 else ("20-30" if c < 30 else "30-35")


def side_band(d):
    s = float(d["side"])
    return "a <8px" if s < 8 else ("b 8-16px" if s < 16 else "c 16+px")


def edge_band(d):
    e = float(d["local"])
    return "a <24" if e < 24 else ("b 24-36" if e < 36 else ("c 36-50" if e < 50 else "d 50+"))


def p_band(d):
    if not detected(d) or d["p"] == "NaN":
        return "-"
    p = float(d["p"])
    return "a <0.10" if p < 0.1 else ("b 0.10-0.25" if p < 0.25 else ("c 0.25-0.45" if p < 0.45 else "d >=0.45"))


def show(rows, name, key, group):
    n, det, nf = collections.Counter(), collections.Counter(), collections.Counter()
    for d in rows:
        if d["group"] != group:
            continue
        k = key(d)
        n[k] += 1
        if detected(d):
            det[k] += 1
            nf[k] += not_flat(d)
    print("-- %s (%s): %d detected, %d called not flat" % (name, group, sum(det.values()), sum(nf.values())))
    for k in sorted(n):
        print("  %-22s %5d dice, detected %5d (%5.1f%%); not flat %4d (%5.1f%%), called flat %4d" % (
            k, n[k], det[k], 100 * det[k] / n[k], nf[k], 100 * nf[k] / max(det[k], 1), det[k] - nf[k]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tsv")
    ap.add_argument("--mode", default="cal", choices=["cal", "unc"])
    ap.add_argument("--crops", default="", help="write a list for TestCockCrops here")
    ap.add_argument("--pick", default="missed", choices=["missed", "false", "caught"])
    ap.add_argument("--cam", default="", choices=["", "straight", "tilted"])
    ap.add_argument("--lean", default="")
    ap.add_argument("--min-side", type=float, default=0)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rows = load(a.tsv, a.mode)
    if a.crops:
        def want(d):
            if not detected(d):
                return False
            if a.pick == "false":
                ok = d["group"] == "clean" and not_flat(d)
            else:
                ok = d["group"] == "cocked" and not_flat(d) == (a.pick == "caught")
            if a.cam:
                ok = ok and (cam_band(d) == "straight") == (a.cam == "straight")
            if a.lean:
                ok = ok and d["lean"] == a.lean
            return ok and float(d["side"]) >= a.min_side
        pool = [d for d in rows if want(d)]
        random.seed(a.seed)
        pick = random.sample(pool, min(a.n, len(pool)))
        with open(a.crops, "w") as f:
            for d in pick:
                f.write("%s %s %s %s %s-p%s-t%s-c%s\n" % (d["seed"], d["dx"], d["dy"], d["local"], a.pick, d["p"], d["tilt"], d["cam"]))
        print("%d of %d dice listed in %s" % (len(pick), len(pool), a.crops))
        return
    show(rows, "what it leans on", lambda d: d["lean"], "cocked")
    show(rows, "die tilt", lambda d: five(d["tilt"]), "cocked")
    show(rows, "camera tilt", cam_band, "cocked")
    show(rows, "side face width", side_band, "cocked")
    show(rows, "die edge px", edge_band, "cocked")
    show(rows, "style", lambda d: d["style"], "cocked")
    show(rows, "lean x camera", lambda d: d["lean"] + " " + cam_band(d), "cocked")
    show(rows, "camera x side face", lambda d: cam_band(d) + " " + side_band(d), "cocked")
    show(rows, "nets' probability", p_band, "cocked")
    show(rows, "camera tilt", cam_band, "clean")
    show(rows, "style", lambda d: d["style"], "clean")
    show(rows, "die edge px", edge_band, "clean")


if __name__ == "__main__":
    main()
