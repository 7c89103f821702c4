// canonicalize on complex tensors: the float rules hold part by part, so z + (-0.0 - 0.0j)
// and z - (0.0 + 0.0j) are z, but z + 0j is not (it turns -0.0 parts into +0.0); z * 0 and
// a sum over a size-1 axis stay (NaN parts, signed zeros); z * 1 stays too: its real part
// is zr * 1 - zi * 0, NaN for an infinite zi. z ** 2 is z * z (npy_cpow's own unrolling);
// z ** 1 stays (npy_cpow gives +0.0 + 0.0j for every zero z).
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @exact(%z: tensor<3xcomplex<f64>>)
  // CHECK-NEXT:    func.return %z, %z : tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>
  func.func @exact(%z: tensor<3xcomplex<f64>>) -> (tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>) {
    %minus_zero = tj.constant dense<(-0.0, -0.0)> : tensor<3xcomplex<f64>>
    %a = tj.add %z, %minus_zero : tensor<3xcomplex<f64>>
    %zero = tj.constant dense<(0.0, 0.0)> : tensor<3xcomplex<f64>>
    %s = tj.sub %z, %zero : tensor<3xcomplex<f64>>
    func.return %a, %s : tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>
  }

  // CHECK-LABEL: func.func @inexact(%z: tensor<3xcomplex<f32>>)
  // CHECK:         %{{.*}} = tj.add %z, %{{.*}} : tensor<3xcomplex<f32>>
  // CHECK:         %{{.*}} = tj.mul %z, %{{.*}} : tensor<3xcomplex<f32>>
  // CHECK:         %{{.*}} = tj.mul %z, %{{.*}} : tensor<3xcomplex<f32>>
  // CHECK:         %{{.*}} = tj.reduce "sum" %{{.*}}, axes = [1]
  func.func @inexact(%z: tensor<3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) {
    %zero = tj.constant dense<(0.0, 0.0)> : tensor<3xcomplex<f32>>
    %a = tj.add %z, %zero : tensor<3xcomplex<f32>>
    %m0 = tj.mul %z, %zero : tensor<3xcomplex<f32>>
    %one = tj.constant dense<(1.0, 0.0)> : tensor<3xcomplex<f32>>
    %m1 = tj.mul %z, %one : tensor<3xcomplex<f32>>
    %r = tj.reshape %z : tensor<3xcomplex<f32>> to tensor<3x1xcomplex<f32>>
    %s = tj.reduce "sum" %r, axes = [1] : tensor<3x1xcomplex<f32>> to tensor<3xcomplex<f32>>
    func.return %a, %m0, %m1, %s : tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>
  }

  // CHECK-LABEL: func.func @powers(%z: tensor<3xcomplex<f64>>)
  // CHECK-NEXT:    %[[S:.*]] = tj.mul %z, %z : tensor<3xcomplex<f64>>
  // CHECK-NEXT:    %[[ONE:.*]] = tj.constant
  // CHECK-NEXT:    %[[P:.*]] = tj.pow %z, %[[ONE]] : tensor<3xcomplex<f64>>
  // CHECK-NEXT:    func.return %[[S]], %[[P]]
  func.func @powers(%z: tensor<3xcomplex<f64>>) -> (tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>) {
    %two = tj.constant dense<(2.0, 0.0)> : tensor<3xcomplex<f64>>
    %p = tj.pow %z, %two : tensor<3xcomplex<f64>>
    %one = tj.constant dense<(1.0, 0.0)> : tensor<3xcomplex<f64>>
    %q = tj.pow %z, %one : tensor<3xcomplex<f64>>
    func.return %p, %q : tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>
  }
}
