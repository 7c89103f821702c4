// RUN: tracejit-opt %s -p value-and-grad | filecheck %s
// d/dx sum(sin(x) * y) = cos(x) * y, d/dy = sin(x); the integer argument gets none.

func.func @f(%x: tensor<3xf64>, %y: tensor<3xf64>, %n: tensor<i64>) -> tensor<f64> {
  %s = tj.sin %x : tensor<3xf64>
  %p = tj.mul %s, %y : tensor<3xf64>
  %r = tj.reduce "sum" %p, axes = [0] : tensor<3xf64> to tensor<f64>
  func.return %r : tensor<f64>
}

// CHECK:      func.func @f(
// CHECK:      func.func @f_value_and_grad(%[[X:.*]]: tensor<3xf64>, %[[Y:.*]]: tensor<3xf64>, %{{.*}}: tensor<i64>) -> (tensor<f64>, tensor<3xf64>, tensor<3xf64>) {
// CHECK-NEXT:   %[[S:.*]] = tj.sin %[[X]] : tensor<3xf64>
// CHECK-NEXT:   %[[P:.*]] = tj.mul %[[S]], %[[Y]] : tensor<3xf64>
// CHECK-NEXT:   %[[R:.*]] = tj.reduce "sum" %[[P]], axes = [0] : tensor<3xf64> to tensor<f64>
// CHECK-NEXT:   %[[ONE:.*]] = tj.constant dense<1.000000e+00> : tensor<f64>
// CHECK:        %[[G:.*]] = tj.broadcast_in_dim
// CHECK-NEXT:   %[[GS:.*]] = tj.mul %[[G]], %[[Y]] : tensor<3xf64>
// CHECK-NEXT:   %[[GY:.*]] = tj.mul %[[G]], %[[S]] : tensor<3xf64>
// CHECK-NEXT:   %[[COS:.*]] = tj.cos %[[X]] : tensor<3xf64>
// CHECK-NEXT:   %[[GX:.*]] = tj.mul %[[GS]], %[[COS]] : tensor<3xf64>
// CHECK-NEXT:   func.return %[[R]], %[[GX]], %[[GY]] : tensor<f64>, tensor<3xf64>, tensor<3xf64>
