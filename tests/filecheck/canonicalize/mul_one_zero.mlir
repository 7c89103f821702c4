// canonicalize: x * 1 -> x (ints and floats: x * 1.0 is exactly x, -0.0 and NaN too);
// x * 0 -> 0 for integers only. A float x * 0.0 stays: Inf * 0 and NaN * 0 are NaN and
// -1.0 * 0.0 is -0.0.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @mul_one(%x: tensor<2x3xf64>, %y: tensor<3xi16>)
  // CHECK-NEXT:    func.return %x, %y : tensor<2x3xf64>, tensor<3xi16>
  func.func @mul_one(%x: tensor<2x3xf64>, %y: tensor<3xi16>) -> (tensor<2x3xf64>, tensor<3xi16>) {
    %one = tj.constant dense<1.0> : tensor<f64>
    %ones = tj.broadcast_in_dim %one, dims = [] : tensor<f64> to tensor<2x3xf64>
    %a = tj.mul %ones, %x : tensor<2x3xf64>
    %i = tj.constant dense<1> : tensor<3xi16>
    %b = tj.mul %y, %i : tensor<3xi16>
    func.return %a, %b : tensor<2x3xf64>, tensor<3xi16>
  }

  // CHECK-LABEL: func.func @int_mul_zero(%x: tensor<4xi64>)
  // CHECK-NEXT:    %[[Z:.*]] = tj.constant dense<0> : tensor<4xi64>
  // CHECK-NEXT:    func.return %[[Z]], %[[Z]] : tensor<4xi64>, tensor<4xi64>
  func.func @int_mul_zero(%x: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
    %z = tj.constant dense<0> : tensor<4xi64>
    %a = tj.mul %x, %z : tensor<4xi64>
    %b = tj.mul %z, %x : tensor<4xi64>
    func.return %a, %b : tensor<4xi64>, tensor<4xi64>
  }

  // CHECK-LABEL: func.func @float_mul_zero_stays(%x: tensor<4xf32>)
  // CHECK:         %[[M:.*]] = tj.mul %x, %{{.*}} : tensor<4xf32>
  // CHECK-NEXT:    func.return %[[M]]
  func.func @float_mul_zero_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
    %z = tj.constant dense<0.0> : tensor<4xf32>
    %a = tj.mul %x, %z : tensor<4xf32>
    func.return %a : tensor<4xf32>
  }

  // CHECK-LABEL: func.func @mul_two_stays(%x: tensor<4xi32>)
  // CHECK:         tj.mul %x, %{{.*}} : tensor<4xi32>
  func.func @mul_two_stays(%x: tensor<4xi32>) -> tensor<4xi32> {
    %c = tj.constant dense<2> : tensor<4xi32>
    %a = tj.mul %x, %c : tensor<4xi32>
    func.return %a : tensor<4xi32>
  }
}
