"""Whole NumPy programs of the kinds published NumPy-compiler benchmarks hold, written the way
their NumPy versions are (issue 39, point 4: compile time): a LeNet-5 forward pass with its
convolutions and pooling as index loops, an ADI solver (Thomas sweeps in both directions), a
Stockham FFT (radix R, K stages, reshapes and twiddles per stage) and a channel-flow
Navier-Stokes solver (a pressure Poisson iteration in a loop that runs until the velocity
settles), a mandelbrot that shrinks its arrays in place, and a stack of 48 layer norms
unrolled from a loop over Python lists (a large trace). Each has an `*_inputs()` giving its
arguments; the programs write into some of them.
"""

from __future__ import annotations

import numpy as np


def relu(x):
    return np.maximum(x, 0)


def conv2d(inp, weights):
    K = weights.shape[0]
    H_out = inp.shape[1] - K + 1
    W_out = inp.shape[2] - K + 1
    output = np.empty((inp.shape[0], H_out, W_out, weights.shape[3]), dtype=np.float32)
    for i in range(H_out):
        for j in range(W_out):
            output[:, i, j, :] = np.sum(
                inp[:, i : i + K, j : j + K, :, np.newaxis] * weights[np.newaxis, :, :, :],
                axis=(1, 2, 3),
            )
    return output


def maxpool2d(x):
    output = np.empty([x.shape[0], x.shape[1] // 2, x.shape[2] // 2, x.shape[3]], dtype=x.dtype)
    for i in range(x.shape[1] // 2):
        for j in range(x.shape[2] // 2):
            output[:, i, j, :] = np.max(x[:, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2, :], axis=(1, 2))
    return output


def lenet5(inp, conv1, conv1bias, conv2, conv2bias, fc1w, fc1b, fc2w, fc2b, fc3w, fc3b, N, C):
    x = relu(conv2d(inp, conv1) + conv1bias)
    x = maxpool2d(x)
    x = relu(conv2d(x, conv2) + conv2bias)
    x = maxpool2d(x)
    x = np.reshape(x, (N, C))
    x = relu(x @ fc1w + fc1b)
    x = relu(x @ fc2w + fc2b)
    return x @ fc3w + fc3b


def lenet_inputs(N=4):
    rng = np.random.default_rng(0)
    f = np.float32
    H = W = 28
    C = 16 * 4 * 4
    return (
        rng.random((N, H, W, 1), f),
        rng.random((5, 5, 1, 6), f),
        rng.random(6, f),
        rng.random((5, 5, 6, 16), f),
        rng.random(16, f),
        rng.random((C, 120), f),
        rng.random(120, f),
        rng.random((120, 84), f),
        rng.random(84, f),
        rng.random((84, 10), f),
        rng.random(10, f),
        N,
        C,
    )


def adi(TSTEPS, N, u):
    v = np.empty(u.shape, dtype=u.dtype)
    p = np.empty(u.shape, dtype=u.dtype)
    q = np.empty(u.shape, dtype=u.dtype)
    DX = 1.0 / N
    DY = 1.0 / N
    DT = 1.0 / TSTEPS
    B1 = 2.0
    B2 = 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul2
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    for _t in range(1, TSTEPS + 1):
        v[0, 1 : N - 1] = 1.0
        p[1 : N - 1, 0] = 0.0
        q[1 : N - 1, 0] = v[0, 1 : N - 1]
        for j in range(1, N - 1):
            p[1 : N - 1, j] = -c / (a * p[1 : N - 1, j - 1] + b)
            q[1 : N - 1, j] = (
                -d * u[j, 0 : N - 2]
                + (1.0 + 2.0 * d) * u[j, 1 : N - 1]
                - f * u[j, 2:N]
                - a * q[1 : N - 1, j - 1]
            ) / (a * p[1 : N - 1, j - 1] + b)
        v[N - 1, 1 : N - 1] = 1.0
        for j in range(N - 2, 0, -1):
            v[j, 1 : N - 1] = p[1 : N - 1, j] * v[j + 1, 1 : N - 1] + q[1 : N - 1, j]
        u[1 : N - 1, 0] = 1.0
        p[1 : N - 1, 0] = 0.0
        q[1 : N - 1, 0] = u[1 : N - 1, 0]
        for j in range(1, N - 1):
            p[1 : N - 1, j] = -f / (d * p[1 : N - 1, j - 1] + e)
            q[1 : N - 1, j] = (
                -a * v[0 : N - 2, j]
                + (1.0 + 2.0 * a) * v[1 : N - 1, j]
                - c * v[2:N, j]
                - d * q[1 : N - 1, j - 1]
            ) / (d * p[1 : N - 1, j - 1] + e)
        u[1 : N - 1, N - 1] = 1.0
        for j in range(N - 2, 0, -1):
            u[1 : N - 1, j] = p[1 : N - 1, j] * u[1 : N - 1, j + 1] + q[1 : N - 1, j]


def adi_inputs(N=200, T=20):
    rng = np.random.default_rng(0)
    return (T, N, rng.random((N, N)))


def stockham_fft(N, R, K, x, y):
    i_coord, j_coord = np.mgrid[0:R, 0:R]
    dft_mat = np.exp(-2.0j * np.pi * i_coord * j_coord / R)
    y[:] = x
    ii_coord, jj_coord = np.mgrid[0:R, 0 : R**K]
    for i in range(K):
        yv = np.reshape(y, (R**i, R, R ** (K - i - 1)))
        tmp_perm = np.transpose(yv, axes=(1, 0, 2))
        D = np.empty((R, R**i, R ** (K - i - 1)), dtype=np.complex128)
        tmp = np.exp(-2.0j * np.pi * ii_coord[:, : R**i] * jj_coord[:, : R**i] / R ** (i + 1))
        D[:] = np.repeat(np.reshape(tmp, (R, R**i, 1)), R ** (K - i - 1), axis=2)
        tmp_twid = np.reshape(tmp_perm, (N,)) * np.reshape(D, (N,))
        y[:] = np.reshape(dft_mat @ np.reshape(tmp_twid, (R, R ** (K - 1))), (N,))


def fft_inputs(R=2, K=10):
    rng = np.random.default_rng(0)
    N = R**K
    x = rng.random(N) + 1j * rng.random(N)
    return (N, R, K, x, np.empty(N, np.complex128))


def build_up_b(rho, dt, dx, dy, u, v):
    b = np.zeros_like(u)
    b[1:-1, 1:-1] = rho * (
        1
        / dt
        * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))
        - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)) ** 2
        - 2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx))
        - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) ** 2
    )
    b[1:-1, -1] = rho * (
        1 / dt * ((u[1:-1, 0] - u[1:-1, -2]) / (2 * dx) + (v[2:, -1] - v[0:-2, -1]) / (2 * dy))
        - ((u[1:-1, 0] - u[1:-1, -2]) / (2 * dx)) ** 2
        - 2 * ((u[2:, -1] - u[0:-2, -1]) / (2 * dy) * (v[1:-1, 0] - v[1:-1, -2]) / (2 * dx))
        - ((v[2:, -1] - v[0:-2, -1]) / (2 * dy)) ** 2
    )
    b[1:-1, 0] = rho * (
        1 / dt * ((u[1:-1, 1] - u[1:-1, -1]) / (2 * dx) + (v[2:, 0] - v[0:-2, 0]) / (2 * dy))
        - ((u[1:-1, 1] - u[1:-1, -1]) / (2 * dx)) ** 2
        - 2 * ((u[2:, 0] - u[0:-2, 0]) / (2 * dy) * (v[1:-1, 1] - v[1:-1, -1]) / (2 * dx))
        - ((v[2:, 0] - v[0:-2, 0]) / (2 * dy)) ** 2
    )
    return b


def pressure_poisson_periodic(nit, p, dx, dy, b):
    pn = np.empty_like(p)
    for _q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = (
            (pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2
        ) / (2 * (dx**2 + dy**2)) - dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1]
        p[1:-1, -1] = (
            (pn[1:-1, 0] + pn[1:-1, -2]) * dy**2 + (pn[2:, -1] + pn[0:-2, -1]) * dx**2
        ) / (2 * (dx**2 + dy**2)) - dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, -1]
        p[1:-1, 0] = ((pn[1:-1, 1] + pn[1:-1, -1]) * dy**2 + (pn[2:, 0] + pn[0:-2, 0]) * dx**2) / (
            2 * (dx**2 + dy**2)
        ) - dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 0]
        p[-1, :] = p[-2, :]
        p[0, :] = p[1, :]


def channel_flow(nit, u, v, dt, dx, dy, p, rho, nu, F):
    udiff = 1
    stepcount = 0
    while udiff > 0.001:
        un = u.copy()
        vn = v.copy()
        b = build_up_b(rho, dt, dx, dy, u, v)
        pressure_poisson_periodic(nit, p, dx, dy, b)
        u[1:-1, 1:-1] = (
            un[1:-1, 1:-1]
            - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
            - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
            - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
            + nu
            * (
                dt / dx**2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                + dt / dy**2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])
            )
            + F * dt
        )
        v[1:-1, 1:-1] = (
            vn[1:-1, 1:-1]
            - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
            - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
            - dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
            + nu
            * (
                dt / dx**2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                + dt / dy**2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])
            )
        )
        u[1:-1, -1] = (
            un[1:-1, -1]
            - un[1:-1, -1] * dt / dx * (un[1:-1, -1] - un[1:-1, -2])
            - vn[1:-1, -1] * dt / dy * (un[1:-1, -1] - un[0:-2, -1])
            - dt / (2 * rho * dx) * (p[1:-1, 0] - p[1:-1, -2])
            + nu
            * (
                dt / dx**2 * (un[1:-1, 0] - 2 * un[1:-1, -1] + un[1:-1, -2])
                + dt / dy**2 * (un[2:, -1] - 2 * un[1:-1, -1] + un[0:-2, -1])
            )
            + F * dt
        )
        u[1:-1, 0] = (
            un[1:-1, 0]
            - un[1:-1, 0] * dt / dx * (un[1:-1, 0] - un[1:-1, -1])
            - vn[1:-1, 0] * dt / dy * (un[1:-1, 0] - un[0:-2, 0])
            - dt / (2 * rho * dx) * (p[1:-1, 1] - p[1:-1, -1])
            + nu
            * (
                dt / dx**2 * (un[1:-1, 1] - 2 * un[1:-1, 0] + un[1:-1, -1])
                + dt / dy**2 * (un[2:, 0] - 2 * un[1:-1, 0] + un[0:-2, 0])
            )
            + F * dt
        )
        v[1:-1, -1] = (
            vn[1:-1, -1]
            - un[1:-1, -1] * dt / dx * (vn[1:-1, -1] - vn[1:-1, -2])
            - vn[1:-1, -1] * dt / dy * (vn[1:-1, -1] - vn[0:-2, -1])
            - dt / (2 * rho * dy) * (p[2:, -1] - p[0:-2, -1])
            + nu
            * (
                dt / dx**2 * (vn[1:-1, 0] - 2 * vn[1:-1, -1] + vn[1:-1, -2])
                + dt / dy**2 * (vn[2:, -1] - 2 * vn[1:-1, -1] + vn[0:-2, -1])
            )
        )
        v[1:-1, 0] = (
            vn[1:-1, 0]
            - un[1:-1, 0] * dt / dx * (vn[1:-1, 0] - vn[1:-1, -1])
            - vn[1:-1, 0] * dt / dy * (vn[1:-1, 0] - vn[0:-2, 0])
            - dt / (2 * rho * dy) * (p[2:, 0] - p[0:-2, 0])
            + nu
            * (
                dt / dx**2 * (vn[1:-1, 1] - 2 * vn[1:-1, 0] + vn[1:-1, -1])
                + dt / dy**2 * (vn[2:, 0] - 2 * vn[1:-1, 0] + vn[0:-2, 0])
            )
        )
        u[0, :] = 0
        u[-1, :] = 0
        v[0, :] = 0
        v[-1, :] = 0
        udiff = (np.sum(u) - np.sum(un)) / np.sum(u)
        stepcount += 1
    return stepcount


def channel_inputs(ny=41, nx=41):
    nit = 50
    dx = 2 / (nx - 1)
    dy = 2 / (ny - 1)
    rho, nu, F, dt = 1.0, 0.1, 1.0, 0.01
    u = np.zeros((ny, nx))
    v = np.zeros((ny, nx))
    p = np.ones((ny, nx))
    return (nit, u, v, dt, dx, dy, p, rho, nu, F)


def _grid_indices(xn, yn):
    xi = np.empty((xn, yn), dtype=np.int64)
    yi = np.empty((xn, yn), dtype=np.int64)
    for i in range(xn):
        xi[i, :] = i
    for j in range(yn):
        yi[:, j] = j
    return xi, yi


def mandelbrot2(xmin, xmax, ymin, ymax, xn, yn, itermax, horizon=2.0):
    """NPBench's mandelbrot2 (np.mgrid written out): the points still inside are squared
    in place and compacted every trip, their escape trips scattered into the grid."""
    Xi, Yi = _grid_indices(xn, yn)
    X = np.linspace(xmin, xmax, xn, dtype=np.float64)[Xi]
    Y = np.linspace(ymin, ymax, yn, dtype=np.float64)[Yi]
    C = X + Y * 1j
    N_ = np.zeros(C.shape, dtype=np.int64)
    Z_ = np.zeros(C.shape, dtype=np.complex128)
    Xi.shape = Yi.shape = C.shape = xn * yn
    Z = np.zeros(C.shape, np.complex128)
    for i in range(itermax):
        if not len(Z):
            break
        np.multiply(Z, Z, Z)
        np.add(Z, C, Z)
        I = abs(Z) > horizon  # noqa: E741  (NPBench's name)
        N_[Xi[I], Yi[I]] = i + 1
        Z_[Xi[I], Yi[I]] = Z[I]
        np.logical_not(I, I)
        Z = Z[I]
        Xi, Yi = Xi[I], Yi[I]
        C = C[I]
    return Z_.T, N_.T


def mandelbrot_inputs():
    return (-2.25, 0.75, -1.25, 1.25, 200, 200, 50)


def layer_norm_stack(x, gammas, betas):
    """A residual stack of layer norms and tanh, one block per (gamma, beta) of the lists:
    the loop over Python lists unrolls while tracing, so the trace holds every block (48
    blocks, ~700 ops), as a deep network written with a Python loop over its layers does."""
    for gamma, beta in zip(gammas, betas, strict=True):
        mu = np.mean(x, axis=1, keepdims=True)
        sd = np.sqrt(np.mean((x - mu) ** 2, axis=1, keepdims=True) + 1e-5)
        x = x + np.tanh((x - mu) / sd * gamma + beta)
    return x


def layer_norm_inputs(layers=48, batch=64, width=256):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((batch, width))
    gammas = [1.0 + 0.1 * rng.standard_normal(width) for _ in range(layers)]
    betas = [0.1 * rng.standard_normal(width) for _ in range(layers)]
    return (x, gammas, betas)


# (key, title, program, inputs, whether the result is the program's value or its writes)
PROGRAMS = (
    ("P1", "LeNet-5 forward, batch 4", lenet5, lenet_inputs, "value"),
    ("P2", "ADI solver 200x200, 20 steps", adi, adi_inputs, "writes"),
    ("P3", "Stockham FFT, 2**10", stockham_fft, fft_inputs, "writes"),
    ("P4", "channel flow 41x41, to steady state", channel_flow, channel_inputs, "writes"),
    ("P5", "mandelbrot2 200x200, 50 trips (in place, shrinking)", mandelbrot2,
     mandelbrot_inputs, "value"),
    ("P6", "48 layer norms + tanh, unrolled, 64x256", layer_norm_stack, layer_norm_inputs,
     "value"),
)  # fmt: skip
