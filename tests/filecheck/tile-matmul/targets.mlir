// RUN: tracejit-opt %s -p 'tile-matmul{target=avx2}' | filecheck %s --check-prefix=AVX2
// RUN: tracejit-opt %s -p 'tile-matmul{target=avx512}' | filecheck %s --check-prefix=AVX512
// RUN: tracejit-opt %s -p tile-matmul | filecheck %s --check-prefix=AVX2
// RUN: not tracejit-opt %s -p 'tile-matmul{target=sse}' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not tracejit-opt %s -p 'tile-matmul{target=host}' 2>&1 | filecheck %s --check-prefix=HOST

// The register tile is MR x NR = 6 rows x two vector registers: 16 f32 wide with AVX2's
// 32-byte registers, 32 wide with AVX-512's 64-byte ones (and 32 of them to hold it).
// Without a target the pass tiles for AVX2 on every machine: it reads no host facts (the
// compiler driver names the host's target in the pipeline it runs; `host` is no target).
func.func @f32(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// AVX2:          %acc = memref.alloca() alignment = 64 : memref<6x16xf32>
// AVX512:        %acc = memref.alloca() alignment = 64 : memref<6x32xf32>
// BAD:           unknown target 'sse'; use avx2 or avx512
// HOST:          unknown target 'host'; use avx2 or avx512
