// constant-fold evaluates pure tj ops on constants with their NumPy meaning: chains fold
// in one run, integers wrap, -0.0 + 0.0 is +0.0; an op with a non-constant operand stays,
// and so does an op with side effects (tj.print) whose operand became a constant.
// RUN: tracejit-opt %s -p constant-fold | filecheck %s

builtin.module {
  func.func @f(%x: tensor<2xi8>) -> (tensor<2xi8>, tensor<2xi8>, tensor<f32>, tensor<2xf32>) {
    %a = tj.constant dense<[127, -128]> : tensor<2xi8>
    %one = tj.constant dense<1> : tensor<i8>
    %b = tj.broadcast_in_dim %one, dims = [] : tensor<i8> to tensor<2xi8>
    %wrap = tj.add %a, %b : tensor<2xi8>
    %kept = tj.add %x, %wrap : tensor<2xi8>
    %nz = tj.constant dense<[-0.0, 2.0]> : tensor<2xf32>
    %pz = tj.constant dense<0.0> : tensor<2xf32>
    %s = tj.add %nz, %pz : tensor<2xf32>
    %t = tj.reduce "sum" %s, axes = [0] : tensor<2xf32> to tensor<f32>
    tj.print %t {pieces = ["", "\n"]} : tensor<f32>
    func.return %wrap, %kept, %t, %s : tensor<2xi8>, tensor<2xi8>, tensor<f32>, tensor<2xf32>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: tensor<2xi8>)
// CHECK-NEXT:   %[[W:.*]] = tj.constant dense<[-128, -127]> : tensor<2xi8>
// CHECK-NEXT:   %[[K:.*]] = tj.add %[[X]], %[[W]] : tensor<2xi8>
// CHECK-NEXT:   %[[S:.*]] = tj.constant dense<[0.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:   %[[T:.*]] = tj.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:   tj.print %[[T]]
// CHECK-NEXT:   func.return %[[W]], %[[K]], %[[T]], %[[S]]
