// Complex tensors: the complex ops and constants (NaN parts and -0.0 included) print, parse
// back and print the same (complex_invalid.mlir has the verifiers' rejections).
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

// CHECK-LABEL: func.func @parts(%z: tensor<2xcomplex<f64>>)
// CHECK-NEXT:    %re = tj.real %z : tensor<2xcomplex<f64>> to tensor<2xf64>
// CHECK-NEXT:    %im = tj.imag %z : tensor<2xcomplex<f64>> to tensor<2xf64>
// CHECK-NEXT:    %c = tj.conj %z : tensor<2xcomplex<f64>>
// CHECK-NEXT:    %k = tj.constant dense<"0x000000000000F87F00000000000000800000000000000000000000000000F0FF"> : tensor<2xcomplex<f64>>
// CHECK-NEXT:    %e = tj.exp %k : tensor<2xcomplex<f64>>
// CHECK-NEXT:    %w = tj.cast %e : tensor<2xcomplex<f64>> to tensor<2xcomplex<f32>>
func.func @parts(%z: tensor<2xcomplex<f64>>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xcomplex<f64>>, tensor<2xcomplex<f32>>) {
  %re = tj.real %z : tensor<2xcomplex<f64>> to tensor<2xf64>
  %im = tj.imag %z : tensor<2xcomplex<f64>> to tensor<2xf64>
  %c = tj.conj %z : tensor<2xcomplex<f64>>
  %k = tj.constant dense<"0x000000000000F87F00000000000000800000000000000000000000000000F0FF"> : tensor<2xcomplex<f64>>
  %e = tj.exp %k : tensor<2xcomplex<f64>>
  %w = tj.cast %e : tensor<2xcomplex<f64>> to tensor<2xcomplex<f32>>
  func.return %re, %im, %c, %w : tensor<2xf64>, tensor<2xf64>, tensor<2xcomplex<f64>>, tensor<2xcomplex<f32>>
}
