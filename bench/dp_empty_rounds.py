# The released mechanism of fgl before issue 48 (a DP round without participants released the model
# without noise) against the sampled Gaussian the accountant describes, for one pair of neighbouring
# datasets: D' = K-1 clients whose clipped updates are 0, D = the same plus one client whose update
# moves the sum by C (1 noise standard deviation at noise multiplier 1). Renyi divergences by numerical
# integration of the continuous parts plus the point mass at the unchanged model.
import math
def old_mech(K, q, s, alpha, n=20001, L=12.0):
    p0p, p0 = (1 - q) ** (K - 1), (1 - q) ** K
    dx = 2 * L / (n - 1)
    lg = lambda x, m: -(x - m) ** 2 / (2 * s * s) - 0.5 * math.log(2 * math.pi * s * s)
    s1 = s2 = 0.0
    for i in range(n):
        x = -L + i * dx
        lP = math.log((1 - q) * (1 - p0p) * math.exp(lg(x, 0)) + q * math.exp(lg(x, 1)))
        lQ = math.log(1 - p0p) + lg(x, 0)
        s1 += math.exp(alpha * lP + (1 - alpha) * lQ)
        s2 += math.exp(alpha * lQ + (1 - alpha) * lP)
    d1 = math.log(s1 * dx + p0 ** alpha * p0p ** (1 - alpha)) / (alpha - 1)
    d2 = math.log(s2 * dx + p0p ** alpha * p0 ** (1 - alpha)) / (alpha - 1)
    return max(d1, d2)
def acc(q, s, a):  # the sampled Gaussian mechanism, integer order (binomial expansion)
    t = [math.lgamma(a + 1) - math.lgamma(k + 1) - math.lgamma(a - k + 1) + (a - k) * math.log1p(-q) + k * math.log(q)
         + (k * k - k) / (2 * s * s) for k in range(a + 1)]
    m = max(t)
    return (m + math.log(sum(math.exp(v - m) for v in t))) / (a - 1)
q, s, T, delta = 0.2, 1.0, 100, 1e-5
for K in (5, 10):
    olds = {a: old_mech(K, q, s, a) for a in range(2, 16)}
    e_old = min(T * olds[a] + math.log(1 / delta) / (a - 1) for a in olds)
    e_acc = min(T * acc(q, s, a) + math.log(1 / delta) / (a - 1) for a in range(2, 16))
    print("K %d, q %.1f, sigma %.0f: order-2 RDP a round %.4f (old mechanism) against %.4f (sampled Gaussian); "
          "epsilon over %d rounds at delta 1e-5, integer orders 2-15: >= %.1f against %.1f" % (K, q, s, olds[2], acc(q, s, 2), T, e_old, e_acc))
