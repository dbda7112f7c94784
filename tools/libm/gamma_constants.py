#!/usr/bin/python3
"""gamma_constants.py - the series coefficients of include/ufn_libm_special.h
for lgamma and tgamma, and its double-word constants.

    /usr/bin/python3 tools/libm/gamma_constants.py

  L   lgamma(2 + t) = t L(t): L(t) = sum c_k t^(k-1), c_1 = 1 - Euler's
      constant, c_k = (-1)^k (zeta(k) - 1) / k; |t| <= 1/4, the terms after
      t^21 stay below 2^-67.
  S   Stirling's series lgamma(x) - ((x - 1/2) log x - x + log(2 pi)/2) =
      sum B_2k / (2k (2k - 1)) x^(1-2k), k = 1..8 (x >= 12: the next term is
      below 2^-60).
"""
import mpmath as mp

mp.mp.prec = 300


def dd(v):
    hi = float(v)
    return "%s %s" % (hi.hex(), float(v - mp.mpf(hi)).hex())


cs = [1 - mp.euler] + [(-1) ** k * (mp.zeta(k) - 1) / k for k in range(2, 23)]
print("L:", ", ".join(float(c).hex() for c in cs))
bs = [mp.bernoulli(2 * k) / (2 * k * (2 * k - 1)) for k in range(1, 9)]
print("S:", ", ".join(float(b).hex() for b in bs))
print("log(2 pi)/2:", dd(mp.log(2 * mp.pi) / 2))
print("log(pi):", dd(mp.log(mp.pi)))
print("1/sqrt(pi):", dd(1 / mp.sqrt(mp.pi)))
