"""bench/ops peers: linear algebra and FFT (ops_table_linalg.cpp). NumPy's BLAS/LAPACK run on
one thread (numpy_peer.py is started with OPENBLAS_NUM_THREADS=1); numpy.fft (pocketfft in
NumPy 1.24) computes in float64 whatever the input's precision, tensord's FFTW in float32.
numpy_ops(i) and scipy_ops(i, sc) map names to calls over the inputs i of
numpy_peer.make_inputs."""
import numpy as np

la = np.linalg


def numpy_ops(i):
    a, b, spd, s = i.a, i.b, i.spd, i.signal
    return {
        "tensordot": lambda: np.tensordot(a, b, 1),
        "einsum": lambda: np.einsum("ij,jk->ik", a, b, optimize=True),
        "multi_dot": lambda: la.multi_dot([a, b, a]),
        "chain_matmul": lambda: la.multi_dot([a, b, a]),
        "matrix_power3": lambda: la.matrix_power(a, 3),
        "outer": lambda: np.outer(i.weight, i.edges),
        "kron": lambda: np.kron(s[:1024].reshape(32, 32), s[1024:2048].reshape(32, 32)),
        "trace": lambda: np.trace(a), "det": lambda: la.det(a), "slogdet": lambda: la.slogdet(a),
        "inv": lambda: la.inv(a), "solve": lambda: la.solve(spd, b),
        "cholesky": lambda: la.cholesky(spd), "qr": lambda: la.qr(a),
        "svd": lambda: la.svd(a, full_matrices=False),
        "svdvals": lambda: la.svd(a, compute_uv=False),
        "eigh": lambda: la.eigh(spd), "eigvalsh": lambda: la.eigvalsh(spd),
        "lstsq": lambda: la.lstsq(a, b, rcond=None), "pinv": lambda: la.pinv(a),
        "matrix_rank": lambda: la.matrix_rank(a),
        "matrix_norm_fro": lambda: la.norm(a, "fro"),
        "cross": lambda: np.cross(i.v3a, i.v3b),
        "fft": lambda: np.fft.fft(s), "ifft": lambda: np.fft.ifft(i.spectrum),
        "rfft": lambda: np.fft.rfft(s), "irfft": lambda: np.fft.irfft(i.rspectrum),
        "fft2": lambda: np.fft.fft2(a), "ifft2": lambda: np.fft.ifft2(i.spectrum2),
        "fftn": lambda: np.fft.fftn(a), "ifftn": lambda: np.fft.ifftn(i.spectrum2),
        "fftfreq": lambda: np.fft.fftfreq(1 << 20).astype(np.float32),
        "rfftfreq": lambda: np.fft.rfftfreq(1 << 20).astype(np.float32),
        "fftshift": lambda: np.fft.fftshift(s), "ifftshift": lambda: np.fft.ifftshift(s),
    }


def scipy_ops(i, sc):
    return {
        "pdist": lambda: sc.distance.pdist(i.x),
        "cdist": lambda: sc.distance.cdist(i.x, i.x100),
    }
