#!/usr/bin/env python3
"""The held-out-size study of dashlab's GEMM timing model, and its floor.

Reproduces the numbers in dash/gpu's documentation (Accuracy): every GEMM of
one token count M is held out, and each held-out measurement that lies between
its family's remaining ones (a family is one (K, N)) is predicted from the
other sizes. The package's model (Profile.HeldOutSweep) interpolates the
residual r = log(latency / roofline) linearly in log M between the two
neighbouring sizes; this script reproduces its error exactly (median 2.06%,
p90 8.36% on the H200 profile) and measures alternatives against it, then
what the profile itself allows:

  * alternatives: a monotone cubic of r in log M; local regression over the
    family's sizes; per-family rooflines; other ridge exponents; a smooth
    surface of r over (log M, log K, log N) shared by all families, alone and
    blended with the family's line; with --gp (numpy and scipy, minutes) a
    Gaussian process whose hyperparameters are fitted by marginal likelihood
    on each fold's training sizes;
  * oracles that peek at what the study hides: the departure from the line
    that the other families show at the held-out size itself;
  * the floor: repeated shapes (the shapes two models share, measured twice),
    the lag-1 correlation of the departures (-2/3 for independent jitter),
    and, with --gp, a mixture-of-normals deconvolution of the departures into
    each size's own jitter.

The roofline is the package's fit to the whole profile, read from
dash/gpu/fitted_roofs.go (the package refits it without the held-out size;
the difference does not show in the statistics). Only the standard library is
needed unless --gp is given.

Usage, from the repository root:

    python3 reference/profiling/heldout_sizes.py
    python3 reference/profiling/heldout_sizes.py --gp
"""

from __future__ import annotations

import argparse
import collections
import csv
import math
import os
import random
import re
import sys


def quantile(xs, p):
    """gonum's stat.Empirical quantile: the smallest x whose CDF reaches p."""
    xs = sorted(xs)
    return xs[max(0, math.ceil(p * len(xs)) - 1)]


def stats(errs):
    return "median %5.2f%%  p90 %5.2f%%" % (100 * quantile(errs, .5), 100 * quantile(errs, .9))


def read_roof(path):
    """The GEMM roofline (o s, bw B/s, p FLOP/s, n) from fitted_roofs.go."""
    for line in open(path):
        if line.rstrip().endswith("// gemm"):
            vals = dict(re.findall(r"(\w+):\s*([0-9.e+-]+)", line.split("{", 1)[1]))
            return float(vals["o"]), float(vals["bw"]), float(vals["p"]), float(vals["n"])
    sys.exit(f"{path}: no gemm roofline")


class Study:
    def __init__(self, profile, roof):
        self.o, self.bw, self.p, self.n = roof
        self.fam = collections.defaultdict(lambda: collections.defaultdict(list))
        for row in csv.DictReader(open(os.path.join(profile, "gemm.csv"))):
            k = (int(row["K"]), int(row["N"]))
            self.fam[k][int(row["M"])].append(float(row["median_us"]) * 1e-6)
        self.sizes = sorted({m for f in self.fam.values() for m in f})

    def parts(self, k, m):
        """Compute and memory time of X[m,K] @ W[K,N], BF16."""
        K, N = k
        return 2 * m * K * N / self.p, 2 * (K * N + m * K + m * N) / self.bw

    def g(self, k, m, n=None, cs=1.0):
        n = self.n if n is None else n
        c, b = self.parts(k, m)
        c *= cs
        hi, lo = max(c, b), min(c, b)
        return self.o + (hi if n == 0 else hi * (1 + (lo / hi) ** n) ** (1 / n))

    @staticmethod
    def lmean(v):
        return sum(math.log(t) for t in v) / len(v)

    def resid(self, train, k, m):
        return self.lmean(train[k][m]) - math.log(self.g(k, m))

    def folds(self):
        """(M, train, [(family, measured seconds)]): every interior held-out measurement."""
        for M in self.sizes:
            train = {k: {m: v for m, v in f.items() if m != M} for k, f in self.fam.items()}
            held = []
            for k, f in self.fam.items():
                ms = sorted(train[k])
                if M in f and ms[0] < M < ms[-1]:
                    held += [(k, t) for t in f[M]]
            if held:
                yield M, train, held

    def evaluate(self, predict):
        errs, by = [], collections.defaultdict(list)
        for M, train, held in self.folds():
            for k, t in held:
                e = abs(predict(train, k, M) - t) / t
                errs.append(e)
                by[M].append(e)
        return errs, by

    @staticmethod
    def regions(by):
        out = []
        for lo, hi in ((2, 64), (128, 512), (1024, 8192)):
            e = [x for m, es in by.items() if lo <= m <= hi for x in es]
            out.append("M %d-%d %.2f/%.2f" % (lo, hi, 100 * quantile(e, .5), 100 * quantile(e, .9)))
        return "  ".join(out)

    @staticmethod
    def neighbours(train, k, M):
        ms = sorted(train[k])
        return max(m for m in ms if m < M), min(m for m in ms if m > M)

    def line(self, train, k, M, g=None):
        """The package's model: r linear in log M between the neighbours, held between their latencies."""
        g = g or self.g
        lo, hi = self.neighbours(train, k, M)
        a = (math.log(M) - math.log(lo)) / (math.log(hi) - math.log(lo))
        r = lambda m: self.lmean(train[k][m]) - math.log(g(k, m))
        ly = math.log(g(k, M)) + (1 - a) * r(lo) + a * r(hi)
        l1, l2 = self.lmean(train[k][lo]), self.lmean(train[k][hi])
        return math.exp(min(max(ly, min(l1, l2)), max(l1, l2)))


def pchip(x, y, x0):
    """Fritsch-Carlson monotone cubic through (x, y) at x0."""
    n = len(x)
    h = [x[i + 1] - x[i] for i in range(n - 1)]
    d = [(y[i + 1] - y[i]) / h[i] for i in range(n - 1)]
    m = [d[0]] + [0.0] * (n - 2) + [d[-1]]
    for i in range(1, n - 1):
        if d[i - 1] * d[i] > 0:
            w1, w2 = 2 * h[i] + h[i - 1], h[i] + 2 * h[i - 1]
            m[i] = (w1 + w2) / (w1 / d[i - 1] + w2 / d[i])
    i = max(j for j in range(n - 1) if x[j] <= x0)
    t = (x0 - x[i]) / h[i]
    return ((2 * t**3 - 3 * t**2 + 1) * y[i] + (t**3 - 2 * t**2 + t) * h[i] * m[i]
            + (-2 * t**3 + 3 * t**2) * y[i + 1] + (t**3 - t**2) * h[i] * m[i + 1])


def wls(points, x0, scales, linear):
    """Kernel-weighted least squares (constant or linear) at x0: points are (x tuple, y)."""
    dim = len(x0)
    size = dim + 1 if linear else 1
    S = [[0.0] * size for _ in range(size)]
    T = [0.0] * size
    for x, y in points:
        d = [a - b for a, b in zip(x, x0)]
        w = math.exp(-0.5 * sum((di / s) ** 2 for di, s in zip(d, scales)))
        v = [1.0] + d if linear else [1.0]
        for i in range(size):
            T[i] += w * v[i] * y
            for j in range(size):
                S[i][j] += w * v[i] * v[j]
    for i in range(size):
        S[i][i] += 1e-12
    A = [S[i] + [T[i]] for i in range(size)]
    for c in range(size):
        piv = max(range(c, size), key=lambda r: abs(A[r][c]))
        A[c], A[piv] = A[piv], A[c]
        for r in range(size):
            if r != c:
                f = A[r][c] / A[c][c]
                for j in range(c, size + 1):
                    A[r][j] -= f * A[c][j]
    return A[0][size] / A[0][0]


def golden(f, a, b, tol=1e-3):
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (a + b) / 2


def alternatives(s):
    out = []

    def run(name, predict):
        errs, by = s.evaluate(predict)
        out.append((name, errs))
        print("  %-44s %s   %s" % (name, stats(errs), s.regions(by)), flush=True)

    print("held-out GEMM sizes, %s roofline o=%.3g s bw=%.3g B/s p=%.3g FLOP/s n=%.3g" % ("fitted", s.o, s.bw, s.p, s.n))
    run("residual line (the package's model)", s.line)

    def cubic(train, k, M):
        ms = sorted(train[k])
        return s.g(k, M) * math.exp(pchip([math.log(m) for m in ms], [s.resid(train, k, m) for m in ms], math.log(M)))
    run("monotone cubic of r in log M", cubic)

    for linear in (False, True):
        for bw in (0.5, 0.7, 1.0, 1.4, 2.0):
            def loc(train, k, M, bw=bw, linear=linear):
                pts = [((math.log(m),), s.resid(train, k, m)) for m in train[k]]
                return s.g(k, M) * math.exp(wls(pts, (math.log(M),), (bw,), linear))
            run("local %s regression, bandwidth %.1f" % ("linear" if linear else "constant", bw), loc)

    for fit_n, pull in ((False, 1e-4), (True, 1e-4), (False, 1e-2), (True, 1e-2)):
        cache = {}

        def famroof(train, k, M, fit_n=fit_n, pull=pull, cache=cache):
            key = (k, M)
            if key not in cache:
                pts = [(m, math.exp(s.lmean(v))) for m, v in train[k].items()]
                par = [0.0, 0.0, math.log(s.n)]

                def gf(p, m):
                    c, b = s.parts(k, m)
                    c, b, n = c * math.exp(-p[0]), b * math.exp(-p[1]), math.exp(p[2])
                    hi, lo = max(c, b), min(c, b)
                    return s.o + hi * (1 + (lo / hi) ** n) ** (1 / n)

                def mis(p):
                    return (sum((gf(p, m) / t - 1) ** 2 for m, t in pts)
                            + pull * (p[0] ** 2 + p[1] ** 2 + (p[2] - math.log(s.n)) ** 2))
                for _ in range(4):
                    for i in range(3 if fit_n else 2):
                        def f(x, i=i):
                            p = list(par)
                            p[i] = x
                            return mis(p)
                        par[i] = golden(f, *((-1, 1) if i < 2 else (0, math.log(64))))
                cache[key] = lambda kk, m, par=tuple(par): gf(par, m)
            return s.line(train, k, M, g=cache[key])
        run("per-family roofline (%s, pull %g)" % ("rates and exponent" if fit_n else "rates", pull), famroof)

    for n in (0, 2, 3, 4, 5, 8, 12, 20):
        run("ridge exponent %g" % n, lambda train, k, M, n=n: s.line(train, k, M, g=lambda kk, m: s.g(kk, m, n)))

    for scales in ((0.7, 0.3, 0.3), (0.5, 0.5, 0.5), (0.7, 0.5, 0.5), (1.0, 1.0, 1.0)):
        cache = {}

        def surface(train, k, M, scales=scales, cache=cache):
            if M not in cache:
                cache[M] = [((math.log(m), math.log(kk[0]), math.log(kk[1])), s.resid(train, kk, m))
                            for kk in train for m in train[kk]]
            x0 = (math.log(M), math.log(k[0]), math.log(k[1]))
            return s.g(k, M) * math.exp(wls(cache[M], x0, scales, True))
        run("shared surface of r, scales %s" % (scales,), surface)
        for w in (0.25, 0.5):
            run("  blended with the line, weight %.2f" % w,
                lambda train, k, M, w=w, surface=surface: math.exp((1 - w) * math.log(s.line(train, k, M)) + w * math.log(surface(train, k, M))))
    return out


def oracles(s):
    """Peek at what the study hides: the other families' departure at the held-out size."""
    full = {k: dict(f) for k, f in s.fam.items()}

    def departure(k, M):
        return s.resid(full, k, M) - (s.resid(full, k, M // 2) + s.resid(full, k, 2 * M)) / 2

    def coord(k):
        return (math.log(k[0]), math.log(k[1]))
    print("oracles: the line plus the departure that the nearest other families show at the held-out size (hidden from the model)")
    for nn in (0, 8, 4, 2, 1):
        def predict(train, k, M, nn=nn):
            others = [kk for kk in s.fam if kk != k and all(m in s.fam[kk] for m in (M // 2, M, 2 * M))]
            others.sort(key=lambda kk: sum((a - b) ** 2 for a, b in zip(coord(k), coord(kk))))
            sel = others[:nn] if nn else others
            return s.line(train, k, M) * math.exp(sum(departure(kk, M) for kk in sel) / len(sel))
        errs, by = s.evaluate(predict)
        print("  %-44s %s   %s" % ("%s families" % (nn or "all"), stats(errs), s.regions(by)), flush=True)


def floor(s, deconvolve):
    print("what the profile allows")
    rep = []
    for k, f in s.fam.items():
        for m, v in f.items():
            if len(v) == 2:
                a, b = v
                rep += [abs(a - b) / b, abs(a - b) / a]
    print("  %-44s %s   (%d measurements)" % ("repeated shapes, one predicted by the other", stats(rep), len(rep)))
    dep, pairs = [], []
    for k, f in s.fam.items():
        ms = sorted(f)
        r = [s.lmean(f[m]) - math.log(s.g(k, m)) for m in ms]
        d = [r[i] - (r[i - 1] + r[i + 1]) / 2 for i in range(1, len(ms) - 1)]
        dep += d
        pairs += list(zip(d, d[1:]))
    a, b = zip(*pairs)
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    corr = sum((x - ma) * (y - mb) for x, y in pairs) / math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))
    print("  departures from the neighbours' line: lag-1 correlation %.2f (independent jitter -0.67, smooth curve +1)" % corr)
    print("  %-44s %s" % ("jitter, departure / sqrt(1.5)", stats([abs(math.expm1(x / math.sqrt(1.5))) for x in dep])))
    if not deconvolve:
        return
    import itertools
    import numpy as np
    from scipy.optimize import minimize
    from scipy.stats import norm
    # The held-out errors are departures d = e0 - (e1 + e2)/2 of independent
    # jitters e; fit e as a mixture of J normals (per region of M) by maximum
    # likelihood of the held-out departures, then sample e alone.
    M, kap = [], []
    for Mh, train, held in s.folds():
        for k, t in held:
            M.append(Mh)
            kap.append(math.log(s.line(train, k, Mh) / t))
    M, kap = np.array(M), np.array(kap)
    rng = np.random.default_rng(2)
    for J in (2, 3, 4):
        own, lin = [], []
        for lo, hi in ((2, 64), (128, 8192)):
            x = kap[(M >= lo) & (M <= hi)]

            def unpack(p):
                w = np.exp(p[:J])
                return w / w.sum(), np.exp(p[J:])

            def nll(p):
                w, sd = unpack(p)
                dens = np.zeros_like(x)
                for i, j, l in itertools.product(range(J), repeat=3):
                    dens += w[i] * w[j] * w[l] * norm.pdf(x, 0, math.sqrt(sd[i]**2 + (sd[j]**2 + sd[l]**2) / 4))
                return -np.log(dens + 1e-300).sum()
            best = None
            for sc in (0.5, 1, 2):
                res = minimize(nll, [0] * J + list(np.log(sc * np.geomspace(.003, .1, J))), method="Nelder-Mead",
                               options={"maxiter": 20000, "xatol": 1e-7, "fatol": 1e-9})
                if best is None or res.fun < best.fun:
                    best = res
            w, sd = unpack(best.x)
            n = len(x) * 1000
            c = rng.choice(J, size=(n, 3), p=w)
            e = rng.normal(0, 1, (n, 3)) * sd[c]
            own.append(np.abs(np.expm1(e[:, 0])))
            lin.append(np.abs(np.expm1(e[:, 0] - (e[:, 1] + e[:, 2]) / 2)))
        own, lin = np.concatenate(own), np.concatenate(lin)
        print("  deconvolution, %d normals: the line's error as fitted %s; own jitter alone (the floor) %s"
              % (J, stats(list(lin)), stats(list(own))), flush=True)


def gaussian_process(s):
    """r over (log M, log K, log N): a shared surface, a per-family curve in log M and a jitter term,
    hyperparameters by marginal likelihood on each fold's training sizes."""
    import numpy as np
    from scipy.linalg import cho_factor, cho_solve
    from scipy.optimize import minimize
    rows = [(m, k, t) for k, f in s.fam.items() for m, v in f.items() for t in v]
    X = np.log(np.array([[m, k[0], k[1]] for m, k, _ in rows], float))
    fam = np.array([hash(k) for _, k, _ in rows])
    Ms = np.array([m for m, _, _ in rows])
    y = np.array([math.log(t / s.g(k, m)) for m, k, t in rows])
    t_meas = np.array([t for _, _, t in rows])
    gs = np.array([s.g(k, m) for m, k, _ in rows])

    def ramp(lm, th, a, b):
        return np.exp(a + (b - a) / (1 + np.exp(-(lm - th[9]) / np.exp(th[10]))))

    def cov(th, XA, FA, XB, FB, growing):
        d = (XA[:, None, :] - XB[None, :, :]) / np.exp(th[0:3])
        k = np.exp(th[3]) ** 2 * np.exp(-0.5 * (d ** 2).sum(-1))
        dm = (XA[:, None, 0] - XB[None, :, 0]) / np.exp(th[4])
        same = FA[:, None] == FB[None, :]
        if growing:
            k += ramp(XA[:, 0], th, th[5], th[6])[:, None] * ramp(XB[:, 0], th, th[5], th[6])[None, :] * np.exp(-0.5 * dm ** 2) * same
        else:
            k += np.exp(th[5]) ** 2 * np.exp(-0.5 * dm ** 2) * same
        return k

    def noise(th, XA, growing):
        return (ramp(XA[:, 0], th, th[7], th[8]) if growing else np.full(len(XA), np.exp(th[7]))) ** 2 + 1e-8

    def nll(th, Xt, Ft, yt, growing):
        try:
            c = cho_factor(cov(th, Xt, Ft, Xt, Ft, growing) + np.diag(noise(th, Xt, growing)), lower=True)
        except Exception:
            return 1e10
        return 0.5 * yt @ cho_solve(c, yt) + np.log(np.diag(c[0])).sum()

    th0 = np.log([2, 1.4, 1.3, 0.1, 0.4, 0.02, 0.05, 0.01, 0.03, 128, 0.7])
    th0[9] = math.log(128)
    for growing in (False, True):
        errs = []
        for M, train, held in s.folds():
            tr = Ms != M
            Xt, Ft, yt = X[tr], fam[tr], y[tr]
            mu = yt.mean()
            th = minimize(nll, th0, args=(Xt, Ft, yt - mu, growing), method="L-BFGS-B", options={"maxiter": 150}).x
            c = cho_factor(cov(th, Xt, Ft, Xt, Ft, growing) + np.diag(noise(th, Xt, growing)), lower=True)
            alpha = cho_solve(c, yt - mu)
            for i in np.where(Ms == M)[0]:
                mf = Ms[(fam == fam[i]) & tr]
                if mf.min() < M < mf.max():
                    pred = gs[i] * math.exp(mu + cov(th, X[i:i + 1], fam[i:i + 1], Xt, Ft, growing)[0] @ alpha)
                    errs.append(abs(pred - t_meas[i]) / t_meas[i])
            print("    fold M=%d done" % M, file=sys.stderr, flush=True)
        print("  %-44s %s" % ("Gaussian process" + (", jitter and family term growing with M" if growing else ""), stats(errs)), flush=True)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default=os.path.join(root, "reference", "profiles", "h200-sxm"), help="profile directory with gemm.csv")
    ap.add_argument("--roofs", default=os.path.join(root, "dash", "gpu", "fitted_roofs.go"), help="the package's fitted rooflines")
    ap.add_argument("--gp", action="store_true", help="also the Gaussian process and the deconvolution (numpy, scipy; several minutes)")
    args = ap.parse_args(argv)
    random.seed(1)
    s = Study(args.profile, read_roof(args.roofs))
    alternatives(s)
    oracles(s)
    floor(s, args.gp)
    if args.gp:
        gaussian_process(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
