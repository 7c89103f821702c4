// --timing: a wall-time table (stderr) of parsing, each pass, and the LLVM steps;
// --stats: op counts per dialect before and after.
// RUN: tracejit-opt %s --emit llvm --timing -o %t 2>&1 | filecheck %s
// RUN: tracejit-opt %s --emit loops --stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

builtin.module {
  func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
    %r = tj.exp %x : tensor<8xf32>
    func.return %r : tensor<8xf32>
  }
}

// CHECK:      ... Execution time report ...
// CHECK:      Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// CHECK:      ----Wall Time----  ----Name----
// CHECK-NEXT: {{ +[0-9]+\.[0-9]+ \( *[0-9.]+%\)}}  parse
// CHECK-NEXT: {{[0-9.]+ \( *[0-9.]+%\)}}  verify input
// CHECK-NEXT: {{[0-9.]+ \( *[0-9.]+%\)}}  inline
// CHECK:      {{[0-9.]+ \( *[0-9.]+%\)}}  bufferize
// CHECK:      {{[0-9.]+ \( *[0-9.]+%\)}}  lower-asserts
// CHECK-NEXT: {{[0-9.]+ \( *[0-9.]+%\)}}  translate to LLVM IR
// CHECK-NEXT: {{[0-9.]+ \( *[0-9.]+%\)}}  LLVM parse + verify
// CHECK-NEXT: {{[0-9.]+ \( *[0-9.]+%\)}}  LLVM optimisation (O3)
// CHECK-NEXT: {{[0-9.]+ \( *[0-9.]+%\)}}  machine code generation
// CHECK-NEXT: {{[0-9.]+}} (100.0%)  Total

// The loop nest's exact op counts are the business of lower-to-loops' own tests.
// STATS:      // ----- op counts per dialect -----
// STATS-NEXT: dialect  before   after
// STATS-NEXT: arith    {{ +}}0 {{ +[1-9][0-9]*}}
// STATS-NEXT: func     {{ +}}2 {{ +}}2
// STATS:      memref   {{ +}}0 {{ +[1-9][0-9]*}}
// STATS-NEXT: scf      {{ +}}0 {{ +[1-9][0-9]*}}
// STATS-NEXT: tj       {{ +}}1 {{ +}}0
// STATS-NEXT: total    {{ +}}3 {{ +[0-9]+}}
