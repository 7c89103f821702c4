// C-style integer division has no tj op (NumPy's // rounds down): refused, named.
// RUN: not tracejit-opt %s 2>&1 | filecheck %s

func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %init = tensor.empty() : tensor<4xi32>
  %q = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%init : tensor<4xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %d = arith.divsi %x, %y : i32
    linalg.yield %d : i32
  } -> tensor<4xi32>
  func.return %q : tensor<4xi32>
}

// CHECK: 'arith.divsi' at line 9 cannot be imported into tj: no tj op has its meaning
