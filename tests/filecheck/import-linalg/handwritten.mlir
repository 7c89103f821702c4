// A hand-written upstream MLIR function (linalg on tensors, arith, math, func) imported as
// tj and run by tracejit's own pipeline: y = relu(x @ w + b), then each row's max.
// RUN: tracejit-opt %s -p '' | filecheck %s --check-prefix=TJ
// RUN: tracejit-opt %s --run --input arg0="[[1.0, -2.0], [3.0, 4.0]]" --input arg1="[[1.0, 0.5, -1.0], [2.0, 0.0, 1.0]]" --input arg2="[0.5, 0.0, -0.5]" | filecheck %s --check-prefix=OUT

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @dense_relu_max(%x: tensor<2x2xf32>, %w: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<2x2xf32>, tensor<2x3xf32>) outs(%acc : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%init : tensor<2x3xf32>) {
  ^bb0(%m: f32, %bias: f32, %out: f32):
    %s = arith.addf %m, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %rinit = tensor.empty() : tensor<2xf32>
  %racc = linalg.fill ins(%ninf : f32) outs(%rinit : tensor<2xf32>) -> tensor<2xf32>
  %mx = linalg.generic {indexing_maps = [#id2, #red], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<2x3xf32>) outs(%racc : tensor<2xf32>) {
  ^bb0(%v: f32, %a: f32):
    %n = arith.maximumf %a, %v : f32
    linalg.yield %n : f32
  } -> tensor<2xf32>
  func.return %y, %mx : tensor<2x3xf32>, tensor<2xf32>
}

// TJ:      func.func @dense_relu_max
// TJ:        tj.matmul
// TJ:        tj.broadcast_in_dim %{{.*}}, dims = [1] : tensor<3xf32> to tensor<2x3xf32>
// TJ:        tj.maximum
// TJ:        tj.reduce "max" %{{.*}}, axes = [1] : tensor<2x3xf32> to tensor<2xf32>
// TJ-NOT:    linalg.

// x @ w = [[-3, 0.5, -3], [11, 1.5, 1]]; + b, relu: [[0, 0.5, 0], [11.5, 1.5, 0.5]]
// OUT:      result[0]: float32[2, 3] = [[ 0.   0.5  0. ]
// OUT-NEXT:                             [11.5  1.5  0.5]]
// OUT-NEXT: result[1]: float32[2] = [ 0.5 11.5]
