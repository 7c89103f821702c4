// tracejit-opt imports an upstream file as it reads it (tools/opt_session.py), so an explicit
// `-p import-linalg` on chapter 07's own export finds tj ops: it leaves them as they are,
// the same module as with no pass.
// RUN: tracejit-opt %s -p import-linalg | filecheck %s
// RUN: tracejit-opt %s -p import-linalg,import-linalg --run --input arg0="[1.0, -2.0, 3.0]" | filecheck %s --check-prefix=OUT

func.func @twice(%x: tensor<3xf32>) -> tensor<3xf32> {
  %init = tensor.empty() : tensor<3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<3xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// CHECK:      func.func @twice(%{{.*}}: tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NOT:    linalg
// CHECK:        %{{.*}} = tj.add %{{.*}}, %{{.*}} : tensor<3xf32>
// CHECK-NEXT:   func.return
// OUT: [ 2. -4.  6.]
