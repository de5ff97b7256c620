"""Plain stochastic gradient descent: θ ← θ − lr · g, the step as large as the gradient (Adam's is not)."""

from __future__ import annotations

from qkv.learning.network import Parameters


class SGD:
    """θ ← θ − lr · g, no momentum: a small gradient makes a small step, so a vanishing gradient shows.

    Adam divides each step by a running root-mean-square of the gradient, so its steps are about
    `learning_rate` long however small the gradient is; SGD is the control for every claim about
    how much gradient reaches W_Q and W_K.

    >>> import numpy as np
    >>> params = {"w": np.array([1.0, -1.0])}
    >>> SGD(params, learning_rate=0.5).step(params, {"w": np.array([2.0, -0.5])})
    >>> params["w"]
    array([ 0.  , -0.75])
    """

    def __init__(self, params: Parameters, *, learning_rate: float) -> None:
        self.learning_rate = learning_rate

    def step(self, params: Parameters, grads: Parameters) -> None:
        """Update `params` in place from `grads` (same names and shapes)."""
        for name, g in grads.items():
            params[name] -= self.learning_rate * g
