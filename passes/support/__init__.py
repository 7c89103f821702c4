"""Code the passes share, or that a long pass keeps apart; none of it is a pass.

The passes are the other modules of `passes/` (and the `bufferize/` and `canonicalize/`
packages), each named after its command-line name and registered in `pipeline.py`.

* `scalar_semantics.py`: what each element-wise `tj` op computes on one element, in
  `arith` and `math` (used by `bufferize` and `tile-matmul`);
* `indices.py`: `index` constants and buffer dims (the bounds and subscripts of loops);
* `expand_math_builder.py`: the small `arith` builder `expand-math` writes its
  approximations with; `expand_math_coefficients.py`: their polynomial coefficients;
* `tile_matvec.py`: matrix @ vector generics as dot products of a few rows at a time
  (used by `tile-matmul`);
* `parallel_reductions.py`: a loop folding big partial results in order, split into a
  parallel loop storing the partials and a serial fold (used by `parallelize`).
"""
