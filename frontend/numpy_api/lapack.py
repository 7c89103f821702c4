

@implements(np.linalg.slogdet)
def slogdet(a: object) -> tuple[Tensor, Tensor]:
    matrices = _stack(np.linalg.slogdet, a, _operand_dtype(np.linalg.slogdet, [a]))
    sign, logabsdet = _linalg("slogdet", [matrices])
    return _SlogdetResult(sign, logabsdet)


@implements(np.linalg.det)
def det(a: object) -> Tensor:
    """sign * exp(logabsdet), as NumPy's det computes it (so 0 for a singular matrix)."""
    matrices = _stack(np.linalg.det, a, _operand_dtype(np.linalg.det, [a]))
    sign, logabsdet = _linalg("slogdet", [matrices])
    return np.multiply(sign, np.exp(logabsdet))
