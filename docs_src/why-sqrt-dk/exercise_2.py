import math

import numpy as np

sigma, d_k, n_samples = 2.0, 64, 20_000
rng = np.random.default_rng(0)
q = sigma * rng.standard_normal((n_samples, d_k))  # (n_samples, d_k), components with variance σ²
k = sigma * rng.standard_normal((n_samples, d_k))
dots = (q * k).sum(axis=-1)  # (n_samples,)
divisor = sigma**2 * math.sqrt(d_k)
print(d_k * sigma**4, dots.var(ddof=1).round(2))  # d_k·σ⁴, Var[q·k]
print(divisor, (dots / divisor).var(ddof=1).round(2))  # σ²·√d_k, Var[q·k / (σ²·√d_k)]
