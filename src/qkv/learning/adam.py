"""Adam (Kingma & Ba, 2015), written out: a running mean of the gradient and of its square, bias-corrected."""

from __future__ import annotations

import numpy as np

from qkv.learning.network import Parameters


class Adam:
    """θ ← θ − lr · m̂ / (√v̂ + ε), with m, v the running means of g and g² (β₁ = 0.9, β₂ = 0.999).

    >>> params = {"w": np.array([1.0, -1.0])}
    >>> adam = Adam(params, learning_rate=0.1)
    >>> adam.step(params, {"w": np.array([2.0, -0.5])})
    >>> params["w"]  # the first step moves every component by lr against its gradient's sign
    array([ 0.9, -0.9])
    """

    def __init__(self, params: Parameters, *, learning_rate: float, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8) -> None:
        self.learning_rate, self.beta1, self.beta2, self.eps = learning_rate, beta1, beta2, eps
        self.m = {name: np.zeros_like(value) for name, value in params.items()}
        self.v = {name: np.zeros_like(value) for name, value in params.items()}
        self.t = 0

    def step(self, params: Parameters, grads: Parameters) -> None:
        """Update `params` in place from `grads` (same names and shapes)."""
        self.t += 1
        correction1 = 1.0 - self.beta1**self.t
        correction2 = 1.0 - self.beta2**self.t
        for name, g in grads.items():
            self.m[name] = self.beta1 * self.m[name] + (1.0 - self.beta1) * g
            self.v[name] = self.beta2 * self.v[name] + (1.0 - self.beta2) * g * g
            m_hat = self.m[name] / correction1
            v_hat = self.v[name] / correction2
            params[name] -= self.learning_rate * m_hat / (np.sqrt(v_hat) + self.eps)
